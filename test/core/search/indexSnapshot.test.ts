// A restored index must rank exactly as a fresh build of the same catalog: every query kind the ranking has a path
// for (exact names, words, prefixes, typos, unknown words backing off, CJK, long sentences, filters, relevance), on the
// real catalog and a generated one, and after updates on either side. A piece of index state that a snapshot leaves
// out shows here as a ranking that differs.
import { describe, expect, it } from "vitest";
import { SEARCH_MODES } from "../../../src/core/config.ts";
import type { SearchMode } from "../../../src/core/config.ts";
import { acceptAllBut } from "../../../src/core/search/acceptAllBut.ts";
import { createSearchIndex } from "../../../src/core/search/createIndex.ts";
import { restoreSearchIndex, writeIndexSnapshot } from "../../../src/core/search/indexSnapshot.ts";
import { createMiniSearchIndex, DEFAULT_TUNING, restoreMiniSearchIndex } from "../../../src/core/search/minisearch.ts";
import { SnapshotError, SnapshotReader, SnapshotWriter } from "../../../src/core/search/snapshotCodec.ts";
import type { SearchIndex } from "../../../src/core/search/types.ts";
import type { ToolDefinition } from "../../../src/core/types.ts";
import { evalMetaTool, needsEvalData } from "../../evalData.ts";
import { rankingQueries as queriesFor, realRankingCatalog as realCatalog } from "../../support/rankingQueries.ts";
import { generatedCatalog, generatedQueries } from "../../support/generatedCatalog.ts";

function snapshotOf(index: SearchIndex): Uint8Array {
  const out = new SnapshotWriter();
  expect(writeIndexSnapshot(index, out)).toBe(true);
  return out.finish();
}

function restored(mode: SearchMode, tools: readonly ToolDefinition[], bytes: Uint8Array): SearchIndex {
  return restoreSearchIndex(mode, tools, new SnapshotReader(bytes));
}

const oddNames = (name: string): boolean => name.length % 2 === 1;

/**
 * What an index answers to each query: pages, filtered pages, relevance, and every third query's whole ranking (a
 * restored substring index pages by its carried hits, a fresh build by scoring every match).
 */
function answers(index: SearchIndex, queries: readonly string[]): unknown[] {
  return queries.map((query, i) => ({
    query,
    // The whole ranking ranks every match (the slow part): for every third query only.
    all: i % 3 === 0 ? index.search(query) : undefined,
    page: index.searchPage(query, 10),
    filtered: index.searchPage(query, 5, oddNames),
    scored: index.scored(query, 10),
    scoredFiltered: index.scored(query, 4, oddNames),
    // A filter turning away a few names the index knows (acceptAllBut): the index's first match, so that the total
    // leaves out a name it matched.
    allButFirst: index.searchPage(query, 5, acceptAllBut(index.searchPage(query, 1).names)),
    scoredAllButFirst: index.scored(query, 4, acceptAllBut(index.searchPage(query, 1).names)),
  }));
}

function assertSameRanking(actual: SearchIndex, expected: SearchIndex, queries: readonly string[]): void {
  expect(actual.size).toBe(expected.size);
  expect(answers(actual, queries)).toEqual(answers(expected, queries));
}

