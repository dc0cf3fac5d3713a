import type { ToolDefinition } from "../types.ts";

/** One page of a ranking: its names, and how many tools the whole ranking holds. */
export interface SearchPage {
  names: string[];
  total: number;
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
}

export type SearchIndexFactory = (tools: readonly ToolDefinition[]) => SearchIndex;
