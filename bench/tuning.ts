// `node bench/tuning.ts [--quick] [--sample N]`: chooses the minisearch mode's settings across four sources, leaving
// one out at a time. Every candidate setting is scored (nDCG@10, success@5) on each of the four retrieval sets
// (bench/retrievalSets.ts: MetaTool, Seal-Tools, Gorilla APIBench, API-Bank); for each set held out, the candidate with
// the best mean over the other three is picked and reported on the held-out set, beside the default's figure there.
// Each candidate also says whether it lowers any set against the default: a default changes only when no set gets
// worse. Prints one JSON summary. --quick tries a handful of candidates; --sample N measures every Nth query of the
// sets with more than 1,000 (for a first look; the figures quoted are of full runs).
import { parseArgs } from "node:util";
import { DEFAULT_TUNING, createMiniSearchIndex, type RankingTuning } from "../src/core/search/minisearch.ts";
import { loadBenchData } from "./catalog.ts";
import { scoreRanking } from "./metrics.ts";
import { loadRetrievalSetsWith, type RetrievalSet, type SetName } from "./retrievalSets.ts";
import { provideBundledDataFromFiles } from "./bundledData.ts";

interface Candidate {
  label: string;
  tuning: RankingTuning;
}

const LEXICAL_ONLY: Partial<RankingTuning> = { semanticWeight: 0, centralityExponent: 0, expansionWeight: 0, lexicalExponent: 1 };
/** The ranking before quoted words and lone digits weighed less (docs/search-log.md, "Kept, dropped, and why"). */
const PREVIOUS_DEFAULT: Partial<RankingTuning> = { quotedWeight: 1, loneDigitWeight: 1 };

const candidate = (label: string, change: Partial<RankingTuning>): Candidate => ({ label, tuning: { ...DEFAULT_TUNING, ...change } });
const withBoost = (name: number): Partial<RankingTuning> => ({ boost: { ...DEFAULT_TUNING.boost, name } });

/** Every constant the ranking has, one at a time around the default, and the semantic half's parts switched off. */
function candidates(quick: boolean): Candidate[] {
  const list: Candidate[] = [
    candidate("default", {}),
    candidate("previous default (quoted words and lone digits weighed in full)", PREVIOUS_DEFAULT),
    candidate("quoted words in full", { quotedWeight: 1 }),
    candidate("quoted words 0.25", { quotedWeight: 0.25 }),
    candidate("quoted words 0", { quotedWeight: 0 }),
    candidate("lone digits in full", { loneDigitWeight: 1 }),
    candidate("lone digits 0.5", { loneDigitWeight: 0.5 }),
    candidate("questions among statements counted 0.5 more", { questionRepeats: 0.5 }),
    candidate("questions among statements counted 1 more", { questionRepeats: 1 }),
    candidate("IDF over whole tools (names too)", { idfScope: "tool" }),
    candidate("name centrality^2", { nameCentralityExponent: 2 }),
    candidate("lexical half only", LEXICAL_ONLY),
  ];
  if (quick) return list;
  list.push(candidate("lead sentence read once", { leadSentenceRepeats: 0 }), candidate("lead sentence read three times", { leadSentenceRepeats: 2 }));
  list.push(candidate("no near words of known words", { knownExpansionWeight: 0 }), candidate("near words of known words 0.2", { knownExpansionWeight: 0.2 }));
  list.push(candidate("per-field IDF", { idfScope: "field" }), candidate("near words of unknown words 0.1", { expansionWeight: 0.1 }));
  list.push(candidate("one b for every field", { fieldB: {} }), candidate("word pairs 0.25", { phraseWeight: 0.25 }), candidate("word pairs 0.75", { phraseWeight: 0.75 }));
  list.push(candidate("no sentence cosines", { sentenceShare: 0 }), candidate("no sentence centrality", { sentenceCentrality: false }));
  list.push(candidate("no word pairs", { phraseWeight: 0 }), candidate("word pairs 1", { phraseWeight: 1 }));
  list.push(candidate("sentence share 1", { sentenceShare: 1 }), candidate("tool-side centrality^2", { toolCentralityExponent: 2 }));
  for (const b of [0.3, 0.5]) list.push(candidate(`description b ${b}`, { fieldB: { description: b } }));
  list.push(candidate("sentence share 0.25", { sentenceShare: 0.25 }), candidate("sentence share 0.75", { sentenceShare: 0.75 }));
  list.push(candidate("no word centrality", { centralityExponent: 0 }), candidate("no near words", { expansionWeight: 0 }));
  for (const semanticWeight of [0.25, 0.75]) list.push(candidate(`semantic weight ${semanticWeight}`, { semanticWeight }));
  for (const centralityExponent of [1, 3]) list.push(candidate(`centrality^${centralityExponent}`, { centralityExponent }));
  for (const lexicalExponent of [0.5, 1]) list.push(candidate(`lexical share^${lexicalExponent}`, { lexicalExponent }));
  list.push(candidate("reciprocal rank fusion", { fusion: "rrf", semanticWeight: 0.3 }));
  list.push(candidate("semantic weight by coverage", { coverageExponent: 1 }));
  for (const name of [1.5, 4]) list.push(candidate(`name boost ${name}`, withBoost(name)));
  for (const b of [0, 0.5]) list.push(candidate(`b ${b}`, { bm25: { ...DEFAULT_TUNING.bm25, b } }));
  list.push(candidate("k 1.6", { bm25: { ...DEFAULT_TUNING.bm25, k: 1.6 } }));
  for (const prefixWeight of [0.4, 0.7]) list.push(candidate(`prefix ${prefixWeight}`, { prefixWeight }));
  list.push(candidate("idf^1.5", { idfExponent: 1.5 }));
  list.push(candidate("name centrality^0.5", { nameCentralityExponent: 0.5 }), candidate("name hits not weighed", { nameCentralityExponent: 0 }));
  list.push(candidate("back-off prefixes not weighed", { backoffCentrality: false }), candidate("tool-side centrality^3", { toolCentralityExponent: 3 }));
  list.push(candidate("k 0.9", { bm25: { ...DEFAULT_TUNING.bm25, k: 0.9 } }), candidate("no tool-side centrality", { toolCentralityExponent: 0 }));
  return list;
}

