import { array, assert, constantFrom, oneof, property, record, stringMatching, uniqueArray } from "fast-check";
import { describe, expect, it } from "vitest";
import { createSubstringIndex, queryKeywords } from "../../../src/core/search/substring.ts";
import type { ToolDefinition } from "../../../src/core/types.ts";
import { evalMcpTools, needsEvalData } from "../../evalData.ts";
import { tool } from "../../support/tools.ts";

/** The rule written the slow, obvious way: the reference the index must agree with. */
function reference(tools: readonly ToolDefinition[], query: string): string[] {
  const keywords = [...new Set(query.toLowerCase().split(/\s+/u).filter((k) => k !== ""))];
  if (keywords.length === 0) return tools.map((t) => t.name);
  return tools
    .map((t, index) => {
      const name = t.name.toLowerCase();
      const description = t.description.toLowerCase();
      const hits = keywords.filter((k) => name.includes(k) || description.includes(k)).length;
      const inName = keywords.some((k) => name.includes(k)) ? 1 : 0;
      return { name: t.name, index, hits, inName };
    })
    .filter((r) => r.hits > 0)
    .toSorted((a, b) => b.hits - a.hits || b.inName - a.inName || a.index - b.index)
    .map((r) => r.name);
}

const catalog = [
  tool("web_search", "Search the web for pages."),
  tool("fetch_url", "Fetch a URL and return its text."),
  tool("read_file", "Read a file from disk."),
  tool("write_file", "Write text to a FILE on disk."),
  tool("weather_now", "Current weather for a city."),
  tool("stock_quote", "Latest stock price. Searches exchanges worldwide."),
  tool("bing_search", "使用必应搜索指定的关键词，并返回搜索结果列表"),
];

describe("queryKeywords", () => {
  it("splits on any white space, lowercases and drops repeats", () => {
    expect(queryKeywords("  Web\tSEARCH\n web  ")).toEqual(["web", "search"]);
    expect(queryKeywords(" \t\n")).toEqual([]);
  });
});

describe("createSubstringIndex", () => {
  const index = createSubstringIndex(catalog);

  it("knows its size", () => {
    expect(index.size).toBe(catalog.length);
    expect(createSubstringIndex([]).size).toBe(0);
    expect(createSubstringIndex([]).search("x")).toEqual([]);
  });

  it("matches all tools in catalog order for an empty or blank query", () => {
    const all = catalog.map((t) => t.name);
    expect(index.search("")).toEqual(all);
    expect(index.search("   \t ")).toEqual(all);
  });

  it("matches any keyword, case-insensitively, as a substring of the name or the description", () => {
    expect(index.search("WEATHER")).toEqual(["weather_now"]);
    expect(index.search("disk")).toEqual(["read_file", "write_file"]);
    expect(index.search("file")).toEqual(["read_file", "write_file"]);
    // "arch" is inside "search" (name) and "Searches" (description): substrings, not whole words.
    expect(index.search("arch")).toEqual(["web_search", "bing_search", "stock_quote"]);
    expect(index.search("nothing-like-this")).toEqual([]);
    // Any keyword is enough: one that matches nothing does not hide the others.
    expect(index.search("zzz weather")).toEqual(["weather_now"]);
  });

  it("matches keywords holding punctuation, across word boundaries inside a name", () => {
    expect(index.search("web_search")).toEqual(["web_search"]);
    expect(index.search("url.")).toEqual([]);
    expect(index.search("url")).toEqual(["fetch_url"]);
    expect(index.search("price.")).toEqual(["stock_quote"]);
  });

  it("finds Chinese keywords inside unsegmented Chinese text", () => {
    expect(index.search("搜索")).toEqual(["bing_search"]);
    expect(index.search("关键词")).toEqual(["bing_search"]);
    expect(index.search("天气")).toEqual([]);
  });

  it("ranks more distinct keywords first, then a name match above a description-only match, ties in catalog order", () => {
    // write_file matches "text" and "file" (2); fetch_url matches only "text" (1); read_file matches "file" in its name.
    expect(index.search("text file")).toEqual(["write_file", "read_file", "fetch_url"]);
    // One keyword each: name matches (web_search, bing_search) come before a description-only match (stock_quote).
    expect(index.search("search")).toEqual(["web_search", "bing_search", "stock_quote"]);
    // A repeated keyword counts once.
    expect(index.search("disk disk DISK write")).toEqual(["write_file", "read_file"]);
  });

  it("ranks a tool whose keywords are spread over name and description by the distinct keywords matched", () => {
    const tools = [tool("alpha", "beta gamma"), tool("delta_beta", "nothing"), tool("beta", "alpha gamma")];
    expect(createSubstringIndex(tools).search("alpha beta gamma")).toEqual(["alpha", "beta", "delta_beta"]);
  });

  it("agrees with the obvious implementation on random catalogs and queries", () => {
    const word = stringMatching(/^[a-zA-Z_\-.é搜索]{1,6}$/u);
    const text = array(word, { maxLength: 8 }).map((words) => words.join(" "));
    const tools = uniqueArray(record({ name: word, description: text }), { selector: (t) => t.name, maxLength: 25 });
    const query = array(oneof(word, constantFrom("a", "E", "_", "搜")), { maxLength: 6 }).map((words) => words.join("  "));
    assert(
      property(tools, query, (rows, q) => {
        const defs = rows.map((r) => tool(r.name, r.description));
        expect(createSubstringIndex(defs).search(q)).toEqual(reference(defs, q));
      }),
      { numRuns: 300 },
    );
  });

  it("stays exact on a 10,000-tool catalog from the eval data", (context) => {
    needsEvalData(context);
    const base = evalMcpTools;
    const big = Array.from({ length: 10_000 }, (_, i) => {
      const source = base[i % base.length];
      return tool(`${source?.name ?? "t"}_${i}`, `${source?.description ?? ""} #${i}`);
    });
    const bigIndex = createSubstringIndex(big);
    for (const q of [
      "please find me a tool that can search the web for recent news articles about stock prices and summarize them",
      "stock price history",
      "搜索 天气",
      "#9999",
      "a",
    ]) {
      expect(bigIndex.search(q)).toEqual(reference(big, q));
    }
    // A search leaves no trace in the next one (scratch space is reset).
    expect(bigIndex.search("stock")).toEqual(reference(big, "stock"));
  });
});
