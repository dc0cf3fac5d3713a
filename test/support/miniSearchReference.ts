// The ranked mode as MiniSearch's own search ranks it: the same query terms and weights (queryTerms), scored by
// MiniSearch 7 over the index its own addAll would build (buildIndex). The tests hold the gateway's index, which has
// its own postings and query path, to this ranking: the same order, the same scores up to rounding.
import type { SearchOptions } from "minisearch";
import { buildIndex, DEFAULT_TUNING, FUZZY_WEIGHT, queryTerms, type RankingTuning } from "../../src/core/search/minisearch.ts";
import type { ToolDefinition } from "../../src/core/types.ts";

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
