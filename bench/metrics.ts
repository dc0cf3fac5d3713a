// Retrieval quality measures (the evaluation data of docs/development.md): recall@5, success@5 and nDCG@10 with binary relevance.
// Plain TypeScript without Node or Worker imports, so that the tests can use it too.

export interface RetrievalQuery {
  query: string;
  /** The right tools. */
  tools: readonly string[];
}

export interface RetrievalQuality {
  /** Queries measured: those whose right tools all exist in the catalog. */
  queries: number;
  recallAt5: number;
  successAt5: number;
  ndcgAt10: number;
}

function dcg(ranked: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  let sum = 0;
  for (let i = 0; i < Math.min(k, ranked.length); i++) {
    const name = ranked[i];
    if (name !== undefined && relevant.has(name)) sum += 1 / Math.log2(i + 2);
  }
  return sum;
}

/** Scores one ranking against its right tools. */
export function scoreRanking(ranked: readonly string[], rightTools: readonly string[]): { recallAt5: number; successAt5: number; ndcgAt10: number } {
  const relevant = new Set(rightTools);
  const top5 = ranked.slice(0, 5).filter((name) => relevant.has(name)).length;
  let ideal = 0;
  for (let i = 0; i < Math.min(10, relevant.size); i++) ideal += 1 / Math.log2(i + 2);
  return {
    recallAt5: relevant.size === 0 ? 0 : top5 / relevant.size,
    successAt5: top5 > 0 ? 1 : 0,
    ndcgAt10: ideal === 0 ? 0 : dcg(ranked, relevant, 10) / ideal,
  };
}

/** Averages the measures over every query whose right tools are all in `catalog`. */
export function measureRetrieval(
  search: (query: string) => readonly string[],
  queries: readonly RetrievalQuery[],
  catalog: ReadonlySet<string>,
): RetrievalQuality {
  let count = 0;
  let recall = 0;
  let success = 0;
  let ndcg = 0;
  for (const { query, tools } of queries) {
    if (tools.length === 0 || !tools.every((name) => catalog.has(name))) continue;
    const score = scoreRanking(search(query).slice(0, 10), tools);
    count++;
    recall += score.recallAt5;
    success += score.successAt5;
    ndcg += score.ndcgAt10;
  }
  const mean = (sum: number): number => (count === 0 ? 0 : sum / count);
  return { queries: count, recallAt5: mean(recall), successAt5: mean(success), ndcgAt10: mean(ndcg) };
}
