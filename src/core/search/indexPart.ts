// One part of a sharded catalog's search (catalogParts.ts): the index of the part's tools, answering a sharded query
// (shardedSearch.ts) in one round — its catalog counts and its table of term counts (which the parts add up once per
// registry version and view), then, per query, its tools that may be among the whole catalog's first k, scored with
// the whole catalog's statistics. A Durable Object holds one per registry version, mode and view
// (src/durable/searchShardObject.ts); the tests hold them in memory.
import type { SearchMode } from "../config.ts";
import type { ToolDefinition } from "../types.ts";
import { FIELDS } from "./fields.ts";
import { TERM_STRIDE, type PartCandidates, type PartCatalog, type PartTermTable, type TermCounts, type WholeCatalog } from "./catalogParts.ts";
import type { Bm25Postings } from "./bm25Postings.ts";
import { createRankedPart, DEFAULT_TUNING, fuseHalves, type RankedHalves, type RankedIndex } from "./minisearch.ts";
import type { SnapshotReader, SnapshotWriter } from "./snapshotCodec.ts";
import { createSubstringPart, restoreSubstringPart, type KeywordPlaces, type SubstringPart } from "./substring.ts";
import { TopK } from "./topK.ts";

export interface IndexPart {
  readonly mode: SearchMode;
  readonly size: number;
  /** What the part adds to the whole catalog's statistics, whatever the query. */
  catalog(): PartCatalog;
  /** The part's counts of every term it holds (minisearch; empty for substring, whose counts depend on the query). */
  termTable(): PartTermTable;
  /** The part's counts of the keywords a substring query is weighed by (substringTerms); empty for minisearch. */
  keywordCounts(query: string): TermCounts;
  /**
   * Substring: the part's matches that may be among the whole's first `count` whatever its keywords weigh, each with
   * its place in the whole catalog and the place of each keyword in it (SubstringPart.keywordBand); undefined for
   * minisearch, a query without keywords, or past the cap of distinct weighings.
   */
  keywordBand(query: string, count: number, excluded: readonly string[]): PartBand | undefined;
  /**
   * Substring, for a query weighed by more keywords than keywordBand compares: the part's counts of the query's
   * keywords and, unless too wide, its band bounded by the whole catalog's counts the caller holds (`known`) and the
   * whole's size (SubstringPart.boundedBand); undefined for minisearch.
   */
  boundedBand(query: string, count: number, excluded: readonly string[], known: ReadonlyMap<string, readonly number[]>, wholeTools: number): { counts: TermCounts; band?: PartBand } | undefined;
  /**
   * The part's tools that may be among the whole catalog's first `count` of `query` (catalog order for a blank one),
   * scored with the whole's statistics (`whole.terms`: every term's counts for minisearch, the query's keywords' for
   * substring), leaving out `excluded`; with their relevance (SearchIndex.scored) when asked.
   */
  candidates(query: string, whole: WholeCatalog, count: number, excluded: readonly string[], withRelevance: boolean): PartCandidates;
  /** Writes the part's index (snapshotCodec.ts) for createIndexPart to read instead of analyzing the tools again. */
  toSnapshot(out: SnapshotWriter): boolean;
}

/** A part's keyword band (IndexPart.keywordBand): its matches with their places in the whole catalog. */
export type PartBand = KeywordPlaces & { positions: number[] };

/**
 * Keywords a substring query's band is made for: a band compares every pair of the weighings its matches hold (at most
 * 4 ^ keywords: 256 here); a query weighed by more (a sentence) takes a band bounded by the counts (boundedBand).
 */
const MAX_BAND_KEYWORDS = 4;

/**
 * A bounded band's limits (SubstringPart.boundedBand): keywords without a known whole count (their weights are bounded
 * only by the part's own count, so each one widens the band; checked before any scan), the matches left once their
 * least and greatest scores are compared, and the pairs of them compared (each over every keyword); past any, a second
 * round. At 100,000 tools, 93 of the bench's 100 sentences (asked once each) answer in one round under these caps.
 */
const MAX_UNKNOWN_KEYWORDS = 16;
const MAX_BOUNDED_BAND = 1024;
const MAX_BAND_PAIRS = 131_072;

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
  const accepting = (excluded: readonly string[]): ((name: string) => boolean) => {
    // The names left out are mostly not the part's (search_tools, a tool of another part the query names): then the
    // ranking asks no set per hit.
    const skip = new Set(excluded.filter((name) => positionOf.has(name)));
    return skip.size === 0 ? acceptAll : (name) => !skip.has(name);
  };
  const blank = (count: number, excluded: readonly string[]): PartCandidates => {
    const skip = new Set(excluded);
    const kept = tools.filter((tool) => !skip.has(tool.name));
    const matches = kept.slice(0, count).map((tool) => ({ name: tool.name, score: 0, position: positionOf.get(tool.name) ?? 0 }));
    return { matches, total: kept.length, fused: false, bestLexical: 0 };
  };
  if (mode === "substring") {
    return substringPart(snapshot === undefined ? createSubstringPart(tools) : restoreSubstringPart(tools, snapshot), positionOf, blank, accepting);
  }
  assertShardableTuning();
  return rankedPart(createRankedPart(tools, DEFAULT_TUNING, snapshot), Int32Array.from(positions), blank, accepting);
}

