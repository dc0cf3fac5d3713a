// Ranked search: a MiniSearch (BM25) index over names, descriptions, parameters and groups.
// Text is split for identifiers (snake, kebab, dotted, camelCase, digits) and for Chinese, Japanese and Korean runs
// (overlapping bigrams); English stop words are dropped and the rest stemmed, the same way at index and query time.
// Queries: rare words weigh more (catalog-wide IDF), an unknown word backs off to its longest known prefix, prefixes
// match, typos of unknown words are forgiven, and a tool named exactly in the query comes first.
// Tuned on ../shared/eval/metatool.json with general IR choices only (see bench/README.md).
import MiniSearch from "minisearch";
import type { AsPlainObject, Options, SearchOptions } from "minisearch";
import type { ToolDefinition } from "../types.ts";
import type { SearchIndex } from "./types.ts";

// ---------------------------------------------------------------------------------------------------------------
// Tokenizing

const CJK_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const CJK_RUNS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;
const NOT_WORD = /[^\p{L}\p{N}]+/u;
const ASCII_SEPARATORS = /[^A-Za-z0-9]+/;
const PLAIN_WORD = /^(?:[A-Za-z][a-z]*|[0-9]+)$/;
const NON_ASCII = /[\u0080-\uffff]/;
const MARKS = /\p{Mn}+/gu;
const UPPER_INSIDE = /.\p{Lu}/u;
const DIGIT = /\p{N}/u;
const CAMEL_BOUNDARIES: readonly (readonly [RegExp, string])[] = [
  [/(\p{Ll})(\p{Lu})/gu, "$1 $2"], // getWeather → get Weather
  [/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2"], // HTTPServer → HTTP Server
  [/(\p{L})(\p{N})/gu, "$1 $2"], // utf8 → utf 8
  [/(\p{N})(\p{L})/gu, "$1 $2"], // 2fa → 2 fa
];

/** Removes accents (café → cafe) and folds width variants, so that either spelling finds the other. */
function fold(text: string): string {
  if (!NON_ASCII.test(text)) return text;
  return text.normalize("NFKD").replace(MARKS, "").normalize("NFC");
}

/** Splits an identifier-like word at case and digit boundaries, into `terms`. */
function pushWord(word: string, terms: string[]): void {
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
    for (const word of text.split(ASCII_SEPARATORS)) pushWord(word, terms);
    return terms;
  }
  const spaced = fold(text).replace(CJK_RUNS, (run) => ` ${run} `);
  for (const word of spaced.split(NOT_WORD)) {
    if (!CJK_CHAR.test(word)) pushWord(word, terms);
    else for (const gram of cjkBigrams(word)) terms.push(gram);
  }
  return terms;
}

// ---------------------------------------------------------------------------------------------------------------
// Stop words: the SMART list (Salton's retrieval system), split at apostrophes as the tokenizer splits them, less a
// few words that name things tools handle (name, value, sent, novel). It also covers the filler of requests to an
// assistant ("could you help me …", "i'm looking for …").

