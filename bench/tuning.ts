// `node bench/tuning.ts [--quick | --variants]`: the cross-validated sweep behind the minisearch mode's numbers.
// MetaTool's queries are cut into 5 folds (every 5th query, seeded shuffle); for each fold, the grid point
// with the best mean nDCG@10 on the other 4 folds is picked and reported on the held-out fold. Prints one JSON summary:
// every fold's pick and held-out figures, and the default's figures on the same folds. The tool catalog is MetaTool's
// own. --variants sweeps the query-side choices instead (the IDF exponent, dropping request-framing words) at the
// default BM25 settings, the IDF over whole tools (BM25F's) against the default per field (MiniSearch's), the semantic
// weight, how the two halves combine (query words weighed by their centrality, the lexical share's power), and the
// weight of the near words searched for a word the catalog lacks; and says for each whether it beats the default on
// every held-out fold.
import { parseArgs } from "node:util";
import { REQUEST_FRAMING_WORDS } from "../src/core/search/analyze.ts";
import { DEFAULT_TUNING, createMiniSearchIndex, type RankingTuning } from "../src/core/search/minisearch.ts";
import { loadBenchData, metaToolCatalog, seededRandom } from "./catalog.ts";
import { scoreRanking } from "./metrics.ts";

const FOLDS = 5;

interface Scores {
  ndcg: Float64Array;
  success: Float64Array;
}

function grid(quick: boolean): RankingTuning[] {
  const points: RankingTuning[] = [];
  const names = quick ? [2.5, 4] : [1.5, 2.5, 4, 6];
  const bs = quick ? [0.2, 0.5] : [0.2, 0.5, 0.75];
  const ks = quick ? [1.2] : [0.9, 1.2, 1.6];
  const prefixes = quick ? [0.55] : [0.4, 0.55, 0.7];
  for (const name of names) {
    for (const b of bs) {
      for (const k of ks) {
        for (const prefixWeight of prefixes) {
          points.push({ ...DEFAULT_TUNING, boost: { ...DEFAULT_TUNING.boost, name }, bm25: { k, b, d: 0 }, prefixWeight });
        }
      }
    }
  }
  return points;
}

/** The query-side variants at the default BM25 settings. */
function variants(): RankingTuning[] {
  const points: RankingTuning[] = [];
  for (const idfExponent of [1, 1.5, 2]) {
    for (const queryStopWords of [DEFAULT_TUNING.queryStopWords, REQUEST_FRAMING_WORDS]) points.push({ ...DEFAULT_TUNING, idfExponent, queryStopWords });
  }
  // The IDF over whole tools, as BM25F counts it (the default counts per field, as MiniSearch does).
  points.push({ ...DEFAULT_TUNING, idfScope: "tool" });
  // The semantic half's weight (0 = lexical only, the ranking before word vectors).
  for (const semanticWeight of [0, 0.25, 0.5, 0.75, 1]) points.push({ ...DEFAULT_TUNING, semanticWeight });
  // How the halves combine: query words weighed by their centrality in the query (0 = off), the lexical share's power.
  for (const centralityExponent of [0, 1, 2, 3]) {
    for (const lexicalExponent of [1, 0.75, 0.5]) points.push({ ...DEFAULT_TUNING, centralityExponent, lexicalExponent });
  }
  // Words the catalog lacks searched through their near words (0 = off).
  for (const expansionWeight of [0, 0.05, 0.1, 0.2]) points.push({ ...DEFAULT_TUNING, expansionWeight });
  return points;
}

function describe(tuning: RankingTuning): string {
  const framing = tuning.queryStopWords.size > 0 ? `, query drops ${tuning.queryStopWords.size} framing words` : "";
  return `name ${tuning.boost.name ?? "?"}, k ${tuning.bm25.k}, b ${tuning.bm25.b}, prefix ${tuning.prefixWeight}, idf^${tuning.idfExponent} over ${tuning.idfScope}s${framing}, semantic ${tuning.semanticWeight}, centrality^${tuning.centralityExponent}, lexical share^${tuning.lexicalExponent}, near words ${tuning.expansionWeight}`;
}

function mean(scores: Float64Array, keep: (i: number) => boolean): number {
  let sum = 0;
  let count = 0;
  scores.forEach((v, i) => {
    if (!keep(i)) return;
    sum += v;
    count++;
  });
  return count === 0 ? 0 : sum / count;
}

