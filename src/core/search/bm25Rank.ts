// Ranking over Bm25Postings, with MiniSearch 7's scores (with its IDF per field; IdfScope "tool" counts whole tools
// instead): per query term, the BM25 of every term it expands to (itself, prefix and fuzzy matches, each weighted) in
// every field (boosted), summed in MiniSearch's order (query term, then expanded term, then field), and the sum times
// the number of query terms that hit the tool (its "quality").
// Two paths with the same scores: `rankAll` (every match, term at a time) and `rankTop` (the first k only): MaxScore
// over per-term score bounds — terms are scored in order of their bound, and once the k-th best score found so far
// beats what every unscored term together could still give a tool none of the scored terms hit, the rest are only
// looked up for the tools that can still enter the first k. The count of matches stays exact: the rest are walked
// for it, without scoring.
import type { Bm25Params, Bm25Postings } from "./bm25Postings.ts";
import { FIELD_BITS, keyField, keySlot } from "./bm25Postings.ts";
import { FIELDS } from "./fields.ts";
import { TopK } from "./topK.ts";

const FIELD_COUNT = FIELDS.length;
const NAME_FIELD = FIELDS.indexOf("name");
/** A posting's key, slot × FIELD_BITS + field (bm25Postings.ts), taken apart with shifts in the scoring loop. */
const FIELD_SHIFT = Math.log2(FIELD_BITS);
const FIELD_MASK = FIELD_BITS - 1;
/** Bounds are computed in another order than scores: a margin keeps rounding from pruning a tool that ties. */
const BOUND_MARGIN = 1e-9;

export interface QueryTerm {
  term: string;
  /** MiniSearch's termBoost. */
  boost: number;
  prefix: boolean;
  fuzzy: boolean;
  /**
   * A term that adds its score but is not one more query term hitting the tool (MiniSearch's "quality" factor counts
   * words only): evidence on top of the words. A pair of adjacent query words (fields.ts, phraseTerm) is one, and so is
   * a near word of a query word the catalog holds (minisearch.ts, knownExpansionWeight).
   */
  supporting?: boolean;
  /** A near word searched for a query word (minisearch.ts, expansionWeight and knownExpansionWeight): the word it is. */
  nearWord?: string;
}

/**
 * Which tools a term's IDF counts: those that hold it anywhere ("tool", as BM25F does), or, per field, those that hold
 * it in that field ("field", as MiniSearch does; then a word rare in names but common in descriptions, like "find",
 * counts as rare in the one tool name that has it). "toolExceptName": names count per field, the other fields as whole
 * tools (a word common in descriptions stays common in them, and a name's word keeps its rarity among names).
 */
export type IdfScope = "tool" | "field" | "toolExceptName";
export const IDF_SCOPES: readonly IdfScope[] = ["tool", "field", "toolExceptName"];

/** One query term's weighers of a hit, by field (FIELDS order; undefined: a hit in that field counts in full). */
export type HitWeighers = readonly (((slot: number) => number) | undefined)[];

export interface ScoringOptions {
  /** By field id (FIELDS order). */
  fieldBoosts: readonly number[];
  bm25: Bm25Params;
  idfScope: IdfScope;
  prefixWeight: number;
  fuzzyWeight: number;
  /**
   * By query term, then by field (FIELDS order): how much a hit of that term in that field of the tool at `slot`
   * counts, 0 to 1: its frequency is scaled by it (minisearch.ts, toolCentralityExponent). Absent (for the query, a
   * term or a field): 1, and nothing is called. At most 1, so the score bounds hold.
   */
  hitWeights?: readonly (HitWeighers | undefined)[];
  /** The counts of the whole catalog when the index holds a part of it (shardedSearch.ts); absent: the index's own. */
  catalog?: CatalogCounts;
}

/** The counts BM25's IDF and average lengths are made of, for a catalog an index holds a part of. */
export interface CatalogCounts {
  toolCount: number;
  /** Per field (FIELDS order): the sum of every tool's length in it. */
  fieldLengthSums: readonly number[];
  /** How many tools hold the term `termId` of the index in `field` (field: undefined, in any field). */
  frequency(termId: number, field: number | undefined): number;
}

export interface Ranked {
  /** Best first; ties in `position` order. */
  slots: number[];
  /** How many accepted tools match. */
  total: number;
  /** Each slot's score, in the same order. */
  scores?: number[];
}

