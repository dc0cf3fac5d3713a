// Ranked search: BM25 as MiniSearch 7 scores it, over names, descriptions, parameters and groups (fields.ts), of text
// analyzed by analyze.ts (identifiers and CJK bigrams split, stop words dropped, relational adjectives read as their
// noun, English stemmed). The index and its query path are our own (bm25Postings.ts, bm25Rank.ts: top-k with
// MaxScore, updates in place); the tests hold them to MiniSearch's own index and search
// (test/support/miniSearchReference.ts): the same order, the same scores.
// Queries: rare words weigh more (catalog-wide IDF), an unknown word backs off to its longest known prefix, prefixes
// match, typos of unknown words are forgiven, and a tool the query names comes first (exactNames.ts).
// Then the semantic half (semantic.ts): a tool's lexical score over the query's best one (to the power
// lexicalExponent), plus semanticWeight times the cosine of its word vectors and the query's, ranks the whole catalog;
// so a tool that shares no word with the query can still be found (at a cosine of SEMANTIC_FLOOR or more). The vectors
// also steer the lexical half, on the query side only: a word weighs its centrality in the query, and a word the
// catalog lacks also searches for its near words that it holds. semanticWeight 0 is the lexical half alone.
// A request of several sentences is also read sentence by sentence (each word's centrality in its own sentence, a
// tool's best cosine with one sentence), and pairs of adjacent query words that a name or description holds in a row
// count on top of their words (phraseWeight). A query word's hit in a description or a name also weighs how central
// the word is to that tool (toolCentralityExponent, nameCentralityExponent: its cosine with the tool's vector; a
// back-off prefix's hit, the word it was cut from: backoffCentrality), descriptions have their own BM25 length
// normalisation (fieldB). What a request hands over weighs less than what it asks: words it only quotes, lone digits
// (requestFocus.ts). Judged on four retrieval sets of four sources, one left out at a time (bench/tuning.ts;
// docs/search.md, "How ranking works").
import type { ToolDefinition } from "../types.ts";
import { analyzeQuery, processTerm } from "./analyze.ts";
import { FIELD_BOOST, FIELDS, phraseTerm, type FieldName } from "./fields.ts";
import { Bm25Postings } from "./bm25Postings.ts";
import { Bm25Ranker, type HitWeighers, IDF_SCOPES, type IdfScope, type QueryTerm, type ScoringOptions } from "./bm25Rank.ts";
import type { WholeCatalog } from "./catalogParts.ts";
import { diffCatalog } from "./catalogDiff.ts";
import { catalogNames } from "./catalogNames.ts";
import { restoreExactNames, withExactNames } from "./exactNames.ts";
import { isLoneDigit, questionsAmongStatements, withoutQuoted } from "./requestFocus.ts";
import { nearWords, SemanticVectors, toolWords } from "./semantic.ts";
import { SnapshotError, type SnapshotReader, type SnapshotWriter } from "./snapshotCodec.ts";
import { hasCjk, requestSentences, tokenize } from "./text.ts";
import { TopK } from "./topK.ts";
import type { ScoredMatch, SearchIndex, SearchPage } from "./types.ts";

/** Typos are corrected only in words long enough that one wrong letter still leaves them recognisable. */
export const MIN_FUZZY_LENGTH = 5;
/** Shorter prefixes match too much to mean anything. */
export const MIN_PREFIX_LENGTH = 3;
/** An unknown query word backs off to its longest known prefix of at least this many letters (and 40% of it)… */
export const MIN_BACKOFF_LENGTH = 4;
export const MIN_BACKOFF_SHARE = 0.4;
/** …which counts this much of a word found as written. */
const BACKOFF_WEIGHT = 0.7;
/** A query word said n times counts √n times: repeating stresses it, without drowning the rest. */
const REPEAT_EXPONENT = 0.5;

/** The ranking's numbers (docs/search.md, "How the minisearch mode ranks"); bench/tuning.ts's cross-validated sweep varies them. */
export interface RankingTuning {
  boost: Readonly<Record<string, number>>;
  bm25: { k: number; b: number; d: number };
  prefixWeight: number;
  /** A query word weighs its catalog IDF to this power (1 = as BM25; more stresses rare words). */
  idfExponent: number;
  /** Words dropped from queries only (before stemming; analyze.ts's REQUEST_FRAMING_WORDS is one such list). */
  queryStopWords: ReadonlySet<string>;
  /**
   * Whose count a term's BM25 IDF is: per field, as MiniSearch counts (the default), or tools that hold it anywhere
   * (as BM25F counts; bm25Rank.ts; bench/tuning.ts measures both).
   */
  idfScope: IdfScope;
  /**
   * The semantic half's weight (semantic.ts; docs/search.md, "How the minisearch mode ranks"): a tool scores its lexical score
   * over the query's best one, plus this times the cosine of its and the query's word vectors. 0 = lexical only.
   */
  semanticWeight: number;
  /**
   * With the semantic half: a query word's weight in the lexical half is times ((1 + c) / 2) to this power, c the
   * cosine of its vector with the query's (0 when negative; semantic.ts, wordCentralities): words off the query's
   * topic ("options", "good", "way") weigh less, down to (1/2)^this. 0 = off; words the vectors lack keep their weight.
   */
  centralityExponent: number;
  /**
   * With the semantic half: a tool's lexical share is its lexical score over the query's best one, to this power
   * (below 1: the matches after the best one are nearer to it, so the cosine can reorder them). 1 = the plain ratio.
   */
  lexicalExponent: number;
  /**
   * With the semantic half: a query word the catalog does not hold also searches for its near words that it does
   * (semantic.ts, nearWords: "laptop" → computers, phones), each weighing this × its cosine × its IDF weight. 0 = off.
   */
  expansionWeight: number;
  /**
   * How the halves combine: "mix" adds the lexical share and semanticWeight × the cosine; "rrf" adds reciprocal ranks,
   * 1 / (rrfK + lexical rank) + semanticWeight / (rrfK + semantic rank).
   */
  fusion: "mix" | "rrf";
  rrfK: number;
  /**
   * With "mix": the cosine's weight falls as the best lexical match covers more of the query, times
   * (1 − coverage) ^ this (coverage: the share of the query's IDF weight that the best lexical match holds). 0 = off.
   */
  coverageExponent: number;
  /**
   * A pair of adjacent query words that a tool's name or description holds in a row (fields.ts, PHRASE_FIELDS) is
   * searched too, weighing this × its IDF weight; it adds its BM25 score without counting as one more query word
   * (bm25Rank.ts, QueryTerm.supporting). 0 = off.
   */
  phraseWeight: number;
  /**
   * With the semantic half, a request of several sentences (requestSentences): a tool's cosine is (1 − this) × its
   * cosine with the whole request plus this × its best cosine with one sentence, so that a tool serving one of the
   * request's asks is not judged by the blend of all of them. 0 = the whole request only.
   */
  sentenceShare: number;
  /**
   * With the semantic half, a request of several sentences: a word's centrality (centralityExponent) is its cosine
   * with its own sentence's vector, not the whole request's: the words of a second ask are central to it.
   */
  sentenceCentrality: boolean;
  /**
   * With the semantic half: a query word's hit in a tool's description counts its frequency times ((1 + c) / 2) to
   * this power, c the cosine of the word's vector with the tool's centred vector (0 when negative): a word central to
   * what the tool does ("weather" in a weather tool) keeps its weight, one its text only mentions in passing ("news"
   * in "weather news for your city") counts less, down to (1/2)^this. The tool-side twin of centralityExponent.
   * Words the vectors do not know (and word pairs) count in full. 0 = off.
   */
  toolCentralityExponent: number;
  /**
   * The same weighing for a query word's hit in a tool's name: ((1 + c) / 2) to this power, c the word's cosine with
   * the tool's centred vector. 0 = off (a name hit counts in full).
   */
  nameCentralityExponent: number;
  /**
   * With toolCentralityExponent or nameCentralityExponent: a hit of an unknown query word's back-off prefix weighs
   * the centrality of the query word in the tool ("surfaces" → "surf" in a surf report: low), not full weight.
   */
  backoffCentrality: boolean;
  /** BM25's length normalisation of a field of its own (FieldName → b); the others use bm25.b. */
  fieldB: Readonly<Partial<Record<FieldName, number>>>;
  /**
   * A description of several sentences has its first one read this many times more (fields.ts, leadSentence): a
   * description says what the tool is first, then how, with what and for whom. Changes the index (an integer 0 to
   * MAX_LEAD_REPEATS). 0 = off.
   */
  leadSentenceRepeats: number;
  /**
   * With the semantic half: the KNOWN_EXPANDED_WORDS most central query words the catalog holds also search for
   * their KNOWN_NEAR_TERMS nearest words it holds (nearWords), each weighing this × its cosine × its IDF weight, matched
   * as written, weighed by its own centrality in the tool, and not counted as one more query word: a tool that says
   * "film" is found, a little, by "movie". 0 = off.
   */
  knownExpansionWeight: number;
  /**
   * A query word found only inside quotes (requestFocus.ts, withoutQuoted: the data a tool is to act on, "Meeting with
   * John") weighs this much of its weight. 1 = off.
   */
  quotedWeight: number;
  /**
   * A request that both states and asks (requestFocus.ts, questionsAmongStatements) has each word of its questions
   * counted this many times more (a repeated word counts √n). 0 = off.
   */
  questionRepeats: number;
  /** A query term of one digit ("Voyager 1", "April 1") weighs this much of its weight. 1 = off. */
  loneDigitWeight: number;
}

