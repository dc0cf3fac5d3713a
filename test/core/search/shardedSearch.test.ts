// A catalog split over N shards ranks exactly as one index over the same tools: the same pages, totals, filtered
// pages and relevance, in both modes, for N = 1, 2, 3 and 7, on generated catalogs and on the 527 real MCP tools, over
// the whole catalog and over a view (the tools a caller's groups show).
import { describe, expect, it } from "vitest";
import { SEARCH_MODES } from "../../../src/core/config.ts";
import type { SearchMode } from "../../../src/core/config.ts";
import { catalogPart, mergePages, mergeTermTables, partOf } from "../../../src/core/search/catalogParts.ts";
import { createSearchIndex } from "../../../src/core/search/createIndex.ts";
import { createIndexPart } from "../../../src/core/search/indexPart.ts";
import { frontier } from "../../../src/core/search/indexPart.ts";
import { mergeCandidates, ShardedSearch, shardsInMemory } from "../../../src/core/search/shardedSearch.ts";
import type { SearchIndex } from "../../../src/core/search/types.ts";
import { visibleCatalog } from "../../../src/core/tools/visibleCatalog.ts";
import type { ToolDefinition } from "../../../src/core/types.ts";
import { evalMetaTool, needsEvalData } from "../../evalData.ts";
import { rankingQueries, realRankingCatalog as realCatalog } from "../../support/rankingQueries.ts";
import { generatedCatalog, generatedQueries } from "../../support/generatedCatalog.ts";

const clone = <T>(value: T): T => structuredClone(value);

/** Sharded searches over the same parts: each new one has counted no substring keyword yet. */
function searchesOver(mode: SearchMode, tools: readonly ToolDefinition[], count: number): () => ShardedSearch {
  const shards = Array.from({ length: count }, (_, shard) => {
    const part = catalogPart(tools, shard, count);
    return createIndexPart(mode, part.tools, part.positions);
  });
  // Every call's arguments and answers copied as an RPC would (structured clone).
  return () => new ShardedSearch(mode, tools, shardsInMemory(shards, clone));
}