interface SetScores {
  ndcgAt10: number;
  successAt5: number;
}

function evaluate(set: RetrievalSet, tuning: RankingTuning, sample: number): SetScores {
  const index = createMiniSearchIndex(set.catalog, tuning);
  const queries = set.queries.length > 1000 ? set.queries.filter((_, i) => i % sample === 0) : set.queries;
  let ndcg = 0;
  let success = 0;
  for (const q of queries) {
    const score = scoreRanking(index.search(q.query).slice(0, 10), q.tools);
    ndcg += score.ndcgAt10;
    success += score.successAt5;
  }
  const count = Math.max(1, queries.length);
  return { ndcgAt10: round(ndcg / count), successAt5: round(success / count) };
}

const round = (v: number): number => Number(v.toFixed(4));
const ndcgOf = (perSet: ReadonlyMap<SetName, SetScores> | undefined, name: SetName): number | null => perSet?.get(name)?.ndcgAt10 ?? null;

/** The mean nDCG@10 over `keep`, each set counting once. */
function mean(perSet: ReadonlyMap<SetName, SetScores>, keep: readonly SetName[]): number {
  return keep.reduce((sum, name) => sum + (perSet.get(name)?.ndcgAt10 ?? 0), 0) / Math.max(1, keep.length);
}

function main(): void {
  provideBundledDataFromFiles();
  const { values: flags } = parseArgs({ options: { quick: { type: "boolean", default: false }, sample: { type: "string", default: "1" } } });
  const sample = Math.max(1, Number(flags.sample));
  const data = loadBenchData();
  if ("missing" in data) {
    process.stdout.write(`${JSON.stringify({ skipped: data.missing })}\n`);
    return;
  }
  const sets = loadRetrievalSetsWith(data.meta);
  const points = candidates(flags.quick === true);
  const scored = points.map(({ label, tuning }, n) => {
    console.error(`[tuning] ${n + 1}/${points.length} ${label}`);
    const perSet = new Map<SetName, SetScores>(sets.map((set) => [set.name, evaluate(set, tuning, sample)]));
    return { label, perSet };
  });
  const defaults = scored[0]?.perSet;
  const names = sets.map((set) => set.name);
  // Leave one source out: pick on three, check on the fourth.
  const heldOut = names.map((held) => {
    const train = names.filter((name) => name !== held);
    let best = scored[0];
    for (const entry of scored) if (best === undefined || mean(entry.perSet, train) > mean(best.perSet, train)) best = entry;
    return {
      heldOut: held,
      picked: best?.label ?? null,
      pickedOnOthersNdcgAt10: best ? round(mean(best.perSet, train)) : null,
      heldOutNdcgAt10: ndcgOf(best?.perSet, held),
      defaultHeldOutNdcgAt10: ndcgOf(defaults, held),
    };
  });
  const measured = scored.map(({ label, perSet }) => ({
    label,
    ...Object.fromEntries(perSet),
    noSetWorse: names.every((name) => (ndcgOf(perSet, name) ?? 0) >= (ndcgOf(defaults, name) ?? 0)),
    betterOnEverySet: names.every((name) => (ndcgOf(perSet, name) ?? 0) > (ndcgOf(defaults, name) ?? 0)),
  }));
  process.stdout.write(
    `${JSON.stringify(
      {
        command: `node bench/tuning.ts${flags.quick === true ? " --quick" : ""}${sample > 1 ? ` --sample ${sample}` : ""}`,
        sets: Object.fromEntries(sets.map((set) => [set.name, { tools: set.catalog.length, queries: set.queries.length }])),
        leaveOneSourceOut: heldOut,
        candidates: measured,
      },
      null,
      2,
    )}\n`,
  );
}

main();
