// Splitting text into raw terms: identifiers (snake, kebab, dotted, camelCase, digits), accents folded, and Chinese,
// Japanese and Korean runs cut into overlapping bigrams. Terms are not yet lower-cased, filtered or stemmed.

const CJK_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const CJK_RUNS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;
const NOT_WORD = /[^\p{L}\p{N}]+/u;
const ASCII_SEPARATORS = /[^A-Za-z0-9]+/;
const PLAIN_WORD = /^(?:[A-Za-z][a-z]*|[0-9]+)$/;
const NON_ASCII = /[\u0080-\uffff]/;
const MARKS = /\p{Mn}+/gu;
const UPPER_INSIDE = /.\p{Lu}/u;
/** Where an identifier's words meet inside a run of letters and digits, and the space that splits them there. */
export const CAMEL_BOUNDARIES: readonly (readonly [RegExp, string])[] = [
  [/(\p{Ll})(\p{Lu})/gu, "$1 $2"], // getWeather → get Weather
  [/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2"], // HTTPServer → HTTP Server
  [/(\p{L})(\p{N})/gu, "$1 $2"], // utf8 → utf 8
  [/(\p{N})(\p{L})/gu, "$1 $2"], // 2fa → 2 fa
];

/**
 * Whether a UTF-16 code unit always separates terms: every ASCII character but letters and digits. Neither folding
 * nor CJK handling looks across one, so text cut at them tokenizes piece by piece exactly as it does whole.
 */
export function separatesTerms(code: number): boolean {
  if (code >= 0x80) return false;
  const letter = code | 0x20;
  return !((code >= 0x30 && code <= 0x39) || (letter >= 0x61 && letter <= 0x7a));
}

/** Whether `text` holds a Chinese, Japanese or Korean character. */
export function hasCjk(text: string): boolean {
  // ASCII text first by the plain pattern: a query's short words are asked about, and the Unicode script pattern's
  // first use (compiling it) cost a cold first search 0.2 ms.
  return NON_ASCII.test(text) && CJK_CHAR.test(text);
}

/** Removes accents (café → cafe) and folds width variants, so that either spelling finds the other. */
function fold(text: string): string {
  if (!NON_ASCII.test(text)) return text;
  return text.normalize("NFKD").replace(MARKS, "").normalize("NFC");
}

/** Splits an identifier-like word at case and digit boundaries, into `terms` (any script: by regular expressions). */
export function pushWord(word: string, terms: string[]): void {
  if (word.length === 0) return;
  // Most words are plain ("weather", "The", "2024"): no boundary to look for.
  if (PLAIN_WORD.test(word)) {
    terms.push(word);
    return;
  }
  let spaced = word;
  for (const [pattern, replacement] of CAMEL_BOUNDARIES) spaced = spaced.replace(pattern, replacement);
  let parts = 0;
  for (const part of spaced.split(" ")) {
    if (part.length === 0) continue;
    terms.push(part);
    parts++;
  }
  // A camelCase word is also kept whole, so that "github" finds "GitHub" and "weathertool" finds "WeatherTool".
  if (parts > 1 && UPPER_INSIDE.test(word)) terms.push(word);
}

const LOWER = 0;
const UPPER = 1;
const DIGIT = 2;

/** LOWER, UPPER or DIGIT, for an ASCII letter or digit. */
function asciiKind(code: number): number {
  if (code <= 0x39) return DIGIT;
  return code <= 0x5a ? UPPER : LOWER;
}

/**
 * pushWord for a word of ASCII letters and digits only, in one pass over its characters: the same boundaries as
 * CAMEL_BOUNDARIES (lower→upper, an upper before an upper-lower pair, letter↔digit), without four regular
 * expression replacements per word (a build meets many such words: ids, versions, name suffixes).
 */
export function pushAsciiWord(word: string, terms: string[]): void {
  const length = word.length;
  if (length === 0) return;
  let start = 0;
  let upperInside = false;
  let previous = asciiKind(word.charCodeAt(0));
  let current = length > 1 ? asciiKind(word.charCodeAt(1)) : LOWER;
  for (let i = 1; i < length; i++) {
    const next = i + 1 < length ? asciiKind(word.charCodeAt(i + 1)) : -1;
    if (current === UPPER) upperInside = true;
    const boundary =
      (previous === LOWER && current === UPPER) ||
      (previous === UPPER && current === UPPER && next === LOWER) ||
      (previous === DIGIT) !== (current === DIGIT);
    if (boundary) {
      terms.push(word.slice(start, i));
      start = i;
    }
    previous = current;
    current = next;
  }
  if (start === 0) {
    terms.push(word);
    return;
  }
  terms.push(word.slice(start));
  // A camelCase word is also kept whole, as pushWord keeps it.
  if (upperInside) terms.push(word);
}

/** Overlapping bigrams of a CJK run, or its only character: "天气预报" → 天气 气预 预报. */
function cjkBigrams(run: string): string[] {
  const chars = Array.from(run);
  if (chars.length === 1) return chars;
  const grams: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) grams.push(`${chars[i] ?? ""}${chars[i + 1] ?? ""}`);
  return grams;
}

