// Ranked search: a MiniSearch (BM25) index over names, descriptions, parameters and groups.
import type { ToolDefinition } from "../types.ts";
import type { SearchIndex } from "./types.ts";

export function createMiniSearchIndex(_tools: readonly ToolDefinition[]): SearchIndex {
  throw new Error("not implemented");
}