function shardedOver(mode: SearchMode, tools: readonly ToolDefinition[], count: number): ShardedSearch {
  return searchesOver(mode, tools, count)();
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

/** The sharded answers, each asked of `searchFor()`: the same search each time, or a new one (no keyword counted). */
async function shardedAnswers(searchFor: () => ShardedSearch, queries: readonly string[], excluded: readonly string[]): Promise<unknown[]> {
  const answers: unknown[] = [];
  for (const [i, query] of queries.entries()) {
    answers.push({
      query,
      all: i % 4 === 0 ? await searchFor().searchPage(query, Infinity) : undefined,
      page: await searchFor().searchPage(query, 10),
      filtered: await searchFor().searchPage(query, 5, excluded),
      scored: await searchFor().scored(query, 10),
      scoredFiltered: await searchFor().scored(query, 4, excluded),
    });
  }
  return answers;
}

async function assertSameRanking(mode: SearchMode, tools: readonly ToolDefinition[], queries: readonly string[], shardCounts: readonly number[]): Promise<void> {
  const excluded = everyThird(tools);
  const expected = singleAnswers(createSearchIndex(mode, tools), queries, excluded);
  for (const count of shardCounts) {
    const searches = searchesOver(mode, tools, count);
    const search = searches();
    // One search throughout (substring: keyword bands for a query's first answer, counts kept for the rest), and a
    // new search per answer (substring: every answer from keyword bands).
    for (const [how, searchFor] of [["kept", () => search], ["new", searches]] as const) {
      const actual = await shardedAnswers(searchFor, queries, excluded);
      // One query at a time, so that a difference names its query, shard count and search.
      actual.forEach((answer, i) => {
        expect({ shards: count, how, answer }).toEqual({ shards: count, how, answer: expected[i] });
      });
    }
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

  it("asks each shard once per search (substring: with keyword bands while a keyword's whole count is not yet known)", async () => {
    const { tools } = generatedCatalog(200, 13);
    const search = shardedOver(mode, tools, 3);
    await search.searchPage("create user data", 5);
    const first = 1;
    expect({ calls: search.calls, rounds: search.rounds }).toEqual({ calls: 3 * first, rounds: first });
    // Every keyword counted already: one round in both modes.
    await search.searchPage("data create", 5);
    expect(search.rounds).toBe(first + 1);
    await search.searchPage("", 5);
    expect({ calls: search.calls, rounds: search.rounds }).toEqual({ calls: 3 * (first + 2), rounds: first + 2 });
  });

  it("ranks a sentence in one round once most of its keywords are counted (substring: a band bounded by the counts)", async () => {
    const { tools, words } = generatedCatalog(900, 14);
    const single = createSearchIndex(mode, tools);
    const searches = searchesOver(mode, tools, 3);
    // Words counted by earlier queries of four keywords (each one band of every weighing), and common ones not counted
    // (a band whose bounds were too narrow for those would leave out tools that belong on the page).
    const counted = [...words.slice(0, 8), ...words.slice(100, 116)];
    const countedSearch = async (): Promise<ShardedSearch> => {
      const search = searches();
      for (let i = 0; i < counted.length; i += 4) await search.searchPage(counted.slice(i, i + 4).join(" "), 5);
      return search;
    };
    const skip = new Set(everyThird(tools));
    const kept = await countedSearch();
    for (let i = 0; i < 6; i++) {
      // Twelve keywords counted, five not.
      const sentence = [...counted.slice(i * 2, i * 2 + 12), ...words.slice(8 + i, 10 + i), ...words.slice(20 + i * 3, 23 + i * 3)].join(" ");
      const kinds = [
        ["page", (search: ShardedSearch) => search.searchPage(sentence, 5), single.searchPage(sentence, 5)],
        ["all", (search: ShardedSearch) => search.searchPage(sentence, Infinity), single.searchPage(sentence, Infinity)],
        ["filtered", (search: ShardedSearch) => search.searchPage(sentence, 3, [...skip]), single.searchPage(sentence, 3, (name) => !skip.has(name))],
        ["scored", (search: ShardedSearch) => search.scored(sentence, 10), single.scored(sentence, 10)],
      ] as const;
      // One search throughout (a band for the sentence's first answer, counts kept for the rest), and a new search per
      // answer (a band for each): one round per answer, the single index's answer.
      for (const [how, searchFor] of [["kept", () => Promise.resolve(kept)], ["new", countedSearch]] as const) {
        for (const [kind, ask, expected] of kinds) {
          const search = await searchFor();
          const rounds = search.rounds;
          const answer = await ask(search);
          expect({ how, kind, sentence, answer, rounds: search.rounds - rounds }).toEqual({ how, kind, sentence, answer: expected, rounds: 1 });
        }
      }
    }
  });

  it("takes a second round for a query whose substring band would be too wide, and answers the same", async () => {
    // Twenty words not counted yet: more distinct weighings than a band of every weighing compares, and more keywords
    // without a count than a bounded band takes.
    const { tools, words } = generatedCatalog(900, 13);
    const search = shardedOver(mode, tools, 1);
    const long = words.slice(0, 20).join(" ");
    expect(await search.searchPage(long, 5)).toEqual(createSearchIndex(mode, tools).searchPage(long, 5));
    expect(search.rounds).toBe(mode === "substring" ? 2 : 1);
  });
});

describe("one round's pieces", () => {
  it("merge the parts' term tables into the whole's, counts of a shared term added", () => {
    const table = mergeTermTables([
      { terms: ["b", "d"], counts: Int32Array.from([1, 1, 0, 0, 0, 0, 2, 0, 2, 0, 0, 0]) },
      { terms: ["a", "d"], counts: Int32Array.from([3, 0, 3, 0, 0, 0, 1, 1, 0, 0, 0, 0]) },
    ]);
    expect(table.size).toBe(3);
    expect(table.get("a")).toEqual([3, 0, 3, 0, 0, 0]);
    expect(table.get("d")).toEqual([3, 1, 2, 0, 0, 0]);
    expect(table.get("c")).toBeUndefined();
    expect(table.get("e")).toBeUndefined();
  });

  it("fuse hybrid halves with the best lexical score of every part", () => {
    const page = mergeCandidates([
      { matches: [{ name: "a", score: 0, position: 3, lexical: 2, cosine: 0.5 }], total: 1, fused: true, bestLexical: 2 },
      { matches: [{ name: "b", score: 0, position: 1, lexical: 4, cosine: 0.1 }, { name: "c", score: 0, position: 0, cosine: 0.9 }], total: 5, fused: true, bestLexical: 4 },
    ], 3);
    // best 4: a = (2/4)^0.75 + 0.25, b = 1 + 0.05, c = 0.45.
    expect(page.matches.map((match) => match.name)).toEqual(["b", "a", "c"]);
    expect(page.total).toBe(6);
  });

  it("keep in a part's frontier every tool that may be among the first k for some whole best, and no tool beaten at every best", () => {
    // Lines in t = best^-0.75: a steep one (lexical), flat ones (cosine only), one beaten by both at every t.
    const halves = {
      slots: [0, 1, 2, 3, 4],
      names: ["steep", "flat", "beaten", "twin1", "twin2"],
      positions: [0, 1, 2, 3, 4],
      lexical: [10, undefined, 1, 5, 5],
      cosines: [0.1, 0.8, 0.05, 0.3, 0.3],
      total: 5,
      bestLexical: 10,
    };
    // One place: "beaten" is beaten at both ends by "steep" (and "flat"); twin2 ties twin1 at every best and follows
    // it in the catalog. twin1 is kept although it is never first (steep, then flat, beat it): a frontier may hold
    // more than the tools that can be first, never fewer.
    expect(frontier(halves, 1, true).toSorted((a, b) => a - b)).toEqual([0, 1, 3]);
    expect(frontier(halves, 2, true).toSorted((a, b) => a - b)).toEqual([0, 1, 3, 4]);
    expect(frontier(halves, 5, true).toSorted((a, b) => a - b)).toEqual([0, 1, 2, 3, 4]);
    // Without the semantic half the lexical scores are final.
    expect(frontier(halves, 2, false)).toEqual([0, 3]);
  });
});
