// The learned field of each tool (docs/search.md, "Learning from calls"): a small overlay beside a search index of
// either mode, never inside it (the index, its postings and its snapshots are unchanged). Two learned signals:
// - the learned terms: a query's terms are scored against each tool's learned terms (each term's rarity among the
//   learned fields, times the tool's share of that term's evidence, as a share of the whole query); a learned term
//   that the tool's own text already holds counts `ownTermShare` of it (the index already finds the tool by it);
// - the callers' profile: each tool that enough principals called has a vector, the average of what its callers
//   asked (their terms' word vectors, less the tool's own terms), and a query near it finds the tool even in words
//   no caller used.
// A learned term that another tool of the index's head holds in its own text counts `explainedShare` of it for a tool
// whose own text lacks it: the index already places that word (the learned term is mostly another tool's word that
// reached this one through a request for both).
// Evidence against a tool (principals passed it over, for a search's terms, to call a tool shown below it) lowers it
// for a query of those terms, in a vote with the term's other evidence.
// The index's own ranking is read as scores by rank; the learned parts are added, each weighted and capped, and may move
// a tool only into the first `learnedPlaces` places of the index's mode (the rest keep the index's order). Learned
// terms move ranks only: they never appear in an answer (the index's `scored`, which says how much of a query a tool
// matches, is the index's own).
import { analyze } from "../search/analyze.ts";
import { namedTools } from "../search/exactNames.ts";
import { toolFieldTexts } from "../search/fields.ts";
import type { SearchMode } from "../config.ts";
import type { ScoredMatch, SearchIndex, SearchPage } from "../search/types.ts";
import type { ToolDefinition } from "../types.ts";
import type { CallerProfile, LearnedState } from "./evidence.ts";
import { addTermVector, dot, newVector, toUnit } from "./termVectors.ts";

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
  /** How much a learned term that the tool's own text (name, description, parameters) holds counts (1: in full). */
  ownTermShare: number;
  /** The callers' profile's cap: a query whose vector is the profile's own gains this much (0: profiles unused). */
  vectorWeight: number;
  /** The cosine below which a profile counts nothing; from it to 1 the profile's part grows from 0 to its cap. */
  vectorFloor: number;
  /** A profile of n principals counts n / (n + vectorConfidence) of its part: few callers move little. */
  vectorConfidence: number;
  /**
   * How much a learned term counts for a tool whose own text lacks it when another of the index's first `depth` tools
   * holds it in its own text (1: in full).
   */
  explainedShare: number;
  /**
   * Per index mode, the first places a learned part may move a tool into (Infinity: any): a tool whose score with its
   * learned part passes the index's tool at rank `learnedPlaces` − 1 (with that tool's own learned part) joins the
   * index's first `learnedPlaces` tools, sorted with them by score; every other tool keeps the index's order. The
   * substring index shows fewer of a request's right tools among the five a model sees, so fewer of them learn and
   * the tools that did learn pass them: its learned parts move tools into fewer places.
   */
  learnedPlaces: Readonly<Record<SearchMode, number>>;
  /**
   * How much the evidence against a tool weighs, as a share of `weight`: principals that a search showed the tool above
   * a tool they called, and did not call it, passed it over for the search's terms; a query of those terms lowers it
   * by its share of them (beyond what it learned of each, in a vote among the term's tools) times this (0: unused).
   */
  passedOverWeight: number;
}

/** learnedPlaces of the ranked index (the minisearch mode). */
const RANKED_LEARNED_PLACES = 5;

/** Chosen by the bench's learning section (`node --expose-gc bench/run.ts --learning`) on the four sets. */
export const DEFAULT_LEARNING_TUNING: Readonly<LearningTuning> = Object.freeze({
  weight: 4, rankScale: 3, saturation: 2, depth: 30, unlearnedShare: 0.5, scoring: "vote",
  ownTermShare: 0.15, vectorWeight: 1, vectorFloor: 0.5, vectorConfidence: 3, explainedShare: 0.3,
  learnedPlaces: Object.freeze({ substring: 2, minisearch: RANKED_LEARNED_PLACES }), passedOverWeight: 1,
});

