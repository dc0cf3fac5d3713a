// Ranked search: a MiniSearch (BM25) index over names, descriptions, parameters and groups (fields.ts), of text
// analyzed by analyze.ts (identifiers and CJK bigrams split, stop words dropped, English stemmed).
// Queries: rare words weigh more (catalog-wide IDF), an unknown word backs off to its longest known prefix, prefixes
// match, typos of unknown words are forgiven, and a tool named exactly in the query comes first.
// Tuned on ../shared/eval/metatool.json with general IR choices only (see the README, "How the minisearch mode ranks").
import MiniSearch from "minisearch";
import type { AsPlainObject, Options, SearchOptions } from "minisearch";
import type { ToolDefinition } from "../types.ts";
import { analyzeQuery } from "./analyze.ts";
import { FIELD_BOOST, FIELDS, toolFieldParts } from "./fields.ts";
import { PostingCollector } from "./postings.ts";
import { fillTermIndex } from "./termIndex.ts";
import { hasCjk } from "./text.ts";
import type { ScoredMatch, SearchIndex } from "./types.ts";

/** Typos are corrected only in words long enough that one wrong letter still leaves them recognisable. */
const MIN_FUZZY_LENGTH = 5;
/** Shorter prefixes match too much to mean anything. */
const MIN_PREFIX_LENGTH = 3;
/** An unknown query word backs off to its longest known prefix of at least this many letters (and 40% of it)… */
const MIN_BACKOFF_LENGTH = 4;
const MIN_BACKOFF_SHARE = 0.4;
/** …which counts this much of a word found as written. */
const BACKOFF_WEIGHT = 0.7;
/** A query word said n times counts √n times: repeating stresses it, without drowning the rest. */
const REPEAT_EXPONENT = 0.5;

/** The ranking's numbers (README, "How the minisearch mode ranks"); bench/tuning.ts's cross-validated sweep varies them. */
export interface RankingTuning {
  boost: Readonly<Record<string, number>>;
  bm25: { k: number; b: number; d: number };
  prefixWeight: number;
  /** A query word weighs its catalog IDF to this power (1 = as BM25; more stresses rare words). */
  idfExponent: number;
  /** Words dropped from queries only (before stemming; analyze.ts's REQUEST_FRAMING_WORDS is one such list). */
  queryStopWords: ReadonlySet<string>;
}

export const DEFAULT_TUNING: RankingTuning = {
  boost: FIELD_BOOST,
  bm25: { k: 1.2, b: 0.2, d: 0 },
  prefixWeight: 0.55,
  idfExponent: 1,
  queryStopWords: new Set(),
};
const FUZZY_WEIGHT = 0.3;

/** A word that can be a typo, or back off to a prefix: plain lower-case ASCII letters (what the stemmer handles). */
const ASCII_WORD = /^[a-z]+$/;
const IDENTIFIER_LIKE = /[_.\-\d]|\p{Ll}\p{Lu}/u;
const SURROUNDING_PUNCTUATION = /^[^\p{L}\p{N}_]+|[^\p{L}\p{N}_]+$/gu;

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

/** A term of the query, its weight, and the known prefix it backs off to when the catalog lacks it. */
interface QueryPart {
  term: string;
  weight: number;
  backoff?: string;
}

interface QueryWeights {
  /** The weight of each term searched (the query's, and their back-off prefixes). */
  weights: Map<string, number>;
  parts: QueryPart[];
}

/**
 * How much of the query a tool matches, in units of a word that only one tool holds (ScoredMatch): the weights of
 * the query terms it matches (as written, as a prefix or one typo away; a term found only through its back-off
 * prefix counts BACKOFF_WEIGHT of it), over `unit`, at most 1.
 */
function relevanceOf(parts: readonly QueryPart[], matched: readonly string[], unit: number): number {
  let hit = 0;
  for (const part of parts) {
    if (matched.includes(part.term)) hit += part.weight;
    else if (part.backoff !== undefined && matched.includes(part.backoff)) hit += BACKOFF_WEIGHT * part.weight;
  }
  return unit <= 0 ? 0 : Math.min(1, hit / unit);
}

