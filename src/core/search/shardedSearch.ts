// A search over a catalog split into parts (catalogParts.ts), each held by its own shard (a Durable Object in the
// Worker: src/durable/searchShardObject.ts), that ranks exactly as one index over the whole catalog would:
// 1. each shard counts the query's terms (and every term they may expand to); the counts are added up;
// 2. (ranked mode with the semantic half) each shard finds its best lexical score under those counts; the best is kept;
// 3. each shard ranks its first k with the whole's counts (and best score); the pages are merged by score, catalog
//    order breaking ties.
// The catalog's own counts (tool count, field lengths, vector sum) do not depend on the query: they are asked once per
// sharded search (one per registry version and view). A tool the query names comes first, as withExactNames places it.
import type { SearchMode } from "../config.ts";
import type { ToolDefinition } from "../types.ts";
import { mergeCatalogs, mergePages, mergeTermCounts, type PartCatalog, type PartPage, type TermCounts, type WholeCatalog } from "./catalogParts.ts";
import { NameLookup } from "./exactNames.ts";
import type { ScoredMatch, SearchIndex, SearchPage } from "./types.ts";

/** One shard as the isolate reaches it (an RPC stub, or an IndexPart in memory): IndexPart's rounds, asynchronous. */
export interface IndexShard {
  catalog(): Promise<PartCatalog>;
  termCounts(query: string, whole: PartCatalog): Promise<TermCounts>;
  bestLexical(query: string, whole: WholeCatalog): Promise<number>;
  page(query: string, whole: WholeCatalog, count: number, excluded: readonly string[], withRelevance: boolean): Promise<PartPage>;
}

export class ShardedSearch {
  readonly #mode: SearchMode;
  readonly #shards: readonly IndexShard[];
  readonly #names: NameLookup;
  #catalog: Promise<PartCatalog> | undefined;
  /** Shard calls made so far (each round asks every shard once). */
  calls = 0;

  /** `tools`: the whole catalog (the view searched), for the names a query may name; `shards` hold its parts. */
  constructor(mode: SearchMode, tools: readonly ToolDefinition[], shards: readonly IndexShard[]) {
    if (shards.length === 0) throw new Error("a sharded search needs at least one shard");
    this.#mode = mode;
    this.#shards = shards;
    this.#names = new NameLookup(tools);
  }

  /** Every shard, once per round. */
  async #round<T>(ask: (shard: IndexShard, index: number) => Promise<T>): Promise<T[]> {
    this.calls += this.#shards.length;
    return Promise.all(this.#shards.map(ask));
  }

  /** The whole catalog's own counts, asked once (a failed ask is asked again next time). */
  #wholeCatalog(): Promise<PartCatalog> {
    if (this.#catalog === undefined) {
      const asked = this.#round((shard) => shard.catalog()).then(mergeCatalogs);
      this.#catalog = asked;
      asked.catch(() => {
        if (this.#catalog === asked) this.#catalog = undefined;
      });
    }
    return this.#catalog;
  }

  /** The merged page of the query's ranking, named tools left out (they are placed by the caller). */
  async #ranked(query: string, count: number, excluded: readonly string[], withRelevance: boolean): Promise<PartPage> {
    const catalog = await this.#wholeCatalog();
    if (query.trim() === "") {
      return mergePages(await this.#round((shard) => shard.page(query, { catalog, terms: new Map() }, count, excluded, false)), count);
    }
    const counts = await this.#round((shard) => shard.termCounts(query, catalog));
    const terms = mergeTermCounts(counts);
    // Each shard is sent the whole's counts of the terms it holds only: the others score none of its tools.
    const wholes: WholeCatalog[] = counts.map((own) => ({ catalog, terms: new Map([...own.keys()].map((term) => [term, terms.get(term) ?? []])) }));
    if (this.#mode === "minisearch") {
      const best = Math.max(0, ...(await this.#round((shard, i) => shard.bestLexical(query, wholes[i] ?? { catalog, terms }))));
      for (const whole of wholes) whole.bestLexical = best;
    }
    return mergePages(await this.#round((shard, i) => shard.page(query, wholes[i] ?? { catalog, terms }, count, excluded, withRelevance)), count);
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
