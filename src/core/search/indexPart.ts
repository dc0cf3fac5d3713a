// One part of a sharded catalog's search (catalogParts.ts): the index of the part's tools, answering the rounds of a
// sharded query (shardedSearch.ts) — its catalog counts, the counts of a query's terms, its best lexical score, and its
// first matches ranked with the whole catalog's statistics. A Durable Object holds one per registry version, mode and
// view (src/durable/searchShardObject.ts); the tests hold them in memory.
import type { SearchMode } from "../config.ts";
import type { ToolDefinition } from "../types.ts";
import { analyzeQuery, processTerm } from "./analyze.ts";
import type { PartCatalog, PartPage, TermCounts, WholeCatalog } from "./catalogParts.ts";
import { FIELDS, phraseTerm } from "./fields.ts";
import {
  ASCII_WORD,
  createRankedPart,
  DEFAULT_TUNING,
  FUZZY_WEIGHT,
  MIN_BACKOFF_LENGTH,
  MIN_BACKOFF_SHARE,
  MIN_FUZZY_LENGTH,
  MIN_PREFIX_LENGTH,
  type RankedIndex,
  type RankedPartReader,
} from "./minisearch.ts";
import { nearWords } from "./semantic.ts";
import type { SnapshotReader, SnapshotWriter } from "./snapshotCodec.ts";
import { createSubstringPart, restoreSubstringPart, type SubstringPart } from "./substring.ts";
import { hasCjk, tokenize } from "./text.ts";

export interface IndexPart {
  readonly mode: SearchMode;
  readonly size: number;
  /** What the part adds to the whole catalog's statistics, whatever the query. */
  catalog(): PartCatalog;
  /** The counts of every term a query may be searched by (a superset: which ones it is depends on the whole's counts). */
  termCounts(query: string, whole: PartCatalog): TermCounts;
  /** The part's best lexical score under the whole's statistics (minisearch with the semantic half; else 0). */
  bestLexical(query: string, whole: WholeCatalog): number;
  /**
   * The part's first `count` matches of `query` (catalog order for a blank one), ranked with the whole's statistics,
   * leaving out `excluded`; with their relevance (SearchIndex.scored) when asked.
   */
  page(query: string, whole: WholeCatalog, count: number, excluded: readonly string[], withRelevance: boolean): PartPage;
  /** Writes the part's index (snapshotCodec.ts) for createIndexPart to read instead of analyzing the tools again. */
  toSnapshot(out: SnapshotWriter): boolean;
}

/** Whether one part's rounds can rank exactly as one index: the fused ranking of the default tuning only. */
function assertShardableTuning(): void {
  if (DEFAULT_TUNING.fusion !== "mix" || DEFAULT_TUNING.coverageExponent !== 0) {
    // Reciprocal-rank fusion and coverage need every tool's rank in the whole catalog: no part can say them.
    throw new Error("a sharded search needs the ranking's fusion \"mix\" and coverageExponent 0");
  }
}

/**
 * The part of a catalog made of `tools` (in catalog order), whose places in the whole catalog are `positions`: the
 * ranking breaks ties by them. `snapshot`: what toSnapshot of a part of the same mode over the same tools wrote, read
 * instead of analyzing the tools (throws SnapshotError when it does not fit them).
 */
export function createIndexPart(mode: SearchMode, tools: readonly ToolDefinition[], positions: readonly number[], snapshot?: SnapshotReader): IndexPart {
  if (positions.length !== tools.length) throw new Error("a part needs one position per tool");
  const positionOf = new Map<string, number>();
  tools.forEach((tool, i) => positionOf.set(tool.name, positions[i] ?? 0));
  const pageOf = (ranked: { names: string[]; scores: number[]; relevance?: number[]; total: number }): PartPage => ({
    matches: ranked.names.map((name, i) => ({
      name,
      score: ranked.scores[i] ?? 0,
      position: positionOf.get(name) ?? 0,
      ...(ranked.relevance === undefined ? {} : { relevance: ranked.relevance[i] ?? 0 }),
    })),
    total: ranked.total,
  });
  const blankPage = (count: number, excluded: ReadonlySet<string>): PartPage => {
    const kept = tools.filter((tool) => !excluded.has(tool.name));
    return pageOf({ names: kept.slice(0, count).map((tool) => tool.name), scores: [], total: kept.length });
  };
  if (mode === "substring") return substringPart(snapshot === undefined ? createSubstringPart(tools) : restoreSubstringPart(tools, snapshot), pageOf, blankPage);
  assertShardableTuning();
  return rankedPart(createRankedPart(tools, DEFAULT_TUNING, snapshot), pageOf, blankPage);
}

type PageOf = (ranked: { names: string[]; scores: number[]; relevance?: number[]; total: number }) => PartPage;
type BlankPage = (count: number, excluded: ReadonlySet<string>) => PartPage;