/** Splits text into raw terms (not yet lower-cased, stop-word filtered or stemmed). */
export function tokenize(text: string): string[] {
  const terms: string[] = [];
  if (!NON_ASCII.test(text)) {
    for (const word of text.split(ASCII_SEPARATORS)) pushAsciiWord(word, terms);
    return terms;
  }
  const spaced = fold(text).replace(CJK_RUNS, (run) => ` ${run} `);
  for (const word of spaced.split(NOT_WORD)) {
    if (!CJK_CHAR.test(word)) pushWord(word, terms);
    else for (const gram of cjkBigrams(word)) terms.push(gram);
  }
  return terms;
}

/** A request is read as at most this many sentences: the last takes the rest (each sentence costs a pass over the tools). */
export const MAX_SENTENCES = 8;
const BREAK_MARKS = /[.!?;。！？；\n]/gu;
const CJK_SENTENCE_END = /[。！？；]/u;
const SPACE = /\s/u;
const WORD_CHARACTER = /[\p{L}\p{N}]/u;

/** The end of the run of white space from `at` (at itself when there is none). */
function spaceRunEnd(text: string, at: number): number {
  let end = at;
  while (end < text.length && SPACE.test(text[end] ?? "")) end++;
  return end;
}

/**
 * Calls `visit` with each sentence of `text` in order (and where it starts in `text`), those without a letter or digit
 * left out, until it answers false. A sentence ends at . ! ? ; followed by white space, at their CJK forms (the white space after them, if any,
 * is the break), or at a line break with the white space around it. Splitting on the regular expression of those three
 * (test/core/search/text.test.ts holds it as the reference, and a property test compares the two) cuts the same
 * parts, but tries every space of a long run of spaces again (quadratic: 5 ms for 4,000 spaces); this pass reads each
 * character at most twice.
 */
export function forEachSentence(text: string, visit: (sentence: string, start: number) => boolean): void {
  let start = 0;
  // Only a sentence end or a line break starts a break: the native search jumps from one to the next. One expression
  // serves every call (an index build cuts every description): each search starts where this call's last one ended.
  let next = 0;
  for (;;) {
    BREAK_MARKS.lastIndex = next;
    const mark = BREAK_MARKS.exec(text);
    if (mark === null) break;
    next = BREAK_MARKS.lastIndex;
    const at = mark.index;
    const character = mark[0];
    let from = at + 1;
    if (character === "\n") {
      // The white space around a line break is the break.
      from = at;
      while (from > start && SPACE.test(text[from - 1] ?? "")) from--;
    } else if (!CJK_SENTENCE_END.test(character) && !SPACE.test(text[at + 1] ?? "")) {
      continue;
    }
    const to = spaceRunEnd(text, from);
    const part = text.slice(start, from);
    if (WORD_CHARACTER.test(part) && !visit(part, start)) return;
    start = to;
    next = Math.max(next, to);
  }
  const rest = text.slice(start);
  if (WORD_CHARACTER.test(rest)) visit(rest, start);
}

/**
 * The sentences of a request, in order, at most MAX_SENTENCES (the last holds the rest); those without a letter or
 * digit are left out. "Find my flight. Then book a hotel" → ["Find my flight.", "Then book a hotel"].
 */
export function requestSentences(text: string): string[] {
  const sentences: string[] = [];
  forEachSentence(text, (sentence) => sentences.push(sentence) > 0);
  if (sentences.length <= MAX_SENTENCES) return sentences;
  return [...sentences.slice(0, MAX_SENTENCES - 1), sentences.slice(MAX_SENTENCES - 1).join(" ")];
}