/** The tools nearest a query's vector that a profile may lift (the others count nothing). */
const VECTOR_CANDIDATES = 10;

/** A tool's definition by name, when the catalog holds it (the overlay reads the tool's own terms from it). */
export type DefinitionOf = (name: string) => ToolDefinition | undefined;

/** Each definition's own terms, as the index analyzes them; kept while the definition object lives. */
const ownTermsCache = new WeakMap<ToolDefinition, ReadonlySet<string>>();

/** The terms of a tool's own text (name, description, parameter names and descriptions), analyzed. */
export function ownTerms(definition: ToolDefinition): ReadonlySet<string> {
  let terms = ownTermsCache.get(definition);
  if (terms === undefined) {
    const texts = toolFieldTexts(definition);
    terms = new Set(analyze(`${texts.name} ${texts.description} ${texts.parameterNames} ${texts.parameterDescriptions}`));
    ownTermsCache.set(definition, terms);
  }
  return terms;
}

interface ProfileVectors {
  /** The definitions the vectors were made with (a changed definition remakes them). */
  definitions: Map<string, ToolDefinition | undefined>;
  /** The mean of the profiles' unit vectors, which centres them and the query. */
  mean: Float64Array;
  /** Per tool, its profile's unit vector less the mean, at unit length, and its principals. */
  vectors: Map<string, { vector: Float64Array; principals: number }>;
}

/** Most distinct query terms scored (a long message is scored by its first ones, like the ranked index). */
const MAX_QUERY_TERMS = 40;

/** The learned fields of a catalog's tools, ready to score queries; one per applied learning state. */
export class LearnedOverlay {
  readonly version: number;
  /** term → the tools that learned it, each with its term weight. */
  readonly #postings = new Map<string, { tool: string; weight: number }[]>();
  /** term → the tools passed over for it → the passed-over weight. */
  readonly #passedOver = new Map<string, Map<string, number>>();
  readonly #profiles: Readonly<Record<string, CallerProfile>>;
  readonly #tuning: LearningTuning;
  #profileVectors: ProfileVectors | undefined;

  constructor(state: LearnedState, tuning: LearningTuning = DEFAULT_LEARNING_TUNING) {
    this.version = state.version;
    this.#tuning = tuning;
    this.#profiles = tuning.vectorWeight > 0 ? (state.profiles ?? {}) : {};
    for (const [tool, terms] of Object.entries(state.tools)) {
      for (const { term, weight } of terms) {
        let posting = this.#postings.get(term);
        if (!posting) this.#postings.set(term, (posting = []));
        posting.push({ tool, weight });
      }
    }
    if (tuning.passedOverWeight > 0) {
      for (const [tool, terms] of Object.entries(state.passedOver ?? {})) {
        for (const { term, weight } of terms) {
          let passed = this.#passedOver.get(term);
          if (!passed) this.#passedOver.set(term, (passed = new Map()));
          passed.set(tool, weight);
        }
      }
    }
  }

  /** Whether any tool has learned anything. */
  get empty(): boolean {
    return this.#postings.size === 0 && this.#passedOver.size === 0 && Object.keys(this.#profiles).length === 0;
  }

