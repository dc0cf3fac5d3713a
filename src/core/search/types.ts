import type { ToolDefinition } from "../types.ts";
import type { SnapshotWriter } from "./snapshotCodec.ts";

/** One page of a ranking: its names, and how many tools the whole ranking holds. */
export interface SearchPage {
  names: string[];
  total: number;
}

/** A ranked match with how much of the query it answers. */
export interface ScoredMatch {
  name: string;
  /**
   * How much of the query the tool matches, from 0 to 1, in units of a word that only one tool of the catalog holds:
   * each query word the tool matches adds its rarity in the catalog (its IDF, divided by that of a word one tool
   * holds), capped at 1. 1 = the tool shares a word with the query that no other tool has (or several commoner ones,
   * or the query names it); a word that every tool holds adds nearly 0; on a catalog of N tools a word held by
   * about √N of them adds about 0.5. Unlike a raw BM25 score (which grows with the query's length and the field
   * weights) it means the same on any query and, by that rule, on any catalog size, so that one floor
   * (autoDiscover.minScore) can be set on it. Words the tool does not match do not lower it: a long message is not
   * penalised for its filler or for names (places, people) that no tool holds.
   */
  relevance: number;
}

/** A search index over one catalog, built once and queried many times. */
export interface SearchIndex {
  readonly size: number;
  /** Names of every matching tool, best first. An empty (or blank) query matches all tools, in catalog order. */
  search(query: string): string[];
  /**
   * The first `count` names of `search(query)` among those `accept` keeps (every one by default), and how many it
   * keeps in all: exactly that ranking's head, without ranking the rest. `count` may be Infinity.
   */
  searchPage(query: string, count: number, accept?: (name: string) => boolean): SearchPage;
  /**
   * The index of `tools`, a new version of this index's catalog, made by changing this index in place (it then
   * answers for `tools` only); undefined when a fresh build is the better way (too many changes, repeated names).
   */
  update?(tools: readonly ToolDefinition[]): SearchIndex | undefined;
  /**
   * The first `limit` tools of `search(query)` that `accept` takes (all by default), in the same order, each with its
   * relevance; a blank query matches none. Relevance is worked out for those only.
   */
  scored(query: string, limit: number, accept?: (name: string) => boolean): ScoredMatch[];
  /**
   * Writes the index's state (snapshotCodec.ts), which restoreSearchIndex (createIndex.ts) reads back with the same
   * catalog into an index that ranks exactly as this one; false (nothing written) when this index cannot say it whole.
   */
  toSnapshot?(out: SnapshotWriter): boolean;
}

export type SearchIndexFactory = (tools: readonly ToolDefinition[]) => SearchIndex;
