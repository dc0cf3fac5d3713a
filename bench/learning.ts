// The bench's learning section (`--learning`): learning from calls (docs/search.md, "Learning from calls") on the four
// retrieval sets. Each set's queries are split, seeded, into an observed half and a tested half. Simulated principals
// search the observed half in turn and call a right tool only when it is among the five shown (what a model can do);
// each call is evidence, one search's split among the tools called from it as the deployment splits it (src/core/learning/evidence.ts),
// and evidence against the tools shown above it that were not called (passed over), folded after 10%, 50% and 100% of the observed half; the
// tested half's nDCG@10 is measured before and after each fold, in both modes.
import { DEFAULT_LEARNING, type SearchMode } from "../src/core/config.ts";
import { createSearchIndex } from "../src/core/search/createIndex.ts";
import {
  evidenceTerms,
  foldEvidence,
  reinforced,
  passedOver,
  searchShares,
  PASSED_OVER_SHARE,
  type EvidenceEvent,
  type EvidenceRow,
  type LearningOptions,
  MAX_SHOWN_ABOVE,
} from "../src/core/learning/evidence.ts";
import { DEFAULT_LEARNING_TUNING, LearnedOverlay, ownTerms, withLearning, type LearningTuning } from "../src/core/learning/overlay.ts";
import type { ToolDefinition } from "../src/core/types.ts";
import type { MetaToolSet } from "./catalog.ts";
import { scoreRanking } from "./metrics.ts";
import { seededRandom } from "./random.ts";
import { loadRetrievalSetsWith, SET_NAMES, type SetName } from "./retrievalSets.ts";

export const LEARNING_SEED = 25;
/** Simulated principals, taking the observed queries in turn. */
export const LEARNING_PRINCIPALS = 20;
export const LEARNING_STEPS = [0.1, 0.5, 1] as const;
/** The configuration's defaults (src/core/config.ts, DEFAULT_LEARNING). */
export const LEARNING_OPTIONS: LearningOptions = {
  minPrincipals: DEFAULT_LEARNING.minPrincipals,
  halfLifeDays: DEFAULT_LEARNING.halfLifeDays,
  maxTermsPerTool: DEFAULT_LEARNING.maxTermsPerTool,
};
const SHOWN = 5;
/** The evidence is folded after every this share of the observed half, as a deployment folds it every few minutes. */
export const LEARNING_FOLD_EVERY = 0.05;

export const LEARNING_METHOD =
  `bench/learning.ts: each set's measurable queries shuffled (seed ${LEARNING_SEED}) and split into an observed and a tested half; ` +
  `${LEARNING_PRINCIPALS} simulated principals take the observed queries in turn, search them (the learning applied so far) and call ` +
  `each right tool among the ${SHOWN} shown (one search's call split among the tools called from it; a tool shown above a called one and not called learns ${PASSED_OVER_SHARE} of that share against itself); the evidence is folded (minPrincipals ${LEARNING_OPTIONS.minPrincipals}, maxTermsPerTool ` +
  `${LEARNING_OPTIONS.maxTermsPerTool}, no time passes) every ${LEARNING_FOLD_EVERY * 100}% of the observed half, as a deployment folds it every ` +
  "applyEverySeconds; nDCG@10 on the tested half before and after 10%, 50% and 100%, in both modes";

export interface LearningFigures {
  observed: number;
  tested: number;
  /** Tested-half nDCG@10: before, then after each step. */
  ndcgAt10: { before: number; after10: number; after50: number; after100: number };
  /** Calls made (evidence events) by the end. */
  calls: number;
  /** Tools with a learned term at the end. */
  toolsLearned: number;
  /**
   * Tested queries whose nDCG@10 learning raised and lowered, after 10%, 50% and 100% (a set's mean can stay level
   * while some queries gain and others lose: these say how many moved).
   */
  moved: { raised: number; lowered: number }[];
  /** What any learner could reach here, and how far the evidence got (learningHeadroom). */
  headroom: LearningHeadroom;
}

/** The index's depths the headroom's oracle looks at. */
export const HEADROOM_DEPTHS = [2, 5, 10, 30] as const;

