// A catalog split into parts (shards), each indexed apart: which part a tool belongs to, and the statistics a part
// contributes to the whole catalog's. A ranking's figures are not a part's own: BM25's IDF and average lengths count the
// whole catalog's tools, the semantic half centres on the whole catalog's mean vector, the substring mode weighs a
// keyword by how many of the whole catalog's tools it hits. Each part reports its counts, the isolate adds them up
// (exact integer sums, and the vectors' sum is exact: semantic.ts, GRID) and every part ranks with the whole's, so
// that the parts' pages merged by score (catalog order breaking ties) are the page of one index over the whole.
import type { ToolDefinition } from "../types.ts";
import { lowerBound } from "./bm25Postings.ts";
import { FIELDS } from "./fields.ts";

/** What a part adds to the whole catalog's statistics whatever the query (per registry version and view). */
export interface PartCatalog {
  toolCount: number;
  /** Per field (FIELDS order): the sum of the part's tools' lengths in it (minisearch; zeros for substring). */
  fieldLengthSums: number[];
  /** No term of the part is longer (minisearch; 0 for substring). */
  longestTerm: number;
  /** The sum of the part's tool vectors and how many it has (minisearch with the semantic half; else empty and 0). */
  vectorSum: number[];
  vectorCount: number;
}

/**
 * Per term: how many of a part's (or the whole catalog's) tools hold it, then per field (FIELDS order) how many hold
 * it there (minisearch); per keyword: how many tools it hits, alone (substring).
 */
export type TermCounts = Map<string, number[]>;

/** Where the whole catalog's counts of terms are looked up: a query's (TermCounts) or every term's (TermTable). */
export interface TermLookup {
  get(term: string): readonly number[] | undefined;
}

/** The whole catalog's statistics, which every part ranks with. */
export interface WholeCatalog {
  catalog: PartCatalog;
  terms: TermLookup;
}

/**
 * A part's counts of every term it holds (minisearch; none for substring), as they travel between shards: the terms
 * sorted (UTF-16 order), and per term `counts[i * stride … (i + 1) * stride)` (TermCounts' layout).
 */
export interface PartTermTable {
  terms: string[];
  counts: Int32Array;
}

/** The counts per term of a table: the tools holding it, then per field. */
export const TERM_STRIDE = 1 + FIELDS.length;

/** The whole catalog's counts of every term: the parts' tables added up, looked up by binary search. */
export class TermTable implements TermLookup {
  readonly #terms: readonly string[];
  readonly #counts: Int32Array;

  constructor(table: PartTermTable) {
    if (table.counts.length !== table.terms.length * TERM_STRIDE) throw new Error("a term table needs TERM_STRIDE counts per term");
    this.#terms = table.terms;
    this.#counts = table.counts;
  }

  get size(): number {
    return this.#terms.length;
  }

