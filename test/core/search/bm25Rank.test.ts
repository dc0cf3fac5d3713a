import { describe, expect, it } from "vitest";
import { createSearchIndex } from "../../../src/core/search/createIndex.ts";
import { createMiniSearchIndex, DEFAULT_TUNING, MAX_QUERY_TERMS, queryTerms } from "../../../src/core/search/minisearch.ts";
import type { SearchMode } from "../../../src/core/config.ts";
import type { ToolDefinition } from "../../../src/core/types.ts";
import { evalMetaTool, needsEvalData } from "../../evalData.ts";
import { generatedCatalog, generatedQueries } from "../../support/generatedCatalog.ts";
import { miniSearchReference } from "../../support/miniSearchReference.ts";

const MODES: readonly SearchMode[] = ["substring", "minisearch"];
/** These compare thousands of rankings: seconds on a loaded machine. */
const SLOW = { timeout: 60_000 };
const generated = generatedCatalog(10_000);
const generatedQuerySet = generatedQueries(generated.words, 60);
/**
 * The lexical half alone (no word vectors): what MiniSearch's own search is compared with, and the top-k path
 * (MiniSearch counts IDF per field and reads each description once).
 */
const LEXICAL = { ...DEFAULT_TUNING, semanticWeight: 0, fieldB: {}, idfScope: "field", leadSentenceRepeats: 0 } as const;
/** The lexical half as MiniSearch has it: words only (word pairs are ours, not MiniSearch's). */
const AS_MINISEARCH = { ...LEXICAL, phraseWeight: 0 };

function metaToolCatalog(): ToolDefinition[] {
  return evalMetaTool.tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: { type: "object", properties: {} } }));
}

/** The gateway's ranking is MiniSearch's, except that tools the query names exactly come first. */
function assertMiniSearchOrder(mine: readonly string[], reference: readonly string[], query: string): void {
  const lower = query.toLowerCase();
  // The shortest head of tools named in the query after which the two rankings agree.
  for (let promoted = 0; promoted <= mine.length; promoted++) {
    const head = mine.slice(0, promoted);
    if (!head.every((name) => lower.includes(name.toLowerCase()))) break;
    const rest = reference.filter((name) => !head.includes(name));
    if (rest.length === mine.length - promoted && rest.every((name, i) => mine[promoted + i] === name)) return;
  }
  expect({ query, ranking: mine }).toEqual({ query, ranking: reference });
}

/** Every page of `searchPage` is the head of the full ranking, filtered, with the full count. */
function assertPagesOfFullRanking(tools: readonly ToolDefinition[], mode: SearchMode, queries: readonly string[], index = createSearchIndex(mode, tools)): void {
  // A filter like the group gate: every third tool (by name) is not visible.
  const hidden = new Set(tools.filter((_, i) => i % 3 === 0).map((tool) => tool.name));
  const visible = (name: string): boolean => !hidden.has(name);
  for (const query of queries) {
    const full = index.search(query);
    const kept = full.filter(visible);
    for (const count of [1, 5, 25]) {
      expect({ query, count, page: index.searchPage(query, count) }).toEqual({ query, count, page: { names: full.slice(0, count), total: full.length } });
      expect({ query, count, page: index.searchPage(query, count, visible) }).toEqual({ query, count, page: { names: kept.slice(0, count), total: kept.length } });
    }
    expect(index.searchPage(query, Infinity, visible)).toEqual({ names: kept, total: kept.length });
  }
}

describe("the first page without a full ranking", () => {
  for (const mode of MODES) {
    it(`${mode}: equals the full ranking's head on a generated 10,000-tool catalog`, SLOW, () => {
      assertPagesOfFullRanking(generated.tools, mode, generatedQuerySet);
    });

    it(`${mode}: equals the full ranking's head over the MetaTool queries`, SLOW, (context) => {
      needsEvalData(context);
      assertPagesOfFullRanking(metaToolCatalog(), mode, evalMetaTool.queries.map((query) => query.query));
    });
  }

  it("minisearch with the IDF over whole tools (idfScope \"tool\"): pages are the full ranking's head", SLOW, () => {
    const index = createMiniSearchIndex(generated.tools.slice(0, 3_000), { ...DEFAULT_TUNING, idfScope: "tool" });
    for (const query of generatedQuerySet) {
      const full = index.search(query);
      for (const count of [1, 5, 25]) expect({ query, page: index.searchPage(query, count) }).toEqual({ query, page: { names: full.slice(0, count), total: full.length } });
    }
  });

  it("minisearch's lexical half alone (semanticWeight 0: the top-k path): pages are the full ranking's head", SLOW, () => {
    assertPagesOfFullRanking(generated.tools, "minisearch", generatedQuerySet, createMiniSearchIndex(generated.tools, LEXICAL));
  });

  it("minisearch's lexical half alone: pages are the full ranking's head over the MetaTool queries", SLOW, (context) => {
    needsEvalData(context);
    const tools = metaToolCatalog();
    assertPagesOfFullRanking(tools, "minisearch", evalMetaTool.queries.map((query) => query.query), createMiniSearchIndex(tools, LEXICAL));
  });

  it("an empty query pages through the catalog in order", () => {
    const index = createMiniSearchIndex(generated.tools.slice(0, 50));
    expect(index.searchPage("  ", 3)).toEqual({ names: generated.tools.slice(0, 3).map((tool) => tool.name), total: 50 });
  });
});

describe("minisearch mode's lexical half ranks as MiniSearch's own search", () => {
  it("on a generated 10,000-tool catalog", SLOW, () => {
    const index = createMiniSearchIndex(generated.tools, AS_MINISEARCH);
    const reference = miniSearchReference(generated.tools);
    let matched = 0;
    for (const query of generatedQuerySet) {
      const mine = index.search(query);
      if (mine.length > 0) matched++;
      assertMiniSearchOrder(mine, reference(query).map((result) => result.name), query);
    }
    expect(matched).toBeGreaterThan(generatedQuerySet.length * 0.9);
  });

  it("over the MetaTool queries", SLOW, (context) => {
    needsEvalData(context);
    const tools = metaToolCatalog();
    const index = createMiniSearchIndex(tools, AS_MINISEARCH);
    const reference = miniSearchReference(tools);
    for (const { query } of evalMetaTool.queries) assertMiniSearchOrder(index.search(query), reference(query).map((result) => result.name), query);
  });
});

describe("query terms", () => {
  it(`keeps at most ${MAX_QUERY_TERMS}, the weightiest (rarest), in query order`, () => {
    const frequency = new Map<string, number>();
    const words: string[] = [];
    for (let i = 0; i < 200; i++) {
      const word = `word${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}x`;
      words.push(word);
      frequency.set(word, i + 1); // later words are commoner
    }
    const terms = queryTerms(words.join(" "), { toolCount: 1_000, toolFrequency: (term) => frequency.get(term) ?? 0 });
    expect(terms).toHaveLength(MAX_QUERY_TERMS);
    expect(terms.map((term) => term.term)).toEqual(words.slice(0, MAX_QUERY_TERMS));
  });

  it("a pasted paragraph costs no more terms than the cap", () => {
    const index = createMiniSearchIndex(generated.tools.slice(0, 2_000));
    const paragraph = generatedQueries(generated.words, 40, 9).join(" ");
    const page = index.searchPage(paragraph, 5);
    expect(page.names).toHaveLength(5);
    expect(page.names).toEqual(index.search(paragraph).slice(0, 5));
  });
});