/**
 * The headroom of learning on a set's tested half, after the whole observed half: the nDCG@10 gain of an oracle that
 * moves the index's best-placed right tool to the first place whenever it is among the index's first K (each of
 * HEADROOM_DEPTHS), counting any right tool, a right tool that any call taught (before minPrincipals), or one with a
 * learned term (minPrincipals principals taught it a term); then how many tools the calls reached, and how many tested
 * queries share a learned term with a right tool. The oracle knows the answer; no learner gains more than its figure
 * for the tools it has evidence of, and a rule that learns nothing of a tool (the bound) cannot lift it at all.
 */
export interface LearningHeadroom {
  oracleGain: Record<"anyTool" | "calledTool" | "learnedTool", Record<`top${(typeof HEADROOM_DEPTHS)[number]}`, number>>;
  /** Tools that any call taught, that minPrincipals distinct principals called, and with a learned term. */
  toolsCalled: number;
  toolsCalledByMinPrincipals: number;
  toolsWithLearnedTerm: number;
  /** Tested queries that share a learned term with a right tool; of them, with a right tool among the index's first 5, and first. */
  queriesSharingLearnedTerm: { all: number; rightInTop5: number; rightFirst: number };
}

/** learningHeadroom's figures for one set and mode, from the index before learning and the evidence at the end. */
export function learningHeadroom(
  index: { searchPage(query: string, count: number): { names: string[] } },
  tested: readonly { query: string; tools: readonly string[] }[],
  rows: Iterable<EvidenceRow>,
  learned: Readonly<Record<string, readonly { term: string }[]>>,
  minPrincipals: number,
): LearningHeadroom {
  const callers = new Map<string, Set<string>>();
  for (const row of rows) {
    if (row.passedOver === true) continue;
    let principals = callers.get(row.tool);
    if (!principals) callers.set(row.tool, (principals = new Set()));
    principals.add(row.principal);
  }
  const learnedTerms = new Map(Object.entries(learned).map(([tool, terms]) => [tool, new Set(terms.map(({ term }) => term))]));
  const heads = tested.map(({ query }) => index.searchPage(query, Math.max(...HEADROOM_DEPTHS)).names);
  const before = tested.map(({ tools }, i) => scoreRanking((heads[i] ?? []).slice(0, 10), tools).ndcgAt10);
  const oracle = (depth: number, counts: (tool: string) => boolean): number => mean(tested.map(({ tools }, i) => {
    const head = heads[i] ?? [];
    const at = head.slice(0, depth).findIndex((name) => tools.includes(name) && counts(name));
    const moved = at <= 0 ? head : [head[at] ?? "", ...head.filter((_, rank) => rank !== at)];
    return scoreRanking(moved.slice(0, 10), tools).ndcgAt10 - (before[i] ?? 0);
  }));
  const gains = (counts: (tool: string) => boolean): Record<`top${(typeof HEADROOM_DEPTHS)[number]}`, number> =>
    ({ top2: oracle(2, counts), top5: oracle(5, counts), top10: oracle(10, counts), top30: oracle(30, counts) });
  const sharing = { all: 0, rightInTop5: 0, rightFirst: 0 };
  tested.forEach(({ query, tools }, i) => {
    const terms = new Set(evidenceTerms(query));
    if (!tools.some((tool) => [...(learnedTerms.get(tool) ?? [])].some((term) => terms.has(term)))) return;
    const rank = (heads[i] ?? []).findIndex((name) => tools.includes(name));
    sharing.all++;
    if (rank >= 0 && rank < 5) sharing.rightInTop5++;
    if (rank === 0) sharing.rightFirst++;
  });
  return {
    oracleGain: { anyTool: gains(() => true), calledTool: gains((tool) => callers.has(tool)), learnedTool: gains((tool) => learnedTerms.has(tool)) },
    toolsCalled: callers.size,
    toolsCalledByMinPrincipals: [...callers.values()].filter((principals) => principals.size >= minPrincipals).length,
    toolsWithLearnedTerm: learnedTerms.size,
    queriesSharingLearnedTerm: sharing,
  };
}

