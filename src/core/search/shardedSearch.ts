// A search over a catalog split into parts (catalogParts.ts), each held by its own shard (a Durable Object in the
// Worker: src/durable/searchShardObject.ts), that ranks exactly as one index over the whole catalog would, in one
// round of calls, one per shard:
// - the statistics of the whole catalog that do not depend on the query (tool count, field lengths, the vectors' sum,
//   and in the ranked mode every term's counts) are the parts' added up, once per registry version and view, by the
//   shards themselves (wholeStatistics): each shard then scores its tools as one index over the whole would;
// - the hybrid ranking divides each lexical score by the best of the whole catalog, which no shard knows before the
//   others have said theirs: each shard sends the tools that may be among the first k whatever that best is (its
//   frontier, indexPart.ts) with both halves of their score, and the isolate fuses them with the best of the bests;
// - the substring mode weighs a keyword by the tools it hits in the whole catalog, which no table of words can say:
//   the isolate keeps the whole's counts of the keywords it has seen (per registry version and view); for a query with
//   a keyword not yet counted each shard answers its counts and its keyword band (the tools that may be among the
//   first k whatever the keywords weigh, or, for a query of more keywords, whatever they weigh within the bounds the
//   counts sent and the whole's size set, with the place of each keyword in them), which the isolate scores once it
//   has added the counts up; past the band's caps, a second round (the shards rank with the sums).
// The pages are merged by score, catalog order breaking ties. A tool the query names comes first, as withExactNames
// places it.
import type { SearchMode } from "../config.ts";
import type { ToolDefinition } from "../types.ts";
import { mergeCatalogs, mergeTermCounts, mergeTermTables, type PartCandidates, type PartPage, type TermCounts, type TermTable, type WholeCatalog } from "./catalogParts.ts";
import { NameLookup } from "./exactNames.ts";
import type { IndexPart, PartBand } from "./indexPart.ts";
import { fuseHalves } from "./minisearch.ts";
import { keywordWeight, placeWeights, substringTerms } from "./substring.ts";
import type { ScoredMatch, SearchIndex, SearchPage } from "./types.ts";

/**
 * A shard's answer to one query: its candidates (PartCandidates), or, when the caller did not send the whole's count
 * of every keyword the substring query is weighed by, its own counts of them and, unless past its cap, its keyword
 * band with the whole catalog's tool count (the caller adds the counts up and scores the bands, or asks again).
 */
export type ShardAnswer = { candidates: PartCandidates } | { counts: KeywordCounts; band?: PartBand & { toolCount: number } };

/** Counts of substring keywords by keyword, as they travel (TermCounts' values). */
export type KeywordCounts = Record<string, number[]>;

/** One shard as the isolate reaches it (an RPC stub, or a part in memory): one call per query. */
export interface IndexShard {
  /** `known`: the whole catalog's counts of substring keywords the caller holds (none in the ranked mode). */
  search(query: string, known: KeywordCounts, count: number, excluded: readonly string[], withRelevance: boolean): Promise<ShardAnswer>;
}

/** The statistics of the whole catalog a shard ranks with (the query's substring keyword counts aside). */
export interface WholeStatistics {
  catalog: WholeCatalog["catalog"];
  table: TermTable;
}

/** The whole catalog's statistics from every part's catalog counts and term table (parts in any order). */
export function wholeStatistics(parts: readonly { catalog: WholeCatalog["catalog"]; table: { terms: string[]; counts: Int32Array } }[]): WholeStatistics {
  return { catalog: mergeCatalogs(parts.map((part) => part.catalog)), table: mergeTermTables(parts.map((part) => part.table)) };
}

/** What a shard answers (IndexShard.search) with its part and the whole's statistics. */
export function answerAsShard(part: IndexPart, whole: WholeStatistics, query: string, known: KeywordCounts, count: number, excluded: readonly string[], withRelevance: boolean): ShardAnswer {
  if (part.mode === "substring" && query.trim() !== "") {
    const counts = new Map(Object.entries(known));
    if (!substringTerms(query).every((term) => counts.has(term))) {
      const toolCount = whole.catalog.toolCount;
      const band = part.keywordBand(query, count, excluded);
      if (band !== undefined) return { counts: Object.fromEntries(part.keywordCounts(query)), band: { ...band, toolCount } };
      // More keywords than a band of every weighing compares: one bounded by the counts sent and the whole's size.
      const bounded = part.boundedBand(query, count, excluded, counts, toolCount);
      if (bounded === undefined) return { counts: Object.fromEntries(part.keywordCounts(query)) };
      const own = Object.fromEntries(bounded.counts);
      return bounded.band === undefined ? { counts: own } : { counts: own, band: { ...bounded.band, toolCount } };
    }
    return { candidates: part.candidates(query, { catalog: whole.catalog, terms: counts }, count, excluded, withRelevance) };
  }
  return { candidates: part.candidates(query, { catalog: whole.catalog, terms: whole.table }, count, excluded, withRelevance) };
}