  /**
   * Each tool whose learned terms a query matches, with how much of the query they cover (0 to 1): each query term
   * weighs its rarity among the learned fields of a catalog of `catalogSize` tools (a term no tool learned counts as
   * the rarest, times `unlearnedShare`), and a tool earns a matched term's rarity times its vote (or saturated weight),
   * times `ownTermShare` when the tool's own text (read through `definitionOf`) holds the term, else times
   * `explainedShare` when the own text of another of the index's `head` (its first tools for the query) holds it.
   * A tool passed over for the query's terms has `passedOverWeight` times its share of the evidence against taken from
   * that (below 0 when nothing else lifts it).
   */
  match(query: string, catalogSize: number, definitionOf?: DefinitionOf, head: readonly string[] = []): Map<string, number> {
    const matches = new Map<string, number>();
    if (this.#postings.size === 0 && this.#passedOver.size === 0) return matches;
    const terms = [...new Set(analyze(query))].slice(0, MAX_QUERY_TERMS);
    const holds = (tool: string, term: string): boolean => {
      const definition = definitionOf?.(tool);
      return definition !== undefined && ownTerms(definition).has(term);
    };
    /** The query terms that a tool of the head holds in its own text: the index places them already. */
    const placed = new Set<string>();
    for (const name of head) for (const term of terms) if (holds(name, term)) placed.add(term);
    const own = (tool: string, term: string): number =>
      holds(tool, term) ? this.#tuning.ownTermShare : placed.has(term) ? this.#tuning.explainedShare : 1;
    const vote = this.#tuning.scoring === "vote";
    const { passedOverWeight } = this.#tuning;
    let total = 0;
    const size = Math.max(catalogSize, 1);
    /** Per tool, its passed-over part beyond what it learned (taken from its match, at passedOverWeight). */
    const against = new Map<string, number>();
    for (const term of terms) {
      const posting = this.#postings.get(term);
      const passed = this.#passedOver.get(term);
      const rarity = this.#rarity(size, posting?.length ?? 0);
      const share = posting === undefined ? rarity * this.#tuning.unlearnedShare : rarity;
      total += share;
      // A tool whose own text holds the term learned it at ownTermShare of its weight (its vote, and the vote's whole).
      const weights = (posting ?? []).map(({ tool, weight }) => ({ tool, weight: weight * own(tool, term) }));
      const mass = vote ? weights.reduce((sum, { weight }) => sum + weight, 0) + this.#tuning.saturation : 0;
      for (const { tool, weight } of weights) {
        const gain = vote ? rarity * (weight / mass) : rarity * this.#saturated(weight);
        if (gain > 0) matches.set(tool, (matches.get(tool) ?? 0) + gain);
      }
      if (passedOverWeight > 0 && passed !== undefined) {
        // A vote among the tools passed over for the term, each by what it was passed over beyond what it learned of
        // it, in the term's whole evidence (learned and passed over): a word that many tools were passed over for, or
        // learned ("password", "usernam"), says little against any one of them. A tool whose own text holds the term
        // counts ownTermShare of it: its description claims the word, and a neighbour that shares it was chosen.
        const learnedOf = new Map((posting ?? []).map(({ tool, weight }) => [tool, weight]));
        const beyond = [...passed].map(([tool, weight]) => ({ tool, weight: Math.max(0, weight - (learnedOf.get(tool) ?? 0)) }));
        const whole = beyond.reduce((sum, { weight }) => sum + weight, 0) + (posting ?? []).reduce((sum, { weight }) => sum + weight, 0) + this.#tuning.saturation;
        for (const { tool, weight } of beyond) {
          if (weight > 0) against.set(tool, (against.get(tool) ?? 0) + (holds(tool, term) ? this.#tuning.ownTermShare : 1) * rarity * (weight / whole));
        }
      }
    }
    for (const [tool, sum] of matches) matches.set(tool, total > 0 ? Math.min(sum / total, 1) : 0);
    if (total > 0) {
      for (const [tool, sum] of against) matches.set(tool, (matches.get(tool) ?? 0) - passedOverWeight * Math.min(sum / total, 1));
    }
    return matches;
  }

  /**
   * Each tool whose callers' profile is near the query (among the VECTOR_CANDIDATES nearest), with how near (0 to 1:
   * the cosine from vectorFloor up, times the profile's confidence). The profiles and the query are centred on the
   * profiles' mean, so that what every request says ("can you find me") brings no tool nearer.
   */
  nearProfiles(query: string, definitionOf?: DefinitionOf): Map<string, number> {
    const near = new Map<string, number>();
    const { mean, vectors } = this.#vectors(definitionOf);
    if (vectors.size === 0) return near;
    const wanted = newVector();
    let known = false;
    for (const term of new Set(analyze(query).slice(0, MAX_QUERY_TERMS))) known = addTermVector(term, 1, wanted) || known;
    if (!known || !toUnit(wanted)) return near;
    for (let d = 0; d < wanted.length; d++) wanted[d] = (wanted[d] ?? 0) - (mean[d] ?? 0);
    if (!toUnit(wanted)) return near;
    const { vectorFloor, vectorConfidence } = this.#tuning;
    const cosines = [...vectors].map(([tool, { vector, principals }]) => ({ tool, cosine: dot(wanted, vector), principals }))
      .toSorted((a, b) => b.cosine - a.cosine || (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0))
      .slice(0, VECTOR_CANDIDATES);
    for (const { tool, cosine, principals } of cosines) {
      if (cosine <= vectorFloor) break;
      near.set(tool, (principals / (principals + vectorConfidence)) * (cosine - vectorFloor) / (1 - vectorFloor));
    }
    return near;
  }

  /** The profiles' vectors, made again only when a profiled tool's definition changed. */
  #vectors(definitionOf: DefinitionOf | undefined): ProfileVectors {
    const tools = Object.keys(this.#profiles);
    const held = this.#profileVectors;
    if (held !== undefined && tools.every((tool) => held.definitions.get(tool) === definitionOf?.(tool))) return held;
    const definitions = new Map(tools.map((tool) => [tool, definitionOf?.(tool)]));
    const units = new Map<string, { vector: Float64Array; principals: number }>();
    const mean = newVector();
    for (const [tool, { principals, terms }] of Object.entries(this.#profiles)) {
      const definition = definitions.get(tool);
      // What the tool's own text says, the index finds already: the profile is what its callers said beyond it.
      const own = definition === undefined ? undefined : ownTerms(definition);
      const vector = newVector();
      for (const { term, weight } of terms) if (own?.has(term) !== true) addTermVector(term, weight, vector);
      if (!toUnit(vector)) continue;
      units.set(tool, { vector, principals });
      for (let d = 0; d < mean.length; d++) mean[d] = (mean[d] ?? 0) + (vector[d] ?? 0);
    }
    for (let d = 0; d < mean.length; d++) mean[d] = (mean[d] ?? 0) / Math.max(units.size, 1);
    const vectors = new Map<string, { vector: Float64Array; principals: number }>();
    for (const [tool, { vector, principals }] of units) {
      for (let d = 0; d < vector.length; d++) vector[d] = (vector[d] ?? 0) - (mean[d] ?? 0);
      if (toUnit(vector)) vectors.set(tool, { vector, principals });
    }
    this.#profileVectors = { definitions, mean, vectors };
    return this.#profileVectors;
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
 * terms match joins the matches), ranks moved by the learned field, into the first places that the tuning's
 * `learnedPlaces` gives the index's `mode` (the substring mode's when not said: the fewer). An empty overlay returns
 * `index` itself.
 */
export function withLearning(index: SearchIndex, overlay: LearnedOverlay | undefined, definitionOf?: DefinitionOf, mode: SearchMode = "substring"): SearchIndex {
  if (overlay === undefined || overlay.empty) return index;
  const { weight, rankScale, depth, vectorWeight } = overlay.tuning;
  const searchPage = (query: string, count: number, accept: (name: string) => boolean = () => true): SearchPage => {
    // The learned part of each tool: its learned terms' share, and its callers' profile's nearness, each capped.
    const near = overlay.nearProfiles(query, definitionOf);
    const learned = new Map<string, number>();
    for (const [name, share] of overlay.match(query, index.size, definitionOf)) learned.set(name, weight * share);
    for (const [name, part] of near) learned.set(name, (learned.get(name) ?? 0) + vectorWeight * part);
    if (learned.size === 0) return index.searchPage(query, count, accept);
    // The index calls `accept` for every tool it matches (to count them): the learned ones it matched are noted.
    const matchedByIndex = new Set<string>();
    const head = index.searchPage(query, Math.max(count, depth), (name) => {
      if (!accept(name)) return false;
      if (learned.has(name)) matchedByIndex.add(name);
      return true;
    });
    // The learned terms scored again knowing the head: a term that a head tool's own text holds counts less for the
    // others (explainedShare), so that the parts only shrink and the tools noted above are all the learned ones.
    if (overlay.tuning.explainedShare < 1) {
      learned.clear();
      for (const [name, share] of overlay.match(query, index.size, definitionOf, head.names.slice(0, depth))) learned.set(name, weight * share);
      for (const [name, part] of near) learned.set(name, (learned.get(name) ?? 0) + vectorWeight * part);
    }
    const scores = new Map<string, number>();
    head.names.forEach((name, rank) => scores.set(name, rankScale / (rankScale + rank)));
    // A learned match below the head scores at most what the head's end does; one the index did not match, nothing.
    const below = rankScale / (rankScale + head.names.length);
    let added = 0;
    for (const [name, part] of learned) {
      const inHead = scores.get(name);
      if (inHead === undefined) {
        // A tool that was passed over, below the head: it stays where the index put it (or out).
        if (part <= 0) continue;
        if (!matchedByIndex.has(name)) {
          if (!accept(name)) continue;
          added++;
        }
        scores.set(name, (matchedByIndex.has(name) ? below : 0) + part);
      } else scores.set(name, inHead + part);
    }
    // A tool the request names stays first, as the index placed it (docs/search.md, "A request that names a tool").
    const named = new Set(namedTools(index, query).filter((name) => scores.has(name)));
    const order = new Map(head.names.map((name, rank) => [name, rank]));
    const fused = [...scores.keys()].filter((name) => !named.has(name)).toSorted((a, b) =>
      (scores.get(b) ?? 0) - (scores.get(a) ?? 0) || (order.get(a) ?? Infinity) - (order.get(b) ?? Infinity) || (a < b ? -1 : a > b ? 1 : 0));
    const first = head.names.filter((name) => named.has(name));
    return { names: [...first, ...limitedToFirstPlaces(fused, head.names.filter((name) => !named.has(name)), scores, overlay.tuning.learnedPlaces[mode])].slice(0, count), total: head.total + added };
  };
  return {
    size: index.size,
    search: (query) => searchPage(query, Infinity).names,
    searchPage,
    scored: (query: string, limit: number, accept?: (name: string) => boolean): ScoredMatch[] => index.scored(query, limit, accept),
  };
}

/**
 * `fused` (sorted by score) with the learned parts' moves held to the first `places`: a tool that passes the score of
 * the index's tool at rank `places` − 1 is kept among the first, sorted by score with the index's first `places`; the
 * rest follow in the index's order (`head`), then the learned tools the index did not rank, by score.
 */
function limitedToFirstPlaces(fused: readonly string[], head: readonly string[], scores: ReadonlyMap<string, number>, places: number): string[] {
  if (!Number.isFinite(places) || head.length <= places) return [...fused];
  const bar = head[places - 1];
  const barScore = bar === undefined ? -Infinity : (scores.get(bar) ?? 0);
  const leading = new Set(head.slice(0, places));
  const top = fused.filter((name) => leading.has(name) || (scores.get(name) ?? 0) > barScore);
  const placed = new Set(top);
  const inHead = new Set(head);
  const rest = head.filter((name) => !placed.has(name) && scores.has(name));
  const unranked = fused.filter((name) => !placed.has(name) && !inHead.has(name));
  return [...top, ...rest, ...unranked];
}