export type LearningSection = Partial<Record<SetName, Record<SearchMode, LearningFigures>>>;

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const random = seededRandom(seed);
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const [a, b] = [copy[i], copy[j]];
    if (a === undefined || b === undefined) continue;
    copy[i] = b;
    copy[j] = a;
  }
  return copy;
}

/** The mean of per-query figures, as measureRetrieval takes it, to four places. */
function mean(values: readonly number[]): number {
  return Number((values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length).toFixed(4));
}

export function learningSection(
  meta: MetaToolSet,
  log: (message: string) => void,
  options: {
    tuning?: LearningTuning;
    sets?: readonly SetName[];
    learning?: LearningOptions;
    /** Whether one search's evidence is split among the tools called from it, as the deployment does (the default). */
    split?: boolean;
    /** How much of a call's share a tool shown above the called one and passed over learns against its terms. */
    passedOverShare?: number;
    /**
     * A design measured, not the product's: each fold also builds the index again with every tool's learned terms
     * that its own text lacks as a field of its own (the `groups` field, which weighs as a description and which the
     * substring mode does not read), so that the index's own scoring weighs them beside the overlay.
     */
    learnedField?: boolean;
  } = {},
): LearningSection {
  const split = options.split ?? true;
  const passedOverShare = options.passedOverShare ?? PASSED_OVER_SHARE;
  const tuning = options.tuning ?? DEFAULT_LEARNING_TUNING;
  const learningOptions = options.learning ?? LEARNING_OPTIONS;
  const section: LearningSection = {};
  for (const set of loadRetrievalSetsWith(meta)) {
    if (options.sets !== undefined && !options.sets.includes(set.name)) continue;
    const queries = shuffled(set.queries, LEARNING_SEED);
    const half = Math.floor(queries.length / 2);
    const observed = queries.slice(0, half);
    const tested = queries.slice(half);
    const names = new Set(set.catalog.map((tool) => tool.name));
    const definitions = new Map(set.catalog.map((tool) => [tool.name, tool]));
    const definitionOf = (name: string): ToolDefinition | undefined => definitions.get(name);
    const run = (mode: SearchMode): LearningFigures => {
      log(`learning: ${set.name} in ${mode}`);
      const plain = createSearchIndex(mode, set.catalog);
      let index = plain;
      const rows = new Map<string, EvidenceRow>();
      let overlay: LearnedOverlay | undefined;
      let calls = 0;
      let done = 0;
      let version = 0;
      const measured = tested.filter(({ tools }) => tools.length > 0 && tools.every((name) => names.has(name)));
      /** Each measured tested query's nDCG@10 with what has been learned so far. */
      const perQuery = (): number[] => {
        const learned = withLearning(index, overlay, definitionOf, mode);
        return measured.map(({ query, tools }) => scoreRanking(learned.searchPage(query, 10).names, tools).ndcgAt10);
      };
      const beforeByQuery = perQuery();
      const before = mean(beforeByQuery);
      const moved: { raised: number; lowered: number }[] = [];
      const after: number[] = [];
      const fold = (): void => {
        const state = foldEvidence(rows.values(), 0, learningOptions, ++version);
        overlay = new LearnedOverlay(state, tuning);
        if (options.learnedField === true) index = createSearchIndex(mode, withLearnedField(set.catalog, state.tools));
      };
      for (const step of LEARNING_STEPS) {
        const until = Math.round(observed.length * step);
        for (; done < until; done++) {
          // A fold every LEARNING_FOLD_EVERY of the observed half: later searches see what earlier calls taught.
          if (done > 0 && done % Math.max(1, Math.round(observed.length * LEARNING_FOLD_EVERY)) === 0) fold();
          const learned = withLearning(index, overlay, definitionOf, mode);
          const query = observed[done];
          if (query === undefined) break;
          const principal = `principal-${done % LEARNING_PRINCIPALS}`;
          const shown = learned.searchPage(query.query, SHOWN).names;
          const terms = evidenceTerms(query.query);
          // One event per right tool shown and called, all from this search (the deployment splits its evidence).
          // Each names the tools shown above it: those not called were passed over for its words.
          const events = shown.flatMap((tool, position) => query.tools.includes(tool)
            ? [{ tool, terms, principal, at: 0, above: shown.slice(Math.max(0, position - MAX_SHOWN_ABOVE), position), ...(split ? { search: `search-${done}` } : {}) } satisfies EvidenceEvent]
            : []);
          const shares = searchShares(events);
          for (const { event: { tool }, share } of shares) {
            calls++;
            for (const term of terms) {
              const key = JSON.stringify([tool, term, principal]);
              rows.set(key, reinforced(rows.get(key), { tool, term, principal }, 0, LEARNING_OPTIONS.halfLifeDays, share));
            }
          }
          if (passedOverShare > 0) {
            for (const { tool, share } of passedOver(shares)) {
              for (const term of terms) {
                const key = JSON.stringify([tool, term, principal, "passedOver"]);
                rows.set(key, { ...reinforced(rows.get(key), { tool, term, principal }, 0, LEARNING_OPTIONS.halfLifeDays, share * passedOverShare), passedOver: true });
              }
            }
          }
        }
        fold();
        const now = perQuery();
        after.push(mean(now));
        moved.push({
          raised: now.filter((value, i) => value > (beforeByQuery[i] ?? 0)).length,
          lowered: now.filter((value, i) => value < (beforeByQuery[i] ?? 0)).length,
        });
      }
      const state = foldEvidence(rows.values(), 0, learningOptions, version);
      return {
        observed: observed.length,
        tested: tested.length,
        ndcgAt10: { before, after10: after[0] ?? before, after50: after[1] ?? before, after100: after[2] ?? before },
        calls,
        toolsLearned: Object.keys(state.tools).length,
        moved,
        headroom: learningHeadroom(plain, measured, rows.values(), state.tools, learningOptions.minPrincipals),
      };
    };
    section[set.name] = { substring: run("substring"), minisearch: run("minisearch") };
  }
  return section;
}

