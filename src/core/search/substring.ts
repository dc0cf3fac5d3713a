// The design documents' rule: split the query on white space; a tool matches when any keyword is a
// case-insensitive substring of its name or description. Chinese, Japanese and Korean are written without spaces, so
// each CJK run of a keyword is taken as its overlapping bigrams (its lone character when alone), and the rule applies
// to those keywords.
// Ranked by how much each hit keyword says: a keyword weighs its rarity in the catalog (an IDF over the tools it
// matches, so "the" or "can", which hit nearly every tool, weigh almost nothing), twice as much in a name, and more
// where it starts a word than inside one. Ties keep catalog order.
import type { ToolDefinition } from "../types.ts";
import { diffCatalog } from "./catalogDiff.ts";
import { catalogNames } from "./catalogNames.ts";
import { acceptAllBut, rejectedNames } from "./acceptAllBut.ts";
import { restoreExactNames, withExactNames } from "./exactNames.ts";
import { type DeferredSection, SnapshotError, type SnapshotReader, type SnapshotWriter } from "./snapshotCodec.ts";
import { TopK } from "./topK.ts";
import type { ScoredMatch, SearchIndex, SearchPage } from "./types.ts";
import type { TermCounts, WholeCatalog } from "./catalogParts.ts";

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/u;
const CJK_RUNS = /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+)/u;

/**
 * Whether `word` has a code unit from U+1100 on, where the scripts CJK_RUN finds begin (Hangul Jamo): a word without
 * one is not tested by that regular expression, whose Unicode classes a cold isolate would otherwise build first.
 */
function mayHoldCjk(word: string): boolean {
  for (let i = 0; i < word.length; i++) if (word.charCodeAt(i) >= 0x1100) return true;
  return false;
}

/** Whether code unit `code` is an ASCII letter or digit (in ASCII, exactly the letters and numbers of \p{L} and \p{N}). */
const asciiLetterOrDigit = (code: number): boolean => (code >= 0x30 && code <= 0x39) || ((code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a);

/**
 * `keyword` without its leading and trailing punctuation (EDGE_PUNCTUATION). A word that starts and ends with an
 * ASCII letter or digit has none, and is taken as it is: the regular expression, whose Unicode classes a cold isolate
 * would build first, runs only for the others.
 */
function bareWord(keyword: string): string {
  if (keyword !== "" && asciiLetterOrDigit(keyword.charCodeAt(0)) && asciiLetterOrDigit(keyword.charCodeAt(keyword.length - 1))) return keyword;
  return keyword.replace(EDGE_PUNCTUATION, "");
}

/** Overlapping bigrams of a CJK run (by code point), or its only character. */
function bigrams(run: string): string[] {
  const chars = Array.from(run);
  if (chars.length <= 1) return chars;
  const grams: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) grams.push(`${chars[i] ?? ""}${chars[i + 1] ?? ""}`);
  return grams;
}

/**
 * Splits a query into its distinct lowercase keywords: white space separates them, and a keyword holding CJK text
 * becomes its non-CJK parts and the bigrams of each CJK run ("明天北京天气" → 明天 天北 北京 京天 天气).
 */
export function queryKeywords(query: string): string[] {
  const keywords = new Set<string>();
  for (const word of query.toLowerCase().split(/\s+/u)) {
    if (word === "") continue;
    if (!mayHoldCjk(word) || !CJK_RUN.test(word)) {
      keywords.add(word);
      continue;
    }
    // split with a capturing group: odd positions are the CJK runs, even ones the text between them.
    word.split(CJK_RUNS).forEach((part, position) => {
      if (part === "") return;
      if (position % 2 === 1) for (const gram of bigrams(part)) keywords.add(gram);
      else keywords.add(part);
    });
  }
  return [...keywords];
}

/** The keywords a query is weighed by, as written and as bare words (score): whose counts a sharded catalog adds up. */
export function substringTerms(query: string): string[] {
  const terms = new Set<string>();
  for (const keyword of queryKeywords(query)) {
    terms.add(keyword);
    const bare = bareWord(keyword);
    if (bare !== "") terms.add(bare);
  }
  return [...terms];
}

/**
 * How a query's keywords are scored, in order: each matches (its hits join the matches) and weighs (its hits gain its
 * weight), or one of the two. Punctuation around a word ("weather?", "Paris,") is typography: the match set is the
 * rule's, on the keywords as written, but a keyword weighs as its bare word, so a tool about the weather ranks by
 * "weather"; each bare word weighs once.
 */
function keywordSteps(query: string): { keyword: string; matches: boolean; weighs: boolean }[] {
  const steps: { keyword: string; matches: boolean; weighs: boolean }[] = [];
  const weighed = new Set<string>();
  for (const keyword of queryKeywords(query)) {
    const bare = bareWord(keyword);
    if (bare === keyword) {
      steps.push({ keyword, matches: true, weighs: !weighed.has(keyword) });
      weighed.add(keyword);
      continue;
    }
    steps.push({ keyword, matches: true, weighs: false });
    if (bare !== "" && !weighed.has(bare)) {
      weighed.add(bare);
      steps.push({ keyword: bare, matches: false, weighs: true });
    }
  }
  return steps;
}

/**
 * The index. Every name and description is split on white space into lowercase words; each distinct word keeps the
 * tools that hold it (its postings). A keyword holds no white space, so wherever it occurs in a text it lies inside
 * one word of that text: the tools that match a keyword are exactly the postings of the words that contain it.
 * Those words are found through the words' character pairs (every pair of the keyword is a pair of the word), so a
 * search never scans the catalog's text: it checks a few candidate words per keyword and walks their postings.
 */
interface Vocabulary {
  /**
   * The words one after another: word w is `wordText.slice(wordStarts[w], wordStarts[w + 1])` (a cold isolate makes a
   * string of a word only where a search compares it, not one per word up front).
   */
  wordText: string;
  wordStarts: Uint32Array;
  /** Postings of word w: `postings[postingStarts[w] .. postingStarts[w + 1])`, each `tool * 2 + (in name ? 1 : 0)`. */
  postingStarts: Uint32Array;
  postings: Uint32Array;
  /** Character (UTF-16 code unit) → the words holding it. */
  byChar: WordLists;
  /** Pair of adjacent code units (`first * 65536 + second`) → the words holding it. */
  byPair: WordLists;
  /** Per word, 1 when it has a word start after its first character (innerStarts). */
  inner: Uint8Array;
  /** What the keywords of one or two code units that walk many postings hit (CarriedHits); made when first written. */
  carried?: CarriedHits;
  /**
   * Read from a snapshot: the sections `postings`, the lists of `byChar` and `byPair` and the carried hits are views
   * of, each chunk checked when a list in it is first read, or all before they are written again.
   */
  deferred?: {
    postings: DeferredSection<Uint32Array>;
    charLists: DeferredSection<Uint32Array>;
    pairLists: DeferredSection<Uint32Array>;
    carried: DeferredSection<Uint32Array>;
  };
}

/**
 * Lists of words by key (a character's code, or a pair's `first * 65536 + second`: both below 2 ** 32), the keys in
 * increasing order: a list is found by a binary search of the keys in place (a cold isolate makes no map of them).
 */
class WordLists {
  readonly keys: Uint32Array;
  /** List i is `values[starts[i] .. starts[i + 1])`. */
  readonly starts: Uint32Array;
  readonly values: Uint32Array;

  constructor(keys: Uint32Array, starts: Uint32Array, values: Uint32Array) {
    this.keys = keys;
    this.starts = starts;
    this.values = values;
  }

  /** The lists of a map built by indexCharacters, laid out by key. */
  static of(map: ReadonlyMap<number, readonly number[]>): WordLists {
    const keys = Uint32Array.from(map.keys()).toSorted();
    const starts = new Uint32Array(keys.length + 1);
    let total = 0;
    keys.forEach((key, i) => {
      starts[i] = total;
      total += map.get(key)?.length ?? 0;
    });
    starts[keys.length] = total;
    const values = new Uint32Array(total);
    keys.forEach((key, i) => values.set(map.get(key) ?? [], starts[i] ?? 0));
    return new WordLists(keys, starts, values);
  }

  /** List `at` (a place among the keys). */
  listAt(at: number): Uint32Array {
    return this.values.subarray(this.starts[at] ?? 0, this.starts[at + 1] ?? 0);
  }

  get(key: number): Uint32Array | undefined {
    const at = placeOfKey(this.keys, key);
    return at === -1 ? undefined : this.listAt(at);
  }
}

/** Where `key` is in `keys` (increasing), by a binary search; -1 when it is not there. */
function placeOfKey(keys: ArrayLike<number>, key: number): number {
  let low = 0;
  let high = keys.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const found = keys[middle] ?? 0;
    if (found === key) return middle;
    if (found < key) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}

