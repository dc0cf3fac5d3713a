// The ranked mode as MiniSearch's own search ranks it: the same query terms and weights (queryTerms), scored by
// MiniSearch 7 over the index its own addAll would build (buildIndex, filled from the gateway's analysis: termIndex.ts). The tests hold the gateway's index, which has
// its own postings and query path, to this ranking: the same order, the same scores up to rounding.
import MiniSearch from "minisearch";
import type { AsPlainObject, Options, SearchOptions } from "minisearch";
import { FIELDS, toolFieldParts } from "../../src/core/search/fields.ts";
import { DEFAULT_TUNING, FUZZY_WEIGHT, queryTerms, type RankingTuning } from "../../src/core/search/minisearch.ts";
import { PostingCollector } from "../../src/core/search/postings.ts";
import type { ToolDefinition } from "../../src/core/types.ts";
import { fillTermIndex } from "./termIndex.ts";

function splitTerms(text: string): string[] {
  return text.length === 0 ? [] : text.split(" ");
}

/** MiniSearch's options: fields are analyzed before they reach it, so it only has to split terms apart. */
export const MINISEARCH_OPTIONS: Options = {
  fields: [...FIELDS],
  storeFields: [],
  tokenize: splitTerms,
  processTerm: (term) => term,
};

export interface BuiltIndex {
  index: MiniSearch;
  /** Term → in how many tools it occurs (any field). */
  documentFrequency: Map<string, number>;
}

/**
 * Analyzes every tool once and builds the MiniSearch index from the collected postings: the documents through
 * `MiniSearch.loadJS`, the terms straight into its inverted index (termIndex.ts). It is the index that MiniSearch's
 * own `addAll` builds from the same terms (the tests check that they are equal), several times faster: each distinct
 * piece of text is analyzed once, and each distinct term enters MiniSearch's radix tree once.
 */
export function buildIndex(tools: readonly ToolDefinition[]): BuiltIndex {
  const collector = new PostingCollector();
  const fieldLength: Record<string, number[]> = {};
  const lengthSums = FIELDS.map(() => 0);
  tools.forEach((tool, toolId) => {
    const lengths = toolFieldParts(tool).map((texts, fieldId) => {
      // A field's length is its number of distinct terms, as MiniSearch counts it.
      let distinct = 0;
      for (const text of texts) distinct += collector.addText(text, toolId, fieldId);
      lengthSums[fieldId] = (lengthSums[fieldId] ?? 0) + distinct;
      return distinct;
    });
    fieldLength[toolId] = lengths;
  });

  const documentIds: Record<string, number> = {};
  for (let toolId = 0; toolId < tools.length; toolId++) documentIds[toolId] = toolId;
  const documents: AsPlainObject = {
    documentCount: tools.length,
    nextId: tools.length,
    documentIds,
    fieldIds: Object.fromEntries(FIELDS.map((field, fieldId) => [field, fieldId])),
    fieldLength,
    averageFieldLength: lengthSums.map((sum) => (tools.length === 0 ? 0 : sum / tools.length)),
    storedFields: {},
    dirtCount: 0,
    index: [],
    serializationVersion: 2,
  };
  const index = MiniSearch.loadJS(documents, MINISEARCH_OPTIONS);
  fillTermIndex(index, collector.byTerm());
  return { index, documentFrequency: collector.documentFrequency() };
}


export interface ReferenceResult {
  name: string;
  score: number;
}

/** Every match with its score, best first (ties in catalog order); tools named exactly are not placed first here. */
export function miniSearchReference(tools: readonly ToolDefinition[], tuning: RankingTuning = DEFAULT_TUNING): (query: string) => ReferenceResult[] {
  const { index, documentFrequency } = buildIndex(tools);
  const stats = { toolCount: tools.length, toolFrequency: (term: string) => documentFrequency.get(term) ?? 0 };
  return (query) => {
    const terms = queryTerms(query, stats);
    if (terms.length === 0) return [];
    const byTerm = new Map(terms.map((term) => [term.term, term]));
    const options: SearchOptions = {
      boost: { ...tuning.boost },
      combineWith: "OR",
      bm25: tuning.bm25,
      weights: { prefix: tuning.prefixWeight, fuzzy: FUZZY_WEIGHT },
      tokenize: (text) => text.split(" "),
      processTerm: (term) => term,
      boostTerm: (term) => byTerm.get(term)?.boost ?? 0,
      prefix: (term) => byTerm.get(term)?.prefix === true,
      fuzzy: (term) => (byTerm.get(term)?.fuzzy === true ? 1 : false),
    };
    const results = index.search(terms.map((term) => term.term).join(" "), options).map((result) => ({ id: Number(result.id), score: result.score }));
    results.sort((a, b) => b.score - a.score || a.id - b.id);
    return results.map(({ id, score }) => ({ name: tools[id]?.name ?? "", score }));
  };
}
