import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createSearchIndex } from "../../../src/core/search/createIndex.ts";
import { indexAnswersFor, NameLookup, nameKey } from "../../../src/core/search/exactNames.ts";
import { CAMEL_BOUNDARIES } from "../../../src/core/search/text.ts";
import type { SearchMode } from "../../../src/core/config.ts";
import type { SearchIndex } from "../../../src/core/search/types.ts";
import type { ToolDefinition } from "../../../src/core/types.ts";
import { evalMcpTools, evalMetaTool, evalRetrievalCatalogs, needsEvalData } from "../../evalData.ts";
import { tool } from "../../support/tools.ts";

const MODES: readonly SearchMode[] = ["substring", "minisearch"];

/** What a caller outside get_weather's groups may see. */
const hidden = (name: string): boolean => name !== "get_weather";

const catalog: ToolDefinition[] = [
  tool("weather_report", "Gets the weather for a city: today's weather, tomorrow's weather, the week's weather."),
  tool("get_weather", "Current conditions for a city."),
  tool("everything__echo", "Echoes back the input."),
  tool("everything__add", "Adds two numbers."),
  tool("calculator__add", "Adds, subtracts, multiplies."),
  tool("HTTPRequest", "Sends an HTTP request."),
  tool("echo_weather", "Echo the weather echo echo echo."),
];

/** nameKey by the Unicode patterns alone (what its ASCII path must equal). */
function byPatterns(text: string): string {
  return (text.match(/[\p{L}\p{N}]+/gu) ?? [])
    .flatMap((run) => CAMEL_BOUNDARIES.reduce((spaced, [pattern, replacement]) => spaced.replace(pattern, replacement), run).split(" "))
    .filter((word) => word !== "").map((word) => word.toLowerCase()).join(" ");
}

describe("nameKey", () => {
  it("gives a name's words, lower-case, whatever the spelling", () => {
    for (const spelling of ["get_weather", "get weather", "getWeather", "GetWeather", "GET-WEATHER", "get.weather", "  get  weather "]) {
      expect(nameKey(spelling)).toBe("get weather");
    }
    expect(nameKey("HTTPRequest")).toBe("http request");
    expect(nameKey("YituTech_conv-bert-base2")).toBe("yitu tech conv bert base 2");
    expect(nameKey("")).toBe("");
  });

  it("cuts ASCII names (split by character codes) exactly where the Unicode patterns cut", () => {
    const nameLike = fc.stringMatching(/^[a-zA-Z0-9_.\- ]{0,24}$/);
    fc.assert(fc.property(fc.oneof(nameLike, fc.string({ unit: "binary-ascii", maxLength: 24 })), (text) => {
      expect(nameKey(text)).toBe(byPatterns(text));
    }), { numRuns: 2_000 });
    expect(nameKey("aBCd2FAb")).toBe(byPatterns("aBCd2FAb"));
    expect(nameKey("Ünïcode_HTTPServer")).toBe(byPatterns("Ünïcode_HTTPServer"));
  });
});

describe.each(MODES)("a request that names a tool (%s)", (mode) => {
  const index = createSearchIndex(mode, catalog);
  const first = (query: string): string | undefined => index.search(query)[0];

  it("ranks the tool first however its name is spelt", () => {
    // weather_report's description says "weather" four times: only the name can put get_weather first.
    const queries = ["get_weather", "get weather", "getWeather", "Get Weather", "`get_weather`", "GET_WEATHER"];
    expect(queries.map((query) => [query, first(query)])).toEqual(queries.map((query) => [query, "get_weather"]));
    expect(first("http request")).toBe("HTTPRequest");
  });

  it("finds an upstream tool by its gateway name and by the upstream's own name", () => {
    expect(first("everything__echo")).toBe("everything__echo");
    // echo_weather says "echo" five times; the upstream's own name is still enough.
    expect(first("echo")).toBe("everything__echo");
    // Two upstreams serve `add`: both come first, in catalog order.
    expect(index.search("add").slice(0, 2)).toEqual(["everything__add", "calculator__add"]);
  });

  it("puts the name as written first when punctuation alone tells two names apart", () => {
    // fast-check found it: with `a_` and `a` in the catalog, the request `a_` named `a` first.
    for (const names of [["a_", "a"], ["a", "a_"]]) {
      const small = createSearchIndex(mode, names.map((name) => tool(name)));
      expect(small.search("a_")[0]).toBe("a_");
      expect(small.search("a")[0]).toBe("a");
    }
  });

  it("finds a tool named by an identifier inside a longer request", () => {
    expect(first("please call get_weather for Paris")).toBe("get_weather");
    expect(first(`${"tell me about the weather in Paris and in every other city of France. ".repeat(5)}Use get_weather.`)).toBe("get_weather");
  });

  it("keeps the names first in pages, in scored answers and in counts, and never shows a tool the caller may not see", () => {
    const page = index.searchPage("get weather", 2);
    expect(page.names[0]).toBe("get_weather");
    expect(page.total).toBe(index.search("get weather").length);
    expect(index.scored("get weather", 1)).toEqual([{ name: "get_weather", relevance: 1 }]);
    expect(index.searchPage("get_weather", 5, hidden).names).not.toContain("get_weather");
    expect(index.scored("get_weather", 5, hidden).map((match) => match.name)).not.toContain("get_weather");
  });

  it("follows the catalog through an update", () => {
    const next = [...catalog.slice(1), tool("get_forecast", "The week ahead.")];
    const updated: SearchIndex = createSearchIndex(mode, catalog).update?.(next) ?? createSearchIndex(mode, next);
    expect(updated.search("get forecast")[0]).toBe("get_forecast");
    expect(updated.search("weather report")).not.toContain("weather_report");
  });

  it("says it answers for the very list it was made or last updated with, and for no other", () => {
    const list = [...catalog];
    const own = createSearchIndex(mode, list);
    expect(indexAnswersFor(own, list)).toBe(true);
    // The same tools in another array may differ later: never taken for it.
    expect(indexAnswersFor(own, [...list])).toBe(false);
    expect(indexAnswersFor(undefined, list)).toBe(false);
    const next = [...catalog.slice(1), tool("get_forecast", "The week ahead.")];
    // Changed in place: it answers for the new list, no longer for the one before (whose weather_report it lost).
    expect(own.update?.(next)).toBe(own);
    expect(indexAnswersFor(own, next)).toBe(true);
    expect(indexAnswersFor(own, list)).toBe(false);
  });

  it("finds every name a long request names, in the order named, each once", () => {
    const request = "please use get_weather, then everything__echo, then calculator__add (and get_weather again) for Paris.";
    expect(new NameLookup(catalog).named(request)).toEqual(["get_weather", "everything__echo", "calculator__add"]);
    expect(index.search(request).slice(0, 3)).toEqual(["get_weather", "everything__echo", "calculator__add"]);
    // A word that is no identifier names nothing inside a request; alone, it is the request (both `add` tools).
    expect(new NameLookup(catalog).named("get_weather then add")).toEqual(["get_weather"]);
    expect(new NameLookup(catalog).named("add")).toEqual(["everything__add", "calculator__add"]);
  });
});