const acceptAll = (): boolean => true;

type Blank = (count: number, excluded: readonly string[]) => PartCandidates;
/** Which names of the part a query's ranking may hold, given the names the caller leaves out. */
type Accepting = (excluded: readonly string[]) => (name: string) => boolean;

function substringPart(part: SubstringPart, positionOf: ReadonlyMap<string, number>, blank: Blank, accepting: Accepting): IndexPart {
  return {
    mode: "substring",
    get size() {
      return part.size;
    },
    catalog: () => ({ toolCount: part.size, fieldLengthSums: FIELDS.map(() => 0), longestTerm: 0, vectorSum: [], vectorCount: 0 }),
    termTable: () => ({ terms: [], counts: new Int32Array(0) }),
    keywordCounts: (query) => part.keywordCounts(query),
    keywordBand(query, count, excluded) {
      const band = part.keywordBand(query, count, accepting(excluded), MAX_BAND_KEYWORDS);
      return band === undefined ? undefined : { ...band, positions: band.names.map((name) => positionOf.get(name) ?? 0) };
    },
    boundedBand(query, count, excluded, known, wholeTools) {
      const bounds = { known, wholeTools, maxUnknown: MAX_UNKNOWN_KEYWORDS, maxTools: MAX_BOUNDED_BAND, maxPairs: MAX_BAND_PAIRS };
      const { counts, band } = part.boundedBand(query, count, accepting(excluded), bounds);
      return band === undefined ? { counts } : { counts, band: { ...band, positions: band.names.map((name) => positionOf.get(name) ?? 0) } };
    },
    toSnapshot: (out) => part.toSnapshot(out),
    candidates(query, whole, count, excluded, withRelevance) {
      if (query.trim() === "") return blank(count, excluded);
      const ranked = part.rankAsPart(query, whole, count, accepting(excluded), withRelevance);
      const matches = ranked.names.map((name, i) => ({
        name,
        score: ranked.scores[i] ?? 0,
        position: positionOf.get(name) ?? 0,
        ...(ranked.relevance === undefined ? {} : { relevance: ranked.relevance[i] ?? 0 }),
      }));
      return { matches, total: ranked.total, fused: false, bestLexical: 0 };
    },
  };
}

/** `wholePositions`: each tool's place in the whole catalog, by its place in the part (the index's own order). */
function rankedPart(index: RankedIndex, wholePositions: Int32Array, blank: Blank, accepting: Accepting): IndexPart {
  const reader = index.partReader;
  const fused = DEFAULT_TUNING.semanticWeight > 0;
  let table: PartTermTable | undefined;
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
    termTable() {
      // Asked by every other shard once per view: worked out once (a part is never changed).
      table ??= rankedTermTable(reader.postings);
      return table;
    },
    keywordCounts: () => new Map(),
    keywordBand: () => undefined,
    boundedBand: () => undefined,
    toSnapshot: (out) => index.toSnapshot(out),
    candidates(query, whole, count, excluded, withRelevance) {
      if (query.trim() === "") return blank(count, excluded);
      let chosen: number[] = [];
      const pick = (halves: RankedHalves): number[] => {
        // The part's index places its tools in the part's order: their places in the whole catalog break ties.
        const { positions } = halves;
        for (let at = 0; at < positions.length; at++) positions[at] = wholePositions[positions[at] ?? 0] ?? 0;
        chosen = frontier(halves, count, fused);
        return chosen.map((at) => halves.slots[at] ?? 0);
      };
      const halves = index.halvesAsPart(query, whole, accepting(excluded), withRelevance ? pick : undefined);
      if (!withRelevance) pick(halves);
      const matches = chosen.map((at, i) => {
        const lexical = halves.lexical[at];
        const cosine = halves.cosines[at];
        return {
          name: halves.names[at] ?? "",
          position: halves.positions[at] ?? 0,
          // Without the semantic half, the lexical score is the ranking's.
          score: fused ? 0 : (lexical ?? 0),
          ...(fused && lexical !== undefined ? { lexical } : {}),
          ...(fused && cosine !== undefined ? { cosine } : {}),
          ...(halves.relevance === undefined ? {} : { relevance: halves.relevance[i] ?? 0 }),
        };
      });
      return { matches, total: halves.total, fused, bestLexical: halves.bestLexical };
    },
  };
}