describe.each(SEARCH_MODES)("index snapshots, %s", { timeout: 150_000 }, (mode) => {
  it("restore the real catalog's index: the same ranking, scores and relevance as a fresh build", (context) => {
    needsEvalData(context);
    const tools = realCatalog();
    const fresh = createSearchIndex(mode, tools);
    const bytes = snapshotOf(fresh);
    const index = restored(mode, tools, bytes);
    const metaQueries = evalMetaTool.queries.slice(0, 25).map((query) => query.query);
    assertSameRanking(index, createSearchIndex(mode, tools), queriesFor(tools, metaQueries));
    // What a restored index writes is what it was restored from, byte for byte.
    expect(snapshotOf(index)).toEqual(bytes);
  });

  it("restore a generated catalog, and both update alike afterwards", () => {
    const catalog = generatedCatalog(500, 5);
    const queries = queriesFor(catalog.tools, generatedQueries(catalog.words, 40, 9));
    const bytes = snapshotOf(createSearchIndex(mode, catalog.tools));
    const index = restored(mode, catalog.tools, bytes);
    assertSameRanking(index, createSearchIndex(mode, catalog.tools), queries);
    // The next version: some tools removed, some changed, some added.
    const next = [
      ...catalog.tools.filter((_, i) => i % 50 !== 3).map((tool, i) => (i % 97 === 0 ? { ...tool, description: `${tool.description} renamed` } : tool)),
      ...Array.from({ length: 20 }, (_, i) => catalog.tool(`added_tool_${i}`)),
    ];
    const fromRestored = index.update?.(next) ?? createSearchIndex(mode, next);
    assertSameRanking(fromRestored, createSearchIndex(mode, next), queries.slice(0, 80));
  });

  it("restore an index that was updated in place (removed slots, added ones)", () => {
    const catalog = generatedCatalog(800, 6);
    const first = createSearchIndex(mode, catalog.tools);
    const next = [...catalog.tools.slice(40), ...Array.from({ length: 12 }, (_, i) => catalog.tool(`late_${i}`))];
    const updated = first.update?.(next);
    expect(updated).toBeDefined();
    const queries = queriesFor(next, generatedQueries(catalog.words, 40, 3));
    const out = new SnapshotWriter();
    // The substring index writes no snapshot once patched: the caller snapshots a fresh build instead.
    const wrote = updated !== undefined && writeIndexSnapshot(updated, out);
    expect(wrote).toBe(mode === "minisearch");
    if (!wrote) return;
    const index = restored(mode, next, out.finish());
    assertSameRanking(index, createSearchIndex(mode, next), queries);
    // Then updated once more, from the restored state.
    const third = next.slice(0, -5);
    assertSameRanking(index.update?.(third) ?? createSearchIndex(mode, third), createSearchIndex(mode, third), queries.slice(0, 60));
  });

  it("refuses a snapshot that does not fit the catalog or was cut short", () => {
    const catalog = generatedCatalog(200, 7);
    const bytes = snapshotOf(createSearchIndex(mode, catalog.tools));
    expect(() => restored(mode, catalog.tools.slice(1), bytes)).toThrow(SnapshotError);
    expect(() => restored(mode, catalog.tools, bytes.subarray(0, bytes.length - 64))).toThrow(SnapshotError);
    const other = SEARCH_MODES.find((m) => m !== mode) ?? mode;
    expect(() => restored(other, catalog.tools, bytes)).toThrow(SnapshotError);
  });
});

describe("a substring snapshot's carried hits", () => {
  it("rank every keyword of one to three code units as walking the postings does, restored or in the index that wrote them", () => {
    const catalog = generatedCatalog(300, 11);
    const short = new Set<string>(["a", "e", "in", "th", "the", "天", "天气", "天气预"]);
    for (const tool of catalog.tools) {
      for (const text of [tool.name, tool.description].map((value) => value.toLowerCase())) {
        for (let i = 0; i + 1 < text.length; i++) {
          short.add(text.charAt(i));
          short.add(text.slice(i, i + 2));
          short.add(text.slice(i, i + 3));
        }
      }
    }
    // Single keywords, and sentences of them (their weights add up per tool).
    const keywords = [...short].filter((keyword) => !/\s/u.test(keyword));
    const queries = [...keywords, ...keywords.slice(0, 60).map((keyword, i) => `${keyword} ${keywords[(i * 7) % keywords.length] ?? ""} the a`)];
    const written = createSearchIndex("substring", catalog.tools);
    const bytes = snapshotOf(written);
    const walking = createSearchIndex("substring", catalog.tools);
    assertSameRanking(restored("substring", catalog.tools, bytes), walking, queries);
    assertSameRanking(written, walking, queries);
  });
});

describe("a minisearch snapshot and the ranking's settings", () => {
  it("is refused by an index whose postings need word pairs when it was written without them (and the other way round)", () => {
    const catalog = generatedCatalog(120, 3);
    const withPairs = snapshotOf(createMiniSearchIndex(catalog.tools));
    const withoutPairs = snapshotOf(createMiniSearchIndex(catalog.tools, { ...DEFAULT_TUNING, phraseWeight: 0 }));
    expect(() => restoreMiniSearchIndex(catalog.tools, new SnapshotReader(withoutPairs))).toThrow(SnapshotError);
    expect(() => restoreMiniSearchIndex(catalog.tools, new SnapshotReader(withPairs), { ...DEFAULT_TUNING, phraseWeight: 0 })).toThrow(SnapshotError);
    const query = "get the weather in paris tomorrow";
    expect(restoreMiniSearchIndex(catalog.tools, new SnapshotReader(withPairs)).search(query)).toEqual(createMiniSearchIndex(catalog.tools).search(query));
  });
});