/**
 * MiniSearch's calcBM25Score, with the IDF computed once per term and field. Bm25Ranker's per-term scoring loop
 * writes the same operations out (a cold first search interprets it): a change here is a change there.
 */
function bm25(frequency: number, idf: number, fieldLength: number, averageLength: number, params: Bm25Params, field: number): number {
  const { k, d } = params;
  const b = params.bByField?.[field] ?? params.b;
  return idf * (d + (frequency * (k + 1)) / (frequency + k * (1 - b + (b * fieldLength) / averageLength)));
}

/**
 * A query, expanded: its scoring units ("cells", one per query term × expanded term × field, numbered in scoring
 * order) and, per query term, an upper bound of what it can add to any tool's sum.
 */
interface Plan {
  /** Per expanded term (numbered in scoring order): its query term, and its term id. */
  queryOf: number[];
  termOf: number[];
  /** Per expanded term and field (`g * FIELD_COUNT + field`): MiniSearch's weight × boost product, and the IDF (0: no posting). */
  coefficient: Float64Array;
  idf: Float64Array;
  /** Per query term: its expanded terms `[first[i], first[i + 1])`, and its bound (0s when not asked for). */
  first: number[];
  bound: number[];
  /** Term id → its expanded-term numbers (empty when the bounds are not asked for: only rankTop reads it). */
  byTerm: Map<number, number[]>;
  averageLength: Float64Array;
  /** Per field: BM25's length normalisation b, and 1 − b (bm25's terms that do not change from hit to hit). */
  b: Float64Array;
  oneMinusB: Float64Array;
  /** Per query term: 1 when a hit counts in the quality factor (a word), 0 when not (a pair). */
  quality: Uint8Array;
}

/** The query's plan; `bounded`: with each term's bound and the expanded terms by term id (what rankTop reads). */
function plan(index: Bm25Postings, terms: readonly QueryTerm[], options: ScoringOptions, bounded: boolean): Plan {
  const { catalog } = options;
  const count = catalog?.toolCount ?? index.liveCount;
  const averageLength = new Float64Array(FIELD_COUNT);
  const b = new Float64Array(FIELD_COUNT);
  const oneMinusB = new Float64Array(FIELD_COUNT);
  for (let field = 0; field < FIELD_COUNT; field++) {
    averageLength[field] = catalog === undefined ? index.averageFieldLength(field) : count === 0 ? 0 : (catalog.fieldLengthSums[field] ?? 0) / count;
    b[field] = options.bm25.bByField?.[field] ?? options.bm25.b;
    oneMinusB[field] = 1 - (b[field] ?? 0);
  }
  const queryOf: number[] = [];
  const termOf: number[] = [];
  const weights: number[] = [];
  const first: number[] = [];
  terms.forEach((query, i) => {
    first.push(termOf.length);
    const expansion = index.expand(query.term, query.prefix, query.fuzzy, options.prefixWeight, options.fuzzyWeight);
    expansion.termIds.forEach((termId, j) => {
      queryOf.push(i);
      termOf.push(termId);
      weights.push(expansion.weights[j] ?? 0);
    });
  });
  first.push(termOf.length);
  const coefficient = new Float64Array(termOf.length * FIELD_COUNT);
  const idf = new Float64Array(termOf.length * FIELD_COUNT);
  const bound = terms.map(() => 0);
  const byTerm = new Map<number, number[]>();
  termOf.forEach((termId, g) => {
    if (bounded) {
      const known = byTerm.get(termId);
      if (known) known.push(g);
      else byTerm.set(termId, [g]);
    }
    const queryIndex = queryOf[g] ?? 0;
    const termBoost = terms[queryIndex]?.boost ?? 0;
    for (let field = 0; field < FIELD_COUNT; field++) {
      const matching = index.fieldFrequency(termId, field);
      if (matching === 0) continue;
      const cell = g * FIELD_COUNT + field;
      // MiniSearch: termWeight * fieldBoost * termBoost * docBoost (1) * rawScore, in that order.
      const c = (weights[g] ?? 0) * (options.fieldBoosts[field] ?? 1) * termBoost;
      const wholeTools = options.idfScope === "tool" || (options.idfScope === "toolExceptName" && field !== NAME_FIELD);
      const holders = catalog !== undefined ? catalog.frequency(termId, wholeTools ? undefined : field) : wholeTools ? index.toolFrequencyOf(termId) : matching;
      const inverse = Math.log(1 + (count - holders + 0.5) / (holders + 0.5));
      coefficient[cell] = c;
      idf[cell] = inverse;
      if (!bounded) continue;
      // BM25 grows with the frequency and, for b ≥ 0, falls with the length: the highest frequency at the shortest
      // length bounds it (both lengths tried, so that any b is safe).
      const { maxFrequency, minLength, maxLength } = index.fieldBounds(termId, field);
      const average = averageLength[field] ?? 0;
      const top = Math.max(bm25(maxFrequency, inverse, minLength, average, options.bm25, field), bm25(maxFrequency, inverse, maxLength, average, options.bm25, field));
      bound[queryIndex] = (bound[queryIndex] ?? 0) + Math.max(0, c * top);
    }
  });
  const quality = Uint8Array.from(terms, (term) => (term.supporting === true ? 0 : 1));
  return { queryOf, termOf, coefficient, idf, first, bound: bound.map((value) => value * (1 + BOUND_MARGIN)), byTerm, averageLength, b, oneMinusB, quality };
}