/** A part's table of term counts (PartTermTable): every term some tool holds, sorted. */
function rankedTermTable(postings: Bm25Postings): PartTermTable {
  const ids: number[] = [];
  for (let id = 0; id < postings.termCount; id++) if (postings.toolFrequencyOf(id) > 0) ids.push(id);
  const terms = ids.map((id) => postings.term(id));
  const order = Array.from(ids.keys()).toSorted((a, b) => ((terms[a] ?? "") < (terms[b] ?? "") ? -1 : (terms[a] ?? "") > (terms[b] ?? "") ? 1 : 0));
  const counts = new Int32Array(ids.length * TERM_STRIDE);
  order.forEach((at, i) => {
    const id = ids[at] ?? 0;
    counts[i * TERM_STRIDE] = postings.toolFrequencyOf(id);
    FIELDS.forEach((_, field) => {
      counts[i * TERM_STRIDE + 1 + field] = postings.fieldFrequency(id, field);
    });
  });
  return { terms: order.map((at) => terms[at] ?? ""), counts };
}

/** Scores this close are not told apart by the frontier (floating-point error of the fused score is far smaller). */
const SCORE_SLACK = 1e-9;

/**
 * Which of a part's ranked tools (RankedHalves' indexes) may be among the whole catalog's first `count`, whatever the
 * whole's best lexical score B turns out to be (B is at least the part's own best, b). A tool's fused score is
 * (lexical / B)^e + w × cosine, a straight line in t = B^−e over (0, b^−e]: its value at b (the part's own fused
 * score) and its limit as B grows (w × cosine) bound it. A tool that `count` others beat at both ends (by more than
 * SCORE_SLACK) is beaten by them at every B, so it is left out; so is a tool with the same halves as `count` tools
 * before it in the catalog (they tie at every B). Without the semantic half the scores are final: the first `count`.
 */
export function frontier(halves: RankedHalves, count: number, fused: boolean): number[] {
  const n = halves.slots.length;
  if (count <= 0 || n === 0) return [];
  const position = (at: number): number => halves.positions[at] ?? 0;
  if (!fused) {
    const top = new TopK(count, position);
    halves.lexical.forEach((score, at) => top.offer(at, score ?? 0));
    return top.sortedWithScores().slots;
  }
  const near = new Float64Array(n);
  const far = new Float64Array(n);
  for (let at = 0; at < n; at++) {
    near[at] = fuseHalves(halves.lexical[at], halves.cosines[at], halves.bestLexical);
    far[at] = fuseHalves(undefined, halves.cosines[at], halves.bestLexical);
  }
  let kept = Array.from(near.keys());
  if (n > count) {
    // The first `count` at either end beat at both ends every tool below both of their least values: those go.
    const bounds = [near, far].map((scores) => {
      const top = new TopK(count, position);
      scores.forEach((score, at) => top.offer(at, score));
      const first = top.sortedWithScores().slots;
      return { near: Math.min(...first.map((at) => near[at] ?? 0)), far: Math.min(...first.map((at) => far[at] ?? 0)) };
    });
    kept = kept.filter((at) => bounds.every((bound) => (near[at] ?? 0) + SCORE_SLACK >= bound.near || (far[at] ?? 0) + SCORE_SLACK >= bound.far));
  }
  kept.sort((a, b) => (near[b] ?? 0) - (near[a] ?? 0) || position(a) - position(b));
  const chosen: number[] = [];
  /** The `count` best far scores of the tools already passed that beat the current one near by more than the slack. */
  const beaters: number[] = [];
  const twins = new Map<string, number>();
  let passed = 0;
  for (const at of kept) {
    const nearScore = near[at] ?? 0;
    for (; passed < kept.length; passed++) {
      const before = kept[passed] ?? 0;
      if ((near[before] ?? 0) <= nearScore + SCORE_SLACK) break;
      const farScore = far[before] ?? 0;
      if (beaters.length === count && farScore <= (beaters[0] ?? 0)) continue;
      // Sorted ascending, at most `count` long: the least first.
      let i = 0;
      while (i < beaters.length && (beaters[i] ?? 0) < farScore) i++;
      beaters.splice(i, 0, farScore);
      if (beaters.length > count) beaters.shift();
    }
    if (beaters.length === count && (beaters[0] ?? 0) > (far[at] ?? 0) + SCORE_SLACK) continue;
    const twin = `${String(halves.lexical[at])} ${String(halves.cosines[at])}`;
    const before = twins.get(twin) ?? 0;
    twins.set(twin, before + 1);
    if (before >= count) continue;
    chosen.push(at);
  }
  return chosen;
}
