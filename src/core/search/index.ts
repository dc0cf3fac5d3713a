// Chooses the index of a search mode, and caches built indexes per catalog version (never built per request).
import type { SearchMode } from "../config.ts";
import type { ToolDefinition } from "../types.ts";
import type { SearchIndex } from "./types.ts";

export function createSearchIndex(_mode: SearchMode, _tools: readonly ToolDefinition[]): SearchIndex {
  throw new Error("not implemented");
}

/** Keeps the indexes of one catalog; `key` identifies a catalog version (e.g. registry version, catalog hash). */
export class SearchIndexCache {
  /** `capacity`: how many (key, mode) indexes to keep, least recently used dropped first. */
  constructor(_capacity = 8) {}
  get(_key: string, _mode: SearchMode, _tools: () => readonly ToolDefinition[]): SearchIndex {
    throw new Error("not implemented");
  }
}