/** Scratch arrays per index, reused by every query (a query runs to completion before the next). */
export class Bm25Ranker {
  readonly #index: Bm25Postings;
  #termScore = new Float64Array(0);
  #termStamp = new Uint32Array(0);
  #sum = new Float64Array(0);
  #quality = new Uint32Array(0);
  #seen = new Uint32Array(0);
  #kind = new Uint8Array(0);
  /** The slots one term hits (#scoreTerm), and every slot a query hits (#scoreAll), in the order first hit. */
  #touched = new Int32Array(0);
  #matched = new Int32Array(0);
  #termRound = 0;
  #queryRound = 0;

  constructor(index: Bm25Postings) {
    this.#index = index;
  }

  #prepare(): void {
    const slots = this.#index.slotCount;
    if (this.#sum.length < slots) {
      const size = Math.max(slots, this.#sum.length * 2, 64);
      this.#termScore = new Float64Array(size);
      this.#termStamp = new Uint32Array(size);
      this.#sum = new Float64Array(size);
      this.#quality = new Uint32Array(size);
      this.#seen = new Uint32Array(size);
      this.#kind = new Uint8Array(size);
      this.#touched = new Int32Array(size);
      this.#matched = new Int32Array(size);
      this.#termRound = 0;
      this.#queryRound = 0;
    }
    if (this.#queryRound >= 0xffff_fff0 || this.#termRound >= 0xffff_ff00) {
      this.#termStamp.fill(0);
      this.#seen.fill(0);
      this.#termRound = 0;
      this.#queryRound = 0;
    }
    this.#queryRound++;
  }

  /**
   * Scores query term `i` into `#termScore` (every tool it hits; their slots into `#touched`, how many returned), in
   * MiniSearch's order: expanded term by expanded term, each tool's fields in field order.
   */
  #scoreTerm(p: Plan, i: number, options: ScoringOptions, onlyCandidates?: Uint8Array): number {
    const round = ++this.#termRound;
    const termScore = this.#termScore;
    const termStamp = this.#termStamp;
    const touched = this.#touched;
    let count = 0;
    const index = this.#index;
    // Run cold (a new isolate's first search) this loop is interpreted: what does not change from hit to hit is read
    // once here, and bm25 is written out in it (the same operations in the same order: the same scores to the bit).
    const lengths = index.fieldLengths();
    const weighers = options.hitWeights?.[i];
    const { k, d } = options.bm25;
    const kPlusOne = k + 1;
    const { coefficient, idf, averageLength, b, oneMinusB } = p;
    for (let g = p.first[i] ?? 0, end = p.first[i + 1] ?? 0; g < end; g++) {
      const termId = p.termOf[g] ?? 0;
      const postings = index.postingBuffer(termId);
      const cells = g * FIELD_COUNT;
      for (let at = index.postingStart(termId), stop = index.postingEnd(termId); at < stop; at += 2) {
        // A key is slot × FIELD_BITS + field, never negative (keySlot, keyField).
        const key = postings[at] ?? 0;
        const slot = key >> FIELD_SHIFT;
        if (onlyCandidates !== undefined && (this.#seen[slot] !== this.#queryRound || onlyCandidates[slot] !== 1)) {
          // Past the pruning point: a tool that is not a candidate is only counted.
          if (termStamp[slot] !== round) {
            termStamp[slot] = round;
            touched[count++] = slot;
          }
          continue;
        }
        const field = key & FIELD_MASK;
        const cell = cells + field;
        const weigh = weighers?.[field];
        const frequency = weigh === undefined ? (postings[at + 1] ?? 0) : (postings[at + 1] ?? 0) * weigh(slot);
        const fieldB = b[field] ?? 0;
        const value =
          (coefficient[cell] ?? 0) *
          ((idf[cell] ?? 0) *
            (d + (frequency * kPlusOne) / (frequency + k * ((oneMinusB[field] ?? 0) + (fieldB * (lengths[slot * FIELD_COUNT + field] ?? 0)) / (averageLength[field] ?? 0)))));
        if (termStamp[slot] === round) termScore[slot] = (termScore[slot] ?? 0) + value;
        else {
          termStamp[slot] = round;
          termScore[slot] = value;
          touched[count++] = slot;
        }
      }
    }
    return count;
  }

