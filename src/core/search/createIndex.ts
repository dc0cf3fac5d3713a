// Builds the search index of a mode over a catalog: the one place that knows which index serves which mode.
import type { SearchMode } from "../config.ts";
import type { ToolDefinition } from "../types.ts";
import { createMiniSearchIndex } from "./minisearch.ts";
import { createSubstringIndex } from "./substring.ts";
import type { SearchIndex, SearchIndexFactory } from "./types.ts";

const FACTORIES: Readonly<Record<SearchMode, SearchIndexFactory>> = {
  substring: createSubstringIndex,
  minisearch: createMiniSearchIndex,
};

export function createSearchIndex(mode: SearchMode, tools: readonly ToolDefinition[]): SearchIndex {
  const factory = FACTORIES[mode] as SearchIndexFactory | undefined;
  if (!factory) throw new Error(`unknown search mode ${JSON.stringify(mode)}`);
  return factory(tools);
}