/**
 * For each keyword of one or two code units (a character, or a pair: exactly the words its list holds) whose words
 * have more postings than half the catalog ("a", "in", "it"), and each of three ("the", "and", "ion") whose words have
 * more than a quarter (a keyword of three is checked word by word besides: it costs more per posting), the place it
 * earns in each tool (hitKind's bits, 0 for none; eight tools a 32-bit word, tool t in bits 4 * (t % 8) up), worked out when the
 * index is written: a cold isolate's first search reads a tool's place instead of walking thousands of postings in
 * code not compiled yet. Keys (carriedKey): a character's code, 2 ** 32 + a pair's key, or 2 ** 48 + a triple's
 * (`first * 2 ** 32 + second * 65536 + third`); in increasing order.
 */
interface CarriedHits {
  keys: Float64Array;
  /** Key i's places: `places[i * words .. (i + 1) * words)`, with `words` = carriedWords(tools). */
  places: Uint32Array;
}

const PAIR_KEYS = 2 ** 32;
const TRIPLE_KEYS = 2 ** 48;

/** The carried key of a keyword of one to three code units (CarriedHits; below 2 ** 53, so exact as a double). */
function carriedKey(keyword: string): number {
  const first = keyword.charCodeAt(0);
  if (keyword.length === 1) return first;
  if (keyword.length === 2) return PAIR_KEYS + first * 65536 + keyword.charCodeAt(1);
  return TRIPLE_KEYS + first * PAIR_KEYS + keyword.charCodeAt(1) * 65536 + keyword.charCodeAt(2);
}

/**
 * 32-bit words of one keyword's places over `tools` tools (eight a word: a search reads a keyword's hit count and
 * adds its places to the matches a word at a time, CarriedTally).
 */
const carriedWords = (tools: number): number => Math.ceil(tools / 8);

/** The place (hitKind's bits) carried for `tool` in one keyword's places. */
const carriedPlace = (places: Uint32Array, tool: number): number => ((places[tool >>> 3] ?? 0) >>> ((tool & 7) << 2)) & 15;

/** How many of the eight places in a word of carried places are not 0 (the nibbles with a bit set, summed by a multiply). */
function placesIn(word: number): number {
  const any = word | (word >>> 1);
  return Math.imul((any | (any >>> 2)) & 0x11111111, 0x11111111) >>> 28;
}

/** The place a posting of a word gives (hitKind's bits): at a word start or inside one, in the name or not. */
const placeBits = (entry: number, start: boolean): number => (start ? 2 : 1) << (entry & 1 ? 2 : 0);

/** An ASCII triple's code (`first * 16384 + second * 128 + third`, below 2 ** 21: a small integer), or -1 past ASCII. */
function asciiTriple(text: string, at: number): number {
  const first = text.charCodeAt(at);
  const second = text.charCodeAt(at + 1);
  const third = text.charCodeAt(at + 2);
  return (first | second | third) < 128 ? first * 16384 + second * 128 + third : -1;
}

/**
 * The keywords of three code units whose words have more postings than a quarter of `tools`, each with those words
 * (in increasing order), in increasing carriedKey. ASCII triples are counted in a table by their small code (one
 * pass over the words, no map of large keys), the rest in a map.
 */
function carriedTriples(vocabulary: Vocabulary, tools: number): { key: number; keyword: string; words: number[] }[] {
  const { postingStarts, wordText, wordStarts } = vocabulary;
  const words = wordStarts.length - 1;
  const asciiWalks = new Int32Array(2 ** 21);
  /** The ASCII codes counted, each once (the table is not scanned whole). */
  const asciiSeen: number[] = [];
  const otherWalks = new Map<number, number>();
  // Per word, the triples counted for it already (a word holding one twice counts its postings once).
  const seen: number[] = [];
  for (let word = 0; word < words; word++) {
    const to = wordStarts[word + 1] ?? 0;
    const postings = (postingStarts[word + 1] ?? 0) - (postingStarts[word] ?? 0);
    seen.length = 0;
    for (let at = wordStarts[word] ?? 0; at + 3 <= to; at++) {
      const ascii = asciiTriple(wordText, at);
      const key = ascii === -1 ? carriedKey(wordText.slice(at, at + 3)) : ascii;
      if (seen.includes(key)) continue;
      seen.push(key);
      if (ascii === -1) otherWalks.set(key, (otherWalks.get(key) ?? 0) + postings);
      else {
        if (asciiWalks[ascii] === 0) asciiSeen.push(ascii);
        asciiWalks[ascii] = (asciiWalks[ascii] ?? 0) + postings;
      }
    }
  }
  // The triples carried, by their code (ASCII) or key, each with the words holding it.
  const asciiWords = new Map<number, number[]>();
  for (const code of asciiSeen) if ((asciiWalks[code] ?? 0) * 4 > tools) asciiWords.set(code, []);
  const otherWords = new Map<number, number[]>();
  for (const [key, walked] of otherWalks) if (walked * 4 > tools) otherWords.set(key, []);
  for (let word = 0; word < words && asciiWords.size + otherWords.size > 0; word++) {
    const to = wordStarts[word + 1] ?? 0;
    for (let at = wordStarts[word] ?? 0; at + 3 <= to; at++) {
      const ascii = asciiTriple(wordText, at);
      const list = ascii === -1 ? otherWords.get(carriedKey(wordText.slice(at, at + 3))) : asciiWords.get(ascii);
      if (list !== undefined && list.at(-1) !== word) list.push(word);
    }
  }
  const triples: { key: number; keyword: string; words: number[] }[] = [];
  for (const [code, holding] of asciiWords) {
    const keyword = String.fromCharCode(code >>> 14, (code >>> 7) & 127, code & 127);
    triples.push({ key: carriedKey(keyword), keyword, words: holding });
  }
  for (const [key, holding] of otherWords) {
    const rest = key - TRIPLE_KEYS;
    triples.push({ key, keyword: String.fromCharCode(Math.floor(rest / PAIR_KEYS), Math.floor(rest / 65536) % 65536, rest % 65536), words: holding });
  }
  return triples.toSorted((a, b) => a.key - b.key);
}

/** The carried hits of `vocabulary` over `tools` tools (CarriedHits: the keywords walking the most postings). */
function carriedHitsOf(vocabulary: Vocabulary, tools: number): CarriedHits {
  const { postingStarts, postings, wordText, wordStarts, inner } = vocabulary;
  const width = carriedWords(tools);
  const carried: { key: number; keyword: string; words: number[] }[] = [];
  for (const [lists, base] of [[vocabulary.byChar, 0], [vocabulary.byPair, PAIR_KEYS]] as const) {
    const { values, starts } = lists;
    for (let at = 0; at < lists.keys.length; at++) {
      const from = starts[at] ?? 0;
      const to = starts[at + 1] ?? 0;
      let walked = 0;
      for (let i = from; i < to; i++) {
        const word = values[i] ?? 0;
        walked += (postingStarts[word + 1] ?? 0) - (postingStarts[word] ?? 0);
      }
      const key = lists.keys[at] ?? 0;
      if (walked * 2 <= tools) continue;
      const keyword = base === 0 ? String.fromCharCode(key) : String.fromCharCode(Math.floor(key / 65536), key % 65536);
      carried.push({ key: base + key, keyword, words: Array.from(values.subarray(from, to)) });
    }
  }
  carried.push(...carriedTriples(vocabulary, tools));
  const places = new Uint32Array(width * carried.length);
  carried.forEach(({ keyword, words }, k) => {
    const block = places.subarray(k * width, (k + 1) * width);
    for (const word of words) {
      // As scan walks it (startsIn): a keyword of one or two code units counts where it starts the word, one of three
      // where it starts a word in it (a string made only of a word with a word start inside).
      const from = wordStarts[word] ?? 0;
      const start = keyword.length > 2 && inner[word] === 1
        ? startsAWord(wordText.slice(from, wordStarts[word + 1] ?? 0), keyword)
        : wordText.startsWith(keyword, from);
      const end = postingStarts[word + 1] ?? 0;
      for (let p = postingStarts[word] ?? 0; p < end; p++) {
        const entry = postings[p] ?? 0;
        const tool = entry >>> 1;
        block[tool >>> 3] = (block[tool >>> 3] ?? 0) | (placeBits(entry, start) << ((tool & 7) << 2));
      }
    }
  });
  return { keys: Float64Array.from(carried, ({ key }) => key), places };
}

/** Chunks of the vocabulary's postings, word lists and carried hits checked at once (a search reads a few of each). */
const LIST_CHUNK_BYTES = 4096;

/** 1 for words with a word start after their first character ("get_weather", "(city)"): the rest start only at 0. */
function innerStarts(words: readonly string[]): Uint8Array {
  const inner = new Uint8Array(words.length);
  words.forEach((word, index) => {
    if (INNER_START.test(word)) inner[index] = 1;
  });
  return inner;
}