/**
 * Shards over parts held in this process (tests, the bench): the whole's statistics added up on the first query, and
 * what travels copied by `copy` as an RPC would copy it.
 */
export function shardsInMemory(parts: readonly IndexPart[], copy: <T>(value: T) => T = (value) => value): IndexShard[] {
  let whole: WholeStatistics | undefined;
  const statistics = (): WholeStatistics => (whole ??= wholeStatistics(parts.map((part) => copy({ catalog: part.catalog(), table: part.termTable() }))));
  return parts.map((part) => ({
    search: (query, known, count, excluded, withRelevance) => Promise.resolve(copy(answerAsShard(part, statistics(), query, copy(known), count, copy(excluded), withRelevance))),
  }));
}

/**
 * The first `count` of the parts' candidates, as one index over the whole catalog ranks them: the hybrid halves fused
 * with the best lexical score of every part, then by score, then by place in the catalog; and how many match in all.
 */
export function mergeCandidates(parts: readonly PartCandidates[], count: number): PartPage {
  const best = Math.max(0, ...parts.map((part) => part.bestLexical));
  const all = parts.flatMap((part) =>
    part.matches.map(({ name, position, score, relevance, lexical, cosine }) => ({
      name,
      position,
      score: part.fused ? fuseHalves(lexical, cosine, best) : score,
      ...(relevance === undefined ? {} : { relevance }),
    })),
  );
  all.sort((a, b) => b.score - a.score || a.position - b.position);
  return { matches: all.slice(0, count), total: parts.reduce((sum, part) => sum + part.total, 0) };
}

/**
 * A shard's keyword band scored with the whole catalog's keyword counts, as the substring ranking scores a tool (the
 * same weights added in the same order); undefined when a keyword's count is missing.
 */
export function scoreBand(band: PartBand & { toolCount: number }, sums: ReadonlyMap<string, readonly number[]>, withRelevance: boolean): PartCandidates | undefined {
  const weights: number[] = [];
  for (const keyword of band.keywords) {
    const hits = sums.get(keyword)?.[0];
    if (hits === undefined) return undefined;
    weights.push(keywordWeight(band.toolCount, hits));
  }
  const byPlace = weights.map(placeWeights);
  // The weight of a keyword that hits one tool: the unit of relevance, as rankAsPart writes it.
  const unit = Math.log(1 + (band.toolCount - 0.5) / 1.5);
  const matches = band.names.map((name, i) => {
    const places = band.places[i] ?? [];
    let score = 0;
    let covered = 0;
    places.forEach((place, k) => {
      if (place === 0) return;
      score += byPlace[k]?.[place] ?? 0;
      covered += weights[k] ?? 0;
    });
    const position = band.positions[i] ?? 0;
    return { name, position, score, ...(withRelevance ? { relevance: unit <= 0 ? 0 : Math.min(1, covered / unit) } : {}) };
  });
  return { matches, total: band.total, fused: false, bestLexical: 0 };
}

/** Substring keyword counts kept per sharded search (a registry version and view): the most recently used. */
const KEPT_KEYWORDS = 20_000;

export class ShardedSearch {
  readonly #mode: SearchMode;
  readonly #shards: readonly IndexShard[];
  readonly #names: NameLookup;
  /** The whole catalog's counts of the substring keywords seen so far (least recently used first). */
  readonly #keywords: TermCounts = new Map();
  /** Shard calls made so far, and rounds (each round asks every shard once). */
  calls = 0;
  rounds = 0;

  /** `tools`: the whole catalog (the view searched), for the names a query may name; `shards` hold its parts. */
  constructor(mode: SearchMode, tools: readonly ToolDefinition[], shards: readonly IndexShard[]) {
    if (shards.length === 0) throw new Error("a sharded search needs at least one shard");
    this.#mode = mode;
    this.#shards = shards;
    this.#names = new NameLookup(tools);
  }

  /** Every shard, once. */
  async #round<T>(ask: (shard: IndexShard) => Promise<T>): Promise<T[]> {
    this.calls += this.#shards.length;
    this.rounds++;
    return Promise.all(this.#shards.map(ask));
  }

