// Provider-native deferral: the shapes against fixtures built from the providers' documented examples.
import { describe, expect, it } from "vitest";
import { defaultConfig, parseConfig, type GatewayConfig } from "../../../src/core/config.ts";
import { NATIVE_SEARCH_TOOL, nativeDeferredTools, usesNativeDeferral } from "../../../src/core/turn/nativeDeferral.ts";
import type { ToolDefinition } from "../../../src/core/types.ts";

// https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool: the documented request's tools.
const ANTHROPIC_DOC = {
  searchVariants: [
    { type: "tool_search_tool_regex_20251119", name: "tool_search_tool_regex" },
    { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" },
  ],
  deferredTool: {
    name: "get_weather",
    description: "Get the weather at a specific location",
    input_schema: {
      type: "object",
      properties: { location: { type: "string" }, unit: { type: "string", enum: ["celsius", "fahrenheit"] } },
      required: ["location"],
    },
    defer_loading: true,
  },
};

// https://developers.openai.com/api/docs/guides/tools-tool-search: "Add tool_search as a tool in your tools array" and
// mark functions with defer_loading: true; a Responses function tool (with strict, as the guide's example has it).
const OPENAI_DOC = {
  searchTool: { type: "tool_search" },
  deferredFunction: {
    type: "function",
    name: "get_weather",
    description: "Get the weather at a specific location",
    parameters: ANTHROPIC_DOC.deferredTool.input_schema,
    strict: false,
    defer_loading: true,
  },
};

const weather: ToolDefinition = {
  name: "get_weather",
  description: "Get the weather at a specific location",
  parameters: ANTHROPIC_DOC.deferredTool.input_schema,
};
const others: ToolDefinition[] = Array.from({ length: 6 }, (_, i) => ({
  name: `other_${i}`,
  description: `Other tool ${i}.`,
  parameters: { type: "object", properties: {} },
}));
const catalog = [weather, ...others];

function config(overrides: Partial<GatewayConfig> = {}): GatewayConfig {
  return { ...defaultConfig(), nativeDeferral: true, ...overrides };
}

describe("nativeDeferredTools", () => {
  it("answers Anthropic with the documented BM25 search tool and documented deferred tools", () => {
    const list = nativeDeferredTools(catalog, config(), "anthropic");
    expect(list?.[0]).toEqual(ANTHROPIC_DOC.searchVariants[1]);
    expect(list?.[1]).toEqual(ANTHROPIC_DOC.deferredTool);
    expect(list).toHaveLength(catalog.length + 1);
    expect(list?.slice(1).every((tool) => tool.defer_loading === true)).toBe(true);
  });

  it("answers OpenAI Responses with tool_search and documented deferred functions", () => {
    const list = nativeDeferredTools(catalog, config(), "responses");
    expect(list?.[0]).toEqual(OPENAI_DOC.searchTool);
    expect(list?.[1]).toEqual(OPENAI_DOC.deferredFunction);
  });

  it("keeps always-direct tools loaded, first, in configuration order", () => {
    const list = nativeDeferredTools(catalog, config({ alwaysDirectTools: ["other_3", "get_weather", "missing"] }), "anthropic");
    expect(list?.slice(0, 3).map((tool) => tool.name)).toEqual(["tool_search_tool_bm25", "other_3", "get_weather"]);
    expect(list?.[1]?.defer_loading).toBeUndefined();
    expect(list?.slice(3).map((tool) => tool.name)).toEqual(["other_0", "other_1", "other_2", "other_4", "other_5"]);
  });

  it("is null for shapes without documented deferral, with the setting off, or for a short catalog", () => {
    expect(nativeDeferredTools(catalog, config(), "openai")).toBeNull();
    expect(nativeDeferredTools(catalog, config(), "mcp")).toBeNull();
    expect(nativeDeferredTools(catalog, config({ nativeDeferral: false }), "anthropic")).toBeNull();
    expect(nativeDeferredTools(catalog, config({ enabled: false }), "anthropic")).toBeNull();
    expect(nativeDeferredTools(catalog, config({ maxDirectTools: 7 }), "anthropic")).toBeNull();
    expect(usesNativeDeferral(config(), "responses")).toBe(true);
    expect(Object.keys(NATIVE_SEARCH_TOOL).toSorted()).toEqual(["anthropic", "responses"]);
  });

  it("is the same list whatever the session found (it has no session input): the cache stays warm", () => {
    expect(nativeDeferredTools([...catalog], config(), "anthropic")).toEqual(nativeDeferredTools(catalog, config(), "anthropic"));
  });

  it("is off by default and read as a boolean", () => {
    expect(defaultConfig().nativeDeferral).toBe(false);
    expect(parseConfig({ nativeDeferral: true }).nativeDeferral).toBe(true);
    expect(() => parseConfig({ nativeDeferral: "yes" })).toThrow(/TOOL_SEARCH_CONFIG\.nativeDeferral/);
  });
});