const WHITE_SPACE = /\s+/u;

/**
 * Appends `value` to the list of `key`, unless it is that list's last value already: a text's (or a word's) values are
 * all added before the next text's, so a repeat within it (a word's second "a", a text's second "the") is always the
 * last one added.
 */
function pushOnce<K>(map: Map<K, number[]>, key: K, value: number): void {
  const list = map.get(key);
  if (!list) map.set(key, [value]);
  else if (list.at(-1) !== value) list.push(value);
}

function buildVocabulary(tools: readonly ToolDefinition[]): Vocabulary {
  const postingsByWord = new Map<string, number[]>();
  const add = (text: string, entry: number): void => {
    // A word repeated within one text adds one posting: one posting per tool and field at most.
    for (const word of text.toLowerCase().split(WHITE_SPACE)) if (word !== "") pushOnce(postingsByWord, word, entry);
  };
  for (let index = 0; index < tools.length; index++) {
    const tool = tools[index];
    if (tool === undefined) continue;
    add(tool.name, index * 2 + 1);
    add(tool.description, index * 2);
  }

  const words = [...postingsByWord.keys()];
  const postingStarts = new Uint32Array(words.length + 1);
  const postings = new Uint32Array([...postingsByWord.values()].reduce((sum, list) => sum + list.length, 0));
  const byChar = new Map<number, number[]>();
  const byPair = new Map<number, number[]>();
  let offset = 0;
  words.forEach((word, index) => {
    const list = postingsByWord.get(word) ?? [];
    postingStarts[index] = offset;
    postings.set(list, offset);
    offset += list.length;
    indexCharacters(word, index, byChar, byPair);
  });
  postingStarts[words.length] = offset;
  const wordStarts = new Uint32Array(words.length + 1);
  words.forEach((word, index) => {
    wordStarts[index + 1] = (wordStarts[index] ?? 0) + word.length;
  });
  return {
    wordText: words.join(""), wordStarts, postingStarts, postings,
    byChar: WordLists.of(byChar), byPair: WordLists.of(byPair), inner: innerStarts(words),
  };
}

/** A keyword in a tool's name counts this many times its weight in the description. */
const NAME_WEIGHT = 2;
/** A keyword found only inside words (not at the start of one) counts this share of its weight. */
/** Leading and trailing punctuation of a query word. */
const EDGE_PUNCTUATION = /^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu;
const INSIDE_WORD_SHARE = 0.5;

const INNER_START = /[^\p{L}\p{N}][\p{L}\p{N}]/u;
/** How many hits of expensive keywords an index keeps (5 bytes each: at most 5 MB). */
const EXPENSIVE_HITS = 1_000_000;
/** A filter turning away more names than this is asked of every match (each name is a search over the slots' names). */
const MAX_REJECTED_LOOKUPS = 8;
/**
 * A walked keyword hitting more than this share's inverse of the catalog (idf about 2.3 or less) is, for firstByBound,
 * common: like a carried keyword it bounds the scores of the tools it alone hits, which are not scored.
 */
const COMMON_SHARE = 10;
/** Most keyword steps (keywordSteps) firstByBound takes: each keeps up to a list or table of the catalog's size. */
const MAX_BOUND_STEPS = 32;
/** The filter of a search given none (acceptAllBut: an index knows it turns away no name). */
const ACCEPT_ALL = acceptAllBut([]);
/** Score buckets of the ranking's counting sort. */
const BUCKETS = 4096;

/** Whether `keyword` occurs in `word` where a word starts: at its start or after a non-letter, non-digit. */
function startsAWord(word: string, keyword: string): boolean {
  for (let at = word.indexOf(keyword); at !== -1; at = word.indexOf(keyword, at + 1)) {
    if (at === 0) return true;
    const before = word.charCodeAt(at - 1);
    const letterOrDigit = (before >= 0x30 && before <= 0x39) || ((before | 0x20) >= 0x61 && (before | 0x20) <= 0x7a) || before >= 0x80;
    if (!letterOrDigit) return true;
  }
  return false;
}

const NO_WORDS = new Uint32Array(0);

/** Where `keyword` lies in `text` (a word holding it): true where a word starts. */
function startsIn(text: string, keyword: string, innerStart: boolean, exact: boolean): boolean {
  // Keywords of one or two characters weigh little and hit most words: only a word's own start counts for them.
  return innerStart && !exact ? startsAWord(text, keyword) : text.startsWith(keyword);
}

/** Changes (tools added or removed since the last build) past this share of the catalog are rebuilt, not patched. */
const MAX_PATCH_SHARE = 0.25;
/** ... or past this many, on a small catalog. */
const MIN_PATCH_LIMIT = 64;

/** Tools whose words the substring index holds alike: it indexes the name and the description only. */
function sameText(a: ToolDefinition, b: ToolDefinition): boolean {
  return a === b || (a.name === b.name && a.description === b.description);
}

/** The words of tools added since the index was built, kept apart from the built vocabulary (whose arrays are fixed). */
class AddedWords {
  readonly words: string[] = [];
  /** Per word, its postings (`slot * 2 + (in name ? 1 : 0)`) and 1 when a word starts after its first character. */
  readonly postings: number[][] = [];
  readonly inner: number[] = [];
  readonly byChar = new Map<number, number[]>();
  readonly byPair = new Map<number, number[]>();
  readonly #wordIndex = new Map<string, number>();

  /** Adds one text's words (each once) as postings of `entry`. */
  add(text: string, entry: number): void {
    for (const word of text.toLowerCase().split(WHITE_SPACE)) {
      if (word === "") continue;
      const known = this.#wordIndex.get(word);
      if (known !== undefined) {
        const list = this.postings[known];
        // Entries come in increasing order: a word said again in this text has this entry last.
        if (list && list.at(-1) !== entry) list.push(entry);
        continue;
      }
      const index = this.words.length;
      this.#wordIndex.set(word, index);
      this.words.push(word);
      this.postings.push([entry]);
      this.inner.push(INNER_START.test(word) ? 1 : 0);
      indexCharacters(word, index, this.byChar, this.byPair);
    }
  }
}

/** Files word `index` under each distinct character and adjacent pair it holds (words come in increasing index). */
function indexCharacters(word: string, index: number, byChar: Map<number, number[]>, byPair: Map<number, number[]>): void {
  for (let i = 0; i < word.length; i++) {
    const char = word.charCodeAt(i);
    pushOnce(byChar, char, index);
    if (i > 0) pushOnce(byPair, word.charCodeAt(i - 1) * 65536 + char, index);
  }
}

/** The words that may contain `keyword`: those holding its rarest character pair (or its one character). */
function candidates<T extends ArrayLike<number>>(keyword: string, byChar: { get(key: number): T | undefined }, byPair: { get(key: number): T | undefined }): T | undefined {
  if (keyword.length === 1) return byChar.get(keyword.charCodeAt(0));
  let best: T | undefined;
  for (let i = 1; i < keyword.length; i++) {
    const list = byPair.get(keyword.charCodeAt(i - 1) * 65536 + keyword.charCodeAt(i));
    if (!list) return undefined;
    if (!best || list.length < best.length) best = list;
  }
  return best;
}

/**
 * The index of `tools` (a tool the query names is placed first: exactNames.ts). Tools live in slots (at first their
 * catalog positions); `update` patches it for a new catalog version: removed tools' slots are marked dead (their
 * postings skipped), added tools take new slots whose words go to a small added vocabulary, and the catalog order is
 * recorded anew. Every count (IDF, relevance) is over the live tools, so a patched index answers exactly as a fresh
 * build of the new catalog.
 */
export function createSubstringIndex(tools: readonly ToolDefinition[]): SearchIndex {
  return withExactNames(substringIndexOver(tools, buildVocabulary(tools)), tools);
}

/** The substring index of `tools` from what its toSnapshot wrote (throws SnapshotError when it does not fit them). */
export function restoreSubstringIndex(tools: readonly ToolDefinition[], input: SnapshotReader): SearchIndex {
  return restoreExactNames(substringIndexOver(tools, restoredVocabulary(tools, input)), tools, input);
}

/** The vocabulary an index over `tools` wrote, and its count of tools (SnapshotError when they do not fit `tools`). */
function restoredVocabulary(tools: readonly ToolDefinition[], input: SnapshotReader): Vocabulary {
  const vocabulary = readVocabulary(input);
  if (input.int() !== tools.length) throw new SnapshotError("the snapshot holds another number of tools than the catalog");
  const carried = vocabulary.carried;
  if (carried === undefined || carried.places.length !== carried.keys.length * carriedWords(tools.length)) {
    throw new SnapshotError("the snapshot's carried hits do not match its tools");
  }
  return vocabulary;
}

