// A request that names a tool finds it first, in either mode: the name as written (`get_weather`), its words spelt
// another way (`get weather`, `getWeather`, `GET-WEATHER`), or, for a tool an upstream server serves as
// `server__name`, the upstream's own name (`echo` for `everything__echo`). The whole request is such a name, or one of
// its identifier-like words is (`call get_weather for Paris`). Both indexes are wrapped alike (withExactNames): the
// ranking below is the index's own, less the tools already placed.
import type { ToolDefinition } from "../types.ts";
import { catalogNames } from "./catalogNames.ts";
import { CAMEL_BOUNDARIES } from "./text.ts";
import { SnapshotError, type SnapshotReader, type SnapshotWriter } from "./snapshotCodec.ts";
import type { ScoredMatch, SearchIndex, SearchPage } from "./types.ts";

/** An upstream tool's gateway name is `server__name`: its own name follows the last separator. */
const UPSTREAM_SEPARATOR = "__";
const IDENTIFIER_LIKE = /[_.\-\d]|\p{Ll}\p{Lu}/u;
const SURROUNDING_PUNCTUATION = /^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu;
const WORD_RUNS = /[\p{L}\p{N}]+/gu;
const LOWER_ASCII_WORD = /^[a-z]+$/;
/** Longer text is no name (names are at most 64 characters; spaced words a little longer): no key is worked out. */
const MAX_NAME_TEXT = 200;

/** The words of a name, lower-case, one space apart: `get_weather`, `getWeather` and `Get Weather` all give "get weather". */
export function nameKey(text: string): string {
  if (text.length > MAX_NAME_TEXT) return "";
  // Nearly every name is ASCII: split by character codes, the same cuts as the patterns below (which cost about
  // 40 µs a name: 0.4 s for a 10,000-tool catalog, on every index build and on a cold isolate's first search).
  if (isAscii(text)) return asciiNameKey(text);
  const words: string[] = [];
  for (const run of text.match(WORD_RUNS) ?? []) {
    // Most runs of most names are one lower-case word: no boundary to find (the four patterns cost a build at
    // 10,000 tools a sixth of its time).
    if (LOWER_ASCII_WORD.test(run)) {
      words.push(run);
      continue;
    }
    let spaced = run;
    for (const [pattern, replacement] of CAMEL_BOUNDARIES) spaced = spaced.replace(pattern, replacement);
    for (const word of spaced.split(" ")) if (word !== "") words.push(word.toLowerCase());
  }
  return words.join(" ");
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 127) return false;
  return true;
}
const OTHER = 0;
const LOWER = 1;
const UPPER = 2;
const DIGIT = 3;

function asciiClass(code: number): 0 | 1 | 2 | 3 {
  if (code >= 97 && code <= 122) return LOWER;
  if (code >= 65 && code <= 90) return UPPER;
  if (code >= 48 && code <= 57) return DIGIT;
  return OTHER;
}

/**
 * nameKey of an ASCII text: words are runs of letters and digits, cut where CAMEL_BOUNDARIES cut (a lower-case letter
 * before an upper-case one, an upper-case letter before an upper-case one followed by a lower-case one, a letter
 * next to a digit), lower-cased, one space apart.
 */
function asciiNameKey(text: string): string {
  const words: string[] = [];
  let start = -1;
  let before: number = OTHER;
  let kind = text.length > 0 ? asciiClass(text.charCodeAt(0)) : OTHER;
  for (let i = 0; i < text.length; i++) {
    const after = i + 1 < text.length ? asciiClass(text.charCodeAt(i + 1)) : OTHER;
    if (kind === OTHER) {
      if (start >= 0) words.push(text.slice(start, i));
      start = -1;
    } else if (start < 0) start = i;
    else if ((before === LOWER && kind === UPPER) || (before === UPPER && kind === UPPER && after === LOWER) || ((before === DIGIT) !== (kind === DIGIT))) {
      words.push(text.slice(start, i));
      start = i;
    }
    before = kind;
    kind = after;
  }
  if (start >= 0) words.push(text.slice(start));
  return words.join(" ").toLowerCase();
}

/**
 * How closely a query names a tool, best first: its name as written (with its punctuation: `a_` is not `a`), then
 * without surrounding punctuation, ignoring case, its words, its own name's words.
 */
const AS_WRITTEN = 0;
const EXACT = 1;
const IGNORING_CASE = 2;
const WORDS = 3;
const OWN_NAME_WORDS = 4;

/**
 * A hash of a name key's letters and digits (its spaces left out). For an ASCII name it is worked out from the name
 * itself, without building its key (nameKey's words, lower-cased, are the name's letters and digits lower-cased);
 * equal keys have equal hashes, so a hash narrows the names to compare.
 */