/** The ways a request names a tool: as written, its words spaced, camelCase, snake_case, and an upstream's own name. */
function spellings(name: string): string[] {
  const words = nameKey(name).split(" ");
  const camel = words.map((word, i) => (i === 0 ? word : word.charAt(0).toUpperCase() + word.slice(1))).join("");
  const own = name.lastIndexOf("__") > 0 ? [name.slice(name.lastIndexOf("__") + 2)] : [];
  // Digits next to digits run together in camelCase (`pm 2 5` → `pm25`): no request spells the name so.
  const camelCase = nameKey(camel) === words.join(" ") ? [camel] : [];
  return [name, words.join(" "), ...camelCase, words.join("_"), ...own];
}

/** The tools that answer to `query` as a name: its words are theirs, or their upstream's own name's. */
function answering(lookupKeys: Map<string, string[]>, query: string): string[] {
  return lookupKeys.get(nameKey(query)) ?? [];
}

/** The four retrieval sets' catalogs and the 527 MCP tools, by name. */
function catalogs(): [string, ToolDefinition[]][] {
  return [
    ["metaTool", evalMetaTool.tools.map((t) => tool(t.name, t.description))],
    // Names repeat across servers: the gateway serves each as `server__name` (bench/catalog.ts, realCatalog).
    ["mcp-tools", evalMcpTools.map((t) => tool(`${t.server.replaceAll(/[^A-Za-z0-9]+/gu, "_").replaceAll(/^_+|_+$/gu, "")}__${t.name}`, t.description, { parameters: t.inputSchema }))],
    ...Object.entries(evalRetrievalCatalogs).map(([set, tools]): [string, ToolDefinition[]] => [set, tools.map((t) => tool(t.name, t.description, { parameters: t.parameters }))]),
  ];
}

describe("every tool of the evaluation data is found first by its name, in both modes", () => {
  // Six catalogs, 6,000 tools, built in both modes: longer than a unit test.
  it.for(MODES)("%s", { timeout: 120_000 }, (mode, context) => {
    needsEvalData(context);
    let checked = 0;
    const misses: string[] = [];
    for (const [set, tools] of catalogs()) {
      const index = createSearchIndex(mode, tools);
      // Names that share their words (or an upstream's own name) answer to the same requests: any of them may be first.
      const keys = new Map<string, string[]>();
      for (const { name } of tools) {
        const own = name.lastIndexOf("__") > 0 ? [nameKey(name.slice(name.lastIndexOf("__") + 2))] : [];
        for (const key of new Set([nameKey(name), ...own])) keys.set(key, [...(keys.get(key) ?? []), name]);
      }
      expect(new NameLookup(tools).named(tools[0]?.name ?? "")[0]).toBe(tools[0]?.name);
      for (const { name } of tools) {
        for (const query of spellings(name)) {
          const top = index.scored(query, 1)[0]?.name;
          const expected = query === name ? [name] : answering(keys, query);
          if (!expected.includes(top ?? "")) misses.push(`${set}: "${query}" ranks ${String(top)} first, not ${expected.join(" or ")}`);
          checked++;
        }
      }
    }
    expect(misses).toEqual([]);
    expect(checked).toBeGreaterThan(5 * 527);
  });
});
