import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defaultConfig, type GatewayConfig } from "../../../src/core/config.ts";
import { texts } from "../../../src/core/locale.ts";
import type { SearchMode } from "../../../src/core/config.ts";
import { createSearchIndex } from "../../../src/core/search/createIndex.ts";
import { createSubstringIndex } from "../../../src/core/search/substring.ts";
import {
  compactToolNames, MAX_RELATED, parseSearchToolsParams, runSearchTools, SEARCH_TOOLS_NAME, searchToolsAnswer, searchToolsDefinition,
  type SearchToolsParams,
} from "../../../src/core/turn/searchTools.ts";
import type { ToolDefinition } from "../../../src/core/types.ts";
import { toolMaker } from "../../support/tools.ts";

/** Each tool with one required argument named after it. */
const tool = toolMaker((name) => ({
  parameters: { type: "object", properties: { [`${name}_arg`]: { type: "string" } }, required: [`${name}_arg`] },
}));

function config(overrides: Partial<GatewayConfig> = {}): GatewayConfig {
  return { ...defaultConfig(), toolList: "grow", ...overrides };
}

const catalog: ToolDefinition[] = [
  tool("calculator", "Evaluate an arithmetic expression."),
  tool("web_search", "Search the web.", { groups: ["web"] }),
  tool("fetch_url", "Fetch a web page.", { groups: ["web"] }),
  tool("read_file", "Read a file.", { groups: ["files"] }),
  tool("write_file", "Write a file.", { groups: ["files"] }),
  tool("delete_file", "Delete a file.", { groups: ["files", "danger"] }),
  tool("shell", "Run a shell command.", { groups: ["danger"] }),
  tool("clock", "The current time."),
];

const MODES: readonly SearchMode[] = ["substring", "minisearch"];

interface SearchOptions {
  enabledGroups?: readonly string[];
  config?: GatewayConfig;
  mode?: SearchMode;
}

function searchWith(params: SearchToolsParams, options: SearchOptions = {}) {
  return runSearchTools(params, {
    catalog,
    index: createSearchIndex(options.mode ?? "substring", catalog),
    enabledGroups: options.enabledGroups,
    config: options.config ?? config(),
  });
}

describe("searchToolsDefinition", () => {
  it("takes query (required), limit and offset (non-negative integers), and nothing else", () => {
    const definition = searchToolsDefinition(config(), catalog);
    expect(definition.name).toBe(SEARCH_TOOLS_NAME);
    expect(definition.groups).toBeUndefined();
    expect(definition.parameters).toEqual({
      type: "object",
      properties: {
        query: { type: "string", description: texts("en").searchToolsQuery },
        limit: { type: "integer", minimum: 0, description: texts("en").searchToolsLimit },
        offset: { type: "integer", minimum: 0, description: texts("en").searchToolsOffset },
      },
      required: ["query"],
      additionalProperties: false,
    });
  });

  it("with showToolNames lists the other tools' names, never their descriptions, and says to search first", () => {
    const description = searchToolsDefinition(config(), catalog).description;
    for (const t of catalog) expect(description).not.toContain(t.description);
    expect(compactToolNames(catalog)).toBe("calculator,clock; web: web_search,fetch_url; files: read_file,write_file,delete_file; danger: shell");
    expect(description).toMatch(/search for a tool first, then call it/);
    expect(description).toBe(texts("en").searchToolsDescription(compactToolNames(catalog)));
  });

  it("gives a changed catalog's names anew (the list is remembered per names and groups)", () => {
    const before = [tool("git__log", ""), tool("git__diff", "")];
    expect(compactToolNames(before)).toBe("git__{log,diff}");
    expect(compactToolNames([...before, tool("git__show", "")])).toBe("git__{log,diff,show}");
    expect(compactToolNames([{ ...tool("git__log", ""), groups: ["vcs"] }, tool("git__diff", "")])).toBe("git__diff; vcs: git__log");
    expect(compactToolNames(before)).toBe("git__{log,diff}");
  });

  it("explains the brace notation only when the list uses it", () => {
    const withBraces = [tool("git__log", ""), tool("git__diff", ""), tool("clock", "")];
    expect(searchToolsDefinition(config(), withBraces).description).toBe(
      texts("en").searchToolsDescription(`${texts("en").toolNamesNotation} git__{log,diff},clock`),
    );
    expect(searchToolsDefinition(config(), catalog).description).not.toContain(texts("en").toolNamesNotation);
    expect(searchToolsDefinition(config({ locale: "zh" }), withBraces).description).toContain(texts("zh").toolNamesNotation);
  });

  it("without showToolNames, or with no other tools, lists no names", () => {
    const plain = texts("en").searchToolsDescription(null);
    expect(searchToolsDefinition(config({ showToolNames: false }), catalog).description).toBe(plain);
    expect(searchToolsDefinition(config(), []).description).toBe(plain);
    expect(plain).not.toContain("calculator");
  });

  it("speaks Chinese with locale zh", () => {
    const definition = searchToolsDefinition(config({ locale: "zh" }), catalog);
    expect(definition.description).toBe(texts("zh").searchToolsDescription(compactToolNames(catalog)));
    expect(definition.description).toContain("务必先搜索");
    expect(definition.parameters).toMatchObject({ properties: { query: { description: texts("zh").searchToolsQuery } } });
  });
});