/** One-edit variants of `word` (a letter changed, dropped or added; the first or last changed), and its prefix. */
function typos(word: string): string[] {
  if (word.length < 5) return [word.slice(0, 3)];
  const middle = Math.floor(word.length / 2);
  return [
    `${word.slice(0, middle)}q${word.slice(middle + 1)}`,
    `${word.slice(0, middle)}${word.slice(middle + 1)}`,
    `${word.slice(0, middle)}x${word.slice(middle)}`,
    `z${word.slice(1)}`,
    `${word.slice(0, -1)}z`,
    word.slice(0, 3),
  ];
}

describe("a minisearch snapshot's terms and one-edit table, read in place", () => {
  it("expand every typo and prefix as a fresh build does, past ASCII too (UTF-16 order)", () => {
    const catalog = generatedCatalog(300, 11);
    // Words whose UTF-16 and code point orders differ (a surrogate pair against U+FF21), accents, CJK.
    const odd = ["café au lait", "naïve bayes", "天气预报 查询", "𝒜lpha 𝒜lphabet", "ｂeta ｂetamax", "\uE000private zone", "ab ac ad"];
    const tools = [...catalog.tools, ...odd.map((words, i) => ({ name: `odd_tool_${i}`, description: `Reads the ${words} records.`, parameters: { type: "object" } }))];
    const queries = [
      ...catalog.words.slice(0, 150).flatMap(typos),
      ...odd.flatMap((words) => words.split(" ").flatMap((word) => [word, word.slice(0, 2), word.slice(0, 3), `${word}s`])),
    ];
    const bytes = snapshotOf(createSearchIndex("minisearch", tools));
    const index = restored("minisearch", tools, bytes);
    const fresh = createSearchIndex("minisearch", tools);
    expect(queries.map((query) => index.scored(query, 10))).toEqual(queries.map((query) => fresh.scored(query, 10)));
    // Thawed by an update, the terms are the same strings.
    const next = tools.slice(1);
    const updated = index.update?.(next) ?? createSearchIndex("minisearch", next);
    const freshNext = createSearchIndex("minisearch", next);
    expect(queries.map((query) => updated.scored(query, 10))).toEqual(queries.map((query) => freshNext.scored(query, 10)));
  });
});

describe("a minisearch snapshot's sections checked when read", () => {
  it("refuses a changed byte of its one-edit table at the search that reads it, never answers", () => {
    const catalog = generatedCatalog(60, 4);
    const bytes = snapshotOf(createSearchIndex("minisearch", catalog.tools));
    const queries = ["the data file", "create user list", ...catalog.words.slice(0, 40).flatMap((word) => [`${word}q`, `q${word.slice(1)}`, word.slice(0, 3)])];
    const fresh = createSearchIndex("minisearch", catalog.tools);
    const expected = queries.map((query) => fresh.scored(query, 5));
    // The deferred area comes first in an index's own snapshot (its length after the section's kind), in the order
    // written: postings, statistics, the one-edit table's three lists (the term starts are read up front, checked by
    // the registry snapshot's digest with the rest of its sections).
    const area = new DataView(bytes.buffer, bytes.byteOffset).getUint32(4, true);
    const refused = new Set<string>();
    for (let at = 8; at < 8 + area; at += 256) {
      const broken = bytes.slice();
      broken[at] = (broken[at] ?? 0) ^ 0x10;
      // A search either fails (SnapshotError) or answers as the intact index does.
      let answered: unknown;
      let failure: unknown;
      try {
        const index = restored("minisearch", catalog.tools, broken);
        answered = queries.map((query) => index.scored(query, 5));
      } catch (error) {
        failure = error;
        refused.add(String(error).replace(/.* of its (.*) does not match.*/u, "$1"));
      }
      expect(failure === undefined ? answered : failure instanceof SnapshotError).toEqual(failure === undefined ? expected : true);
    }
    expect([...refused].filter((what) => what.startsWith("one-edit")).toSorted()).toEqual(["one-edit firsts", "one-edit keys", "one-edit lasts"]);
  });
});
