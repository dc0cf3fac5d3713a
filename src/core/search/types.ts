import type { ToolDefinition } from "../types.ts";

/** A search index over one catalog, built once and queried many times. */
export interface SearchIndex {
  readonly size: number;
  /** Names of every matching tool, best first. An empty (or blank) query matches all tools, in catalog order. */
  search(query: string): string[];
}

export type SearchIndexFactory = (tools: readonly ToolDefinition[]) => SearchIndex;