describe("compactToolNames", () => {
  it("lists ungrouped names plainly, then each group's names under their first group", () => {
    expect(compactToolNames([tool("clock", ""), tool("fetch_url", "", { groups: ["web"] }), tool("web_search", "", { groups: ["web", "x"] }), tool("calculator", "")]))
      .toBe("clock,calculator; web: fetch_url,web_search");
  });

  it("brace-compresses names sharing a stem, the namespace (`__`) first, two levels deep", () => {
    expect(compactToolNames([tool("read_file", ""), tool("read_dir", ""), tool("write_file", "")])).toBe("read_{file,dir},write_file");
    expect(compactToolNames([tool("git__log", ""), tool("git__diff_staged", ""), tool("git__diff_head", ""), tool("other", "")]))
      .toBe("git__{log,diff_{staged,head}},other");
    expect(compactToolNames([tool("a.b", ""), tool("a.c", ""), tool("x-y", "", { groups: ["g"] }), tool("x-z", "", { groups: ["g"] })])).toBe("a.{b,c}; g: x-{y,z}");
  });

  it("loses no name: expanding the braces gives back every name", () => {
    const names = ["srv__get_a", "srv__get_b", "srv__put", "srv2__x", "lone", "web_search", "web_fetch", "a-b", "a-c", "q"];
    const compact = compactToolNames(names.map((n) => tool(n, "")));
    const expand = (text: string): string[] => {
      const match = /^(.*?)([^,{}]*)\{([^{}]*)\}(.*)$/u.exec(text);
      if (!match) return text.split(",");
      const [, before = "", stem = "", inner = "", after = ""] = match;
      return expand(`${before}${inner.split(",").map((part) => stem + part).join(",")}${after}`);
    };
    expect(expand(compact).toSorted()).toEqual(names.toSorted());
  });
});