function writeWordLists(out: SnapshotWriter, lists: WordLists, section: DeferredSection<Uint32Array> | undefined): void {
  // A restored vocabulary's lists are checked before they are written again (never a damaged list into a new snapshot).
  section?.verifyAll();
  out.u32(lists.keys);
  out.u32(lists.starts);
  out.deferredU32(lists.values, LIST_CHUNK_BYTES);
}

/** A character table as written: its keys and where each list starts (up front), its lists checked when read. */
function readWordLists(input: SnapshotReader, what: string): { lists: WordLists; section: DeferredSection<Uint32Array> } {
  const keys = input.u32();
  const starts = input.u32();
  const section = input.deferredU32(what);
  if (starts.length !== keys.length + 1 || (starts[keys.length] ?? 0) > section.values.length) throw new SnapshotError("a character table does not match its lists");
  return { lists: new WordLists(keys, starts, section.values), section };
}

function writeVocabulary(out: SnapshotWriter, vocabulary: Vocabulary, tools: number): void {
  out.text(vocabulary.wordText);
  out.u32(vocabulary.wordStarts);
  out.u32(vocabulary.postingStarts);
  vocabulary.deferred?.postings.verifyAll();
  out.deferredU32(vocabulary.postings, LIST_CHUNK_BYTES);
  writeWordLists(out, vocabulary.byChar, vocabulary.deferred?.charLists);
  writeWordLists(out, vocabulary.byPair, vocabulary.deferred?.pairLists);
  out.u8(vocabulary.inner);
  vocabulary.deferred?.carried.verifyAll();
  const carried = (vocabulary.carried ??= carriedHitsOf(vocabulary, tools));
  out.f64(carried.keys);
  out.deferredU32(carried.places, LIST_CHUNK_BYTES);
}

function readVocabulary(input: SnapshotReader): Vocabulary {
  const wordText = input.text();
  const wordStarts = input.u32();
  const words = wordStarts.length - 1;
  const postingStarts = input.u32();
  const deferredPostings = input.deferredU32("vocabulary's postings");
  const postings = deferredPostings.values;
  if (words < 0 || wordStarts[words] !== wordText.length || postingStarts.length !== words + 1 || (postingStarts[words] ?? 0) > postings.length) {
    throw new SnapshotError("the vocabulary's postings do not match its words");
  }
  const byChar = readWordLists(input, "character lists");
  const byPair = readWordLists(input, "character pair lists");
  const inner = input.u8();
  if (inner.length !== words) throw new SnapshotError("the vocabulary's word starts do not match its words");
  const keys = input.f64();
  const places = input.deferredU32("carried hits");
  const deferred = { postings: deferredPostings, charLists: byChar.section, pairLists: byPair.section, carried: places };
  return { wordText, wordStarts, postingStarts, postings, byChar: byChar.lists, byPair: byPair.lists, inner, carried: { keys, places: places.values }, deferred };
}

/**
 * A keyword's weight in each place a tool may hold it (a place: 0 none, 1 inside a description word, 2 at a
 * description word's start, 3 inside the name, 4 at a name word's start), computed as the ranking computes it.
 */
export function placeWeights(idf: number): readonly number[] {
  const nameStart = idf * NAME_WEIGHT;
  return [0, idf * INSIDE_WORD_SHARE, idf, nameStart * INSIDE_WORD_SHARE, nameStart];
}

/** A keyword's weight (BM25's IDF) over a catalog of `tools` tools of which it hits `hits`. */
export function keywordWeight(tools: number, hits: number): number {
  return Math.log(1 + (tools - hits + 0.5) / (hits + 0.5));
}

/**
 * Places by the weight they earn (placeWeights): none, half, whole (a description word's start and inside the name
 * weigh the same, exactly), double; and the place that stands for each level.
 */
const PLACE_LEVEL = [0, 1, 2, 2, 3];
const LEVEL_PLACE = [0, 1, 2, 4];
const LEVELS = LEVEL_PLACE.length;

/** The place (placeWeights) a hit earns from its kind (hitKind's bits): the best of the places it was found at. */
const placeOf = (kind: number): number => (kind & 8 ? 4 : kind & 4 ? 3 : kind & 2 ? 2 : 1);

/**
 * A part's matches that may be among the whole catalog's first k whatever its keywords weigh (SubstringPart.keywordBand):
 * the keywords the query is weighed by, in the ranking's order, and per match (slot) the place of each.
 */
export interface KeywordPlaces {
  keywords: string[];
  total: number;
  names: string[];
  places: number[][];
}

/**
 * What bounds a keyword's weight in a bounded band (SubstringPart.boundedBand): the whole catalog's counts the caller
 * holds (a known keyword weighs exactly what it weighs in the ranking) and the whole catalog's size, which bounds the
 * others: a keyword's whole count lies between the part's own count and that plus the tools of the other parts.
 */
export interface KeywordBounds {
  known: ReadonlyMap<string, readonly number[]>;
  wholeTools: number;
  maxUnknown: number;
  maxTools: number;
  /** Pairs of the band's matches it may compare (each over every keyword). */
  maxPairs: number;
}

/** Scores this close are not told apart by a bounded band (the floating-point error of a score is far smaller). */
const BAND_SLACK = 1e-9;

/** The substring index of a part of a sharded catalog (indexPart.ts): its counts, and its ranking under the whole's. */
export interface SubstringPart {
  readonly size: number;
  /** Per keyword of the query (and its bare form, without edge punctuation): how many of the part's tools it hits. */
  keywordCounts(query: string): TermCounts;
  /**
   * Without the whole catalog's keyword counts: every accepted match that fewer than `count` others beat whatever the
   * keywords weigh (a tool whose place weighs at least as much for every keyword, and more for one or with an earlier
   * place in the catalog, beats it at every weighing), with the place of each keyword in it; undefined for a query
   * without keywords, or when its matches hold more than `maxClasses` distinct weighings (the caller asks again with
   * the counts).
   */
  keywordBand(query: string, count: number, accept: (name: string) => boolean, maxClasses: number): KeywordPlaces | undefined;
  /**
   * For a query weighed by more keywords than keywordBand compares, some of whose whole counts the caller holds
   * (`bounds.known`): the part's count of every keyword of the query (keywordCounts) and, unless too wide, every
   * accepted match that fewer than `count` others beat for every weight the keywords may have (KeywordBounds), with
   * the place of each keyword in it. No band (the caller asks again with the counts) past `bounds.maxUnknown` keywords
   * without a known count, decided before any keyword is scanned, past `bounds.maxTools` matches left after the least
   * and greatest scores are compared, or past `bounds.maxPairs` pairs of them compared.
   */
  boundedBand(query: string, count: number, accept: (name: string) => boolean, bounds: KeywordBounds): { counts: TermCounts; band?: KeywordPlaces };
  /**
   * The first `count` accepted tools, ranked with the whole catalog's size and keyword counts (a query without
   * keywords: catalog order, scores 0), their relevance when asked, and how many it accepts.
   */
  rankAsPart(query: string, whole: WholeCatalog, count: number, accept: (name: string) => boolean, withRelevance: boolean): { names: string[]; scores: number[]; relevance?: number[]; total: number };
  /** Writes the part's index as SearchIndex.toSnapshot does (restoreSubstringPart reads it). */
  toSnapshot(out: SnapshotWriter): boolean;
}

/** The index of `tools` over their vocabulary (built, or read from a snapshot). */
function substringIndexOver(tools: readonly ToolDefinition[], vocabulary: Vocabulary): SearchIndex {
  return substringOver(tools, vocabulary).index;
}

/** The substring index of a part of a sharded catalog (no exact names: the isolate places those over the whole). */
export function createSubstringPart(tools: readonly ToolDefinition[]): SubstringPart {
  return substringOver(tools, buildVocabulary(tools)).part;
}

/** The part of `tools` from what its toSnapshot wrote (throws SnapshotError when it does not fit them). */
export function restoreSubstringPart(tools: readonly ToolDefinition[], input: SnapshotReader): SubstringPart {
  return substringOver(tools, restoredVocabulary(tools, input)).part;
}