/** The ranked index; `tuning` is for the bench's sweep (the defaults are what the gateway uses). */
export function createMiniSearchIndex(tools: readonly ToolDefinition[], tuning: RankingTuning = DEFAULT_TUNING): SearchIndex {
  const names = tools.map((tool) => tool.name);
  const toolCount = tools.length;
  const { index, documentFrequency } = buildIndex(tools);

  // Tools whose exact name (ignoring case) the query states come first: the model often searches by a name it saw.
  const byLowerName = new Map<string, number>();
  names.forEach((name, id) => {
    const lower = name.toLowerCase();
    if (!byLowerName.has(lower)) byLowerName.set(lower, id);
  });

  const maxIdf = Math.log(1 + toolCount);
  /** BM25's inverse document frequency over the whole catalog, scaled to about 0..1: rare query words count more. */
  const idfWeight = (term: string): number => {
    const df = documentFrequency.get(term) ?? 0;
    return maxIdf === 0 ? 1 : Math.log(1 + (toolCount - df + 0.5) / (df + 0.5)) / maxIdf;
  };

  /** The weight of a query word that only one tool holds: the unit of relevance. */
  const uniqueWeight = maxIdf === 0 ? 1 : Math.log(1 + (toolCount - 0.5) / 1.5) / maxIdf;

  /** The longest known prefix of an unknown word ("rental" → "rent"), or undefined. */
  const backoff = (term: string): string | undefined => {
    if (!ASCII_WORD.test(term)) return undefined;
    const shortest = Math.max(MIN_BACKOFF_LENGTH, Math.ceil(MIN_BACKOFF_SHARE * term.length));
    for (let length = term.length - 1; length >= shortest; length--) {
      const prefix = term.slice(0, length);
      if (documentFrequency.has(prefix)) return prefix;
    }
    return undefined;
  };

  /** Each query term's weight, and what the query's whole weight is made of (for relevance). */
  const queryWeights = (query: string): QueryWeights => {
    const counts = new Map<string, number>();
    for (const term of analyzeQuery(query, tuning.queryStopWords)) counts.set(term, (counts.get(term) ?? 0) + 1);
    const weights = new Map<string, number>();
    for (const [term, count] of counts) weights.set(term, count ** REPEAT_EXPONENT * idfWeight(term) ** tuning.idfExponent);
    const parts: QueryPart[] = [];
    for (const term of counts.keys()) {
      const part: QueryPart = { term, weight: weights.get(term) ?? 0 };
      parts.push(part);
      if (documentFrequency.has(term)) continue;
      const known = backoff(term);
      if (known === undefined) continue;
      if (!weights.has(known)) weights.set(known, BACKOFF_WEIGHT * idfWeight(known));
      part.backoff = known;
    }
    return { weights, parts };
  };

  const exactNameMatches = (query: string): number[] => {
    const ids: number[] = [];
    const whole = byLowerName.get(query.trim().toLowerCase());
    if (whole !== undefined) ids.push(whole);
    for (const word of query.split(/\s+/)) {
      const bare = word.replace(SURROUNDING_PUNCTUATION, "");
      if (!IDENTIFIER_LIKE.test(bare)) continue;
      const id = byLowerName.get(bare.toLowerCase());
      if (id !== undefined && !ids.includes(id)) ids.push(id);
    }
    return ids;
  };

  /** The ranking: tool ids best first, and (when `withTerms`, for relevance) per matched tool the query terms it matched. */
  const rank = (query: string, withTerms: boolean): { ranked: number[]; matchedTerms: Map<number, readonly string[]>; exact: readonly number[]; parts: QueryPart[] } => {
    const exact = exactNameMatches(query);
    const { weights, parts } = queryWeights(query);
    const options: SearchOptions = {
      boost: { ...tuning.boost },
      combineWith: "OR",
      bm25: tuning.bm25,
      weights: { prefix: tuning.prefixWeight, fuzzy: FUZZY_WEIGHT },
      // The query is analyzed above; MiniSearch only splits the joined terms again.
      tokenize: splitTerms,
      processTerm: (term) => term,
      boostTerm: (term) => weights.get(term) ?? 0,
      prefix: (term) => term.length >= MIN_PREFIX_LENGTH || hasCjk(term),
      // One edit away, and only for words the catalog does not know (those can be typos): long queries stay fast.
      fuzzy: (term) => (term.length >= MIN_FUZZY_LENGTH && !documentFrequency.has(term) && ASCII_WORD.test(term) ? 1 : false),
    };
    const results = weights.size === 0 ? [] : index.search([...weights.keys()].join(" "), options);
    // Equal scores keep catalog order, so that the answer never depends on the index's internal order.
    const scored = results.map((result) => ({ id: Number(result.id), score: result.score, terms: result.queryTerms }));
    scored.sort((a, b) => b.score - a.score || a.id - b.id);
    const ranked = [...exact];
    const placed = new Set(exact);
    const matchedTerms = new Map<number, readonly string[]>();
    for (const { id, terms } of scored) {
      if (withTerms) matchedTerms.set(id, terms);
      if (!placed.has(id)) ranked.push(id);
    }
    return { ranked, matchedTerms, exact, parts };
  };

  return {
    size: toolCount,
    search(query: string): string[] {
      if (query.trim() === "") return [...names];
      return rank(query, false).ranked.map((id) => names[id] ?? "");
    },
    scored(query: string, limit: number, accept?: (name: string) => boolean): ScoredMatch[] {
      if (query.trim() === "" || limit <= 0) return [];
      const { ranked, matchedTerms, exact, parts } = rank(query, true);
      const matches: ScoredMatch[] = [];
      for (const id of ranked) {
        if (matches.length >= limit) break;
        const name = names[id] ?? "";
        if (accept && !accept(name)) continue;
        matches.push({ name, relevance: exact.includes(id) ? 1 : relevanceOf(parts, matchedTerms.get(id) ?? [], uniqueWeight) });
      }
      return matches;
    },
  };
}
