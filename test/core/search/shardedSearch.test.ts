// A catalog split over N shards ranks exactly as one index over the same tools: the same pages, totals, filtered
// pages and relevance, in both modes, for N = 1, 2, 3 and 7, on generated catalogs and on the 527 real MCP tools, over
// the whole catalog and over a view (the tools a caller's groups show).
import { describe, expect, it } from "vitest";
import { SEARCH_MODES } from "../../../src/core/config.ts";
import type { SearchMode } from "../../../src/core/config.ts";
import { catalogPart, mergePages, partOf } from "../../../src/core/search/catalogParts.ts";
import { createSearchIndex } from "../../../src/core/search/createIndex.ts";
import { createIndexPart } from "../../../src/core/search/indexPart.ts";
import type { IndexPart } from "../../../src/core/search/indexPart.ts";
import { ShardedSearch } from "../../../src/core/search/shardedSearch.ts";
import type { IndexShard } from "../../../src/core/search/shardedSearch.ts";
import type { SearchIndex } from "../../../src/core/search/types.ts";
import { visibleCatalog } from "../../../src/core/tools/visibleCatalog.ts";
import type { ToolDefinition } from "../../../src/core/types.ts";
import { evalMetaTool, needsEvalData } from "../../evalData.ts";
import { rankingQueries, realRankingCatalog as realCatalog } from "../../support/rankingQueries.ts";
import { generatedCatalog, generatedQueries } from "../../support/generatedCatalog.ts";

const clone = <T>(value: T): T => structuredClone(value);

/** A shard in memory, its arguments and answers copied as an RPC would (structured clone). */
function memoryShard(part: IndexPart): IndexShard {
  return {
    catalog: () => Promise.resolve(clone(part.catalog())),
    termCounts: (query, whole) => Promise.resolve(clone(part.termCounts(query, clone(whole)))),
    bestLexical: (query, whole) => Promise.resolve(part.bestLexical(query, clone(whole))),
    page: (query, whole, count, excluded, withRelevance) => Promise.resolve(clone(part.page(query, clone(whole), count, excluded, withRelevance))),
  };
}

function shardedOver(mode: SearchMode, tools: readonly ToolDefinition[], count: number): ShardedSearch {
  const shards = Array.from({ length: count }, (_, shard) => {
    const part = catalogPart(tools, shard, count);
    return memoryShard(createIndexPart(mode, part.tools, part.positions));
  });
  return new ShardedSearch(mode, tools, shards);
}

const queriesFor = (tools: readonly ToolDefinition[], extra: readonly string[]): string[] => rankingQueries(tools, ["laptop rain", ...extra], 25);

const everyThird = (tools: readonly ToolDefinition[]): string[] => tools.filter((_, i) => i % 3 === 1).map((tool) => tool.name);

/** What one index answers, with `excluded` left out of the filtered answers. */
function singleAnswers(index: SearchIndex, queries: readonly string[], excluded: readonly string[]): unknown[] {
  const skip = new Set(excluded);
  const accept = (name: string): boolean => !skip.has(name);
  return queries.map((query, i) => ({
    query,
    all: i % 4 === 0 ? index.searchPage(query, Infinity) : undefined,
    page: index.searchPage(query, 10),
    filtered: index.searchPage(query, 5, accept),
    scored: index.scored(query, 10),
    scoredFiltered: index.scored(query, 4, accept),
  }));
}

async function shardedAnswers(search: ShardedSearch, queries: readonly string[], excluded: readonly string[]): Promise<unknown[]> {
  const answers: unknown[] = [];
  for (const [i, query] of queries.entries()) {
    answers.push({
      query,
      all: i % 4 === 0 ? await search.searchPage(query, Infinity) : undefined,
      page: await search.searchPage(query, 10),
      filtered: await search.searchPage(query, 5, excluded),
      scored: await search.scored(query, 10),
      scoredFiltered: await search.scored(query, 4, excluded),
    });
  }
  return answers;
}

async function assertSameRanking(mode: SearchMode, tools: readonly ToolDefinition[], queries: readonly string[], shardCounts: readonly number[]): Promise<void> {
  const excluded = everyThird(tools);
  const expected = singleAnswers(createSearchIndex(mode, tools), queries, excluded);
  for (const count of shardCounts) {
    const actual = await shardedAnswers(shardedOver(mode, tools, count), queries, excluded);
    // One query at a time, so that a difference names its query and shard count.
    actual.forEach((answer, i) => {
      expect({ shards: count, answer }).toEqual({ shards: count, answer: expected[i] });
    });
  }
}