function keyHash(text: string, from: number, ascii: boolean): number {
  if (!ascii) return keyHash(nameKey(text.slice(from)), 0, true);
  let hash = 0x811c9dc5;
  for (let i = from; i < text.length; i++) {
    let code = text.charCodeAt(i);
    if (code >= 65 && code <= 90) code += 32;
    else if (!((code >= 97 && code <= 122) || (code >= 48 && code <= 57))) continue;
    hash = Math.imul(hash ^ code, 0x01000193);
  }
  return hash;
}

/**
 * Names by their words (nameKey), and by their own name's words for `server__name` tools. A hash per name, worked
 * out on the first query (a cold isolate's restored index pays nothing per tool before it is searched, and no key
 * string is made per name); a query compares the hashes and works out the key of the few names that match.
 */
export class NameLookup {
  readonly #names: readonly string[];
  /** Per name, keyHash of its key, and of its own name's key (where it has one: #ownStart ≥ 0). */
  #hashes: Int32Array | undefined;
  #ownHashes: Int32Array | undefined;
  #ownStart: Int32Array | undefined;

  /** `hashed`: the hashes a lookup over the same tools wrote (writeHashes), read instead of worked out again. */
  constructor(tools: readonly ToolDefinition[], hashed?: { hashes: Int32Array; ownHashes: Int32Array; ownStart: Int32Array }) {
    this.#names = catalogNames(tools);
    if (hashed === undefined) return;
    const { hashes, ownHashes, ownStart } = hashed;
    if (hashes.length !== this.#names.length || ownHashes.length !== hashes.length || ownStart.length !== hashes.length) {
      throw new SnapshotError("the snapshot's name hashes do not match its tools");
    }
    this.#hashes = hashes;
    this.#ownHashes = ownHashes;
    this.#ownStart = ownStart;
  }

  /** The names' hashes (worked out now if not yet), for a snapshot: a restored lookup reads them (NameLookup's constructor). */
  writeHashes(out: SnapshotWriter): void {
    const { hashes, ownHashes, ownStart } = this.#hashed();
    out.i32(hashes);
    out.i32(ownHashes);
    out.i32(ownStart);
  }

  #hashed(): { hashes: Int32Array; ownHashes: Int32Array; ownStart: Int32Array } {
    if (this.#hashes !== undefined && this.#ownHashes !== undefined && this.#ownStart !== undefined) {
      return { hashes: this.#hashes, ownHashes: this.#ownHashes, ownStart: this.#ownStart };
    }
    const count = this.#names.length;
    const hashes = new Int32Array(count);
    const ownHashes = new Int32Array(count);
    const ownStart = new Int32Array(count).fill(-1);
    for (let i = 0; i < count; i++) {
      const name = this.#names[i] ?? "";
      const ascii = isAscii(name);
      hashes[i] = keyHash(name, 0, ascii);
      const at = name.lastIndexOf(UPSTREAM_SEPARATOR);
      if (at > 0 && at + UPSTREAM_SEPARATOR.length < name.length) {
        ownStart[i] = at + UPSTREAM_SEPARATOR.length;
        ownHashes[i] = keyHash(name, at + UPSTREAM_SEPARATOR.length, ascii);
      }
    }
    this.#hashes = hashes;
    this.#ownHashes = ownHashes;
    this.#ownStart = ownStart;
    return { hashes, ownHashes, ownStart };
  }

  /** The names whose key is `key`, and those whose own name's key is, in catalog order. */
  #withKey(key: string): { names: string[]; ownNames: string[] } {
    const { hashes, ownHashes, ownStart } = this.#hashed();
    const hash = keyHash(key, 0, true);
    const names: string[] = [];
    const ownNames: string[] = [];
    const all = this.#names;
    // The typed arrays' own search finds the equal hashes (a cold isolate's first search would otherwise compare every
    // name's two hashes in code not compiled yet); each list comes out in catalog order.
    for (let i = hashes.indexOf(hash); i !== -1; i = hashes.indexOf(hash, i + 1)) {
      const name = all[i] ?? "";
      if (nameKey(name) === key) names.push(name);
    }
    for (let i = ownHashes.indexOf(hash); i !== -1; i = ownHashes.indexOf(hash, i + 1)) {
      const own = ownStart[i] ?? -1;
      const name = all[i] ?? "";
      if (own >= 0 && nameKey(name.slice(own)) === key) ownNames.push(name);
    }
    return { names, ownNames };
  }

  /**
   * The tools `query` names, best first: the whole query as a name, then each identifier-like word of it; for each,
   * the closest matches first (AS_WRITTEN to OWN_NAME_WORDS), ties in catalog order.
   */
  named(query: string): string[] {
    const found: string[] = [];
    const seen = new Set<string>();
    const add = (text: string): void => {
      const bare = text.replace(SURROUNDING_PUNCTUATION, "");
      const key = nameKey(bare);
      if (key === "") return;
      const candidates: { name: string; closeness: number }[] = [];
      const matching = this.#withKey(key);
      for (const name of matching.names) {
        const lower = name.toLowerCase();
        const closeness = name === text ? AS_WRITTEN : name === bare ? EXACT
          : lower === text.toLowerCase() || lower === bare.toLowerCase() ? IGNORING_CASE : WORDS;
        candidates.push({ name, closeness });
      }
      for (const name of matching.ownNames) candidates.push({ name, closeness: OWN_NAME_WORDS });
      // A stable sort: ties stay in catalog order.
      for (const { name } of candidates.toSorted((a, b) => a.closeness - b.closeness)) {
        if (seen.has(name)) continue;
        seen.add(name);
        found.push(name);
      }
    };
    const trimmed = query.trim();
    // nameKey gives no key for a text longer than any name: a long request is read word by word only.
    add(trimmed);
    for (const word of trimmed.split(/\s+/u)) {
      const bare = word.replace(SURROUNDING_PUNCTUATION, "");
      if (bare !== trimmed && IDENTIFIER_LIKE.test(bare)) add(bare);
    }
    return found;
  }
}