  /** The table as it was made (sorted terms, TERM_STRIDE counts each): what a shard keeps of it (wholeSnapshot.ts). */
  get entries(): { readonly terms: readonly string[]; readonly counts: Int32Array } {
    return { terms: this.#terms, counts: this.#counts };
  }

  get(term: string): number[] | undefined {
    const low = lowerBound(this.#terms, term);
    if (this.#terms[low] !== term) return undefined;
    return Array.from(this.#counts.subarray(low * TERM_STRIDE, (low + 1) * TERM_STRIDE));
  }
}

/** The whole catalog's table: the parts' sorted tables merged, the counts of a term several hold added up. */
export function mergeTermTables(tables: readonly PartTermTable[]): TermTable {
  const heads = tables.map(() => 0);
  const terms: string[] = [];
  const counts = new Int32Array(tables.reduce((sum, table) => sum + table.counts.length, 0));
  for (;;) {
    // The least head term of the parts (few parts: a scan beats a heap).
    let least: string | undefined;
    for (let t = 0; t < tables.length; t++) {
      const term = tables[t]?.terms[heads[t] ?? 0];
      if (term !== undefined && (least === undefined || term < least)) least = term;
    }
    if (least === undefined) break;
    const at = terms.length * TERM_STRIDE;
    terms.push(least);
    for (let t = 0; t < tables.length; t++) {
      const table = tables[t];
      const head = heads[t] ?? 0;
      if (table === undefined || table.terms[head] !== least) continue;
      for (let i = 0; i < TERM_STRIDE; i++) counts[at + i] = (counts[at + i] ?? 0) + (table.counts[head * TERM_STRIDE + i] ?? 0);
      heads[t] = head + 1;
    }
  }
  return new TermTable({ terms, counts: counts.slice(0, terms.length * TERM_STRIDE) });
}

/** One tool of a part's page: its score under the whole catalog's statistics and its place in the whole catalog. */
export interface PartMatch {
  name: string;
  score: number;
  position: number;
  /** ScoredMatch.relevance, when asked for. */
  relevance?: number;
}

/**
 * A part's answer to a query in one round: its tools that may be among the whole catalog's first `count`, with their
 * final score (`score`), or, for the hybrid ranking, with its two halves (`lexical`, `cosine`: fuseHalves scores them
 * once the whole catalog's best lexical score is known, the best of the parts' `bestLexical`); how many of its tools
 * match in all.
 */
export interface PartCandidates {
  matches: (PartMatch & { lexical?: number; cosine?: number })[];
  total: number;
  /** Whether the matches carry halves to fuse (else their scores are final). */
  fused: boolean;
  bestLexical: number;
}

/** A part's first matches of a query (best first) and how many of its tools match in all. */
export interface PartPage {
  matches: PartMatch[];
  total: number;
}

/** FNV-1a (32 bits) of a name's UTF-16 code units: the same part for a name in every isolate and object. */
function nameHash(name: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** The part (0 … count − 1) a tool of this name belongs to. */
export function partOf(name: string, count: number): number {
  return nameHash(name) % count;
}

/** The tools of part `part` of `count`, in catalog order, with their positions in `tools`. */
export function catalogPart(tools: readonly ToolDefinition[], part: number, count: number): { tools: ToolDefinition[]; positions: number[] } {
  const kept: ToolDefinition[] = [];
  const positions: number[] = [];
  tools.forEach((tool, position) => {
    if (partOf(tool.name, count) !== part) return;
    kept.push(tool);
    positions.push(position);
  });
  return { tools: kept, positions };
}

/** The whole catalog's query-independent statistics: the parts' added up. */
export function mergeCatalogs(parts: readonly PartCatalog[]): PartCatalog {
  const whole: PartCatalog = { toolCount: 0, fieldLengthSums: FIELDS.map(() => 0), longestTerm: 0, vectorSum: [], vectorCount: 0 };
  for (const part of parts) {
    whole.toolCount += part.toolCount;
    part.fieldLengthSums.forEach((sum, field) => {
      whole.fieldLengthSums[field] = (whole.fieldLengthSums[field] ?? 0) + sum;
    });
    whole.longestTerm = Math.max(whole.longestTerm, part.longestTerm);
    part.vectorSum.forEach((value, d) => {
      whole.vectorSum[d] = (whole.vectorSum[d] ?? 0) + value;
    });
    whole.vectorCount += part.vectorCount;
  }
  return whole;
}

/** The whole catalog's counts of a query's terms: the parts' added up, term by term. */
export function mergeTermCounts(parts: readonly TermCounts[]): TermCounts {
  const whole: TermCounts = new Map();
  for (const part of parts) {
    for (const [term, counts] of part) {
      const sum = whole.get(term);
      if (sum === undefined) whole.set(term, counts.slice());
      else counts.forEach((count, i) => {
        sum[i] = (sum[i] ?? 0) + count;
      });
    }
  }
  return whole;
}

/**
 * The first `count` matches of the parts' pages, as one index over the whole catalog ranks them: by score, then by
 * place in the catalog; and how many match in all.
 */
export function mergePages(pages: readonly PartPage[], count: number): PartPage {
  const all = pages.flatMap((page) => page.matches);
  all.sort((a, b) => b.score - a.score || a.position - b.position);
  return { matches: all.slice(0, count), total: pages.reduce((sum, page) => sum + page.total, 0) };
}