const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "able about above according accordingly across actually after afterwards again against ain all allow allows " +
    "almost alone along already also although always am among amongst an and another any anybody anyhow anyone " +
    "anything anyway anyways anywhere apart appear appreciate appropriate are aren around as aside ask asking " +
    "associated at available away awfully be became because become becomes becoming been before beforehand " +
    "behind being believe below beside besides best better between beyond both brief but by came can cannot cant " +
    "cause causes certain certainly changes clearly co com come comes concerning consequently consider " +
    "considering contain containing contains corresponding could couldn course currently definitely described " +
    "despite did didn different do does doesn doing don done down downwards during each edu eg eight either else " +
    "elsewhere enough entirely especially et etc even ever every everybody everyone everything everywhere ex " +
    "exactly example except far few fifth first five followed following follows for former formerly forth four " +
    "from further furthermore get gets getting given gives go goes going gone got gotten greetings had hadn " +
    "happens hardly has hasn have haven having he hello help hence her here hereafter hereby herein hereupon " +
    "hers herself hi him himself his hither hopefully how howbeit however ie if ignored immediate in inasmuch " +
    "inc indeed indicate indicated indicates inner insofar instead into inward is isn it its itself just keep " +
    "keeps kept know known knows last lately later latter latterly least less lest let like liked likely little " +
    "ll look looking looks ltd mainly many may maybe me mean meanwhile merely might mon more moreover most " +
    "mostly much must my myself namely nd near nearly necessary need needs neither never nevertheless new next " +
    "nine no nobody non none noone nor normally not nothing now nowhere obviously of off often oh ok okay old on " +
    "once one ones only onto or other others otherwise ought our ours ourselves out outside over overall own " +
    "particular particularly per perhaps placed please plus possible presumably probably provides que quite qv " +
    "rather rd re really reasonably regarding regardless regards relatively respectively right said same saw say " +
    "saying says second secondly see seeing seem seemed seeming seems seen self selves sensible serious " +
    "seriously seven several shall she should shouldn since six so some somebody somehow someone something " +
    "sometime sometimes somewhat somewhere soon sorry specified specify specifying still sub such sup sure take " +
    "taken tell tends th than thank thanks thanx that thats the their theirs them themselves then thence there " +
    "thereafter thereby therefore therein theres thereupon these they think third this thorough thoroughly those " +
    "though three through throughout thru thus to together too took toward towards tried tries truly try trying " +
    "twice two un under unfortunately unless unlikely until unto up upon us use used useful uses using usually " +
    "various ve very via viz vs want wants was wasn way we welcome well went were weren what whatever when " +
    "whence whenever where whereafter whereas whereby wherein whereupon wherever whether which while whither who " +
    "whoever whole whom whose why will willing wish with within without won wonder would yes yet you your yours " +
    "yourself yourselves zero "
  ).split(" "),
);

// ---------------------------------------------------------------------------------------------------------------
// Stemming: the Porter (1980) algorithm for lower-case ASCII words, with two conflations it misses: a final "i"
// left by its step 1c or kept from "-ial" (financial, finance → financ; summary, summarize → summar) and -yze
// next to -ysis (analyze, analysis → analys).

function isConsonant(word: string, i: number): boolean {
  const c = word[i];
  if (c === "a" || c === "e" || c === "i" || c === "o" || c === "u") return false;
  if (c === "y") return i === 0 || !isConsonant(word, i - 1);
  return true;
}

/** Porter's m: the number of vowel-consonant sequences in `base`. */
function measure(base: string): number {
  let m = 0;
  let i = 0;
  const n = base.length;
  while (i < n && isConsonant(base, i)) i++;
  while (i < n) {
    while (i < n && !isConsonant(base, i)) i++;
    if (i >= n) break;
    while (i < n && isConsonant(base, i)) i++;
    m++;
  }
  return m;
}

function hasVowel(base: string): boolean {
  for (let i = 0; i < base.length; i++) if (!isConsonant(base, i)) return true;
  return false;
}

function endsDoubleConsonant(word: string): boolean {
  const n = word.length;
  return n >= 2 && word[n - 1] === word[n - 2] && isConsonant(word, n - 1);
}

/** Ends consonant-vowel-consonant, the last not w, x or y (hop, not hoop or snow). */
function endsCvc(word: string): boolean {
  const n = word.length;
  if (n < 3) return false;
  const last = word[n - 1];
  return (
    isConsonant(word, n - 3) &&
    !isConsonant(word, n - 2) &&
    isConsonant(word, n - 1) &&
    last !== "w" &&
    last !== "x" &&
    last !== "y"
  );
}

type SuffixRule = readonly [suffix: string, replacement: string];

/** Replaces the first matching suffix when the remaining base has m > 0. */
function replaceSuffix(word: string, rules: readonly SuffixRule[]): string {
  for (const [suffix, replacement] of rules) {
    if (!word.endsWith(suffix)) continue;
    const base = word.slice(0, word.length - suffix.length);
    return measure(base) > 0 ? base + replacement : word;
  }
  return word;
}