describe("parseSearchToolsParams", () => {
  it("reads query, limit and offset", () => {
    expect(parseSearchToolsParams({ query: "web", limit: 3, offset: 6 }, 100)).toEqual({
      ok: true,
      params: { query: "web", limit: 3, offset: 6 },
    });
    expect(parseSearchToolsParams({ query: "", limit: 0, offset: 0 }, 100)).toEqual({
      ok: true,
      params: { query: "", limit: 0, offset: 0 },
    });
  });

  it("reads a missing or null query (and missing arguments) as the empty query, which lists everything", () => {
    expect(parseSearchToolsParams({}, 100)).toEqual({ ok: true, params: { query: "" } });
    expect(parseSearchToolsParams(undefined, 100)).toEqual({ ok: true, params: { query: "" } });
    expect(parseSearchToolsParams(null, 100)).toEqual({ ok: true, params: { query: "" } });
    expect(parseSearchToolsParams({ query: null, limit: null, offset: null }, 100)).toEqual({ ok: true, params: { query: "" } });
  });

  it("caps the query length at maxQueryLength", () => {
    expect(parseSearchToolsParams({ query: "x".repeat(10) }, 10)).toEqual({ ok: true, params: { query: "x".repeat(10) } });
    expect(parseSearchToolsParams({ query: "x".repeat(11) }, 10)).toEqual({
      ok: false,
      problems: [texts("en").searchQueryTooLong(10)],
    });
  });

  it("rejects what is not an object, a query that is not a string, bad limits and offsets, and unknown arguments", () => {
    const t = texts("en");
    for (const bad of ["web", 3, [], true]) {
      expect(parseSearchToolsParams(bad, 100)).toEqual({ ok: false, problems: [t.searchArgumentsNotObject] });
    }
    expect(parseSearchToolsParams({ query: 5 }, 100)).toEqual({ ok: false, problems: [t.searchQueryNotString] });
    for (const bad of [-1, 1.5, "3", Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60, true]) {
      expect(parseSearchToolsParams({ query: "a", limit: bad }, 100)).toEqual({
        ok: false,
        problems: [t.searchNotNonNegativeInteger("limit")],
      });
      expect(parseSearchToolsParams({ query: "a", offset: bad }, 100)).toEqual({
        ok: false,
        problems: [t.searchNotNonNegativeInteger("offset")],
      });
    }
    expect(parseSearchToolsParams({ query: "a", page: 2 }, 100)).toEqual({ ok: false, problems: [t.searchUnknownArgument("page")] });
  });

  it("reports every problem at once, in the caller's locale", () => {
    const zh = texts("zh");
    expect(parseSearchToolsParams({ query: 1, limit: -1, offset: "x", extra: 1 }, 100, "zh")).toEqual({
      ok: false,
      problems: [zh.searchQueryNotString, zh.searchNotNonNegativeInteger("limit"), zh.searchNotNonNegativeInteger("offset"), zh.searchUnknownArgument("extra")],
    });
    expect(zh.searchQueryNotString).toMatch(/字符串/);
  });
});