  /** Every accepted match, best first (ties by `position`). */
  rankAll(terms: readonly QueryTerm[], options: ScoringOptions, accept: (slot: number) => boolean, position: ArrayLike<number>): Ranked {
    const { slots: matched, scores: score } = this.scoreAll(terms, options);
    const accepted = Array.from(matched).filter(accept);
    accepted.sort((a, b) => (score[b] ?? 0) - (score[a] ?? 0) || (position[a] ?? 0) - (position[b] ?? 0));
    return { slots: accepted, total: accepted.length, scores: accepted.map((slot) => score[slot] ?? 0) };
  }

  /**
   * Every match, unordered (rankAll's scores, without the sort: a caller that reads them all needs no order): the
   * slots hit, in the order first hit, and each one's score by slot in `scores`. Both are this ranker's buffers, valid
   * until its next query.
   */
  scoreAll(terms: readonly QueryTerm[], options: ScoringOptions): { slots: Int32Array; scores: Float64Array } {
    this.#prepare();
    const p = plan(this.#index, terms, options, false);
    const matched = this.#matched;
    let count = 0;
    const seen = this.#seen;
    const round = this.#queryRound;
    const sum = this.#sum;
    const quality = this.#quality;
    const termScore = this.#termScore;
    const touched = this.#touched;
    for (let i = 0; i < terms.length; i++) {
      const hit = this.#scoreTerm(p, i, options);
      const counts = p.quality[i] ?? 1;
      for (let t = 0; t < hit; t++) {
        const slot = touched[t] ?? 0;
        if (seen[slot] !== round) {
          seen[slot] = round;
          sum[slot] = 0;
          quality[slot] = 0;
          matched[count++] = slot;
        }
        sum[slot] = (sum[slot] ?? 0) + (termScore[slot] ?? 0);
        quality[slot] = (quality[slot] ?? 0) + counts;
      }
    }
    // The sums are done: the term scores' array holds the scores now.
    for (let m = 0; m < count; m++) {
      const slot = matched[m] ?? 0;
      termScore[slot] = (sum[slot] ?? 0) * (quality[slot] ?? 0);
    }
    return { slots: matched.subarray(0, count), scores: termScore };
  }

  /** The exact score of one tool, from its own terms (the forward list), summed in MiniSearch's order. */
  #exactScore(p: Plan, slot: number, options: ScoringOptions): number {
    const index = this.#index;
    const forward = index.forwardOf(slot);
    const hits: number[] = [];
    for (let at = 0; at < forward.length; at += 2) {
      const key = forward[at] ?? 0;
      const expanded = p.byTerm.get(keySlot(key));
      if (!expanded) continue;
      const field = keyField(key);
      for (const g of expanded) {
        const weigh = options.hitWeights?.[p.queryOf[g] ?? 0]?.[field];
        const frequency = weigh === undefined ? (forward[at + 1] ?? 0) : (forward[at + 1] ?? 0) * weigh(slot);
        const cell = g * FIELD_COUNT + field;
        hits.push(cell, (p.coefficient[cell] ?? 0) * bm25(frequency, p.idf[cell] ?? 0, index.fieldLength(slot, field), p.averageLength[field] ?? 0, options.bm25, field));
      }
    }
    // Cells are numbered in scoring order: sorting by cell puts the sums in MiniSearch's order.
    const order: number[] = [];
    for (let h = 0; h < hits.length; h += 2) order.push(h);
    let sum = 0;
    let quality = 0;
    let current = -1;
    let termSum = 0;
    for (const h of order.toSorted((x, y) => (hits[x] ?? 0) - (hits[y] ?? 0))) {
      const query = p.queryOf[Math.floor((hits[h] ?? 0) / FIELD_COUNT)] ?? 0;
      if (query !== current) {
        if (current !== -1) sum += termSum;
        current = query;
        termSum = 0;
        quality += p.quality[query] ?? 1;
      }
      termSum += hits[h + 1] ?? 0;
    }
    if (current !== -1) sum += termSum;
    return sum * quality;
  }

