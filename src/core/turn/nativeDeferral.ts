// Provider-native deferral (config `nativeDeferral`; docs/configuration.md, "Provider-native deferral"): for the shapes whose provider documents a tool search
// over deferred tools, prepare answers with the provider's own search tool and every tool marked deferred, instead of
// search_tools. The list is then the same on every turn (the provider loads what its search finds at the end of the
// context), so the prompt cache stays warm, and the provider, not the gateway, decides what is loaded.
//
// Shapes, from the providers' documentation (docs/configuration.md, "Provider-native deferral"):
// - Anthropic Messages: a tool `{"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}` (the
//   natural-language variant) and tools carrying `"defer_loading": true`
//   (https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool).
// - OpenAI Responses: a tool `{"type": "tool_search"}` and functions carrying `"defer_loading": true`
//   (https://developers.openai.com/api/docs/guides/tools-tool-search).
// Not done: Anthropic's client-side search returning `tool_reference` blocks (the block's fields could not be
// confirmed from the documentation available here), OpenAI Chat Completions and MCP (no documented deferral).
import type { GatewayConfig } from "../config.ts";
import { SEARCH_TOOLS_NAME } from "./searchTools.ts";
import { toShape } from "../tools/shapes.ts";
import type { ToolShape } from "../tools/shapes.ts";
import type { ToolDefinition } from "../types.ts";

/** The provider's search tool per shape that has one. */
export const NATIVE_SEARCH_TOOL: Readonly<Partial<Record<ToolShape, Readonly<Record<string, string>>>>> = Object.freeze({
  anthropic: Object.freeze({ type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" }),
  responses: Object.freeze({ type: "tool_search" }),
});

/** Whether prepare answers `shape` with the provider's own deferral under this configuration. */
export function usesNativeDeferral(config: Pick<GatewayConfig, "enabled" | "nativeDeferral">, shape: ToolShape): boolean {
  return config.enabled && config.nativeDeferral && NATIVE_SEARCH_TOOL[shape] !== undefined;
}

/**
 * The tool list of a natively deferred turn, in `shape`: the provider's search tool, the always-direct tools (not
 * deferred, configuration order), then every other tool with `defer_loading: true` in catalog order. Null when the
 * shape has no native deferral, the setting is off, or the catalog is small enough to send as it is
 * (`maxDirectTools`, as prepareTurn decides).
 */
export function nativeDeferredTools(
  tools: readonly ToolDefinition[],
  config: Pick<GatewayConfig, "enabled" | "nativeDeferral" | "maxDirectTools" | "alwaysDirectTools">,
  shape: ToolShape,
): Record<string, unknown>[] | null {
  const search = NATIVE_SEARCH_TOOL[shape];
  if (!search || !usesNativeDeferral(config, shape)) return null;
  const present = new Map<string, ToolDefinition>();
  for (const tool of tools) if (tool.name !== SEARCH_TOOLS_NAME && !present.has(tool.name)) present.set(tool.name, tool);
  if (present.size <= config.maxDirectTools) return null;
  const direct: Record<string, unknown>[] = [];
  const directNames = new Set<string>();
  for (const name of config.alwaysDirectTools) {
    const tool = present.get(name);
    if (!tool || directNames.has(name)) continue;
    directNames.add(name);
    direct.push(toShape(tool, shape));
  }
  const deferred: Record<string, unknown>[] = [];
  for (const tool of present.values()) {
    if (!directNames.has(tool.name)) deferred.push({ ...toShape(tool, shape), defer_loading: true });
  }
  return [{ ...search }, ...direct, ...deferred];
}