/** `index` with the tools a query names placed first (NameLookup), then the rest of its own ranking. */
class ExactNamesFirst implements SearchIndex {
  #index: SearchIndex;
  #names: NameLookup;
  /** The list the index answers for (every name it ranks is one of its tools'): the one it was made or updated with. */
  #tools: readonly ToolDefinition[];

  constructor(index: SearchIndex, tools: readonly ToolDefinition[], names = new NameLookup(tools)) {
    this.#index = index;
    this.#names = names;
    this.#tools = tools;
  }

  answersFor(tools: readonly ToolDefinition[]): boolean {
    return this.#tools === tools;
  }

  get size(): number {
    return this.#index.size;
  }

  search(query: string): string[] {
    return this.searchPage(query, Infinity).names;
  }

  /** The tools `query` names, closest first (what searchPage places first). */
  named(query: string): string[] {
    return query.trim() === "" ? [] : this.#names.named(query);
  }

  searchPage(query: string, count: number, accept: (name: string) => boolean = () => true): SearchPage {
    if (query.trim() === "") return this.#index.searchPage(query, count, accept);
    const named = this.#names.named(query).filter((name) => accept(name));
    if (named.length === 0) return this.#index.searchPage(query, count, accept);
    const placed = new Set(named);
    const rest = this.#index.searchPage(query, Math.max(0, count - named.length), (name) => !placed.has(name) && accept(name));
    return { names: [...named, ...rest.names].slice(0, count), total: named.length + rest.total };
  }

  scored(query: string, limit: number, accept: (name: string) => boolean = () => true): ScoredMatch[] {
    if (query.trim() === "" || limit <= 0) return [];
    const named = this.#names.named(query).filter((name) => accept(name)).slice(0, limit);
    if (named.length === 0) return this.#index.scored(query, limit, accept);
    const placed = new Set(named);
    // Named outright: as relevant as a match can be.
    const first = named.map((name) => ({ name, relevance: 1 }));
    if (named.length >= limit) return first;
    return [...first, ...this.#index.scored(query, limit - named.length, (name) => !placed.has(name) && accept(name))];
  }

  /** The inner index's snapshot, then the name lookup's hashes (restoreExactNames reads them back). */
  toSnapshot(out: SnapshotWriter): boolean {
    if (this.#index.toSnapshot?.(out) !== true) return false;
    this.#names.writeHashes(out);
    return true;
  }

  update(tools: readonly ToolDefinition[]): SearchIndex | undefined {
    const next = this.#index.update?.(tools);
    if (next === undefined) return undefined;
    this.#index = next;
    this.#names = new NameLookup(tools);
    this.#tools = tools;
    return this;
  }
}

/**
 * Whether `index` (one withExactNames made) answers for exactly the list `tools` (made or last updated with that very
 * array): every name it ranks is then one of those tools', and a caller need not look each up to know it.
 */
export function indexAnswersFor(index: object | undefined, tools: readonly ToolDefinition[]): boolean {
  return index instanceof ExactNamesFirst && index.answersFor(tools);
}

/** The tools `query` names in `index` (one withExactNames made), closest first; none for any other index. */
export function namedTools(index: SearchIndex, query: string): string[] {
  return index instanceof ExactNamesFirst ? index.named(query) : [];
}

/** `index` (over `tools`) answering a query that names a tool with that tool first. */
export function withExactNames(index: SearchIndex, tools: readonly ToolDefinition[]): SearchIndex {
  return new ExactNamesFirst(index, tools);
}

/** withExactNames for an index restored from a snapshot (its toSnapshot): the names' hashes read, not worked out. */
export function restoreExactNames(index: SearchIndex, tools: readonly ToolDefinition[], input: SnapshotReader): SearchIndex {
  return new ExactNamesFirst(index, tools, new NameLookup(tools, { hashes: input.i32(), ownHashes: input.i32(), ownStart: input.i32() }));
}
