// The learned field of each tool (docs/search.md, "Learning from calls"): a small overlay beside a search index of
// either mode, never inside it (the index, its postings and its snapshots are unchanged). A query's terms are scored
// against each tool's learned terms (each term's rarity among the learned fields, times the tool's share of that
// term's evidence, as a share of the whole query); the index's own ranking is read as scores by rank; the two are
// summed, the learned part weighted and capped. Learned terms move ranks only: they never appear in an answer (the index's `scored`, which
// says how much of a query a tool matches, is the index's own).
import { analyze } from "../search/analyze.ts";
import { namedTools } from "../search/exactNames.ts";
import type { ScoredMatch, SearchIndex, SearchPage } from "../search/types.ts";
import type { LearnedState } from "./evidence.ts";

export interface LearningTuning {
  /** The learned part's cap: a tool that the learned terms match whole (L = 1) gains this much. */
  weight: number;
  /** The index's rank r (0 first) scores rankScale / (rankScale + r): 1 for the first, 0.5 at rank rankScale. */
  rankScale: number;
  /** A learned term of weight w counts w / (w + saturation): a few principals count, many do not count without end. */
  saturation: number;
  /** How far down the index's ranking a learned match is looked for (the page's end, when further). */
  depth: number;
  /** How much a query term that no tool learned counts in the query's whole (1: as the rarest term; 0: not at all). */
  unlearnedShare: number;
  /**
   * How a matched term counts for a tool: "vote", its share of the term's evidence over all tools (a term many tools
   * learned splits its vote; `saturation` smooths the share); "coverage", its own weight saturated by `saturation`.
   */
  scoring: "vote" | "coverage";
}

/** Chosen by the bench's learning section (`npm run bench -- --learning`) on the four sets. */
export const DEFAULT_LEARNING_TUNING: Readonly<LearningTuning> = Object.freeze({ weight: 2, rankScale: 3, saturation: 2, depth: 30, unlearnedShare: 0.5, scoring: "vote" });

/** Most distinct query terms scored (a long message is scored by its first ones, like the ranked index). */
const MAX_QUERY_TERMS = 40;

/** The learned fields of a catalog's tools, ready to score queries; one per applied learning state. */
export class LearnedOverlay {
  readonly version: number;
  /** term → the tools that learned it, each with its term weight. */
  readonly #postings = new Map<string, { tool: string; weight: number }[]>();
  readonly #tuning: LearningTuning;

  constructor(state: LearnedState, tuning: LearningTuning = DEFAULT_LEARNING_TUNING) {
    this.version = state.version;
    this.#tuning = tuning;
    for (const [tool, terms] of Object.entries(state.tools)) {
      for (const { term, weight } of terms) {
        let posting = this.#postings.get(term);
        if (!posting) this.#postings.set(term, (posting = []));
        posting.push({ tool, weight });
      }
    }
  }

  /** Whether any tool has learned anything. */
  get empty(): boolean {
    return this.#postings.size === 0;
  }

  /**
   * Each tool whose learned terms a query matches, with how much of the query they cover (0 to 1): each query term
   * weighs its rarity among the learned fields of a catalog of `catalogSize` tools (a term no tool learned counts as
   * the rarest, times `unlearnedShare`), and a tool earns a matched term's rarity times its vote (or saturated weight).
   */
  match(query: string, catalogSize: number): Map<string, number> {
    const matches = new Map<string, number>();
    if (this.empty) return matches;
    const terms = [...new Set(analyze(query))].slice(0, MAX_QUERY_TERMS);
    const vote = this.#tuning.scoring === "vote";
    let total = 0;
    const size = Math.max(catalogSize, 1);
    for (const term of terms) {
      const posting = this.#postings.get(term);
      const rarity = this.#rarity(size, posting?.length ?? 0);
      const share = posting === undefined ? rarity * this.#tuning.unlearnedShare : rarity;
      total += share;
      const mass = vote ? (posting ?? []).reduce((sum, { weight }) => sum + weight, 0) + this.#tuning.saturation : 0;
      for (const { tool, weight } of posting ?? []) {
        const gain = vote ? rarity * (weight / mass) : rarity * this.#saturated(weight);
        matches.set(tool, (matches.get(tool) ?? 0) + gain);
      }
    }
    for (const [tool, sum] of matches) matches.set(tool, total > 0 ? Math.min(sum / total, 1) : 0);
    return matches;
  }

  #rarity(size: number, holders: number): number {
    return Math.log(1 + size / (1 + holders));
  }

  #saturated(weight: number): number {
    return weight / (weight + this.#tuning.saturation);
  }

  get tuning(): Readonly<LearningTuning> {
    return this.#tuning;
  }
}

/**
 * `index` with `overlay` folded into its ranking: the same catalog, pages and totals (a tool that only its learned
 * terms match joins the matches), ranks moved by the learned field. An empty overlay returns `index` itself.
 */
export function withLearning(index: SearchIndex, overlay: LearnedOverlay | undefined): SearchIndex {
  if (overlay === undefined || overlay.empty) return index;
  const { weight, rankScale, depth } = overlay.tuning;
  const searchPage = (query: string, count: number, accept: (name: string) => boolean = () => true): SearchPage => {
    const learned = overlay.match(query, index.size);
    if (learned.size === 0) return index.searchPage(query, count, accept);
    // The index calls `accept` for every tool it matches (to count them): the learned ones it matched are noted.
    const matchedByIndex = new Set<string>();
    const head = index.searchPage(query, Math.max(count, depth), (name) => {
      if (!accept(name)) return false;
      if (learned.has(name)) matchedByIndex.add(name);
      return true;
    });
    const scores = new Map<string, number>();
    head.names.forEach((name, rank) => scores.set(name, rankScale / (rankScale + rank)));
    // A learned match below the head scores at most what the head's end does; one the index did not match, nothing.
    const below = rankScale / (rankScale + head.names.length);
    let added = 0;
    for (const [name, share] of learned) {
      const inHead = scores.get(name);
      if (inHead === undefined) {
        if (!matchedByIndex.has(name)) {
          if (!accept(name)) continue;
          added++;
        }
        scores.set(name, (matchedByIndex.has(name) ? below : 0) + weight * share);
      } else scores.set(name, inHead + weight * share);
    }
    // A tool the request names stays first, as the index placed it (docs/search.md, "A request that names a tool").
    const named = new Set(namedTools(index, query).filter((name) => scores.has(name)));
    const order = new Map(head.names.map((name, rank) => [name, rank]));
    const fused = [...scores.keys()].filter((name) => !named.has(name)).toSorted((a, b) =>
      (scores.get(b) ?? 0) - (scores.get(a) ?? 0) || (order.get(a) ?? Infinity) - (order.get(b) ?? Infinity) || (a < b ? -1 : a > b ? 1 : 0));
    const first = head.names.filter((name) => named.has(name));
    return { names: [...first, ...fused].slice(0, count), total: head.total + added };
  };
  return {
    size: index.size,
    search: (query) => searchPage(query, Infinity).names,
    searchPage,
    scored: (query: string, limit: number, accept?: (name: string) => boolean): ScoredMatch[] => index.scored(query, limit, accept),
  };
}