describe("catalog parts", () => {
  it("put every tool in exactly one part, the same one for the same name, in catalog order", () => {
    const { tools } = generatedCatalog(300, 3);
    for (const count of [1, 2, 3, 7]) {
      const parts = Array.from({ length: count }, (_, shard) => catalogPart(tools, shard, count));
      expect(parts.reduce((sum, part) => sum + part.tools.length, 0)).toBe(tools.length);
      for (const [shard, part] of parts.entries()) {
        expect(part.tools.every((tool) => partOf(tool.name, count) === shard)).toBe(true);
        expect(part.positions).toEqual(part.positions.toSorted((a, b) => a - b));
        part.tools.forEach((tool, i) => expect(tools[part.positions[i] ?? -1]).toBe(tool));
      }
    }
    // Spread: with 7 parts over 300 tools no part is empty or holds most of them.
    const sizes = Array.from({ length: 7 }, (_, shard) => catalogPart(tools, shard, 7).tools.length);
    expect(Math.min(...sizes)).toBeGreaterThan(20);
    expect(Math.max(...sizes)).toBeLessThan(80);
  });

  it("merge pages by score, then catalog place, and add their totals", () => {
    const merged = mergePages([
      { matches: [{ name: "a", score: 3, position: 5 }, { name: "b", score: 1, position: 0 }], total: 4 },
      { matches: [{ name: "c", score: 3, position: 2 }, { name: "d", score: 2, position: 9 }], total: 2 },
    ], 3);
    expect(merged).toEqual({ matches: [{ name: "c", score: 3, position: 2 }, { name: "a", score: 3, position: 5 }, { name: "d", score: 2, position: 9 }], total: 6 });
  });
});

describe.each(SEARCH_MODES)("sharded search, %s: the ranking of one index", { timeout: 300_000 }, (mode) => {
  it("on generated catalogs, over 1, 2, 3 and 7 shards", async () => {
    const catalog = generatedCatalog(600, 11);
    const queries = queriesFor(catalog.tools, [...generatedQueries(catalog.words, 15, 4), "list the user data files", "create a file for the user"]);
    await assertSameRanking(mode, catalog.tools, queries, [1, 2, 3, 7]);
  });

  it("over a view: the tools a caller's groups show, ranked among themselves only", async () => {
    const catalog = generatedCatalog(500, 12);
    const groups = [...new Set(catalog.tools.flatMap((tool) => tool.groups ?? []))].slice(0, 6);
    const view = visibleCatalog(catalog.tools, groups);
    expect(view.length).toBeGreaterThan(0);
    expect(view.length).toBeLessThan(catalog.tools.length);
    await assertSameRanking(mode, view, queriesFor(view, generatedQueries(catalog.words, 8, 6)), [2, 3]);
  });

  it("on the 527 real MCP tools, whole and in a view, over 1, 2, 3 and 7 shards", async (context) => {
    needsEvalData(context);
    const tools = realCatalog();
    const metaQueries = evalMetaTool.queries.slice(0, 40).map((query) => query.query);
    await assertSameRanking(mode, tools, queriesFor(tools, metaQueries), [1, 2, 3, 7]);
    const groups = [...new Set(tools.flatMap((tool) => tool.groups ?? []))].slice(0, 3);
    const view = visibleCatalog(tools, groups);
    await assertSameRanking(mode, view, queriesFor(view, metaQueries.slice(0, 15)), [3]);
  });

  it("asks each shard once per round, and its catalog counts once", async () => {
    const { tools } = generatedCatalog(200, 13);
    const search = shardedOver(mode, tools, 3);
    await search.searchPage("create user data", 5);
    // catalog counts, term counts, (the best lexical score,) the pages.
    const rounds = mode === "minisearch" ? 4 : 3;
    expect(search.calls).toBe(3 * rounds);
    await search.searchPage("list files", 5);
    expect(search.calls).toBe(3 * (2 * rounds - 1));
    await search.searchPage("", 5);
    expect(search.calls).toBe(3 * (2 * rounds));
  });
});
