// Auto-discovery in the core: the autoDiscover setting, the latest user text in every message shape, the indexes'
// scored matches (relevance), and where prepareTurn puts the tools in each tool-list mode.
import { describe, expect, it } from "vitest";
import { ConfigError, DEFAULT_AUTO_DISCOVER_MIN_SCORE, defaultConfig, parseConfig, SEARCH_MODES, type GatewayConfig } from "../../../src/core/config.ts";
import { latestUserText } from "../../../src/core/turn/history.ts";
import { prepareTurn, WarnOnce, type PrepareInput } from "../../../src/core/turn/prepare.ts";
import { createSearchIndex } from "../../../src/core/search/createIndex.ts";
import { tool } from "../../support/tools.ts";

const catalog = [
  tool("weather_forecast", "Weather forecast for a city: temperature and rain for the coming days."),
  tool("send_email", "Sends an email message to a recipient."),
  tool("book_flight", "Books a flight between two airports."),
  tool("translate_text", "Translates text from one language to another."),
  tool("stock_quote", "The latest price of a stock on an exchange."),
  tool("calendar_add", "Adds an event to the user's calendar."),
  tool("read_file", "Reads a file from the user's drive."),
  tool("write_file", "Writes a file to the user's drive."),
];

function config(overrides: Partial<GatewayConfig> = {}): GatewayConfig {
  return { ...defaultConfig(), toolList: "grow", autoDiscover: { topK: 3, minScore: 0.5 }, ...overrides };
}

function turn(text: string, overrides: Partial<PrepareInput> = {}, mode: GatewayConfig["searchMode"] = "minisearch") {
  return prepareTurn({
    tools: catalog,
    messages: [{ role: "user", content: text }],
    discovered: [],
    config: config({ searchMode: mode }),
    warnings: new WarnOnce({ warn: () => undefined }),
    searchIndex: createSearchIndex(mode, catalog),
    ...overrides,
  });
}

describe("autoDiscover setting", () => {
  it("is off by default, with the benched floor", () => {
    expect(defaultConfig().autoDiscover).toEqual({ topK: 0, minScore: DEFAULT_AUTO_DISCOVER_MIN_SCORE });
    expect(parseConfig({ autoDiscover: { topK: 10 } }).autoDiscover).toEqual({ topK: 10, minScore: DEFAULT_AUTO_DISCOVER_MIN_SCORE });
    expect(parseConfig({ autoDiscover: { topK: 2, minScore: 0 } }).autoDiscover).toEqual({ topK: 2, minScore: 0 });
  });

  it.each([
    [{ topK: 11 }, "TOOL_SEARCH_CONFIG.autoDiscover.topK"],
    [{ topK: -1 }, "TOOL_SEARCH_CONFIG.autoDiscover.topK"],
    [{ topK: 1.5 }, "TOOL_SEARCH_CONFIG.autoDiscover.topK"],
    [{ minScore: -0.1 }, "TOOL_SEARCH_CONFIG.autoDiscover.minScore"],
    [{ minScore: "0.5" }, "TOOL_SEARCH_CONFIG.autoDiscover.minScore"],
    [{ minScore: Number.NaN }, "TOOL_SEARCH_CONFIG.autoDiscover.minScore"],
    [{ k: 3 }, "TOOL_SEARCH_CONFIG.autoDiscover.k"],
    [3, "TOOL_SEARCH_CONFIG.autoDiscover"],
  ])("refuses %j, naming %s", (value, field) => {
    expect(() => parseConfig({ autoDiscover: value })).toThrow(ConfigError);
    expect(() => parseConfig({ autoDiscover: value })).toThrow(expect.objectContaining({ field }));
  });
});

describe("latestUserText", () => {
  it.each([
    ["OpenAI Chat", [{ role: "user", content: "first" }, { role: "assistant", content: "ok" }, { role: "user", content: "second" }], "second"],
    ["Chat parts", [{ role: "user", content: [{ type: "text", text: "a" }, { type: "image_url", image_url: { url: "x" } }, { type: "text", text: "b" }] }], "a\nb"],
    ["Responses", [{ type: "message", role: "user", content: [{ type: "input_text", text: "hello" }] }, { type: "function_call", call_id: "1", name: "x", arguments: "{}" }], "hello"],
    ["MCP one block", [{ role: "user", content: { type: "text", text: "mcp" } }], "mcp"],
    [
      "Anthropic tool results skipped",
      [
        { role: "user", content: "book a flight" },
        { role: "assistant", content: [{ type: "tool_use", id: "t", name: "book_flight", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "done" }] },
      ],
      "book a flight",
    ],
    ["no user text", [{ role: "assistant", content: "hi" }, { role: "user", content: "  " }, 42, null], undefined],
  ])("%s", (_, messages, expected) => {
    expect(latestUserText(messages, 1000)).toBe(expected);
  });

  it("keeps the first maxChars characters", () => {
    expect(latestUserText([{ role: "user", content: "abcdef" }], 3)).toBe("abc");
  });
});