  /**
   * The first `k` accepted matches, exactly as `rankAll` orders them, and the exact count of accepted matches.
   * MaxScore, term at a time: terms are scored in order of their bound; once the k-th best partial score beats what
   * the unscored terms together could give a tool none of the scored ones hit (their bounds' sum times their number,
   * the quality factor), no new tool can enter the first k, and the rest only add to the tools already found (the
   * postings of other tools are counted, not scored). The best are then scored exactly in MiniSearch's order.
   */
  rankTop(terms: readonly QueryTerm[], options: ScoringOptions, k: number, accept: (slot: number) => boolean, position: ArrayLike<number>): Ranked {
    this.#prepare();
    const p = plan(this.#index, terms, options, true);
    const n = terms.length;
    const byBound = terms.map((_, i) => i).toSorted((a, b) => (p.bound[b] ?? 0) - (p.bound[a] ?? 0) || a - b);
    const seen = this.#seen;
    const round = this.#queryRound;
    const sum = this.#sum;
    const quality = this.#quality;
    /** Accepted tools hit by a term scored while new tools could still enter the first k. */
    const candidates: number[] = [];
    /** Per slot: 1 for a candidate, 2 for a match that is not one (filtered out, or hit only by the later terms). */
    const kind = this.#kind;
    let total = 0;
    let open = true;
    for (let j = 0; j < n; j++) {
      if (open && candidates.length >= k) {
        let rest = 0;
        for (let l = j; l < n; l++) rest += p.bound[byBound[l] ?? 0] ?? 0;
        // A tool no scored term hit gets at most the other terms' bounds, times how many they are.
        if (rest * (n - j) < this.#kthScore(candidates, k)) open = false;
      }
      const hit = this.#scoreTerm(p, byBound[j] ?? 0, options, open ? undefined : kind);
      const touched = this.#touched;
      for (let t = 0; t < hit; t++) {
        const slot = touched[t] ?? 0;
        if (seen[slot] !== round) {
          seen[slot] = round;
          sum[slot] = 0;
          quality[slot] = 0;
          const taken = open && accept(slot);
          kind[slot] = taken ? 1 : 2;
          if (taken) candidates.push(slot);
          else if (!open && accept(slot)) total++;
          if (!taken) continue;
        }
        if (kind[slot] !== 1) continue;
        sum[slot] = (sum[slot] ?? 0) + (this.#termScore[slot] ?? 0);
        quality[slot] = (quality[slot] ?? 0) + (p.quality[byBound[j] ?? 0] ?? 1);
      }
    }
    total += candidates.length;
    // Sums were added in bound order: they are the scores up to rounding. Those that may be among the first k are
    // scored again, exactly, in MiniSearch's order.
    const threshold = this.#kthScore(candidates, k) * (1 - BOUND_MARGIN);
    const top = new TopK(k, (slot) => position[slot] ?? 0);
    for (const slot of candidates) {
      if ((sum[slot] ?? 0) * (quality[slot] ?? 0) >= threshold) top.offer(slot, this.#exactScore(p, slot, options));
    }
    return { ...top.sortedWithScores(), total };
  }

  /** The k-th largest score so far (sum × quality) among `candidates`, a little under (rounding); 0 for fewer. */
  #kthScore(candidates: readonly number[], k: number): number {
    if (candidates.length < k || k <= 0) return 0;
    const best = new TopK(k, () => 0);
    for (const slot of candidates) best.offer(slot, (this.#sum[slot] ?? 0) * (this.#quality[slot] ?? 0));
    return best.lowest * (1 - BOUND_MARGIN);
  }
}