export const DEFAULT_TUNING: RankingTuning = {
  boost: FIELD_BOOST,
  bm25: { k: 1.2, b: 0.2, d: 0 },
  prefixWeight: 0.55,
  idfExponent: 1,
  queryStopWords: new Set(),
  idfScope: "toolExceptName",
  semanticWeight: 0.5,
  centralityExponent: 2,
  lexicalExponent: 0.75,
  expansionWeight: 0.2,
  fusion: "mix",
  rrfK: 60,
  coverageExponent: 0,
  phraseWeight: 0.5,
  sentenceShare: 0.5,
  sentenceCentrality: true,
  toolCentralityExponent: 4,
  nameCentralityExponent: 1,
  backoffCentrality: true,
  fieldB: { description: 0.4 },
  leadSentenceRepeats: 1,
  knownExpansionWeight: 0.1,
  quotedWeight: 0.1,
  questionRepeats: 0,
  loneDigitWeight: 0.25,
};

/**
 * Of a query's words the catalog does not hold, the EXPANDED_WORDS most central (a bound on the cost: nearWords is a
 * pass over 5,000 word vectors the first time a word is seen) search for their NEAR_TERMS nearest words the catalog
 * holds (RankingTuning.expansionWeight).
 */
const EXPANDED_WORDS = 4;
const NEAR_TERMS = 2;
/** Of the query's words the catalog holds, the most central this many search for this many near words (knownExpansionWeight). */
const KNOWN_EXPANDED_WORDS = 2;
const KNOWN_NEAR_TERMS = 2;
/** A lead sentence read more than this many times more would outweigh the rest of its description. */
export const MAX_LEAD_REPEATS = 3;

/** What a part of a sharded catalog reads of its index to count a query's terms (indexPart.ts). */
export interface RankedPartReader {
  readonly postings: Bm25Postings;
  readonly semantic: SemanticVectors | undefined;
  readonly tuning: RankingTuning;
}

/**
 * The hybrid ranking's lexical half, unordered: the slots its words hit and each one's score by slot (the ranker's
 * buffers, valid until its next query), the best score and its slot (-1: no match).
 */
interface LexicalMatches {
  slots: Int32Array;
  scores: Float64Array;
  best: number;
  bestSlot: number;
}

/** A ranking's first slots, their scores, how many it accepts in all, and its best lexical score (0 unless hybrid). */
type RankedSlots = { slots: number[]; scores: number[]; total: number; bestLexical: number };

/** More than a mixed cosine can be, rounding included: what #mixedPage bounds a cosine not worked out by. */
const COSINE_CAP = 1 + 1e-6;

/**
 * The two halves of a part's hybrid ranking (RankedIndex.halvesAsPart), per accepted tool it ranks: slot, name, place
 * in the index's catalog (the part's own order), lexical score (undefined: no lexical hit) and cosine (undefined: the
 * query has no vector).
 */
export interface RankedHalves {
  slots: number[];
  names: string[];
  positions: number[];
  lexical: (number | undefined)[];
  cosines: (number | undefined)[];
  total: number;
  bestLexical: number;
  /** For the slots the caller picked (in its order), when asked. */
  relevance?: number[];
}

/**
 * A tool's score in the hybrid ranking (RankedIndex.#hybridPage computes it so), from its halves and the whole
 * catalog's best lexical score; the lexical score alone without the semantic half.
 */
export function fuseHalves(lexical: number | undefined, cosine: number | undefined, best: number, tuning: RankingTuning = DEFAULT_TUNING): number {
  if (tuning.semanticWeight === 0) return lexical ?? 0;
  if (lexical === undefined) return tuning.semanticWeight * (cosine ?? 0);
  return (best > 0 ? (lexical / best) ** tuning.lexicalExponent : 0) + tuning.semanticWeight * (cosine ?? 0);
}

/** The fields whose hits toolCentralityExponent and nameCentralityExponent weigh. */
const DESCRIPTION_FIELD = FIELDS.indexOf("description");
const NAME_FIELD = FIELDS.indexOf("name");

/** What #hybridPage's bound of a lexical share adds against rounding (scores are of the order of 1). */
const SHARE_BOUND_MARGIN = 1e-9;

/** A tool that shares no word with the query is found through its vector only at this cosine or more. */
export const SEMANTIC_FLOOR = 0.3;
export const FUZZY_WEIGHT = 0.3;
/**
 * A query is searched by at most this many terms, its weightiest (rarest): a pasted paragraph costs no more than a
 * long sentence. Twenty words analyze to at most 20 terms and 20 back-off prefixes: they are never cut.
 */
export const MAX_QUERY_TERMS = 40;

/** A word that can be a typo, or back off to a prefix: plain lower-case ASCII letters (what the stemmer handles). */
export const ASCII_WORD = /^[a-z]+$/;

/** What a query's terms need from the catalog: how many tools hold a term, and how many tools there are. */
export interface TermStatistics {
  toolCount: number;
  toolFrequency(term: string): number;
  /** No term the catalog holds is longer (absent: unknown): an unknown word's back-off starts there. */
  longestTerm?: number;
}

/** A query word the word vectors know: lower-case, its term (analyze.ts), its centrality in the query (0 to 1). */
interface CentralWord {
  word: string;
  term: string;
  centrality: number;
}

/** A word of the query, its weight, and the known prefix it backs off to when the catalog lacks it (for relevance). */
interface QueryPart {
  term: string;
  weight: number;
  backoff?: string;
}

/** BM25's inverse document frequency over the whole catalog, scaled to about 0..1: rare query words count more. */
function idfWeightOf(stats: TermStatistics): (term: string) => number {
  const { toolCount } = stats;
  const maxIdf = Math.log(1 + toolCount);
  return (term) => {
    const df = stats.toolFrequency(term);
    return maxIdf === 0 ? 1 : Math.log(1 + (toolCount - df + 0.5) / (df + 0.5)) / maxIdf;
  };
}

/** The longest known prefix of a word the catalog does not hold ("rental" → "rent"), or undefined. */
function backoffPrefix(term: string, stats: TermStatistics): string | undefined {
  if (!ASCII_WORD.test(term)) return undefined;
  const shortest = Math.max(MIN_BACKOFF_LENGTH, Math.ceil(MIN_BACKOFF_SHARE * term.length));
  // From the longest term the catalog may hold, not from the word's length: a 2,000-letter made-up word would
  // otherwise cut and look up 1,200 prefixes of up to 2,000 letters.
  for (let length = Math.min(term.length - 1, stats.longestTerm ?? Infinity); length >= shortest; length--) {
    const prefix = term.slice(0, length);
    if (stats.toolFrequency(prefix) > 0) return prefix;
  }
  return undefined;
}

/**
 * What the request asks for, as against what it hands over (requestFocus.ts): `counts` (each query term's count) with
 * the words of its questions counted questionRepeats more when it also states things; and the factor of each term
 * that is not 1: quotedWeight for a word found only inside quotes, times loneDigitWeight for a lone digit.
 */