describe.each(MODES)("runSearchTools over the %s index", (mode) => {
  const search = (params: SearchToolsParams, options: SearchOptions = {}) => searchWith(params, { ...options, mode });

  it("returns found, the tools with full definitions, and a hint; no pagination when everything fits", () => {
    const result = search({ query: "shell" });
    expect(result).toEqual({
      found: "1/1",
      tools: [{ name: "shell", description: "Run a shell command.", parameters: catalog[6]?.parameters }],
      related: ["delete_file"],
      hint: texts("en").hintFound(1, 1, undefined),
    });
    expect(Object.keys(result)).toEqual(["found", "tools", "related", "hint"]);
  });

  it("matches all tools for an empty query, limited to maxSearchResults by default", () => {
    const result = search({ query: "" });
    expect(result.found).toBe(`5/${catalog.length}`);
    expect(result.tools.map((t) => t.name)).toEqual(catalog.slice(0, 5).map((t) => t.name));
    expect(result.pagination).toEqual({ total: 8, offset: 0, returned: 5, nextOffset: 5 });
    expect(result.hint).toBe(texts("en").hintFound(5, 8, 5));
    expect(Object.keys(result)).toEqual(["found", "tools", "pagination", "related", "hint"]);
    expect(search({ query: "" }, { config: config({ maxSearchResults: 3 }) }).found).toBe("3/8");
  });

  it("treats limit 0, or maxSearchResults 0, as no limit", () => {
    for (const result of [search({ query: "", limit: 0 }), search({ query: "" }, { config: config({ maxSearchResults: 0 }) })]) {
      expect(result.found).toBe("8/8");
      expect(result.tools).toHaveLength(8);
      expect(result.pagination).toBeUndefined();
    }
    // An explicit limit wins over maxSearchResults 0.
    expect(search({ query: "", limit: 2 }, { config: config({ maxSearchResults: 0 }) }).found).toBe("2/8");
  });

  it("pages with offset: nextOffset while more remain, pagination without it on the last page", () => {
    const second = search({ query: "", limit: 3, offset: 3 });
    expect(second.tools.map((t) => t.name)).toEqual(["read_file", "write_file", "delete_file"]);
    expect(second.pagination).toEqual({ total: 8, offset: 3, returned: 3, nextOffset: 6 });
    const last = search({ query: "", limit: 3, offset: 6 });
    expect(last.tools.map((t) => t.name)).toEqual(["shell", "clock"]);
    expect(last.found).toBe("2/8");
    expect(last.pagination).toEqual({ total: 8, offset: 6, returned: 2 });
    expect(last.hint).toBe(texts("en").hintFound(2, 8, undefined));
    // Pages put together give every match once, in order.
    const pages = [0, 3, 6].flatMap((offset) => search({ query: "", limit: 3, offset }).tools.map((t) => t.name));
    expect(pages).toEqual(catalog.map((t) => t.name));
  });

  it("answers an offset at or past the end with no tools, the total, and a hint that says so", () => {
    for (const offset of [8, 50]) {
      const result = search({ query: "", offset });
      expect(result.found).toBe("0/8");
      expect(result.tools).toEqual([]);
      expect(result.pagination).toEqual({ total: 8, offset, returned: 0 });
      expect(result.related).toBeUndefined();
      expect(result.hint).toBe(texts("en").hintOffsetPastEnd(offset, 8));
    }
  });

  it("answers no match with found 0/0, no pagination and the none-found hint", () => {
    const result = search({ query: "teleport" });
    expect(result).toEqual({ found: "0/0", tools: [], hint: texts("en").hintNone("teleport") });
  });

  it("filters by the enabled groups at call time: ungrouped always, '*' all, none or empty → ungrouped only", () => {
    const names = (enabledGroups: readonly string[] | undefined) =>
      search({ query: "", limit: 0 }, { enabledGroups }).tools.map((t) => t.name);
    expect(names(undefined)).toEqual(catalog.map((t) => t.name));
    expect(names(["*"])).toEqual(catalog.map((t) => t.name));
    expect(names([])).toEqual(["calculator", "clock"]);
    expect(names(["web"])).toEqual(["calculator", "web_search", "fetch_url", "clock"]);
    // A tool in several groups shows when any of them is on.
    expect(names(["danger"])).toEqual(["calculator", "delete_file", "shell", "clock"]);
    // Totals count only what the caller may see.
    expect(search({ query: "file" }, { enabledGroups: ["web"] })).toEqual({ found: "0/0", tools: [], hint: texts("en").hintNone("file") });
    expect(search({ query: "file", limit: 1 }, { enabledGroups: ["files"] }).pagination).toEqual({ total: 3, offset: 0, returned: 1, nextOffset: 1 });
  });

  it(`caps related at ${MAX_RELATED} names`, () => {
    const big = Array.from({ length: 40 }, (_, i) => tool(`g_tool_${i}`, `tool ${i}`, { groups: ["g"] }));
    const result = runSearchTools({ query: "g_tool_0" }, { catalog: big, index: createSubstringIndex(big), enabledGroups: undefined, config: config() });
    expect(result.tools.map((t) => t.name)).toEqual(["g_tool_0"]);
    expect(result.related).toHaveLength(MAX_RELATED);
    expect(result.related?.[0]).toBe("g_tool_1");
  });

  it("lists as related exactly what a walk of the whole catalog would (groups shared, visible, catalog order, capped)", () => {
    const groupNames = ["a", "b", "c", "d", "e"];
    const arbitraryCatalog = fc.array(fc.subarray(groupNames, { maxLength: 3 }), { minLength: 1, maxLength: 60 }).map((groupsOfEach) =>
      groupsOfEach.map((groups, i) => tool(`t_${i}`, `tool ${i}`, groups.length > 0 ? { groups } : {})));
    fc.assert(fc.property(
      arbitraryCatalog,
      fc.array(fc.nat(), { maxLength: 4 }),
      fc.option(fc.subarray(groupNames), { nil: undefined }),
      (tools, picks, enabledGroups) => {
        const shown = new Set<ToolDefinition>();
        const isShown = (candidate: ToolDefinition): boolean =>
          enabledGroups === undefined || (candidate.groups ?? []).length === 0 || (candidate.groups ?? []).some((group) => enabledGroups.includes(group));
        for (const candidate of tools) if (isShown(candidate)) shown.add(candidate);
        const page: ToolDefinition[] = [];
        for (const pick of picks) {
          const picked = tools[pick % tools.length];
          if (picked !== undefined && shown.has(picked) && !page.includes(picked)) page.push(picked);
        }
        // The plain walk: every tool of the catalog, in order.
        const groups = new Set(page.flatMap((picked) => picked.groups ?? []));
        const expected = tools
          .filter((candidate) => !page.includes(candidate) && shown.has(candidate) && (candidate.groups ?? []).some((group) => groups.has(group)))
          .slice(0, MAX_RELATED)
          .map((candidate) => candidate.name);
        // A catalog's first searches walk it, later ones read its tools grouped once: both answer alike.
        for (let round = 0; round < 6; round++) {
          const answer = searchToolsAnswer({ query: "x" }, { names: page.map((picked) => picked.name), total: page.length }, { catalog: tools, enabledGroups, config: config() });
          expect(answer.related ?? []).toEqual(expected);
        }
      },
    ), { numRuns: 300 });
  });

  it("never returns search_tools itself, even when a client catalog carries it", () => {
    const withSelf = [searchToolsDefinition(config(), catalog), ...catalog];
    const result = runSearchTools({ query: "search" }, { catalog: withSelf, index: createSubstringIndex(withSelf), enabledGroups: undefined, config: config() });
    expect(result.tools.map((t) => t.name)).toEqual(["web_search"]);
  });

  it("ranks with the index: more keywords first, name matches before description matches", () => {
    expect(search({ query: "file write", limit: 0 }).tools.map((t) => t.name)).toEqual(["write_file", "read_file", "delete_file"]);
    expect(search({ query: "web", limit: 0 }).tools.map((t) => t.name)).toEqual(["web_search", "fetch_url"]);
  });

  it("speaks Chinese with locale zh", () => {
    const zh = config({ locale: "zh" });
    expect(search({ query: "", limit: 2 }, { config: zh }).hint).toBe(texts("zh").hintFound(2, 8, 2));
    expect(search({ query: "", limit: 2 }, { config: zh }).hint).toContain("offset 2");
    expect(search({ query: "传送" }, { config: zh }).hint).toBe("没有工具匹配「传送」。请换用其它或更少的关键词，或用空 query 列出全部工具。");
    expect(search({ query: "", offset: 9 }, { config: zh }).hint).toBe(texts("zh").hintOffsetPastEnd(9, 8));
  });
});

// Which tools come back differs by mode; `related` is checked where the substring rule makes the results exact.
describe("runSearchTools related tools (substring index)", () => {
  it("lists related tools: other visible tools sharing a group with the returned ones, names only, never a gated one", () => {
    expect(searchWith({ query: "read_file" }).related).toEqual(["write_file", "delete_file"]);
    expect(searchWith({ query: "delete" }).related).toEqual(["read_file", "write_file", "shell"]);
    // shell shares only "danger" with delete_file; with "danger" off it must not leak through `related`.
    expect(searchWith({ query: "delete" }, { enabledGroups: ["files"] }).related).toEqual(["read_file", "write_file"]);
    // Returned tools are never listed as related, and ungrouped results have none.
    expect(searchWith({ query: "file", limit: 0 }).related).toEqual(["shell"]);
    expect(searchWith({ query: "web", limit: 0 }).related).toBeUndefined();
    expect(searchWith({ query: "calculator" }).related).toBeUndefined();
  });
});