const STEP2: readonly SuffixRule[] = [
  ["ational", "ate"], ["tional", "tion"], ["enci", "ence"], ["anci", "ance"], ["izer", "ize"], ["bli", "ble"],
  ["alli", "al"], ["entli", "ent"], ["eli", "e"], ["ousli", "ous"], ["ization", "ize"], ["ation", "ate"],
  ["ator", "ate"], ["alism", "al"], ["iveness", "ive"], ["fulness", "ful"], ["ousness", "ous"], ["aliti", "al"],
  ["iviti", "ive"], ["biliti", "ble"], ["logi", "log"],
];
const STEP3: readonly SuffixRule[] = [
  ["icate", "ic"], ["ative", ""], ["alize", "al"], ["iciti", "ic"], ["ical", "ic"], ["ful", ""], ["ness", ""],
];
const STEP4 = [
  "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou", "ism", "ate", "iti",
  "ous", "ive", "ize",
];

function step1(word: string): string {
  let w = word;
  if (w.endsWith("sses") || w.endsWith("ies")) w = w.slice(0, -2);
  else if (w.endsWith("s") && !w.endsWith("ss")) w = w.slice(0, -1);

  let removed = false;
  if (w.endsWith("eed")) {
    if (measure(w.slice(0, -3)) > 0) w = w.slice(0, -1);
  } else if (w.endsWith("ed") && hasVowel(w.slice(0, -2))) {
    w = w.slice(0, -2);
    removed = true;
  } else if (w.endsWith("ing") && hasVowel(w.slice(0, -3))) {
    w = w.slice(0, -3);
    removed = true;
  }
  if (removed) {
    if (w.endsWith("at") || w.endsWith("bl") || w.endsWith("iz")) w += "e";
    else if (endsDoubleConsonant(w) && !/[lsz]$/.test(w)) w = w.slice(0, -1);
    else if (measure(w) === 1 && endsCvc(w)) w += "e";
  }
  if (w.endsWith("y") && hasVowel(w.slice(0, -1))) w = `${w.slice(0, -1)}i`;
  return w;
}

function step4(word: string): string {
  for (const suffix of STEP4) {
    if (!word.endsWith(suffix)) continue;
    const base = word.slice(0, word.length - suffix.length);
    if (measure(base) <= 1) return word;
    if (suffix === "ion" && !base.endsWith("s") && !base.endsWith("t")) return word;
    return base;
  }
  return word;
}

function step5(word: string): string {
  let w = word;
  if (w.endsWith("e")) {
    const base = w.slice(0, -1);
    const m = measure(base);
    if (m > 1 || (m === 1 && !endsCvc(base))) w = base;
  }
  if (w.endsWith("ll") && measure(w) > 1) w = w.slice(0, -1);
  return w;
}

const ASCII_WORD = /^[a-z]+$/;

/** The stem of a lower-case word; words that are not plain ASCII letters, or of 3 letters or fewer, stay as they are. */
export function stem(word: string): string {
  if (word.length <= 3 || !ASCII_WORD.test(word)) return word;
  let w = step5(step4(replaceSuffix(replaceSuffix(step1(word), STEP2), STEP3)));
  if (w.length >= 6 && w.endsWith("i")) w = w.slice(0, -1);
  if (w.endsWith("yz")) w = `${w.slice(0, -1)}s`;
  return w;
}

// Terms repeat across tools and queries: processing each once per isolate keeps index builds and searches cheap.
const TERM_CACHE_LIMIT = 100_000;
const termCache = new Map<string, string | null>();