function requestFocus(query: string, counts: Map<string, number>, tuning: RankingTuning): Map<string, number> {
  const { quotedWeight, questionRepeats, loneDigitWeight, queryStopWords } = tuning;
  if (questionRepeats > 0) {
    const asked = new Set(questionsAmongStatements(requestSentences(query)).flatMap((sentence) => analyzeQuery(sentence, queryStopWords)));
    for (const term of asked) counts.set(term, (counts.get(term) ?? 0) + questionRepeats);
  }
  const factors = new Map<string, number>();
  const unquotedText = quotedWeight === 1 ? query : withoutQuoted(query);
  if (unquotedText !== query) {
    const unquoted = new Set(analyzeQuery(unquotedText, queryStopWords));
    for (const term of counts.keys()) if (!unquoted.has(term)) factors.set(term, quotedWeight);
  }
  if (loneDigitWeight !== 1) for (const term of counts.keys()) if (isLoneDigit(term)) factors.set(term, loneDigitWeight * (factors.get(term) ?? 1));
  return factors;
}

/** The weight of each term searched (the query's words, and their back-off prefixes), and the words themselves. */
function weighQuery(query: string, stats: TermStatistics, tuning: RankingTuning): { weights: Map<string, number>; parts: QueryPart[]; pairs: Map<string, number> } {
  const known = (term: string): boolean => stats.toolFrequency(term) > 0;
  const idfWeight = idfWeightOf(stats);
  const backoff = (term: string): string | undefined => backoffPrefix(term, stats);
  const counts = new Map<string, number>();
  const sequence = analyzeQuery(query, tuning.queryStopWords);
  for (const term of sequence) counts.set(term, (counts.get(term) ?? 0) + 1);
  const focus = requestFocus(query, counts, tuning);
  // Adjacent words the catalog holds as a pair (fields.ts, PHRASE_FIELDS): weighed as a word is, times phraseWeight.
  const pairs = new Map<string, number>();
  if (tuning.phraseWeight > 0) {
    for (let i = 1; i < sequence.length; i++) {
      const pair = phraseTerm(sequence[i - 1] ?? "", sequence[i] ?? "");
      if (pairs.has(pair) || !known(pair)) continue;
      pairs.set(pair, tuning.phraseWeight * idfWeight(pair) ** tuning.idfExponent);
    }
  }
  const weights = new Map<string, number>();
  for (const [term, count] of counts) weights.set(term, (focus.get(term) ?? 1) * count ** REPEAT_EXPONENT * idfWeight(term) ** tuning.idfExponent);
  const parts: QueryPart[] = [];
  for (const term of counts.keys()) {
    const part: QueryPart = { term, weight: weights.get(term) ?? 0 };
    parts.push(part);
    if (known(term)) continue;
    const prefix = backoff(term);
    if (prefix === undefined) continue;
    if (!weights.has(prefix)) weights.set(prefix, BACKOFF_WEIGHT * idfWeight(prefix));
    part.backoff = prefix;
  }
  return { weights, parts, pairs };
}

/**
 * The terms a query is searched by, in query order, each with its weight (MiniSearch's termBoost): rare words weigh
 * more (BM25's IDF over the catalog), a word said n times √n, an unknown word backs off to its longest known prefix;
 * whether each matches as a prefix, and whether as a typo. At most MAX_QUERY_TERMS, the weightiest.
 */
export function queryTerms(query: string, stats: TermStatistics, tuning: RankingTuning = DEFAULT_TUNING): QueryTerm[] {
  const { weights, pairs } = weighQuery(query, stats, tuning);
  return termsOf(weights, pairs, stats);
}

/** The weightiest MAX_QUERY_TERMS of `weights`, in their order. */
function weightiest(weights: ReadonlyMap<string, number>): [string, number][] {
  const entries = [...weights];
  if (entries.length <= MAX_QUERY_TERMS) return entries;
  const byWeight = entries.map((entry, at) => ({ weight: entry[1], at })).toSorted((a, b) => b.weight - a.weight || a.at - b.at);
  const kept = new Set(byWeight.slice(0, MAX_QUERY_TERMS).map((entry) => entry.at));
  return entries.filter((_, at) => kept.has(at));
}

/** The query's words (at most MAX_QUERY_TERMS), then its pairs of words (as many at most), matched as written. */
function termsOf(weights: ReadonlyMap<string, number>, pairs: ReadonlyMap<string, number>, stats: TermStatistics): QueryTerm[] {
  const phrases = weightiest(pairs).map(([term, boost]) => ({ term, boost, prefix: false, fuzzy: false, supporting: true }));
  const words = weightiest(weights).map(([term, boost]) => ({
    term,
    boost,
    prefix: term.length >= MIN_PREFIX_LENGTH || hasCjk(term),
    // One edit away, and only for words the catalog does not know (those can be typos): long queries stay fast.
    fuzzy: term.length >= MIN_FUZZY_LENGTH && stats.toolFrequency(term) === 0 && ASCII_WORD.test(term),
  }));
  return phrases.length === 0 ? words : [...words, ...phrases];
}

/**
 * How much of the query a tool matches, in units of a word that only one tool holds (ScoredMatch): the weights of
 * the query words it matches (as written, as a prefix or one typo away; a word found only through its back-off
 * prefix counts BACKOFF_WEIGHT of it), over `unit`, at most 1.
 */
function relevanceOf(parts: readonly QueryPart[], matched: ReadonlySet<string>, unit: number): number {
  let hit = 0;
  for (const part of parts) {
    if (matched.has(part.term)) hit += part.weight;
    else if (part.backoff !== undefined && matched.has(part.backoff)) hit += BACKOFF_WEIGHT * part.weight;
  }
  return unit <= 0 ? 0 : Math.min(1, hit / unit);
}

/**
 * A query term's hit weighers (ScoringOptions.hitWeights): a hit in a description counts ((1 + c) / 2) ^
 * `descriptionPower`, in a name ((1 + c) / 2) ^ `namePower`, c the term's word's cosine with the tool (`cosines`; 0
 * when negative); a power of 0 (and every other field) counts in full, with no weigher called.
 */
function centralityWeighers(cosines: (slot: number) => number, descriptionPower: number, namePower: number): HitWeighers {
  // A tool's name and description hits of a term come one after the other (postings are by slot, then field): the
  // second reads the cosine (a 48-dimension dot product) the first worked out.
  let lastSlot = -1;
  let lastCosine = 0;
  const weigher = (power: number): ((slot: number) => number) | undefined => {
    if (power === 0) return undefined;
    return (slot) => {
      if (slot !== lastSlot) {
        lastCosine = cosines(slot);
        lastSlot = slot;
      }
      const base = (1 + Math.max(0, lastCosine)) / 2;
      // x ** 1 is x: a name hit (nameCentralityExponent 1) works out no power.
      return power === 1 ? base : base ** power;
    };
  };
  const weighers: (((slot: number) => number) | undefined)[] = FIELDS.map(() => undefined);
  weighers[DESCRIPTION_FIELD] = weigher(descriptionPower);
  weighers[NAME_FIELD] = weigher(namePower);
  return weighers;
}

/** Whether every slot holds the catalog's tool of the same place (a loop, not a callback per slot: run once, cold). */
function inPlace(position: Int32Array): boolean {
  for (let slot = 0; slot < position.length; slot++) if (position[slot] !== slot) return false;
  return true;
}

/** A catalog change this large (changed tools, or slots left empty) is rebuilt rather than patched. */
const MAX_PATCH_SHARE = 0.25;
const MIN_PATCH_LIMIT = 64;

/** The ranked index over a catalog; `update` turns it into the index of the catalog's next version. */
export class RankedIndex implements SearchIndex {
  readonly #postings: Bm25Postings;
  readonly #ranker: Bm25Ranker;
  readonly #options: ScoringOptions;
  readonly #tuning: RankingTuning;
  /**
   * Slot → the tool it holds (undefined once removed); names by slot. A restored index whose slots are its catalog's
   * places holds the catalog's own lists (its array and its names: catalogNames.ts), made its own on the first change
   * (#ownSlots): a first search then makes no copy of 10,000 tools and names.
   */
  #slotTools: readonly (ToolDefinition | undefined)[] = [];
  #slotNames: readonly string[] = [];
  /** The slot lists as this index's own (changeable), once they are (#changeableSlots); undefined before. */
  #ownSlots: { tools: (ToolDefinition | undefined)[]; names: string[] } | undefined;
  /** Slot → position in the catalog (ties rank in catalog order); the catalog's names in order. */
  #position: Int32Array = new Int32Array(0);
  #names: readonly string[] = [];
  /**
   * Name → slot of every tool held, while names are unique (else the index is not patched: `#patchable`); made when
   * first needed (a restored index is searched without it: #slotMap).
   */
  #slotByName: Map<string, number> | undefined;
  #patchable = true;
  /** The tools' word vectors (with semanticWeight > 0), made with the index; `update` adds and drops only the changed. */
  readonly #semantic: SemanticVectors | undefined;
  /** While this index ranks as a part of a larger catalog (halvesAsPart): that catalog's statistics. */
  #whole: WholeCatalog | undefined;

