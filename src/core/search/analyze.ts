// Text as it is indexed and searched: split into terms, lower-cased, stop words and lone letters dropped, relational
// adjectives and adverbs read as the word they pertain to, stemmed, the same way at index and query time.
import { PERTAINYM_PAIRS } from "./pertainyms.ts";
import { isStopWord, stem } from "./stemmer.ts";
import { hasCjk, tokenize } from "./text.ts";

const DIGIT = /\p{N}/u;

// Terms repeat across tools and queries: processing each once per isolate keeps index builds and searches cheap.
// Only terms of up to MAX_CACHED_TERM_LENGTH characters are kept: words are short, and a bound on entries alone would
// let queries of long made-up words hold 100,000 × 2,000 characters in the isolate.
const TERM_CACHE_LIMIT = 100_000;
export const MAX_CACHED_TERM_LENGTH = 40;
const termCache = new Map<string, string | null>();

let pertainyms: Map<string, string> | undefined;

/**
 * The word a relational adjective or adverb pertains to, per WordNet ("legal" → law, "medical" → medicine,
 * "legally" → legal → law: pertainyms.ts), else the word itself: a query's "legal advice" finds a tool for the law.
 */
export function pertainsTo(word: string): string {
  if (pertainyms === undefined) {
    pertainyms = new Map();
    const words = PERTAINYM_PAIRS.split(" ");
    for (let i = 0; i + 1 < words.length; i += 2) pertainyms.set(words[i] ?? "", words[i + 1] ?? "");
  }
  return pertainyms.get(word) ?? word;
}

/** A raw term as indexed and searched: lower-case, stemmed; null for stop words and lone Latin letters. */
export function processTerm(term: string): string | null {
  const cached = termCache.get(term);
  if (cached !== undefined) return cached;
  const lower = term.toLowerCase();
  const dropped = isStopWord(lower) || (lower.length === 1 && !hasCjk(lower) && !DIGIT.test(lower));
  const processed = dropped ? null : stem(pertainsTo(lower));
  if (term.length > MAX_CACHED_TERM_LENGTH) return processed;
  if (termCache.size >= TERM_CACHE_LIMIT) termCache.clear();
  termCache.set(term, processed);
  return processed;
}

/** The terms a text is indexed or searched by, in order. */
export function analyze(text: string): string[] {
  return analyzeQuery(text, NO_WORDS);
}

const NO_WORDS: ReadonlySet<string> = new Set();

/**
 * Words that frame a request to an assistant (the form or quality of the answer wanted) rather than its topic:
 * "provide detailed information on …", "comprehensive", "specific". Written from English request phrasing in
 * general, not from any data set's answers; bench/tuning.ts --variants measures them per fold (docs/search-log.md, "How
 * the ranked mode's constants were chosen"). Not dropped by default: they did not help on every fold.
 */
export const REQUEST_FRAMING_WORDS: ReadonlySet<string> = new Set(
  ("provide detailed detail details comprehensive specific specifically information info various including include " +
    "extensive thorough accurate relevant reliable exact interested curious wondering").split(" "),
);

/** The terms of a query: as analyze, less `dropped` (lower-case words, matched before stemming). */
export function analyzeQuery(text: string, dropped: ReadonlySet<string>): string[] {
  const terms: string[] = [];
  for (const raw of tokenize(text)) {
    if (dropped.size > 0 && dropped.has(raw.toLowerCase())) continue;
    const term = processTerm(raw);
    if (term) terms.push(term);
  }
  return terms;
}
