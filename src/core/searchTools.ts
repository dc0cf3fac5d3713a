// The `search_tools` meta-tool (SPEC §2): its definition and its result.
import type { GatewayConfig } from "./config.ts";
import type { SearchIndex } from "./search/types.ts";
import type { JsonSchema, ToolDefinition } from "./types.ts";

export const SEARCH_TOOLS_NAME = "search_tools";

export interface SearchToolsParams {
  query: string;
  limit?: number;
  offset?: number;
}

export interface SearchToolsResult {
  /** "returned/total available", e.g. "5/23". */
  found: string;
  tools: { name: string; description: string; parameters: JsonSchema }[];
  /** Only when the result was truncated. */
  pagination?: { total: number; offset: number; returned: number; nextOffset?: number };
  /** Other tools of the returned tools' groups (names only), when any. */
  related?: string[];
  hint: string;
}

/**
 * The `search_tools` definition. With `config.showToolNames`, its description lists `otherTools` (names only,
 * compact: grouped by group where tools have groups) as search hints.
 */
export function searchToolsDefinition(_config: GatewayConfig, _otherTools: readonly ToolDefinition[]): ToolDefinition {
  throw new Error("not implemented");
}

/** Reads `search_tools` arguments; returns the problems (for a tool error) or the params. */
export function parseSearchToolsParams(
  _args: unknown,
  _maxQueryLength: number,
): { ok: true; params: SearchToolsParams } | { ok: false; problems: string[] } {
  throw new Error("not implemented");
}

/**
 * Runs a search over `catalog` (the whole catalog the index was built on), filtered by `enabledGroups` at call time
 * (undefined = no gate). `limit` defaults to `config.maxSearchResults` (0 = unlimited).
 */
export function runSearchTools(
  _params: SearchToolsParams,
  _options: {
    catalog: readonly ToolDefinition[];
    index: SearchIndex;
    enabledGroups: readonly string[] | undefined;
    config: GatewayConfig;
  },
): SearchToolsResult {
  throw new Error("not implemented");
}