  /** `snapshot`: the index of `tools` as toSnapshot wrote it, read instead of analyzing the tools. */
  constructor(tools: readonly ToolDefinition[], tuning: RankingTuning, snapshot?: SnapshotReader) {
    if (!Number.isFinite(tuning.semanticWeight) || tuning.semanticWeight < 0) {
      throw new RangeError(`semanticWeight must be a finite number ≥ 0, not ${String(tuning.semanticWeight)}`);
    }
    if (!(tuning.sentenceShare >= 0 && tuning.sentenceShare <= 1)) {
      throw new RangeError(`sentenceShare must be a number from 0 to 1, not ${String(tuning.sentenceShare)}`);
    }
    for (const setting of ["toolCentralityExponent", "nameCentralityExponent"] as const) {
      const value = tuning[setting];
      if (!Number.isFinite(value) || value < 0) throw new RangeError(`${setting} must be a finite number ≥ 0, not ${String(value)}`);
    }
    if (typeof tuning.backoffCentrality !== "boolean") throw new RangeError(`backoffCentrality must be true or false, not ${String(tuning.backoffCentrality)}`);
    for (const [field, b] of Object.entries(tuning.fieldB)) {
      if (!(b >= 0 && b <= 1)) throw new RangeError(`fieldB.${field} must be a number from 0 to 1, not ${String(b)}`);
    }
    if (!IDF_SCOPES.includes(tuning.idfScope)) throw new RangeError(`idfScope must be one of ${IDF_SCOPES.join(", ")}, not ${tuning.idfScope}`);
    if (!(Number.isInteger(tuning.leadSentenceRepeats) && tuning.leadSentenceRepeats >= 0 && tuning.leadSentenceRepeats <= MAX_LEAD_REPEATS)) {
      throw new RangeError(`leadSentenceRepeats must be an integer from 0 to ${MAX_LEAD_REPEATS}, not ${String(tuning.leadSentenceRepeats)}`);
    }
    if (!(Number.isFinite(tuning.knownExpansionWeight) && tuning.knownExpansionWeight >= 0)) {
      throw new RangeError(`knownExpansionWeight must be a finite number ≥ 0, not ${String(tuning.knownExpansionWeight)}`);
    }
    for (const setting of ["quotedWeight", "loneDigitWeight"] as const) {
      const value = tuning[setting];
      if (!(value >= 0 && value <= 1)) throw new RangeError(`${setting} must be a number from 0 to 1, not ${String(value)}`);
    }
    if (!(Number.isFinite(tuning.questionRepeats) && tuning.questionRepeats >= 0)) {
      throw new RangeError(`questionRepeats must be a finite number ≥ 0, not ${String(tuning.questionRepeats)}`);
    }
    this.#tuning = tuning;
    // Pairs of adjacent words are indexed only when the ranking searches them: otherwise the index is the words'.
    this.#postings = new Bm25Postings(tuning.phraseWeight > 0, tuning.leadSentenceRepeats);
    this.#ranker = new Bm25Ranker(this.#postings);
    this.#options = {
      fieldBoosts: FIELDS.map((field) => tuning.boost[field] || 1),
      bm25: { ...tuning.bm25, bByField: FIELDS.map((field) => tuning.fieldB[field]) },
      idfScope: tuning.idfScope,
      prefixWeight: tuning.prefixWeight,
      fuzzyWeight: FUZZY_WEIGHT,
    };
    this.#semantic = tuning.semanticWeight > 0 ? new SemanticVectors() : undefined;
    if (snapshot) {
      this.#restore(tools, snapshot);
      return;
    }
    this.#add(tools);
    this.#semantic?.centre();
    this.#order(tools, Int32Array.from(tools, (_, i) => i));
    this.#patchable = this.#slotMap().size === tools.length;
  }

  /** #slotByName, made from the slots when first needed. */
  #slotMap(): Map<string, number> {
    if (this.#slotByName) return this.#slotByName;
    const byName = new Map<string, number>();
    this.#slotTools.forEach((tool, slot) => {
      if (tool !== undefined && !byName.has(tool.name)) byName.set(tool.name, slot);
    });
    this.#slotByName = byName;
    return byName;
  }

  get size(): number {
    return this.#names.length;
  }

  /**
   * Writes the index's state (snapshotCodec.ts): the postings, the word vectors, each slot's name and catalog
   * position, whether it can be patched. The tools themselves are the caller's to keep (restored with the index).
   */
  toSnapshot(out: SnapshotWriter): boolean {
    out.int(this.#settingsKey());
    this.#postings.toSnapshot(out);
    this.#semantic?.toSnapshot(out);
    // The names of removed slots only: a live slot's is its tool's (the catalog's, which the reader is given).
    out.int(this.#slotNames.length);
    out.strings(this.#slotNames.filter((_, slot) => (this.#position[slot] ?? -1) === -1));
    out.i32(this.#position);
    out.int(this.#patchable ? 1 : 0);
    return true;
  }

  /**
   * What a snapshot's state depends on: 1 with word vectors, + 2 with pairs of words in the postings, + 4 × the lead
   * sentence's repeats (they change the postings and the tools' vectors).
   */
  #settingsKey(): number {
    return (this.#semantic ? 1 : 0) + (this.#tuning.phraseWeight > 0 ? 2 : 0) + 4 * this.#tuning.leadSentenceRepeats;
  }

  /** The constructor's other half: the state toSnapshot wrote, for `tools` (the catalog it was written for). */
  #restore(tools: readonly ToolDefinition[], input: SnapshotReader): void {
    if (input.int() !== this.#settingsKey()) throw new SnapshotError("the snapshot was written with another semantic, word-pair or lead-sentence setting");
    this.#postings.restore(input);
    this.#semantic?.restore(input);
    const slotCount = input.int();
    const removedNames = input.strings();
    // Not written in place (#order makes a new one).
    const position = input.i32();
    this.#patchable = input.int() === 1;
    if (slotCount !== this.#postings.slotCount || position.length !== slotCount) {
      throw new SnapshotError("the snapshot's slots do not match its postings");
    }
    const names = catalogNames(tools);
    this.#names = names;
    if (removedNames.length === 0 && slotCount === tools.length && inPlace(position)) {
      // Slot i holds the catalog's tool i (no slot removed, none moved): the catalog's lists serve as they are.
      this.#slotTools = tools;
      this.#slotNames = names;
    } else this.#restoreSlots(tools, position, removedNames);
    if (this.#postings.liveCount !== tools.length) throw new SnapshotError("the snapshot holds another number of tools than the catalog");
    this.#position = position;
  }

  /** The slots' tools and names of a restored index whose slots are not its catalog's places. */
  #restoreSlots(tools: readonly ToolDefinition[], position: Int32Array, removedNames: readonly string[]): void {
    const slotCount = position.length;
    // Each live slot holds the catalog's tool at its position (each position once: a live slot per tool, counted below).
    const slotTools: (ToolDefinition | undefined)[] = [];
    const slotNames: string[] = [];
    let removed = 0;
    for (let slot = 0; slot < slotCount; slot++) {
      const at = position[slot] ?? -1;
      const tool = at === -1 ? undefined : tools[at];
      if (at !== -1 && tool === undefined) throw new SnapshotError(`the snapshot's slot ${slot} is not a tool of the catalog`);
      slotTools.push(tool);
      slotNames.push(tool === undefined ? (removedNames[removed++] ?? "") : tool.name);
    }
    if (removed !== removedNames.length) {
      throw new SnapshotError("the snapshot's removed slots do not match their names");
    }
    this.#slotNames = slotNames;
    this.#slotTools = slotTools;
    this.#ownSlots = { tools: slotTools, names: slotNames };
  }

  /** The slot lists, made this index's own first if they are still its catalog's (restored: #slotTools). */
  #changeableSlots(): { tools: (ToolDefinition | undefined)[]; names: string[] } {
    if (this.#ownSlots) return this.#ownSlots;
    const own = { tools: [...this.#slotTools], names: [...this.#slotNames] };
    this.#slotTools = own.tools;
    this.#slotNames = own.names;
    this.#ownSlots = own;
    return own;
  }

  /** Adds tools at new slots, to both halves (their texts read once for both); returns the first slot. */
  #add(tools: readonly ToolDefinition[]): number {
    const words = this.#semantic ? toolWords() : undefined;
    const first = this.#postings.addTools(tools, words);
    if (words) this.#semantic?.add(words);
    const byName = this.#slotMap();
    const slots = this.#changeableSlots();
    let slot = first;
    for (const tool of tools) {
      slots.tools.push(tool);
      slots.names.push(tool.name);
      if (!byName.has(tool.name)) byName.set(tool.name, slot);
      slot++;
    }
    return first;
  }

  #remove(slot: number): void {
    const tool = this.#slotTools[slot];
    if (tool === undefined) return;
    this.#postings.removeSlot(slot);
    this.#semantic?.remove(slot);
    this.#changeableSlots().tools[slot] = undefined;
    this.#slotMap().delete(tool.name);
  }

  /** Records the catalog order: `slots[i]` holds `tools[i]`. */
  #order(tools: readonly ToolDefinition[], slots: Int32Array): void {
    const position = new Int32Array(this.#slotTools.length).fill(-1);
    slots.forEach((slot, i) => {
      position[slot] = i;
    });
    this.#position = position;
    this.#names = tools.map((tool) => tool.name);
  }

  search(query: string): string[] {
    return this.searchPage(query, Infinity).names;
  }

  searchPage(query: string, count: number, accept: (name: string) => boolean = () => true): SearchPage {
    if (query.trim() === "") {
      const kept = this.#names.filter((name) => accept(name));
      return { names: kept.slice(0, count), total: kept.length };
    }
    const { slots, total } = this.#page(query, queryTerms(query, this.#statistics(), this.#tuning), count, accept);
    return { names: slots.map((slot) => this.#slotNames[slot] ?? ""), total };
  }

  /**
   * The first `count` accepted slots for a non-blank query searched by `terms` (a tool the query names is placed
   * before this ranking by exactNames.ts).
   */
  #page(query: string, terms: readonly QueryTerm[], count: number, accept: (name: string) => boolean, withTotal = true): RankedSlots {
    if (this.#tuning.semanticWeight > 0) return this.#hybridPage(query, terms, count, accept, withTotal);
    const acceptSlot = (slot: number): boolean => accept(this.#slotNames[slot] ?? "");
    const ranked =
      count === Infinity
        ? this.#ranker.rankAll(terms, this.#scoring(), acceptSlot, this.#position)
        : this.#ranker.rankTop(terms, this.#scoring(), count, acceptSlot, this.#position);
    return { slots: ranked.slots, scores: ranked.scores ?? [], total: ranked.total, bestLexical: 0 };
  }

  /** The scoring options, with the whole catalog's counts while this index ranks as a part of it. */
  #scoring(): ScoringOptions {
    const whole = this.#whole;
    if (whole === undefined) return this.#options;
    const { terms } = whole;
    return {
      ...this.#options,
      catalog: {
        toolCount: whole.catalog.toolCount,
        fieldLengthSums: whole.catalog.fieldLengthSums,
        frequency: (termId, field) => terms.get(this.#postings.term(termId))?.[field === undefined ? 0 : field + 1] ?? 0,
      },
    };
  }

  /**
   * #page with the semantic half: every tool that matches the query's words (weighed by their centrality, with the near
   * words of those the catalog lacks), or whose vector is at least SEMANTIC_FLOOR from the query's, by its lexical
   * score over the best one (to the power lexicalExponent) plus semanticWeight × the cosine. The whole ranking is
   * scored (brute force over the vectors), then `accept` filters it: the pages are its head. Without `withTotal` (a
   * caller that reads the page alone), a page of the mix reads fewer cosines (#mixedPage) and its total is the accepted
   * lexical hits' count only.
   */
  #hybridPage(query: string, terms: readonly QueryTerm[], count: number, accept: (name: string) => boolean, withTotal: boolean): RankedSlots {
    if (!withTotal && this.#tuning.fusion === "mix" && count !== Infinity && this.#tuning.lexicalExponent > 0) return this.#mixedPage(query, terms, count, accept);
    // The mix reads a cosine only for a lexical hit or at SEMANTIC_FLOOR or more (rrf ranks every one).
    const { searched, lexical, cosines, above } = this.#halves(query, terms, this.#tuning.fusion === "mix");
    const weight = this.#tuning.semanticWeight;
    const lexicalExponent = this.#tuning.lexicalExponent;
    const { slots: hits, scores } = lexical;
    const best = lexical.best;
    const slotNames = this.#slotNames;
    const acceptSlot = (slot: number): boolean => accept(slotNames[slot] ?? "");
    const position = this.#position;
    const top = new TopK(count === Infinity ? this.#slotTools.length : count, (slot) => position[slot] ?? 0);
    let total = 0;
    if (this.#tuning.fusion === "rrf" && cosines !== undefined) {
      const k = this.#tuning.rrfK;
      const lexicalOrder = Array.from(hits).toSorted((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0) || (position[a] ?? 0) - (position[b] ?? 0));
      const bySimilarity = Int32Array.from(cosines.keys()).toSorted((a, b) => (cosines[b] ?? 0) - (cosines[a] ?? 0));
      const semanticRank = new Int32Array(cosines.length);
      bySimilarity.forEach((slot, rank) => {
        semanticRank[slot] = rank + 1;
      });
      const fused = new Float64Array(cosines.length);
      const lexicalHit = new Uint8Array(cosines.length);
      lexicalOrder.forEach((slot, i) => {
        lexicalHit[slot] = 1;
        fused[slot] = 1 / (k + i + 1);
      });
      cosines.forEach((cosine, slot) => {
        if (this.#slotTools[slot] === undefined || (lexicalHit[slot] === 0 && cosine < SEMANTIC_FLOOR) || !acceptSlot(slot)) return;
        total++;
        top.offer(slot, (fused[slot] ?? 0) + weight / (k + (semanticRank[slot] ?? 0)));
      });
      return { ...top.sortedWithScores(), total, bestLexical: lexical.best };
    }
    const semanticWeight = this.#semanticWeight(searched, lexical);
    // A hit's lexical share, (score / best) ^ e with score ≤ best, is at most (1 − e) + e × score / best for e ≤ 1 (the
    // power is concave: under its tangent at 1), at most score / best for e > 1. A hit whose share so bounded, plus its
    // cosine's part, stays under the lowest score a full page keeps is counted without working out the power.
    const bounded = lexicalExponent > 0 && best > 0;
    const tangent = lexicalExponent < 1 ? 1 - lexicalExponent : 0;
    const slope = lexicalExponent < 1 ? lexicalExponent : 1;
    // The lowest score of the full page (-Infinity until full), kept here: read once per offer, not per hit.
    let lowest = -Infinity;
    for (let h = 0; h < hits.length; h++) {
      const slot = hits[h] ?? 0;
      if (!acceptSlot(slot)) continue;
      total++;
      const share = best > 0 ? (scores[slot] ?? 0) / best : 0;
      const semantic = semanticWeight * (cosines?.[slot] ?? 0);
      if (bounded && tangent + slope * share + semantic + SHARE_BOUND_MARGIN < lowest) continue;
      top.offer(slot, (best > 0 ? share ** lexicalExponent : 0) + semantic);
      if (top.full) lowest = top.lowest;
    }
    // The tools no word hits at SEMANTIC_FLOOR or more (#halves lists them with the mix's cosines).
    const slotTools = this.#slotTools;
    const alone = above ?? [];
    for (let a = 0; a < alone.length; a++) {
      const slot = alone[a] ?? 0;
      if (slotTools[slot] === undefined || !acceptSlot(slot)) continue;
      total++;
      top.offer(slot, semanticWeight * (cosines?.[slot] ?? 0));
    }
    return { ...top.sortedWithScores(), total, bestLexical: lexical.best };
  }

  /** The cosine's weight in the mix: semanticWeight, less as the best lexical match covers more (coverageExponent). */
  #semanticWeight(searched: readonly QueryTerm[], lexical: LexicalMatches): number {
    const weight = this.#tuning.semanticWeight;
    const coverageExponent = this.#tuning.coverageExponent;
    return coverageExponent === 0 || lexical.bestSlot === -1 ? weight : weight * (1 - this.#coverage(searched, lexical.bestSlot)) ** coverageExponent;
  }

  /**
   * #hybridPage's mix for a page of `count` (lexicalExponent > 0) whose total is not read, the same page, reading
   * fewer cosines: a lexical hit's cosine is worked out only when its share's bound (as #hybridPage bounds it) plus
   * the most a cosine can give reaches the lowest score of a full page, the `count` best hits by lexical score first,
   * so that the page fills high early. The tools no word hits are read by the bounded pass over every vector
   * (cosinesAtLeast, no slot read whole for its own sake) only when the page could still take one (semanticWeight × 1
   * reaches its lowest score): a page of a few tools for a request that matches well takes none, and skips the pass.
   * The total counts the accepted lexical hits only. (A page whose total is read keeps #hybridPage's one pass: run
   * cold, this one's extra loops over the hits cost a first search more than the rows it does not read whole.)
   */
  #mixedPage(query: string, terms: readonly QueryTerm[], count: number, accept: (name: string) => boolean): RankedSlots {
    const { queryVector, sentences, searched, lexical } = this.#lexicalHalf(query, terms);
    const semantic = this.#semantic;
    const sentenceShare = this.#tuning.sentenceShare;
    const parts = sentenceShare > 0 && sentences.length > 1 ? sentences.map((sentence) => sentence.vector) : [];
    const cosineAt = queryVector === undefined || semantic === undefined ? undefined : semantic.cosineReader(queryVector, parts, sentenceShare);
    const semanticWeight = this.#semanticWeight(searched, lexical);
    const cosineCap = cosineAt === undefined ? 0 : semanticWeight * COSINE_CAP;
    const lexicalExponent = this.#tuning.lexicalExponent;
    const tangent = lexicalExponent < 1 ? 1 - lexicalExponent : 0;
    const slope = lexicalExponent < 1 ? lexicalExponent : 1;
    const { slots: hits, scores, best } = lexical;
    const slotNames = this.#slotNames;
    const position = this.#position;
    const byPosition = (slot: number): number => position[slot] ?? 0;
    const top = new TopK(count, byPosition);
    // Marks (none is 1: cosinesAtLeast below reads none of them whole for being marked): an accepted hit, one taken
    // already, one not accepted.
    const accepted = 2;
    const taken = 3;
    const refused = 4;
    const marks = this.#hitBuffer(this.#slotTools.length);
    const leaders = new TopK(count, byPosition);
    let total = 0;
    for (let h = 0; h < hits.length; h++) {
      const slot = hits[h] ?? 0;
      if (!accept(slotNames[slot] ?? "")) {
        marks[slot] = refused;
        continue;
      }
      marks[slot] = accepted;
      total++;
      leaders.offer(slot, scores[slot] ?? 0);
    }
    const offer = (slot: number, share: number): void => {
      top.offer(slot, (best > 0 ? share ** lexicalExponent : 0) + semanticWeight * (cosineAt === undefined ? 0 : cosineAt(slot)));
    };
    for (const slot of leaders.sorted()) {
      marks[slot] = taken;
      offer(slot, best > 0 ? (scores[slot] ?? 0) / best : 0);
    }
    for (let h = 0; h < hits.length; h++) {
      const slot = hits[h] ?? 0;
      if (marks[slot] !== accepted) continue;
      const share = best > 0 ? (scores[slot] ?? 0) / best : 0;
      // The share's bound holds for best > 0; with best 0 every share is 0 and so is the bound's lexical part.
      if (top.full && (best > 0 ? tangent + slope * share : 0) + cosineCap + SHARE_BOUND_MARGIN < top.lowest) continue;
      offer(slot, share);
    }
    if (queryVector !== undefined && semantic !== undefined && (!top.full || cosineCap + SHARE_BOUND_MARGIN >= top.lowest)) {
      const cosines = this.#cosineBuffer(semantic.slotCount);
      const above = this.#aboveBuffer(semantic.slotCount);
      // Every slot at SEMANTIC_FLOOR or more (none is marked 1), in slot order: those no word hits are offered.
      const found = semantic.cosinesAtLeast(queryVector, parts, sentenceShare, SEMANTIC_FLOOR, marks, cosines, above);
      const slotTools = this.#slotTools;
      for (let a = 0; a < found; a++) {
        const slot = above[a] ?? 0;
        if (marks[slot] !== 0 || slotTools[slot] === undefined || !accept(slotNames[slot] ?? "")) continue;
        total++;
        top.offer(slot, semanticWeight * (cosines[slot] ?? 0));
      }
    }
    for (let h = 0; h < hits.length; h++) marks[hits[h] ?? 0] = 0;
    return { ...top.sortedWithScores(), total, bestLexical: best };
  }

  /** A search's buffer of every slot's cosine (reused: a search runs to completion before the next). */
  #cosines = new Float32Array(0);
  #cosineBuffer(slots: number): Float32Array {
    if (this.#cosines.length < slots) this.#cosines = new Float32Array(Math.max(slots, Math.ceil(1.25 * this.#cosines.length)));
    return this.#cosines.subarray(0, slots);
  }

  /** A search's list of the slots cosinesAtLeast finds at SEMANTIC_FLOOR or more (reused). */
  #above = new Int32Array(0);
  #aboveBuffer(slots: number): Int32Array {
    if (this.#above.length < slots) this.#above = new Int32Array(Math.max(slots, Math.ceil(1.25 * this.#above.length)));
    return this.#above;
  }

  /** A search's marks of the slots its words hit (reused; all 0 between searches). */
  #lexicalHits = new Uint8Array(0);
  #hitBuffer(slots: number): Uint8Array {
    if (this.#lexicalHits.length < slots) this.#lexicalHits = new Uint8Array(Math.max(slots, Math.ceil(1.25 * this.#lexicalHits.length)));
    return this.#lexicalHits;
  }

  /**
   * Both halves of the hybrid ranking: the lexical one (#lexicalHalf) and every slot's cosine with the query (with
   * `aboveFloor`, exact only for the lexical hits and the cosines at SEMANTIC_FLOOR or more: SemanticVectors.cosinesAtLeast;
   * then `above` lists the slots no word hits whose cosine is SEMANTIC_FLOOR or more).
   */
  #halves(
    query: string,
    terms: readonly QueryTerm[],
    aboveFloor = false,
  ): { searched: readonly QueryTerm[]; lexical: LexicalMatches; cosines: Float32Array | undefined; above: Int32Array | undefined } {
    const { queryVector, sentences, searched, lexical } = this.#lexicalHalf(query, terms);
    const share = this.#tuning.sentenceShare;
    let cosines: Float32Array | undefined;
    let above: Int32Array | undefined;
    if (queryVector !== undefined && this.#semantic !== undefined) {
      cosines = this.#cosineBuffer(this.#semantic.slotCount);
      const parts = share > 0 && sentences.length > 1 ? sentences.map((sentence) => sentence.vector) : [];
      if (aboveFloor) {
        const hits = lexical.slots;
        const exact = this.#hitBuffer(this.#slotTools.length);
        for (let h = 0; h < hits.length; h++) exact[hits[h] ?? 0] = 1;
        const found = this.#aboveBuffer(this.#semantic.slotCount);
        above = found.subarray(0, this.#semantic.cosinesAtLeast(queryVector, parts, share, SEMANTIC_FLOOR, exact, cosines, found));
        for (let h = 0; h < hits.length; h++) exact[hits[h] ?? 0] = 0;
      } else {
        this.#semantic.mixedCosinesInto(queryVector, parts, share, cosines);
      }
    }
    return { searched, lexical, cosines, above };
  }

  /** The hybrid ranking's lexical half: every match of the query's words, weighed by centrality, with near words. */
  #lexicalHalf(query: string, terms: readonly QueryTerm[]): {
    queryVector: Float32Array | undefined;
    sentences: { text: string; vector: Float32Array }[];
    searched: readonly QueryTerm[];
    lexical: LexicalMatches;
  } {
    // The query's vector, once: it weighs the query's words and scores every tool.
    const queryVector = this.#semantic?.queryVector(query);
    const sentences = this.#sentences(query);
    const words =
      this.#tuning.sentenceCentrality && sentences.length > 1
        ? sentences.flatMap((sentence) => this.#centralWords(sentence.text, sentence.vector))
        : this.#centralWords(query, queryVector);
    const searched = this.#expanded(this.#centred(terms, words), words);
    const { slots: hit, scores } = this.#ranker.scoreAll(searched, this.#withToolCentrality(searched, words));
    // A tool hit only by near words of known words (which count as no query word) scores 0: it matched no word, and
    // only its cosine may find it (at SEMANTIC_FLOOR or more).
    let matched = 0;
    for (let h = 0; h < hit.length; h++) {
      const slot = hit[h] ?? 0;
      if ((scores[slot] ?? 0) > 0) hit[matched++] = slot;
    }
    const slots = hit.subarray(0, matched);
    // The best score, and its tool (of equal scores, the first in the catalog: rankAll's first).
    let best = 0;
    let bestSlot = -1;
    const position = this.#position;
    for (let h = 0; h < slots.length; h++) {
      const slot = slots[h] ?? 0;
      const score = scores[slot] ?? 0;
      if (bestSlot === -1 || score > best || (score === best && (position[slot] ?? 0) < (position[bestSlot] ?? 0))) {
        best = score;
        bestSlot = slot;
      }
    }
    return { queryVector, sentences, searched, lexical: { slots, scores, best, bestSlot } };
  }

  /**
   * The scoring options with each hit in a description weighed by how central its query word is to the tool
   * (RankingTuning.toolCentralityExponent): a search term's word is the query word it was analyzed from (the first,
   * when several give one term; a near word is its own word); a back-off prefix and a pair count in full.
   */
  #withToolCentrality(searched: readonly QueryTerm[], words: readonly CentralWord[]): ScoringOptions {
    const options = this.#scoring();
    const exponent = this.#tuning.toolCentralityExponent;
    const nameExponent = this.#tuning.nameCentralityExponent;
    const semantic = this.#semantic;
    if ((exponent === 0 && nameExponent === 0) || semantic === undefined) return options;
    const wordOfTerm = new Map<string, string>();
    for (const { word, term } of words) if (!wordOfTerm.has(term)) wordOfTerm.set(term, word);
    for (const [prefix, { word }] of this.#backoffWords(words)) if (!wordOfTerm.has(prefix)) wordOfTerm.set(prefix, word);
    const hitWeights = searched.map((term) => {
      // A near word weighs its own centrality; a pair counts in full.
      const word = term.nearWord ?? (term.supporting === true ? undefined : wordOfTerm.get(term.term));
      const cosines = word === undefined ? undefined : semantic.wordToolCosines(word);
      return cosines === undefined ? undefined : centralityWeighers(cosines, exponent, nameExponent);
    });
    if (hitWeights.every((weighers) => weighers === undefined)) return options;
    return { ...options, hitWeights };
  }

  /**
   * With backoffCentrality: each back-off prefix searched (an unknown query word's longest known prefix) and the
   * query word it stands for, whose centralities it then weighs ("surf" from "surfaces"). Empty otherwise.
   */
  #backoffWords(words: readonly CentralWord[]): Map<string, CentralWord> {
    const found = new Map<string, CentralWord>();
    if (!this.#tuning.backoffCentrality) return found;
    const stats = this.#statistics();
    for (const word of words) {
      if (stats.toolFrequency(word.term) > 0) continue;
      const prefix = backoffPrefix(word.term, stats);
      if (prefix !== undefined && !found.has(prefix)) found.set(prefix, word);
    }
    return found;
  }

  /**
   * The sentences of a request of several (requestSentences) that have a vector, each with its vector; none for a
   * request of one, or when neither sentenceShare nor sentenceCentrality uses them.
   */
  #sentences(query: string): { text: string; vector: Float32Array }[] {
    const semantic = this.#semantic;
    if (semantic === undefined || (this.#tuning.sentenceShare === 0 && !this.#tuning.sentenceCentrality)) return [];
    const texts = requestSentences(query);
    if (texts.length < 2) return [];
    const sentences: { text: string; vector: Float32Array }[] = [];
    for (const text of texts) {
      const vector = semantic.queryVector(text);
      if (vector !== undefined) sentences.push({ text, vector });
    }
    return sentences.length < 2 ? [] : sentences;
  }

  /** The share of the searched terms' weight (their boosts) that the tool in `slot` holds. */
  #coverage(terms: readonly QueryTerm[], slot: number): number {
    let all = 0;
    let held = 0;
    for (const term of terms) {
      all += term.boost;
      const { termIds } = this.#postings.expand(term.term, term.prefix, term.fuzzy, this.#options.prefixWeight, this.#options.fuzzyWeight);
      if (this.#postings.holdsAnyTerm(slot, new Set(termIds))) held += term.boost;
    }
    return all === 0 ? 0 : held / all;
  }

  /** The query's words the vectors know, with their term and centrality (semantic.ts, wordCentralities; 0 if negative). */
  #centralWords(query: string, queryVector: Float32Array | undefined): CentralWord[] {
    if (this.#semantic === undefined || (this.#tuning.centralityExponent === 0 && this.#tuning.expansionWeight === 0)) return [];
    const tokens = tokenize(query);
    const lower = tokens.map((token) => token.toLowerCase());
    const centralities = this.#semantic.wordCentralities(queryVector, lower);
    const words: CentralWord[] = [];
    tokens.forEach((token, i) => {
      const term = processTerm(token);
      const centrality = centralities[i];
      if (term !== null && centrality !== undefined) words.push({ word: lower[i] ?? "", term, centrality: Math.max(0, centrality) });
    });
    return words;
  }

  /**
   * `terms` with each word's weight times ((1 + c) / 2) ^ centralityExponent, c its centrality in the query
   * (RankingTuning.centralityExponent). A term keeps its weight when no word of it has a vector (a back-off prefix, a
   * word the table lacks); of several words with the same term, the most central counts.
   */
  #centred(terms: readonly QueryTerm[], words: readonly CentralWord[]): readonly QueryTerm[] {
    const exponent = this.#tuning.centralityExponent;
    if (exponent === 0 || words.length === 0) return terms;
    const factor = new Map<string, number>();
    for (const { term, centrality } of words) factor.set(term, Math.max(factor.get(term) ?? 0, ((1 + centrality) / 2) ** exponent));
    return terms.map((term) => ({ ...term, boost: term.boost * (factor.get(term.term) ?? 1) }));
  }

  /**
   * `terms` and the near words (nearWords) of some of `words`, each a term the catalog holds and the query does not:
   * for the KNOWN_EXPANDED_WORDS most central words the catalog holds, their KNOWN_NEAR_TERMS nearest, each weighing
   * knownExpansionWeight × its cosine × its IDF weight, matched as written and not counted as one more query word (a
   * tool that holds the word itself stays ahead); then, for the EXPANDED_WORDS most central words it does not hold,
   * their NEAR_TERMS nearest, each weighing expansionWeight × its cosine × its IDF weight, matched as a query word is
   * (as a prefix from 3 letters, no typos).
   */
  #expanded(terms: readonly QueryTerm[], words: readonly CentralWord[]): readonly QueryTerm[] {
    const { expansionWeight, knownExpansionWeight } = this.#tuning;
    if (expansionWeight === 0 && knownExpansionWeight === 0) return terms;
    const stats = this.#statistics();
    const held = (term: string): boolean => stats.toolFrequency(term) > 0;
    const idfWeight = idfWeightOf(stats);
    const searched = new Set(terms.map((term) => term.term));
    const added: QueryTerm[] = [];
    const expand = (known: boolean, weight: number, wordCount: number, nearCount: number): void => {
      if (weight === 0) return;
      const chosen = new Map<string, CentralWord>();
      for (const word of words) if (held(word.term) === known && !chosen.has(word.word)) chosen.set(word.word, word);
      for (const { word, term } of [...chosen.values()].toSorted((a, b) => b.centrality - a.centrality).slice(0, wordCount)) {
        // The first nearCount near words the catalog holds (nearest first), less those already searched.
        let found = 0;
        for (const { word: nearWord, cosine } of nearWords(word)) {
          const nearTerm = processTerm(nearWord);
          if (nearTerm === null || nearTerm === term || !held(nearTerm)) continue;
          found++;
          if (!searched.has(nearTerm)) {
            searched.add(nearTerm);
            const boost = weight * cosine * idfWeight(nearTerm);
            added.push(
              known
                ? { term: nearTerm, boost, prefix: false, fuzzy: false, supporting: true, nearWord }
                : { term: nearTerm, boost, prefix: nearTerm.length >= MIN_PREFIX_LENGTH, fuzzy: false, nearWord },
            );
          }
          if (found === nearCount) break;
        }
      }
    };
    expand(true, knownExpansionWeight, KNOWN_EXPANDED_WORDS, KNOWN_NEAR_TERMS);
    expand(false, expansionWeight, EXPANDED_WORDS, NEAR_TERMS);
    return added.length === 0 ? terms : [...terms, ...added];
  }

  #statistics(): TermStatistics {
    const whole = this.#whole;
    if (whole !== undefined) {
      return {
        toolCount: whole.catalog.toolCount,
        toolFrequency: (term) => whole.terms.get(term)?.[0] ?? 0,
        longestTerm: whole.catalog.longestTerm,
      };
    }
    return {
      toolCount: this.#names.length,
      toolFrequency: (term) => this.#postings.toolFrequency(term),
      longestTerm: this.#postings.longestTermLength,
    };
  }

  scored(query: string, limit: number, accept: (name: string) => boolean = () => true): ScoredMatch[] {
    if (query.trim() === "" || limit <= 0) return [];
    const { slots, relevance } = this.#scored(query, limit, accept);
    return slots.map((slot, i) => ({ name: this.#slotNames[slot] ?? "", relevance: relevance[i] ?? 0 }));
  }

  /** The first `limit` accepted slots of a non-blank query (as #page ranks them) and the relevance of each. */
  #scored(query: string, limit: number, accept: (name: string) => boolean): RankedSlots & { relevance: number[] } {
    const stats = this.#statistics();
    // The query is weighed once: its terms rank the page, its words measure each tool's relevance.
    const { weights, parts, pairs } = weighQuery(query, stats, this.#tuning);
    const terms = termsOf(weights, pairs, stats);
    // The page alone: its total is not read.
    const page = this.#page(query, terms, limit, accept, false);
    return { ...page, relevance: this.#relevance(terms, parts, stats, page.slots) };
  }

  /** The relevance (relevanceOf) of each of `slots` for a query weighed as `terms` and `parts` under `stats`. */
  #relevance(terms: readonly QueryTerm[], parts: readonly QueryPart[], stats: TermStatistics, slots: readonly number[]): number[] {
    // What each searched term matches in the index (as written, as a prefix, one typo away), as the ranking expands it.
    const expansions = terms.map(({ term, prefix, fuzzy }) => ({
      term,
      termIds: new Set(this.#postings.expand(term, prefix, fuzzy, this.#options.prefixWeight, this.#options.fuzzyWeight).termIds),
    }));
    const maxIdf = Math.log(1 + stats.toolCount);
    /** The weight of a query word that only one tool holds: the unit of relevance. */
    const unit = maxIdf === 0 ? 1 : Math.log(1 + (stats.toolCount - 0.5) / 1.5) / maxIdf;
    return slots.map((slot) => {
      const matched = new Set(expansions.filter((expansion) => this.#postings.holdsAnyTerm(slot, expansion.termIds)).map((expansion) => expansion.term));
      return relevanceOf(parts, matched, unit);
    });
  }

  /** What a part of a sharded catalog reads to count a query's terms (indexPart.ts). */
  get partReader(): RankedPartReader {
    return { postings: this.#postings, semantic: this.#semantic, tuning: this.#tuning };
  }

  /**
   * This index as a part of a larger catalog whose statistics `whole` holds (every term's counts, not only the
   * query's), for a ranking in one round (indexPart.ts): the hybrid ranking's two halves of every accepted tool it
   * ranks (its lexical hits, and the tools at SEMANTIC_FLOOR or more), the part's best lexical score over every hit
   * (accepted or not, as #hybridPage's divisor), and the relevance of the slots `relevanceFor` picks from them. The
   * fused score needs the best lexical score of the whole catalog: the caller fuses (fuseHalves) once every part has
   * said its best. Without the semantic half the lexical scores are the ranking's own.
   */
  halvesAsPart(query: string, whole: WholeCatalog, accept: (name: string) => boolean, relevanceFor?: (halves: RankedHalves) => readonly number[]): RankedHalves {
    this.#whole = whole;
    try {
      this.#semantic?.centreOn({ sum: Float64Array.from(whole.catalog.vectorSum), count: whole.catalog.vectorCount });
      const stats = this.#statistics();
      const { weights, parts, pairs } = weighQuery(query, stats, this.#tuning);
      const terms = termsOf(weights, pairs, stats);
      const acceptSlot = (slot: number): boolean => accept(this.#slotNames[slot] ?? "");
      const halves: RankedHalves = { slots: [], lexical: [], cosines: [], names: [], positions: [], total: 0, bestLexical: 0 };
      const lexicalHit = new Uint8Array(this.#slotTools.length);
      const add = (slot: number, score: number | undefined, cosine: number | undefined): void => {
        halves.slots.push(slot);
        halves.lexical.push(score);
        halves.cosines.push(cosine);
        halves.names.push(this.#slotNames[slot] ?? "");
        halves.positions.push(this.#position[slot] ?? 0);
      };
      let cosines: Float32Array | undefined;
      if (this.#tuning.semanticWeight > 0) {
        // The lexical half's hits come unsorted, each score at its slot; the best is over every hit, accepted or not.
        const both = this.#halves(query, terms);
        cosines = both.cosines;
        const { slots: hits, scores, best } = both.lexical;
        halves.bestLexical = best;
        for (let h = 0; h < hits.length; h++) {
          const slot = hits[h] ?? 0;
          lexicalHit[slot] = 1;
          if (acceptSlot(slot)) add(slot, scores[slot] ?? 0, cosines?.[slot]);
        }
      } else {
        const ranked = this.#ranker.rankAll(terms, this.#scoring(), () => true, this.#position);
        const scores = ranked.scores ?? [];
        halves.bestLexical = scores[0] ?? 0;
        ranked.slots.forEach((slot, i) => {
          if (acceptSlot(slot)) add(slot, scores[i] ?? 0, undefined);
        });
      }
      // A loop, not forEach: it passes over every slot of the part on every search.
      const slotTools = this.#slotTools;
      const scanned = cosines ?? new Float32Array(0);
      for (let slot = 0; slot < scanned.length; slot++) {
        const cosine = scanned[slot] ?? 0;
        if (cosine < SEMANTIC_FLOOR || lexicalHit[slot] === 1 || slotTools[slot] === undefined || !acceptSlot(slot)) continue;
        add(slot, undefined, cosine);
      }
      halves.total = halves.slots.length;
      if (relevanceFor !== undefined) halves.relevance = this.#relevance(terms, parts, stats, relevanceFor(halves));
      return halves;
    } finally {
      this.#whole = undefined;
    }
  }

  update(tools: readonly ToolDefinition[]): SearchIndex | undefined {
    if (!this.#patchable) return undefined;
    const diff = diffCatalog(this.#slotMap(), this.#slotTools, tools);
    if (!diff) return undefined;
    const limit = Math.max(MIN_PATCH_LIMIT, MAX_PATCH_SHARE * tools.length);
    const emptySlots = this.#slotTools.length - this.#postings.liveCount;
    if (diff.removed.length + diff.added > limit || emptySlots + diff.removed.length > limit) return undefined;
    for (const slot of diff.removed) this.#remove(slot);
    const addedAt: number[] = [];
    const added: ToolDefinition[] = [];
    diff.slotOfNew.forEach((slot, i) => {
      const tool = tools[i];
      if (slot !== -1 || tool === undefined) return;
      addedAt.push(i);
      added.push(tool);
    });
    const first = this.#add(added);
    // The catalog's mean moves: one pass over the vectors now, so that the update carries its whole cost.
    this.#semantic?.centre();
    addedAt.forEach((i, n) => {
      diff.slotOfNew[i] = first + n;
    });
    this.#order(tools, diff.slotOfNew);
    return this;
  }
}

/** The ranked index; `tuning` is for the bench's sweep (the defaults are what the gateway uses). */
export function createMiniSearchIndex(tools: readonly ToolDefinition[], tuning: RankingTuning = DEFAULT_TUNING): SearchIndex {
  return withExactNames(new RankedIndex(tools, tuning), tools);
}

/** The ranked index of `tools` from what its toSnapshot wrote (throws SnapshotError when it does not fit them). */
/** The ranked index of a part of a sharded catalog: no exact names (the isolate places those over the whole). */
export function createRankedPart(tools: readonly ToolDefinition[], tuning: RankingTuning = DEFAULT_TUNING, snapshot?: SnapshotReader): RankedIndex {
  return new RankedIndex(tools, tuning, snapshot);
}

export function restoreMiniSearchIndex(tools: readonly ToolDefinition[], snapshot: SnapshotReader, tuning: RankingTuning = DEFAULT_TUNING): SearchIndex {
  return restoreExactNames(new RankedIndex(tools, tuning, snapshot), tools, snapshot);
}