function substringOver(tools: readonly ToolDefinition[], vocabulary: Vocabulary): { index: SearchIndex; part: SubstringPart } {
  const { wordText, wordStarts, postingStarts, postings, byChar, byPair, inner, deferred } = vocabulary;
  /** Whether update changed the index: its snapshot would then need the added words too, so it writes none. */
  let updated = false;
  const added = new AddedWords();

  /** Slot → the tool it holds (undefined once removed) and its name: the catalog's own lists until the first update. */
  let slotTools: readonly (ToolDefinition | undefined)[] = tools;
  let slotNames = catalogNames(tools);
  /** Name → slot, made on the first update (a cold isolate's restored index is searched without it). */
  let slotByNameMap: Map<string, number> | undefined;
  const slotByName = (): Map<string, number> => {
    if (slotByNameMap) return slotByNameMap;
    slotByNameMap = new Map<string, number>();
    for (let slot = 0; slot < slotTools.length; slot++) {
      const tool = slotTools[slot];
      if (tool !== undefined && !slotByNameMap.has(tool.name)) slotByNameMap.set(tool.name, slot);
    }
    return slotByNameMap;
  };
  /** Repeated names cannot be told apart by a later catalog version: such an index is rebuilt, never patched. */
  let patchable: boolean | undefined;
  /** Tools added and slots emptied since the build: past a share of the catalog, a fresh build is due. */
  let debris = 0;

  // The catalog: its size, its names in order, each position's slot and each slot's position (-1: removed).
  let size = tools.length;
  let names = slotNames;
  // Both undefined until the first update: each slot then is its own position (a cold isolate's restored index fills
  // no two tables of 10,000 positions before its first search).
  let catalogSlots: Uint32Array | undefined;
  let position: Int32Array | undefined;

  // Scratch space per slot, reused by every search (a search runs to completion before the next one starts).
  let scores = new Float64Array(size);
  /** Per tool, the summed weight (IDF) of the keywords it matches, whatever their place: its relevance, in uniqueWeights. */
  let covered = new Float64Array(size);
  /** Per tool, for the current keyword: 1 inside a description word, 2 at a description word start, +4 name inside, +8 name start. */
  let hitKind = new Uint8Array(size);
  /** The keyword (numbered from 1) that last hit a tool, so that each keyword counts once per tool. */
  let lastKeyword = new Uint32Array(size);
  let hitTools = new Uint32Array(size);
  let matched = new Uint8Array(size);
  /** The matched tools, in order of first match: `order[0 .. orderLength)`. */
  let order = new Uint32Array(size);

  /**
   * The hits of the keywords that cost most to scan (those walking more postings than the catalog has tools: "a",
   * "the", "to", which conversational queries repeat), kept so that they are walked once per index version; least
   * recently used dropped first.
   */
  const expensive = new Map<string, { tools: Uint32Array; kinds: Uint8Array }>();
  let keptHits = 0;

  /** Walks the postings of `word` (a word holding `keyword`) into the hits of keyword `stamp`; returns its length. */
  function walk(entries: ArrayLike<number>, from: number, to: number, start: boolean, stamp: number, count: number): number {
    let hits = count;
    // placeBits of this word's postings in a description and in a name, worked out once (not a call per posting).
    const inDescription = placeBits(0, start);
    const inName = placeBits(1, start);
    for (let p = from; p < to; p++) {
      const entry = entries[p] ?? 0;
      const tool = entry >>> 1;
      if (position !== undefined && (position[tool] ?? -1) < 0) continue;
      const bits = entry & 1 ? inName : inDescription;
      if (lastKeyword[tool] !== stamp) {
        lastKeyword[tool] = stamp;
        hitKind[tool] = bits;
        hitTools[hits++] = tool;
      } else hitKind[tool] = (hitKind[tool] ?? 0) | bits;
    }
    return hits;
  }

  /** The places a keyword of one or two code units earns in each tool, when carried (CarriedHits; checked when read). */
  function carriedPlaces(keyword: string): Uint32Array | undefined {
    const carried = vocabulary.carried;
    if (carried === undefined) return undefined;
    const at = placeOfKey(carried.keys, carriedKey(keyword));
    if (at === -1) return undefined;
    const words = carriedWords(tools.length);
    const places = carried.places.subarray(at * words, (at + 1) * words);
    deferred?.carried.verifyView(places);
    return places;
  }

  /** Marks the tools `keyword` hits and how; returns how many distinct tools (they are `hitTools[0 .. n)`). */
  function scan(keyword: string, stamp: number): number {
    const kept = expensive.get(keyword);
    if (kept) {
      expensive.delete(keyword);
      expensive.set(keyword, kept);
      const { tools: hit, kinds } = kept;
      for (let i = 0; i < hit.length; i++) {
        const tool = hit[i] ?? 0;
        lastKeyword[tool] = stamp;
        hitKind[tool] = kinds[i] ?? 0;
      }
      hitTools.set(hit);
      return hit.length;
    }
    let walked = 0;
    // A keyword of one or two code units is exactly its character or pair; a longer one is checked word by word.
    const exact = keyword.length <= 2;
    let count = 0;
    const places = keyword.length <= 3 && !updated ? carriedPlaces(keyword) : undefined;
    if (places !== undefined) {
      // The index as written (no tool added or removed since): every tool's place, read in tool order.
      for (let tool = 0; tool < size; tool++) {
        const place = carriedPlace(places, tool);
        if (place === 0) continue;
        lastKeyword[tool] = stamp;
        hitKind[tool] = place;
        hitTools[count++] = tool;
      }
      return count;
    }
    const built = candidates(keyword, byChar, byPair);
    // A restored vocabulary's list and postings are checked as they are read (a damaged chunk throws SnapshotError).
    if (built !== undefined) deferred?.[keyword.length === 1 ? "charLists" : "pairLists"].verifyView(built);
    const words = built ?? NO_WORDS;
    // Indexed (a for-of's iterator runs slowly in code not compiled yet, as a cold isolate's first search runs it).
    for (let i = 0; i < words.length; i++) {
      const word = words[i] ?? 0;
      const at = wordStarts[word] ?? 0;
      let start: boolean;
      // Every word of an exact keyword's list holds it, so is at least as long: compared in place, no string made.
      if (exact) start = wordText.startsWith(keyword, at);
      else {
        const text = wordText.slice(at, wordStarts[word + 1] ?? 0);
        if (!text.includes(keyword)) continue;
        start = startsIn(text, keyword, inner[word] === 1, false);
      }
      const from = postingStarts[word] ?? 0;
      const to = postingStarts[word + 1] ?? 0;
      deferred?.postings.verify(from, to);
      walked += to - from;
      count = walk(postings, from, to, start, stamp, count);
    }
    for (const word of candidates(keyword, added.byChar, added.byPair) ?? []) {
      const text = added.words[word] ?? "";
      if (!exact && !text.includes(keyword)) continue;
      const list = added.postings[word] ?? [];
      walked += list.length;
      count = walk(list, 0, list.length, startsIn(text, keyword, added.inner[word] === 1, exact), stamp, count);
    }
    if (walked > size && count > 0) {
      const hit = hitTools.slice(0, count);
      expensive.set(keyword, { tools: hit, kinds: Uint8Array.from(hit, (tool) => hitKind[tool] ?? 0) });
      keptHits += count;
      while (keptHits > EXPENSIVE_HITS) {
        const oldest = expensive.entries().next();
        if (oldest.done) break;
        keptHits -= oldest.value[1].tools.length;
        expensive.delete(oldest.value[0]);
      }
    }
    return count;
  }

  /** While the index ranks as a part of a larger catalog (rankAsPart): that catalog's statistics. */
  let whole: WholeCatalog | undefined;
  const bucketStarts = new Uint32Array(BUCKETS + 1);
  let orderLength = 0;
  let stamp = 0;

  /** While keywordBand scores a query: each weighed keyword with the tools it hits and their places. */
  let recorded: { keyword: string; tools: Uint32Array; places: Uint8Array }[] | undefined;
  /** While boundedBand scores a query: how many tools each keyword scanned hits. */
  let scanned: TermCounts | undefined;

  /** Scans `keyword`: its hits join the matches when `matches`, and gain its weight when `weighs`. */
  function apply(keyword: string, matches: boolean, weighs: boolean): void {
    const count = scan(keyword, ++stamp);
    scanned?.set(keyword, [count]);
    if (weighs && recorded !== undefined) {
      const hit = hitTools.slice(0, count);
      const places = new Uint8Array(count);
      // A loop: Uint8Array.from with a mapping function runs slowly.
      for (let i = 0; i < count; i++) places[i] = placeOf(hitKind[hit[i] ?? 0] ?? 0);
      recorded.push({ keyword, tools: hit, places });
    }
    if (count === 0) return;
    // BM25's IDF over the tools the keyword hits (as a part of a sharded catalog: the whole catalog's size and hits).
    const catalogSize = whole?.catalog.toolCount ?? size;
    const hits = whole === undefined ? count : (whole.terms.get(keyword)?.[0] ?? count);
    const idf = keywordWeight(catalogSize, hits);
    const nameStart = idf * NAME_WEIGHT;
    const nameInside = nameStart * INSIDE_WORD_SHARE;
    const inside = idf * INSIDE_WORD_SHARE;
    for (let i = 0; i < count; i++) {
      const tool = hitTools[i] ?? 0;
      if (weighs) {
        const kind = hitKind[tool] ?? 0;
        // The best of the hit's places: name start, name inside, description start, description inside.
        scores[tool] = (scores[tool] ?? 0) + (kind & 8 ? nameStart : kind & 4 ? nameInside : kind & 2 ? idf : inside);
        covered[tool] = (covered[tool] ?? 0) + idf;
      }
      if (matches && matched[tool] === 0) {
        matched[tool] = 1;
        order[orderLength++] = tool;
      }
    }
  }

  /** Scores the matches of `query` (`order[0 .. orderLength)`, `scores`); false for a query without keywords. */
  function score(query: string): boolean {
    const steps = keywordSteps(query);
    if (steps.length === 0) return false;

    scores.fill(0);
    covered.fill(0);
    lastKeyword.fill(0);
    matched.fill(0);
    orderLength = 0;
    stamp = 0;
    for (const { keyword, matches, weighs } of steps) apply(keyword, matches, weighs);
    return true;
  }

  /** Scratch of firstByBound: per word of carried places, the union of the places of the keywords that match. */
  let carriedUnion = new Uint32Array(0);

  /**
   * The first `count` accepted matches of `query`, as score and firstTools give them (the same scores, added in the
   * same order, and the same total), without scoring every match: in the index as written, the keywords with carried
   * places are tallied a word of eight tools at a time (their hit counts, and the union of the tools they match), and
   * only the tools the other keywords hit are scored. The rest hold carried keywords only, so score at most the sum of
   * those keywords' greatest weights (in the same order: rounding never lifts a smaller sum over it); when the page's
   * lowest score is above that sum, the page is theirs. Undefined where that does not hold or cannot be known (a
   * filter acceptAllBut did not make, an updated index, a part of a sharded catalog): the caller scores every match.
   */
  function firstByBound(query: string, count: number, accept: (name: string) => boolean): { tools: number[]; scores: number[]; total: number } | undefined {
    const carried = vocabulary.carried;
    const rejected = rejectedNames(accept);
    if (!(count > 0 && count <= size) || updated || carried === undefined || whole !== undefined || rejected === undefined || rejected.size > MAX_REJECTED_LOOKUPS) return undefined;
    const steps = keywordSteps(query);
    // Each step keeps its hits or places until the candidates are scored: a bounded number of them.
    if (steps.length > MAX_BOUND_STEPS) return undefined;
    const width = carriedWords(size);
    if (carriedUnion.length < width) carriedUnion = new Uint32Array(width);
    const union = carriedUnion;
    union.fill(0, 0, width);
    // matched: 1 once a tool is among the candidates (`order`).
    matched.fill(0);
    orderLength = 0;
    if (stamp > 2 ** 30) {
      lastKeyword.fill(0);
      stamp = 0;
    }
    /**
     * Per weighing step, in order: its weight and its carried places, or the place of each tool it hits (a common
     * walked keyword's: like a carried one, it bounds the other tools' scores and makes no candidates), or its hits.
     */
    const weighing: { idf: number; places?: Uint32Array; placeByTool?: Uint8Array; tools?: Uint32Array; kinds?: Uint8Array }[] = [];
    let bound = 0;
    // The loops below are written out (no call per tool: a cold isolate's first search runs them interpreted).
    for (const { keyword, matches, weighs } of steps) {
      const places = keyword.length <= 3 ? carriedPlaces(keyword) : undefined;
      if (places !== undefined) {
        let hits = 0;
        for (let w = 0; w < width; w++) {
          const word = places[w] ?? 0;
          if (word === 0) continue;
          // placesIn(word)
          const any = word | (word >>> 1);
          hits += Math.imul((any | (any >>> 2)) & 0x11111111, 0x11111111) >>> 28;
          if (matches) union[w] = (union[w] ?? 0) | word;
        }
        if (!weighs || hits === 0) continue;
        const idf = keywordWeight(size, hits);
        bound += idf * NAME_WEIGHT;
        weighing.push({ idf, places });
        continue;
      }
      const hits = scan(keyword, ++stamp);
      if (hits === 0) continue;
      const idf = keywordWeight(size, hits);
      const common = hits * COMMON_SHARE > size;
      const placeByTool = weighs && common ? new Uint8Array(size) : undefined;
      const hit = weighs && !common ? hitTools.slice(0, hits) : undefined;
      const kinds = hit === undefined ? undefined : new Uint8Array(hits);
      for (let i = 0; i < hits; i++) {
        const tool = hitTools[i] ?? 0;
        // A walked match joins the union as a place of its own.
        if (matches) union[tool >>> 3] = (union[tool >>> 3] ?? 0) | (1 << ((tool & 7) << 2));
        if (placeByTool !== undefined) placeByTool[tool] = hitKind[tool] ?? 0;
        else if (kinds !== undefined) {
          kinds[i] = hitKind[tool] ?? 0;
          if (matched[tool] === 0) {
            matched[tool] = 1;
            order[orderLength++] = tool;
          }
        }
      }
      if (placeByTool !== undefined) {
        bound += idf * NAME_WEIGHT;
        weighing.push({ idf, placeByTool });
      } else if (hit !== undefined) weighing.push({ idf, tools: hit, kinds });
    }
    if (orderLength === 0) return undefined;
    let total = 0;
    for (let w = 0; w < width; w++) total += placesIn(union[w] ?? 0);
    // The candidates' scores and relevance, each keyword's weight added in the order score adds them.
    for (let i = 0; i < orderLength; i++) {
      const tool = order[i] ?? 0;
      scores[tool] = 0;
      covered[tool] = 0;
    }
    for (const { idf, places, placeByTool, tools: hit, kinds } of weighing) {
      const nameStart = idf * NAME_WEIGHT;
      const nameInside = nameStart * INSIDE_WORD_SHARE;
      const inside = idf * INSIDE_WORD_SHARE;
      if (places !== undefined || placeByTool !== undefined) {
        for (let i = 0; i < orderLength; i++) {
          const tool = order[i] ?? 0;
          // carriedPlace(places, tool)
          const kind = places === undefined ? (placeByTool?.[tool] ?? 0) : ((places[tool >>> 3] ?? 0) >>> ((tool & 7) << 2)) & 15;
          if (kind === 0) continue;
          scores[tool] = (scores[tool] ?? 0) + (kind & 8 ? nameStart : kind & 4 ? nameInside : kind & 2 ? idf : inside);
          covered[tool] = (covered[tool] ?? 0) + idf;
        }
      } else if (hit !== undefined && kinds !== undefined) {
        for (let i = 0; i < hit.length; i++) {
          const tool = hit[i] ?? 0;
          const kind = kinds[i] ?? 0;
          scores[tool] = (scores[tool] ?? 0) + (kind & 8 ? nameStart : kind & 4 ? nameInside : kind & 2 ? idf : inside);
          covered[tool] = (covered[tool] ?? 0) + idf;
        }
      }
    }
    const best = new TopK(count, positionOf);
    // Once the heap is full, a score below its lowest cannot enter it (not offered: as in firstTools).
    let floor = -Infinity;
    for (let i = 0; i < orderLength; i++) {
      const tool = order[i] ?? 0;
      const toolScore = scores[tool] ?? 0;
      // A candidate hit by a keyword that weighs only (a bare word) may match nothing: not in the union.
      if (toolScore < floor || carriedPlace(union, tool) === 0 || !accept(slotNames[tool] ?? "")) continue;
      best.offer(tool, toolScore);
      if (best.full) floor = best.lowest;
    }
    if (!best.full || best.lowest <= bound) return undefined;
    for (const name of rejected) {
      for (let slot = slotNames.indexOf(name); slot !== -1; slot = slotNames.indexOf(name, slot + 1)) if (carriedPlace(union, slot) !== 0) total--;
    }
    const { slots, scores: kept } = best.sortedWithScores();
    return { tools: slots, scores: kept, total };
  }

  const positionOf = (slot: number): number => (position === undefined ? slot : (position[slot] ?? 0));

  /** The first `count` accepted matches (slots), best first (ties in catalog order), without sorting the rest. */
  function firstTools(count: number, accept: (name: string) => boolean): { tools: number[]; scores: number[]; total: number } {
    const best = new TopK(count, positionOf);
    // A filter turning away a few names (acceptAllBut): the matches less those of them matched are the total, and a
    // match the page cannot take is not looked at (no call to the filter per match of a common keyword).
    const rejected = rejectedNames(accept);
    const counted = rejected !== undefined && rejected.size <= MAX_REJECTED_LOOKUPS ? orderLength - matchedNamed(rejected) : undefined;
    let total = 0;
    // Once the heap is full, a score below its lowest cannot enter it: such a match is only counted (no call to offer
    // for most of a common keyword's thousands of matches, in code a cold isolate's first search runs not compiled yet).
    let floor = -Infinity;
    for (let i = 0; i < orderLength; i++) {
      const tool = order[i] ?? 0;
      const toolScore = scores[tool] ?? 0;
      if (counted !== undefined && toolScore < floor) continue;
      if (!accept(slotNames[tool] ?? "")) continue;
      total++;
      if (toolScore < floor) continue;
      best.offer(tool, toolScore);
      if (best.full) floor = best.lowest;
    }
    const { slots, scores: kept } = best.sortedWithScores();
    return { tools: slots, scores: kept, total: counted ?? total };
  }

  /** How many matched slots hold one of the `rejected` names (a search over the slots' names per name). */
  function matchedNamed(rejected: ReadonlySet<string>): number {
    let found = 0;
    for (const name of rejected) {
      for (let slot = slotNames.indexOf(name); slot !== -1; slot = slotNames.indexOf(name, slot + 1)) found += matched[slot] ?? 0;
    }
    return found;
  }

  function firstPage(count: number, accept: (name: string) => boolean): SearchPage {
    const { tools: page, total } = firstTools(count, accept);
    return { names: page.map((tool) => slotNames[tool] ?? ""), total };
  }

  /** The first `count` accepted matches (firstByBound, else every match scored); undefined for a query without keywords. */
  function firstMatches(query: string, count: number, accept: (name: string) => boolean): { tools: number[]; scores: number[]; total: number } | undefined {
    return firstByBound(query, count, accept) ?? (score(query) ? firstTools(count, accept) : undefined);
  }

  /** The weight (IDF) of a keyword that hits one tool: the unit of relevance (ScoredMatch). */
  let uniqueWeight = Math.log(1 + (size - 0.5) / 1.5);

  function scored(query: string, limit: number, accept: (name: string) => boolean = ACCEPT_ALL): ScoredMatch[] {
    const page = limit <= 0 ? undefined : firstMatches(query, limit, accept);
    if (page === undefined) return [];
    return page.tools.map((tool) => ({
      name: slotNames[tool] ?? "",
      relevance: uniqueWeight <= 0 ? 0 : Math.min(1, (covered[tool] ?? 0) / uniqueWeight),
    }));
  }

  function searchPage(query: string, count: number, accept: (name: string) => boolean = ACCEPT_ALL): SearchPage {
    const page = count === Infinity ? undefined : firstByBound(query, count, accept);
    if (page !== undefined) return { names: page.tools.map((tool) => slotNames[tool] ?? ""), total: page.total };
    if (!score(query)) {
      const kept = names.filter((name) => accept(name));
      return { names: kept.slice(0, count), total: kept.length };
    }
    if (count !== Infinity) return firstPage(count, accept);
    const all = rankAll().filter((name) => accept(name));
    return { names: all, total: all.length };
  }

  function search(query: string): string[] {
    return score(query) ? rankAll() : names.slice();
  }

  const byScore = (a: number, b: number): number => (scores[b] ?? 0) - (scores[a] ?? 0) || positionOf(a) - positionOf(b);

  /** Every match, best first, ties in catalog order. */
  function rankAll(): string[] {
    // Best score first, ties in catalog order. A counting sort into coarse score buckets, walking the tools in
    // catalog order, then an exact sort inside each bucket (most hold one tool or tied ones).
    let top = 0;
    for (let i = 0; i < orderLength; i++) top = Math.max(top, scores[order[i] ?? 0] ?? 0);
    const scale = top === 0 ? 0 : (BUCKETS - 1) / top;
    bucketStarts.fill(0);
    for (let i = 0; i < orderLength; i++) {
      const bucket = BUCKETS - 1 - Math.floor((scores[order[i] ?? 0] ?? 0) * scale);
      bucketStarts[bucket + 1] = (bucketStarts[bucket + 1] ?? 0) + 1;
    }
    for (let b = 1; b <= BUCKETS; b++) bucketStarts[b] = (bucketStarts[b] ?? 0) + (bucketStarts[b - 1] ?? 0);
    const ranked = new Uint32Array(orderLength);
    const next = bucketStarts.slice();
    for (let at = 0; at < size; at++) {
      const tool = catalogSlots === undefined ? at : (catalogSlots[at] ?? 0);
      if (matched[tool] === 0) continue;
      const bucket = BUCKETS - 1 - Math.floor((scores[tool] ?? 0) * scale);
      const into = next[bucket] ?? 0;
      next[bucket] = into + 1;
      ranked[into] = tool;
    }
    for (let b = 0; b < BUCKETS; b++) {
      const from = bucketStarts[b] ?? 0;
      const to = bucketStarts[b + 1] ?? 0;
      if (to - from < 2) continue;
      // The bucket is in catalog order already: only scores that differ need sorting.
      const first = scores[ranked[from] ?? 0] ?? 0;
      let same = true;
      for (let i = from + 1; i < to && same; i++) same = scores[ranked[i] ?? 0] === first;
      if (!same) ranked.subarray(from, to).sort(byScore);
    }
    const result: string[] = [];
    for (let i = 0; i < orderLength; i++) result.push(slotNames[ranked[i] ?? 0] ?? "");
    return result;
  }

  /** Scratch space for `slots` slots (grown, never shrunk: slots are not reused until a rebuild). */
  function fitScratch(slots: number): void {
    if (scores.length >= slots) return;
    scores = new Float64Array(slots);
    covered = new Float64Array(slots);
    hitKind = new Uint8Array(slots);
    lastKeyword = new Uint32Array(slots);
    hitTools = new Uint32Array(slots);
    matched = new Uint8Array(slots);
    order = new Uint32Array(slots);
  }

  function update(next: readonly ToolDefinition[]): SearchIndex | undefined {
    // Worked out before the first update changes any slot: whether the built catalog's names were all distinct.
    patchable ??= slotByName().size === tools.length;
    if (!patchable) return undefined;
    const diff = diffCatalog(slotByName(), slotTools, next, sameText);
    if (!diff) return undefined;
    const changes = debris + diff.removed.length + diff.added;
    if (changes > Math.max(MIN_PATCH_LIMIT, MAX_PATCH_SHARE * next.length)) return undefined;
    debris = changes;
    updated = true;
    // Copies: the lists the index was made with may be the catalog's own (catalogNames), which never change.
    const grownTools = slotTools.slice();
    const grownNames = slotNames.slice();
    for (const slot of diff.removed) {
      slotByName().delete(slotNames[slot] ?? "");
      grownTools[slot] = undefined;
    }
    next.forEach((tool, i) => {
      if (diff.slotOfNew[i] !== -1) return;
      const slot = grownTools.length;
      grownTools.push(tool);
      grownNames.push(tool.name);
      slotByName().set(tool.name, slot);
      added.add(tool.name, slot * 2 + 1);
      added.add(tool.description, slot * 2);
      diff.slotOfNew[i] = slot;
    });
    slotTools = grownTools;
    slotNames = grownNames;
    size = next.length;
    names = next.map((tool) => tool.name);
    const slots = Uint32Array.from(diff.slotOfNew);
    const positions = new Int32Array(slotTools.length).fill(-1);
    catalogSlots = slots;
    position = positions;
    slots.forEach((slot, at) => {
      positions[slot] = at;
    });
    fitScratch(slotTools.length);
    // Kept hits name slots of the old version and its counts: the new version walks its own.
    expensive.clear();
    keptHits = 0;
    uniqueWeight = Math.log(1 + (size - 0.5) / 1.5);
    return index;
  }

  function keywordCounts(query: string): TermCounts {
    const counts: TermCounts = new Map();
    for (const term of substringTerms(query)) counts.set(term, [scan(term, ++stamp)]);
    return counts;
  }

  function keywordBand(query: string, count: number, accept: (name: string) => boolean, maxKeywords: number): KeywordPlaces | undefined {
    // The keywords score weighs (each bare word once), counted before any is scanned: past the bound, no band.
    const bare = new Set(queryKeywords(query).map((keyword) => bareWord(keyword)).filter((word) => word !== ""));
    if (bare.size > maxKeywords) return undefined;
    recorded = [];
    let weighed: NonNullable<typeof recorded>;
    try {
      if (!score(query)) return undefined;
      weighed = recorded;
    } finally {
      recorded = undefined;
    }
    // Each accepted match's weighing as a number: per keyword (base LEVELS) the level of its place's weight.
    const matches: number[] = [];
    // Per slot: its weighing, or -1 for a tool not among the accepted matches.
    const classOf = new Int32Array(scores.length).fill(-1);
    for (let i = 0; i < orderLength; i++) {
      const tool = order[i] ?? 0;
      if (!accept(slotNames[tool] ?? "")) continue;
      matches.push(tool);
      classOf[tool] = 0;
    }
    let digit = 1;
    for (const { tools: hit, places } of weighed) {
      for (let i = 0; i < hit.length; i++) {
        const tool = hit[i] ?? 0;
        const kept = classOf[tool] ?? -1;
        if (kept >= 0) classOf[tool] = kept + digit * (PLACE_LEVEL[places[i] ?? 0] ?? 0);
      }
      digit *= LEVELS;
    }
    const sizes = new Map<number, number>();
    for (const tool of matches) sizes.set(classOf[tool] ?? 0, (sizes.get(classOf[tool] ?? 0) ?? 0) + 1);
    const levelsOf = (id: number): number[] => weighed.map((_, k) => Math.floor(id / LEVELS ** k) % LEVELS);
    // A class beats another at every weighing when each keyword's level is at least the other's (and one higher).
    const kept = new Map<number, number>();
    for (const [id, own] of [...sizes.keys()].map((key) => [key, levelsOf(key)] as const)) {
      let beaten = 0;
      for (const [other, members] of sizes) {
        if (other !== id && levelsOf(other).every((level, k) => level >= (own[k] ?? 0))) beaten += members;
      }
      if (beaten < count) kept.set(id, count - beaten);
    }
    // Each kept class's first tools in catalog order.
    const chosen = matches.filter((tool) => kept.has(classOf[tool] ?? 0)).toSorted((a, b) => positionOf(a) - positionOf(b));
    const taken = new Map<number, number>();
    const slots = chosen.filter((tool) => {
      const id = classOf[tool] ?? 0;
      const already = taken.get(id) ?? 0;
      taken.set(id, already + 1);
      return already < (kept.get(id) ?? 0);
    });
    return {
      keywords: weighed.map((entry) => entry.keyword),
      total: matches.length,
      names: slots.map((tool) => slotNames[tool] ?? ""),
      places: slots.map((tool) => levelsOf(classOf[tool] ?? 0).map((level) => LEVEL_PLACE[level] ?? 0)),
    };
  }

  function boundedBand(query: string, count: number, accept: (name: string) => boolean, bounds: KeywordBounds): { counts: TermCounts; band?: KeywordPlaces } {
    const { known, wholeTools, maxUnknown, maxTools, maxPairs } = bounds;
    const bare = new Set(queryKeywords(query).map((keyword) => bareWord(keyword)).filter((word) => word !== ""));
    let unknown = 0;
    for (const word of bare) if (!known.has(word)) unknown++;
    if (unknown > maxUnknown) return { counts: keywordCounts(query) };
    recorded = [];
    scanned = new Map();
    let weighed: NonNullable<typeof recorded>;
    let counts: TermCounts;
    try {
      if (!score(query)) return { counts: keywordCounts(query) };
      weighed = recorded;
      counts = scanned;
    } finally {
      recorded = undefined;
      scanned = undefined;
    }
    // Every keyword of the query was scanned as it was scored: its counts, in substringTerms' order.
    const ownCounts: TermCounts = new Map(substringTerms(query).map((term) => [term, counts.get(term) ?? [scan(term, ++stamp)]]));
    // Each weighed keyword's least and greatest weight: exact where the whole's count is known; else between the
    // weights of the most hits it may have in the whole (its own and every tool of the other parts) and of its own.
    const least: number[] = [];
    const most: number[] = [];
    for (const { keyword, tools: hit } of weighed) {
      const wholeHits = known.get(keyword)?.[0];
      least.push(keywordWeight(wholeTools, wholeHits ?? Math.min(wholeTools, hit.length + wholeTools - size)));
      most.push(keywordWeight(wholeTools, wholeHits ?? hit.length));
    }
    // Each match's least and greatest score (the scratch of the scoring, which the band no longer needs).
    const low = scores;
    const high = covered;
    for (let i = 0; i < orderLength; i++) {
      const tool = order[i] ?? 0;
      low[tool] = 0;
      high[tool] = 0;
    }
    for (const { tools: hit } of weighed) {
      for (let i = 0; i < hit.length; i++) {
        const tool = hit[i] ?? 0;
        low[tool] = 0;
        high[tool] = 0;
      }
    }
    weighed.forEach(({ tools: hit, places }, k) => {
      const lowByPlace = placeWeights(least[k] ?? 0);
      const highByPlace = placeWeights(most[k] ?? 0);
      for (let i = 0; i < hit.length; i++) {
        const tool = hit[i] ?? 0;
        const place = places[i] ?? 0;
        low[tool] = (low[tool] ?? 0) + (lowByPlace[place] ?? 0);
        high[tool] = (high[tool] ?? 0) + (highByPlace[place] ?? 0);
      }
    });
    const matches: number[] = [];
    for (let i = 0; i < orderLength; i++) {
      const tool = order[i] ?? 0;
      if (accept(slotNames[tool] ?? "")) matches.push(tool);
    }
    // The `count` best least scores beat every match whose greatest score is below the least of them.
    let survivors = matches;
    if (matches.length > count) {
      const best = new TopK(count, positionOf);
      for (const tool of matches) best.offer(tool, low[tool] ?? 0);
      const floor = best.lowest;
      survivors = matches.filter((tool) => (high[tool] ?? 0) + BAND_SLACK >= floor);
    }
    if (survivors.length > maxTools) return { counts: ownCounts };
    // The survivors by least score (ties in catalog order), with the place of each keyword in each.
    const byLeast = survivors.toSorted((a, b) => (low[b] ?? 0) - (low[a] ?? 0) || positionOf(a) - positionOf(b));
    const keywords = weighed.length;
    const rankOf = new Int32Array(scores.length).fill(-1);
    byLeast.forEach((tool, rank) => {
      rankOf[tool] = rank;
    });
    const placeAt = new Uint8Array(byLeast.length * keywords);
    weighed.forEach(({ tools: hit, places }, k) => {
      for (let i = 0; i < hit.length; i++) {
        const rank = rankOf[hit[i] ?? 0] ?? -1;
        if (rank >= 0) placeAt[rank * keywords + k] = places[i] ?? 0;
      }
    });
    const factor = placeWeights(1);
    /**
     * Whether the survivor ranked `a` scores more than the one ranked `b` at every weight the keywords may have (its
     * least margin: each keyword it holds in a better place at its least weight, each in a worse one at its greatest),
     * or holds every keyword in the same place and so ties with it at every weight, earlier in the catalog.
     */
    const beats = (a: number, b: number): boolean => {
      let margin = 0;
      let same = true;
      for (let k = 0; k < keywords; k++) {
        const difference = (factor[placeAt[a * keywords + k] ?? 0] ?? 0) - (factor[placeAt[b * keywords + k] ?? 0] ?? 0);
        if (difference === 0) continue;
        same = false;
        margin += difference * ((difference > 0 ? least[k] : most[k]) ?? 0);
      }
      return same || margin > BAND_SLACK;
    };
    // A survivor that beats another at every weight has the greater least score, and a tie of places comes first in
    // the catalog: only those ranked before it can beat it.
    const band: number[] = [];
    let compared = 0;
    // A page of none holds no tool.
    const ranked = count > 0 ? byLeast.length : 0;
    for (let rank = 0; rank < ranked; rank++) {
      let beaten = 0;
      for (let other = 0; other < rank && beaten < count; other++) if (beats(other, rank)) beaten++;
      compared += rank;
      // Past the budget of pairs (each survivor counted against every one before it, whether or not the count of
      // beaters stopped its pass early; checked per survivor): a second round.
      if (compared > maxPairs) return { counts: ownCounts };
      if (beaten < count) band.push(rank);
    }
    band.sort((a, b) => positionOf(byLeast[a] ?? 0) - positionOf(byLeast[b] ?? 0));
    return {
      counts: ownCounts,
      band: {
        keywords: weighed.map((entry) => entry.keyword),
        total: matches.length,
        names: band.map((rank) => slotNames[byLeast[rank] ?? 0] ?? ""),
        places: band.map((rank) => Array.from(placeAt.subarray(rank * keywords, (rank + 1) * keywords))),
      },
    };
  }

  const part: SubstringPart = {
    get size() {
      return size;
    },
    keywordCounts,
    keywordBand,
    boundedBand,
    toSnapshot: (out) => index.toSnapshot?.(out) === true,
    rankAsPart(query, catalog, count, accept, withRelevance) {
      whole = catalog;
      try {
        if (!score(query)) {
          const kept = names.filter((name) => accept(name)).slice(0, count);
          return { names: kept, scores: kept.map(() => 0), total: names.filter((name) => accept(name)).length };
        }
        const first = firstTools(count, accept);
        const unit = Math.log(1 + (catalog.catalog.toolCount - 0.5) / 1.5);
        return {
          names: first.tools.map((tool) => slotNames[tool] ?? ""),
          scores: first.scores,
          total: first.total,
          ...(withRelevance ? { relevance: first.tools.map((tool) => (unit <= 0 ? 0 : Math.min(1, (covered[tool] ?? 0) / unit))) } : {}),
        };
      } finally {
        whole = undefined;
      }
    },
  };

  const index: SearchIndex = {
    get size() {
      return size;
    },
    search,
    searchPage,
    scored,
    update,
    toSnapshot(out: SnapshotWriter): boolean {
      // A patched index's words are partly in the added vocabulary: the snapshot of a fresh build is the one to write.
      if (updated) return false;
      writeVocabulary(out, vocabulary, tools.length);
      out.int(tools.length);
      return true;
    },
  };
  return { index, part };
}