function substringPart(part: SubstringPart, pageOf: PageOf, blankPage: BlankPage): IndexPart {
  return {
    mode: "substring",
    get size() {
      return part.size;
    },
    catalog: () => ({ toolCount: part.size, fieldLengthSums: FIELDS.map(() => 0), longestTerm: 0, vectorSum: [], vectorCount: 0 }),
    termCounts: (query) => part.keywordCounts(query),
    toSnapshot: (out) => part.toSnapshot(out),
    bestLexical: () => 0,
    page(query, whole, count, excluded, withRelevance) {
      const skip = new Set(excluded);
      if (query.trim() === "") return blankPage(count, skip);
      return pageOf(part.rankAsPart(query, whole, count, (name) => !skip.has(name), withRelevance));
    },
  };
}

function rankedPart(index: RankedIndex, pageOf: PageOf, blankPage: BlankPage): IndexPart {
  const reader = index.partReader;
  const hybrid = reader.semantic !== undefined;
  return {
    mode: "minisearch",
    get size() {
      return index.size;
    },
    catalog() {
      const { postings, semantic } = reader;
      const vectors = semantic?.vectorSum();
      return {
        toolCount: index.size,
        fieldLengthSums: FIELDS.map((_, field) => postings.fieldLengthSum(field)),
        longestTerm: postings.longestTermLength,
        vectorSum: vectors === undefined ? [] : Array.from(vectors.sum),
        vectorCount: vectors?.count ?? 0,
      };
    },
    termCounts: (query, whole) => rankedTermCounts(reader, query, whole),
    toSnapshot: (out) => index.toSnapshot(out),
    bestLexical: (query, whole) => (hybrid && query.trim() !== "" ? index.rankAsPart(query, whole, -1, () => true, false).bestLexical : 0),
    page(query, whole, count, excluded, withRelevance) {
      const skip = new Set(excluded);
      if (query.trim() === "") return blankPage(count, skip);
      return pageOf(index.rankAsPart(query, whole, count, (name) => !skip.has(name), withRelevance));
    },
  };
}

/**
 * The part's counts of every term the ranked mode may search `query` by (minisearch.ts: weighQuery, termsOf, the
 * near words of #expanded), whatever the whole catalog's counts turn out to be: each word as a prefix (and its typos
 * while the part does not hold it), the back-off prefixes of an unknown word (all of them lie in the expansion of the
 * shortest), the pairs of adjacent words, and the near words of words the part lacks. Per term the index holds: how
 * many tools hold it, then per field.
 */
function rankedTermCounts(reader: RankedPartReader, query: string, whole: PartCatalog): TermCounts {
  const { postings, semantic, tuning } = reader;
  const counts: TermCounts = new Map();
  const zeros = [0, ...FIELDS.map(() => 0)];
  /** A term whose count the ranking asks for even where this part lacks it (0 here): the whole's count decides. */
  const asked = (term: string): void => {
    if (!counts.has(term)) counts.set(term, zeros.slice());
  };
  const probe = (term: string, prefix: boolean, fuzzy: boolean): void => {
    asked(term);
    for (const termId of postings.expand(term, prefix, fuzzy, tuning.prefixWeight, FUZZY_WEIGHT).termIds) {
      counts.set(postings.term(termId), [postings.toolFrequencyOf(termId), ...FIELDS.map((_, field) => postings.fieldFrequency(termId, field))]);
    }
  };
  const held = (term: string): boolean => postings.toolFrequency(term) > 0;
  const sequence = analyzeQuery(query, tuning.queryStopWords);
  if (tuning.phraseWeight > 0) {
    for (let i = 1; i < sequence.length; i++) probe(phraseTerm(sequence[i - 1] ?? "", sequence[i] ?? ""), false, false);
  }
  for (const term of new Set(sequence)) {
    // A word this part holds, the whole holds too: no typos, no back-off.
    const known = held(term);
    probe(term, term.length >= MIN_PREFIX_LENGTH || hasCjk(term), !known && term.length >= MIN_FUZZY_LENGTH && ASCII_WORD.test(term));
    if (known || !ASCII_WORD.test(term)) continue;
    const shortest = Math.max(MIN_BACKOFF_LENGTH, Math.ceil(MIN_BACKOFF_SHARE * term.length));
    const longest = Math.min(term.length - 1, whole.longestTerm);
    if (longest < shortest) continue;
    // Which prefix it backs off to is the longest the whole holds: each one's count.
    for (let length = longest; length > shortest; length--) asked(term.slice(0, length));
    probe(term.slice(0, shortest), true, false);
  }
  if (semantic !== undefined && tuning.expansionWeight > 0) {
    for (const token of tokenize(query)) {
      const term = processTerm(token);
      if (term === null) continue;
      asked(term);
      if (held(term)) continue;
      for (const near of nearWords(token.toLowerCase())) {
        const nearTerm = processTerm(near.word);
        if (nearTerm !== null && nearTerm !== term) probe(nearTerm, nearTerm.length >= MIN_PREFIX_LENGTH, false);
      }
    }
  }
  return counts;
}
