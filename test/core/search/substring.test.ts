import { array, assert, constantFrom, oneof, property, record, stringMatching, uniqueArray } from "fast-check";
import { describe, expect, it } from "vitest";
import { createSubstringIndex, queryKeywords, substringTerms } from "../../../src/core/search/substring.ts";
import { namedTools } from "../../../src/core/search/exactNames.ts";
import type { ToolDefinition } from "../../../src/core/types.ts";
import { measureRetrieval } from "../../../bench/metrics.ts";
import { evalMcpTools, evalMetaTool, needsEvalData } from "../../evalData.ts";
import { tool } from "../../support/tools.ts";

const CJK = /\p{Script=Han}|\p{Script=Hiragana}|\p{Script=Katakana}|\p{Script=Hangul}/u;

/** The spec's keywords, the slow way: white space splits; a CJK run becomes its overlapping bigrams. */
function referenceKeywords(query: string): string[] {
  const out: string[] = [];
  for (const word of query.toLowerCase().split(/\s+/u)) {
    let latin = "";
    let run: string[] = [];
    const flush = (): void => {
      if (latin !== "") out.push(latin);
      latin = "";
      if (run.length === 1) out.push(run[0] ?? "");
      for (let i = 0; i + 1 < run.length; i++) out.push(`${run[i] ?? ""}${run[i + 1] ?? ""}`);
      run = [];
    };
    for (const char of Array.from(word)) {
      if (CJK.test(char)) {
        if (latin !== "") flush();
        run.push(char);
      } else {
        if (run.length > 0) flush();
        latin += char;
      }
    }
    flush();
  }
  return [...new Set(out.filter((k) => k !== ""))];
}

/** The match set written the slow, obvious way: the tools any keyword is a substring of (name or description). */
function reference(tools: readonly ToolDefinition[], query: string): string[] {
  const keywords = referenceKeywords(query);
  if (keywords.length === 0) return tools.map((t) => t.name);
  return tools
    .filter((t) => keywords.some((k) => t.name.toLowerCase().includes(k) || t.description.toLowerCase().includes(k)))
    .map((t) => t.name);
}

const sorted = (names: readonly string[]): string[] => names.toSorted();

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

  it("takes each CJK run as its overlapping bigrams, a lone character as itself", () => {
    expect(queryKeywords("明天北京天气怎么样")).toEqual(["明天", "天北", "北京", "京天", "天气", "气怎", "怎么", "么样"]);
    expect(queryKeywords("天")).toEqual(["天"]);
    expect(queryKeywords("abc天气x 天")).toEqual(["abc", "天气", "x", "天"]);
    expect(queryKeywords("東京の天気")).toEqual(["東京", "京の", "の天", "天気"]);
  });
});

describe("substringTerms", () => {
  it("gives each keyword and its bare word: punctuation stripped at either end, past ASCII too, a word of it alone dropped", () => {
    // Edges in and past ASCII (the bare word of one starting and ending with an ASCII letter or digit is itself).
    expect(substringTerms("Weather? «Paris» (x) Zürich, ü 9AM- café a -- ǅx Ⅻ _id_ 天气?")).toEqual([
      "weather?", "weather", "«paris»", "paris", "(x)", "x", "zürich,", "zürich", "ü", "9am-", "9am", "café", "a", "--", "ǆx", "ⅻ",
      "_id_", "id", "天气", "?",
    ]);
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

  it("ranks rare keywords above common ones, a name hit above a description hit, ties in catalog order", () => {
    // "text" hits two tools, "file" three: write_file has both; read_file has the rarer-in-names "file" in its name.
    expect(index.search("text file")).toEqual(["write_file", "read_file", "fetch_url"]);
    // One keyword each: name matches (web_search, bing_search) come before a description-only match (stock_quote).
    expect(index.search("search")).toEqual(["web_search", "bing_search", "stock_quote"]);
    // A repeated keyword counts once.
    expect(index.search("disk disk DISK write")).toEqual(["write_file", "read_file"]);
  });

  it("lets filler words that hit every tool weigh almost nothing", () => {
    const tools = [
      tool("a_tool", "Can do the thing for the user."),
      tool("b_tool", "Can do the other thing for the user."),
      tool("weather_now", "Current weather for a city."),
      tool("c_tool", "Can the user do a thing?"),
    ];
    const ranked = createSubstringIndex(tools).search("can you tell me the weather for the user");
    expect(ranked[0]).toBe("weather_now");
    expect(sorted(ranked)).toEqual(sorted(reference(tools, "can you tell me the weather for the user")));
  });

  it("weighs a keyword by its bare word, punctuation around it aside, without changing the match set", () => {
    const tools = [tool("news_feed", "Headlines from the news wires today."), tool("weather_now", "Weather for today.")];
    const search = createSubstringIndex(tools);
    // "weather?" matches nothing as written; "today" matches both; the bare "weather" ranks weather_now first.
    expect(search.search("weather? today")).toEqual(["weather_now", "news_feed"]);
    expect(search.search("weather?")).toEqual([]);
  });

  it("ranks a tool whose keywords are spread over name and description above one with fewer", () => {
    const tools = [tool("alpha", "beta gamma"), tool("delta_beta", "nothing"), tool("beta", "alpha gamma")];
    expect(createSubstringIndex(tools).search("alpha beta gamma")).toEqual(["alpha", "beta", "delta_beta"]);
  });

  it("matches exactly the spec's set on random catalogs and queries", () => {
    const word = stringMatching(/^[a-zA-Z_\-.?,é搜索天气の]{1,6}$/u);
    const text = array(word, { maxLength: 8 }).map((words) => words.join(" "));
    const tools = uniqueArray(record({ name: word, description: text }), { selector: (t) => t.name, maxLength: 25 });
    const query = array(oneof(word, constantFrom("a", "E", "_", "搜")), { maxLength: 6 }).map((words) => words.join("  "));
    assert(
      property(tools, query, (rows, q) => {
        const defs = rows.map((r) => tool(r.name, r.description));
        const built = createSubstringIndex(defs);
        const found = built.search(q);
        expect(new Set(found).size).toBe(found.length);
        // The spec's set, and the tools the request names however it spells them (a name rule of both modes).
        expect(sorted(found)).toEqual(sorted([...new Set([...reference(defs, q), ...namedTools(built, q)])]));
      }),
      { numRuns: 300 },
    );
  });

  it("keeps the spec's match set on a 10,000-tool catalog from the eval data", (context) => {
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
      expect(sorted(bigIndex.search(q))).toEqual(sorted(reference(big, q)));
    }
    // A search leaves no trace in the next one (scratch space is reset).
    expect(sorted(bigIndex.search("stock"))).toEqual(sorted(reference(big, "stock")));
  });
});

describe("substring ranking on MetaTool (its target)", () => {
  it("reaches nDCG@10 ≥ 0.45 over every query whose tools are all in the catalog", (context) => {
    needsEvalData(context);
    const { tools, queries } = evalMetaTool;
    const metaIndex = createSubstringIndex(tools.map((t) => tool(t.name, t.description)));
    const quality = measureRetrieval((query) => metaIndex.search(query), queries, new Set(tools.map((t) => t.name)));
    expect(quality.queries).toBe(queries.length);
    expect(quality.ndcgAt10).toBeGreaterThanOrEqual(0.45);
  });
});