  /** The kept counts of the query's substring keywords (each marked used). */
  #known(query: string): KeywordCounts {
    if (this.#mode !== "substring") return {};
    // Entries, not assignments: a keyword may be "__proto__".
    const known: [string, number[]][] = [];
    for (const term of substringTerms(query)) {
      const counts = this.#keywords.get(term);
      if (counts === undefined) continue;
      this.#keywords.delete(term);
      this.#keywords.set(term, counts);
      known.push([term, counts]);
    }
    return Object.fromEntries(known);
  }

  #keep(counts: TermCounts): void {
    for (const [term, sum] of counts) {
      this.#keywords.delete(term);
      this.#keywords.set(term, sum);
    }
    for (const term of this.#keywords.keys()) {
      if (this.#keywords.size <= KEPT_KEYWORDS) break;
      this.#keywords.delete(term);
    }
  }

  /** The merged page of the query's ranking, named tools left out (they are placed by the caller). */
  async #ranked(query: string, count: number, excluded: readonly string[], withRelevance: boolean): Promise<PartPage> {
    const known = this.#known(query);
    let answers = await this.#round((shard) => shard.search(query, known, count, excluded, withRelevance));
    const counted = answers.flatMap((answer) => ("counts" in answer ? [new Map(Object.entries(answer.counts))] : []));
    if (counted.length > 0) {
      // Every shard lacked the same keywords' counts (they were sent the same ones): add theirs up and ask again.
      if (counted.length !== answers.length) throw new Error("the search shards disagree on which keyword counts they lack");
      const sums = mergeTermCounts(counted);
      this.#keep(sums);
      // Every shard's band scored with the sums: one round. A shard past its band's cap: a second round for all.
      const scored = answers.map((answer) => ("band" in answer && answer.band !== undefined ? scoreBand(answer.band, sums, withRelevance) : undefined));
      if (scored.every((candidates) => candidates !== undefined)) return mergeCandidates(scored, count);
      const whole: KeywordCounts = Object.fromEntries(sums);
      answers = await this.#round((shard) => shard.search(query, whole, count, excluded, withRelevance));
    }
    return mergeCandidates(
      answers.map((answer) => {
        if ("counts" in answer) throw new Error("a search shard answered counts to a query whose keyword counts it was sent");
        return answer.candidates;
      }),
      count,
    );
  }

  /**
   * SearchIndex.searchPage over the whole catalog: the first `count` names of the ranking, leaving out `excluded`
   * (names the caller may not be shown, such as search_tools itself), and how many it holds.
   */
  async searchPage(query: string, count: number, excluded: readonly string[] = []): Promise<SearchPage> {
    const skip = new Set(excluded);
    const named = query.trim() === "" ? [] : this.#names.named(query).filter((name) => !skip.has(name));
    const rest = await this.#ranked(query, Math.max(0, count - named.length), [...excluded, ...named], false);
    return { names: [...named, ...rest.matches.map((match) => match.name)].slice(0, count), total: named.length + rest.total };
  }

  /** SearchIndex.scored over the whole catalog: the first `limit` matches with their relevance; a blank query none. */
  async scored(query: string, limit: number, excluded: readonly string[] = []): Promise<ScoredMatch[]> {
    if (query.trim() === "" || limit <= 0) return [];
    const skip = new Set(excluded);
    const named = this.#names.named(query).filter((name) => !skip.has(name)).slice(0, limit);
    const first = named.map((name) => ({ name, relevance: 1 }));
    if (named.length >= limit) return first;
    const rest = await this.#ranked(query, limit - named.length, [...excluded, ...named], true);
    return [...first, ...rest.matches.map((match) => ({ name: match.name, relevance: match.relevance ?? 0 }))];
  }
}

/**
 * The first `length` matches of a sharded ranking with their relevance, asked once, as an index's `scored` answers
 * for `query`: any filter that leaves at least `limit` of them gets what SearchIndex.scored would give (auto-discovery
 * filters out the tools a turn sends anyway: `length` covers them).
 */
export async function scoredHead(search: ShardedSearch, query: string, length: number): Promise<Pick<SearchIndex, "scored">> {
  const head = await search.scored(query, length);
  return {
    scored(asked, limit, accept = () => true) {
      if (asked !== query) throw new Error("scoredHead answers the query it was made for only");
      return head.filter((match) => accept(match.name)).slice(0, Math.max(0, limit));
    },
  };
}