describe.each(SEARCH_MODES)("scored (%s)", (mode) => {
  const index = createSearchIndex(mode, catalog);

  it("follows search's order, with relevance from 0 to 1", () => {
    for (const query of ["weather in Paris", "send an email and book a flight", "file drive", "the user"]) {
      const scored = index.scored(query, 5);
      expect(scored.map((match) => match.name)).toEqual(index.search(query).slice(0, 5));
      for (const match of scored) expect(match.relevance).toBeGreaterThanOrEqual(0);
      for (const match of scored) expect(match.relevance).toBeLessThanOrEqual(1);
    }
    expect(index.scored("", 5)).toEqual([]);
    expect(index.scored("weather", 0)).toEqual([]);
  });

  it("counts only the tools `accept` takes towards the limit", () => {
    const query = "read or write a file on the drive";
    const all = index.scored(query, 10).map((match) => match.name);
    expect(all.slice(0, 2).toSorted()).toEqual(["read_file", "write_file"]);
    const first = all[0] ?? "";
    const accepted = index.scored(query, 1, (name) => name !== first);
    expect(accepted.map((match) => match.name)).toEqual([all[1]]);
  });

  it("gives a word only one tool holds 1, and a word most tools hold little", () => {
    expect(index.scored("weather", 1)).toEqual([{ name: "weather_forecast", relevance: 1 }]);
    const common = index.scored("user", 3);
    expect(common.length).toBeGreaterThan(0);
    for (const match of common) expect(match.relevance).toBeLessThan(0.8);
    // A word the catalog lacks does not lower a match: a long message is not penalised for its filler or names.
    expect(index.scored("weather Reykjavik Ulaanbaatar", 1)[0]?.relevance).toBe(1);
  });
});

describe("prepareTurn with autoDiscover", () => {
  it("adds the matching tools last, outside the discovered set, in every tool-list mode", () => {
    for (const toolList of ["grow", "stable", "fixed"] as const) {
      const off = turn("What is the weather forecast for Oslo?", { config: config({ toolList, autoDiscover: { topK: 0, minScore: 0.5 } }) });
      const on = turn("What is the weather forecast for Oslo?", { config: config({ toolList, searchMode: "minisearch" }) });
      expect(on.autoDiscovered).toEqual(["weather_forecast"]);
      expect(on.tools.map((t) => t.name)).toEqual([...off.tools.map((t) => t.name), "weather_forecast"]);
      expect(on.tools.slice(0, -1)).toEqual(off.tools);
      expect(on.discovered).toEqual([]);
      expect(on.stats.tokensSent).toBeGreaterThan(off.stats.tokensSent);
    }
  });

  it("takes at most topK, drops those under the floor, and never a tool this turn does not hold", () => {
    const message = "email the flight times and translate the weather forecast";
    expect(turn(message, { config: config({ autoDiscover: { topK: 2, minScore: 0 }, searchMode: "minisearch" }) }).autoDiscovered).toHaveLength(2);
    expect(turn(message, { config: config({ autoDiscover: { topK: 10, minScore: 0 }, searchMode: "minisearch" }) }).autoDiscovered.length).toBeGreaterThan(2);
    // The caller may not see the weather tool this turn (its groups): the index still holds it, the turn does not send it.
    const visible = catalog.filter((t) => t.name !== "weather_forecast");
    const hidden = turn(message, { tools: visible, config: config({ autoDiscover: { topK: 10, minScore: 0 }, searchMode: "minisearch" }) });
    expect(hidden.autoDiscovered).not.toContain("weather_forecast");
    expect(hidden.tools.map((t) => t.name)).not.toContain("weather_forecast");
    // "user" is in three of eight tools: it stays under a floor that a word one tool holds passes.
    expect(turn("please do it for the user", { config: config({ autoDiscover: { topK: 3, minScore: 0.8 }, searchMode: "minisearch" }) }).autoDiscovered).toEqual([]);
  });

  it("does not send a tool twice: a discovered or always-direct one is already in the list", () => {
    const grown = turn("weather forecast please", { discovered: ["weather_forecast"] });
    expect(grown.autoDiscovered).toEqual([]);
    expect(grown.tools.filter((t) => t.name === "weather_forecast")).toHaveLength(1);
    const direct = turn("weather forecast please", { config: config({ alwaysDirectTools: ["weather_forecast"], searchMode: "minisearch" }) });
    expect(direct.autoDiscovered).toEqual([]);
    // "fixed" sends no found tool by itself, so a found one may come back this way.
    const fixed = turn("weather forecast please", { discovered: ["weather_forecast"], config: config({ toolList: "fixed", searchMode: "minisearch" }) });
    expect(fixed.autoDiscovered).toEqual(["weather_forecast"]);
  });

  it("needs an index, a user message and the layer applying", () => {
    expect(turn("weather forecast", { searchIndex: undefined }).autoDiscovered).toEqual([]);
    expect(turn("weather forecast", { messages: [] }).autoDiscovered).toEqual([]);
    expect(turn("weather forecast", { userText: "book a flight" }).autoDiscovered).toEqual(["book_flight"]);
    const few = turn("weather forecast", { config: config({ maxDirectTools: 100, searchMode: "minisearch" }) });
    expect(few.applied).toBe(false);
    expect(few.autoDiscovered).toEqual([]);
  });
});