/** `catalog` with each tool's learned terms that its own text lacks in its `groups` field (learningSection's learnedField). */
function withLearnedField(catalog: readonly ToolDefinition[], learned: Readonly<Record<string, readonly { term: string }[]>>): ToolDefinition[] {
  return catalog.map((tool) => {
    const own = ownTerms(tool);
    const terms = (learned[tool.name] ?? []).map(({ term }) => term).filter((term) => !own.has(term));
    return terms.length === 0 ? tool : { ...tool, groups: [...(tool.groups ?? []), ...terms] };
  });
}

export interface LearningTarget {
  target: string;
  value: number | null;
  limit: number;
  pass: boolean | null;
}

/**
 * +0.10 nDCG@10 on MetaTool's and Gorilla's tested halves (minisearch); no set lower after learning than before, in
 * either mode, after 10%, 50% or 100% of the observed half (the value: the smallest of the three gains).
 */
export function learningTargets(section: LearningSection): LearningTarget[] {
  const targets: LearningTarget[] = [];
  for (const name of ["metaTool", "gorilla"] as const) {
    const set = section[name]?.minisearch;
    targets.push(set === undefined
      ? { target: `minisearch nDCG@10 gain on ${name}'s tested half after learning`, value: null, limit: 0.1, pass: null }
      : { target: `minisearch nDCG@10 gain on ${name}'s tested half after learning`, value: Number((set.ndcgAt10.after100 - set.ndcgAt10.before).toFixed(4)), limit: 0.1, pass: set.ndcgAt10.after100 - set.ndcgAt10.before >= 0.1 });
  }
  for (const name of SET_NAMES) {
    for (const mode of ["substring", "minisearch"] as const) {
      const set = section[name]?.[mode];
      const target = `${mode} nDCG@10 on ${name}'s tested half not lower after 10%, 50% or 100% of learning (least gain)`;
      if (set === undefined) {
        targets.push({ target, value: null, limit: 0, pass: null });
        continue;
      }
      const { before, after10, after50, after100 } = set.ndcgAt10;
      const gain = Math.min(after10, after50, after100) - before;
      targets.push({ target, value: Number(gain.toFixed(4)), limit: 0, pass: gain >= 0 });
    }
  }
  return targets;
}
