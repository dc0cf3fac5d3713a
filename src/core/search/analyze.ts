// Text as it is indexed and searched: split into terms, lower-cased, stop words and lone letters dropped, stemmed,
// the same way at index and query time.
import { isStopWord, stem } from "./stemmer.ts";
import { hasCjk, tokenize } from "./text.ts";

const DIGIT = /\p{N}/u;

// Terms repeat across tools and queries: processing each once per isolate keeps index builds and searches cheap.
const TERM_CACHE_LIMIT = 100_000;
const termCache = new Map<string, string | null>();

/** A raw term as indexed and searched: lower-case, stemmed; null for stop words and lone Latin letters. */
export function processTerm(term: string): string | null {
  const cached = termCache.get(term);
  if (cached !== undefined) return cached;
  const lower = term.toLowerCase();
  const dropped = isStopWord(lower) || (lower.length === 1 && !hasCjk(lower) && !DIGIT.test(lower));
  const processed = dropped ? null : stem(lower);
  if (termCache.size >= TERM_CACHE_LIMIT) termCache.clear();
  termCache.set(term, processed);
  return processed;
}

/** The terms a text is indexed or searched by, in order. */
export function analyze(text: string): string[] {
  const terms: string[] = [];
  for (const raw of tokenize(text)) {
    const term = processTerm(raw);
    if (term) terms.push(term);
  }
  return terms;
}