const everyQuery = (): boolean => true;
const round = (v: number): number => Number(v.toFixed(4));

function main(): void {
  const { values: flags } = parseArgs({ options: { quick: { type: "boolean", default: false }, variants: { type: "boolean", default: false } } });
  const data = loadBenchData();
  if ("missing" in data) {
    process.stdout.write(`${JSON.stringify({ skipped: data.missing })}\n`);
    return;
  }
  const catalog = metaToolCatalog(data.meta);
  const names = new Set(catalog.map((t) => t.name));
  const queries = data.meta.queries.filter((q) => q.tools.length > 0 && q.tools.every((t) => names.has(t)));
  // A seeded shuffle, then every 5th query: folds of equal size, the same on every run.
  const random = seededRandom(14);
  const fold = queries.map((_, i) => i % FOLDS);
  for (let i = fold.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const swap = fold[i] ?? 0;
    fold[i] = fold[j] ?? 0;
    fold[j] = swap;
  }

  const evaluate = (tuning: RankingTuning): Scores => {
    const index = createMiniSearchIndex(catalog, tuning);
    const ndcg = new Float64Array(queries.length);
    const success = new Float64Array(queries.length);
    queries.forEach((q, i) => {
      const score = scoreRanking(index.search(q.query).slice(0, 10), q.tools);
      ndcg[i] = score.ndcgAt10;
      success[i] = score.successAt5;
    });
    return { ndcg, success };
  };

  const points = flags.variants === true ? variants() : grid(flags.quick === true);
  const scored = points.map((tuning, n) => {
    console.error(`[tuning] ${n + 1}/${points.length} ${describe(tuning)}`);
    return { tuning, scores: evaluate(tuning) };
  });
  const defaults = evaluate(DEFAULT_TUNING);
  const folds = Array.from({ length: FOLDS }, (_, heldOut) => {
    const train = (i: number): boolean => fold[i] !== heldOut;
    const test = (i: number): boolean => fold[i] === heldOut;
    let best = scored[0];
    let bestTrain = -1;
    for (const entry of scored) {
      const value = mean(entry.scores.ndcg, train);
      if (value > bestTrain) {
        bestTrain = value;
        best = entry;
      }
    }
    return {
      heldOut,
      picked: best ? describe(best.tuning) : null,
      trainNdcgAt10: round(bestTrain),
      heldOutNdcgAt10: best ? round(mean(best.scores.ndcg, test)) : null,
      heldOutSuccessAt5: best ? round(mean(best.scores.success, test)) : null,
      defaultHeldOutNdcgAt10: round(mean(defaults.ndcg, test)),
      defaultHeldOutSuccessAt5: round(mean(defaults.success, test)),
    };
  });
  // Each point on every held-out fold against the default: a change is kept only when it helps on all of them.
  const perPoint = scored.map(({ tuning, scores }) => {
    const heldOutNdcgAt10 = Array.from({ length: FOLDS }, (_, f) => round(mean(scores.ndcg, (i) => fold[i] === f)));
    const heldOutSuccessAt5 = Array.from({ length: FOLDS }, (_, f) => round(mean(scores.success, (i) => fold[i] === f)));
    const defaultNdcg = Array.from({ length: FOLDS }, (_, f) => round(mean(defaults.ndcg, (i) => fold[i] === f)));
    return {
      tuning: describe(tuning),
      ndcgAt10: round(mean(scores.ndcg, everyQuery)),
      successAt5: round(mean(scores.success, everyQuery)),
      heldOutNdcgAt10,
      heldOutSuccessAt5,
      betterOnEveryFold: heldOutNdcgAt10.every((v, f) => v > (defaultNdcg[f] ?? 0)),
    };
  });
  process.stdout.write(
    `${JSON.stringify(
      {
        command: `node bench/tuning.ts${flags.quick === true ? " --quick" : ""}${flags.variants === true ? " --variants" : ""}`,
        queries: queries.length,
        gridPoints: points.length,
        default: { tuning: describe(DEFAULT_TUNING), ndcgAt10: round(mean(defaults.ndcg, everyQuery)), successAt5: round(mean(defaults.success, everyQuery)) },
        folds,
        points: perPoint,
      },
      null,
      2,
    )}\n`,
  );
}

main();