/** A raw term as indexed and searched: lower-case, stemmed; null for stop words and lone Latin letters. */
export function processTerm(term: string): string | null {
  const cached = termCache.get(term);
  if (cached !== undefined) return cached;
  const lower = term.toLowerCase();
  const dropped = STOP_WORDS.has(lower) || (lower.length === 1 && !CJK_CHAR.test(lower) && !DIGIT.test(lower));
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

// ---------------------------------------------------------------------------------------------------------------
// Documents

export const FIELDS = ["name", "description", "parameterNames", "parameterDescriptions", "groups"] as const;
export type FieldName = (typeof FIELDS)[number];

/** How much a match in each field counts: the name says most about what a tool does. */
const FIELD_BOOST: Readonly<Record<FieldName, number>> = {
  name: 2.5,
  description: 1,
  parameterNames: 0.4,
  parameterDescriptions: 0.3,
  groups: 1,
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Collects parameter names and texts (descriptions, titles, string enum values), `depth` levels deep. */
function collectParameters(schema: unknown, depth: number, names: string[], texts: string[]): void {
  if (!isRecord(schema) || !isRecord(schema.properties)) return;
  for (const [name, property] of Object.entries(schema.properties)) {
    names.push(name);
    if (!isRecord(property)) continue;
    if (typeof property.description === "string") texts.push(property.description);
    if (typeof property.title === "string") texts.push(property.title);
    if (Array.isArray(property.enum)) {
      for (const value of property.enum) if (typeof value === "string") texts.push(value);
    }
    if (depth > 1) {
      collectParameters(property, depth - 1, names, texts);
      collectParameters(property.items, depth - 1, names, texts);
    }
  }
}

/** The text of each indexed field of a tool (not yet analyzed). */
export function toolFieldTexts(tool: ToolDefinition): Record<FieldName, string> {
  const names: string[] = [];
  const texts: string[] = [];
  collectParameters(tool.parameters, 2, names, texts);
  return {
    name: tool.name,
    description: tool.description,
    parameterNames: names.join(" "),
    parameterDescriptions: texts.join(" "),
    groups: (tool.groups ?? []).join(" "),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The index

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

const BM25 = { k: 1.2, b: 0.2, d: 0 } as const;
const MATCH_WEIGHTS = { prefix: 0.55, fuzzy: 0.3 } as const;

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

/** A list of 32-bit integers in one typed array that grows by doubling (no object per element). */
class IntList {
  #values = new Int32Array(1024);
  #length = 0;

  get length(): number {
    return this.#length;
  }

  at(index: number): number {
    return this.#values[index] ?? 0;
  }

  set(index: number, value: number): void {
    this.#values[index] = value;
  }

  /** Appends `value`; returns its index. */
  push(value: number): number {
    if (this.#length === this.#values.length) {
      const grown = new Int32Array(this.#values.length * 2);
      grown.set(this.#values);
      this.#values = grown;
    }
    this.#values[this.#length] = value;
    return this.#length++;
  }
}

const DROPPED = -1;

/**
 * Collects one posting per distinct (term, field, tool) of a catalog, in catalog order, in flat typed arrays: the
 * garbage collector has next to nothing to trace while a large catalog is analyzed.
 */
class PostingCollector {
  readonly terms: string[] = [];
  /** Raw token → term id (or DROPPED), so that each distinct spelling is processed once per build. */
  readonly #byToken = new Map<string, number>();
  readonly #byTerm = new Map<string, number>();
  // Per term: the slot (tool × field) and posting it was last seen in, the last tool, and how many tools hold it.
  readonly #lastSlot = new IntList();
  readonly #lastPosting = new IntList();
  readonly #lastTool = new IntList();
  readonly toolCounts = new IntList();
  // Per posting.
  readonly postingTerm = new IntList();
  readonly postingTool = new IntList();
  readonly postingField = new IntList();
  readonly postingCount = new IntList();

  #termId(token: string): number {
    const known = this.#byToken.get(token);
    if (known !== undefined) return known;
    const term = processTerm(token);
    let termId = term ? this.#byTerm.get(term) : DROPPED;
    if (termId === undefined && term) {
      termId = this.terms.push(term) - 1;
      this.#byTerm.set(term, termId);
      this.#lastSlot.push(-1);
      this.#lastPosting.push(-1);
      this.#lastTool.push(-1);
      this.toolCounts.push(0);
    }
    this.#byToken.set(token, termId ?? DROPPED);
    return termId ?? DROPPED;
  }

  /** Records one occurrence of `token` in a field of a tool; true when it starts a new posting. */
  add(token: string, toolId: number, fieldId: number): boolean {
    const slot = toolId * FIELDS.length + fieldId;
    const termId = this.#termId(token);
    if (termId === DROPPED) return false;
    if (this.#lastSlot.at(termId) === slot) {
      const posting = this.#lastPosting.at(termId);
      this.postingCount.set(posting, this.postingCount.at(posting) + 1);
      return false;
    }
    this.#lastSlot.set(termId, slot);
    this.#lastPosting.set(termId, this.postingTerm.push(termId));
    this.postingTool.push(toolId);
    this.postingField.push(fieldId);
    this.postingCount.push(1);
    if (this.#lastTool.at(termId) !== toolId) {
      this.#lastTool.set(termId, toolId);
      this.toolCounts.set(termId, this.toolCounts.at(termId) + 1);
    }
    return true;
  }

  /** The postings grouped by term (a counting sort: catalog order stays within each term). */
  byTerm(): { starts: Int32Array; order: Int32Array } {
    const count = this.postingTerm.length;
    const starts = new Int32Array(this.terms.length + 1);
    for (let i = 0; i < count; i++) starts[this.postingTerm.at(i) + 1] = (starts[this.postingTerm.at(i) + 1] ?? 0) + 1;
    for (let t = 0; t < this.terms.length; t++) starts[t + 1] = (starts[t + 1] ?? 0) + (starts[t] ?? 0);
    const next = starts.slice(0, this.terms.length);
    const order = new Int32Array(count);
    for (let i = 0; i < count; i++) {
      const termId = this.postingTerm.at(i);
      const position = next[termId] ?? 0;
      order[position] = i;
      next[termId] = position + 1;
    }
    return { starts, order };
  }
}

const FORCE_DICTIONARY_KEY = 2 ** 30;

/**
 * An empty object that keeps integer keys in a hash table from the start. A plain `{}` whose first key is 700 grows
 * an array of 700 empty slots, which `Object.keys` then walks: catalogs of a few thousand tools paid for that.
 */
function sparseRecord(): Record<number, number> {
  const record: Record<number, number> = {};
  record[FORCE_DICTIONARY_KEY] = 0;
  delete record[FORCE_DICTIONARY_KEY];
  return record;
}

type IndexEntry = AsPlainObject["index"][number];

/**
 * The serialized index, made one entry at a time while `MiniSearch.loadJS` reads it (it only iterates it): each
 * entry is garbage as soon as MiniSearch has copied it, instead of all of them living through the whole build.
 */
class LazyEntries extends Array<IndexEntry> {
  readonly #terms: readonly string[];
  readonly #entry: (termId: number) => IndexEntry[1];
  constructor(terms: readonly string[], entry: (termId: number) => IndexEntry[1]) {
    super();
    this.#terms = terms;
    this.#entry = entry;
  }
  override *[Symbol.iterator](): ArrayIterator<IndexEntry> {
    for (let termId = 0; termId < this.#terms.length; termId++) yield [this.#terms[termId] ?? "", this.#entry(termId)];
  }
}

export interface BuiltIndex {
  index: MiniSearch;
  /** Term → in how many tools it occurs (any field). */
  documentFrequency: Map<string, number>;
}

/**
 * Analyzes every tool once and builds the MiniSearch index from the collected postings with `MiniSearch.loadJS`.
 * It is the index that MiniSearch's own `addAll` builds from the same terms (the tests check that they are equal),
 * in about half the time: each distinct term enters MiniSearch's radix tree once instead of once per occurrence.
 */
export function buildIndex(tools: readonly ToolDefinition[]): BuiltIndex {
  const collector = new PostingCollector();
  const fieldLength: Record<string, number[]> = {};
  const lengthSums = FIELDS.map(() => 0);
  tools.forEach((tool, toolId) => {
    const texts = toolFieldTexts(tool);
    const lengths: number[] = [];
    FIELDS.forEach((field, fieldId) => {
      // A field's length is its number of distinct terms, as MiniSearch counts it.
      let distinct = 0;
      for (const token of tokenize(texts[field])) if (collector.add(token, toolId, fieldId)) distinct++;
      lengths.push(distinct);
      lengthSums[fieldId] = (lengthSums[fieldId] ?? 0) + distinct;
    });
    fieldLength[toolId] = lengths;
  });

  const { terms } = collector;
  const documentFrequency = new Map<string, number>();
  terms.forEach((term, termId) => documentFrequency.set(term, collector.toolCounts.at(termId)));
  const { starts, order } = collector.byTerm();
  /** A term's serialized index entry: field id → tool id → occurrences. */
  const entry = (termId: number): IndexEntry[1] => {
    const byField: IndexEntry[1] = {};
    for (let k = starts[termId] ?? 0, end = starts[termId + 1] ?? 0; k < end; k++) {
      const posting = order[k] ?? 0;
      const frequencies = (byField[collector.postingField.at(posting)] ??= sparseRecord());
      frequencies[collector.postingTool.at(posting)] = collector.postingCount.at(posting);
    }
    return byField;
  };

  const documentIds: Record<string, number> = {};
  for (let toolId = 0; toolId < tools.length; toolId++) documentIds[toolId] = toolId;
  const plain: AsPlainObject = {
    documentCount: tools.length,
    nextId: tools.length,
    documentIds,
    fieldIds: Object.fromEntries(FIELDS.map((field, fieldId) => [field, fieldId])),
    fieldLength,
    averageFieldLength: lengthSums.map((sum) => (tools.length === 0 ? 0 : sum / tools.length)),
    storedFields: {},
    dirtCount: 0,
    index: new LazyEntries(terms, entry),
    serializationVersion: 2,
  };
  return { index: MiniSearch.loadJS(plain, MINISEARCH_OPTIONS), documentFrequency };
}

export function createMiniSearchIndex(tools: readonly ToolDefinition[]): SearchIndex {
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

  const queryWeights = (query: string): Map<string, number> => {
    const counts = new Map<string, number>();
    for (const term of analyze(query)) counts.set(term, (counts.get(term) ?? 0) + 1);
    const weights = new Map<string, number>();
    for (const [term, count] of counts) weights.set(term, count ** REPEAT_EXPONENT * idfWeight(term));
    for (const term of counts.keys()) {
      if (documentFrequency.has(term)) continue;
      const known = backoff(term);
      if (known !== undefined && !weights.has(known)) weights.set(known, BACKOFF_WEIGHT * idfWeight(known));
    }
    return weights;
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

  return {
    size: toolCount,
    search(query: string): string[] {
      if (query.trim() === "") return [...names];
      const exact = exactNameMatches(query);
      const weights = queryWeights(query);
      const options: SearchOptions = {
        boost: { ...FIELD_BOOST },
        combineWith: "OR",
        bm25: BM25,
        weights: MATCH_WEIGHTS,
        // The query is analyzed above; MiniSearch only splits the joined terms again.
        tokenize: splitTerms,
        processTerm: (term) => term,
        boostTerm: (term) => weights.get(term) ?? 0,
        prefix: (term) => term.length >= MIN_PREFIX_LENGTH || CJK_CHAR.test(term),
        // One edit away, and only for words the catalog does not know (those can be typos): long queries stay fast.
        fuzzy: (term) => (term.length >= MIN_FUZZY_LENGTH && !documentFrequency.has(term) && ASCII_WORD.test(term) ? 1 : false),
      };
      const results = weights.size === 0 ? [] : index.search([...weights.keys()].join(" "), options);
      // Equal scores keep catalog order, so that the answer never depends on the index's internal order.
      const scored = results.map((result) => ({ id: Number(result.id), score: result.score }));
      scored.sort((a, b) => b.score - a.score || a.id - b.id);
      const ranked = [...exact];
      const placed = new Set(exact);
      for (const { id } of scored) if (!placed.has(id)) ranked.push(id);
      return ranked.map((id) => names[id] ?? "");
    },
  };
}
