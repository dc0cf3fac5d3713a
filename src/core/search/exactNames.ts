// A request that names a tool finds it first, in either mode: the name as written (`get_weather`), its words spelt
// another way (`get weather`, `getWeather`, `GET-WEATHER`), or, for a tool an upstream server serves as
// `server__name`, the upstream's own name (`echo` for `everything__echo`). The whole request is such a name, or one of
// its identifier-like words is (`call get_weather for Paris`). Both indexes are wrapped alike (withExactNames): the
// ranking below is the index's own, less the tools already placed.
import type { ToolDefinition } from "../types.ts";
import { CAMEL_BOUNDARIES } from "./text.ts";
import type { SnapshotWriter } from "./snapshotCodec.ts";
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

/**
 * How closely a query names a tool, best first: its name as written (with its punctuation: `a_` is not `a`), then
 * without surrounding punctuation, ignoring case, its words, its own name's words.
 */
const AS_WRITTEN = 0;
const EXACT = 1;
const IGNORING_CASE = 2;
const WORDS = 3;
const OWN_NAME_WORDS = 4;

/** Names by their words (nameKey), and by their own name's words for `server__name` tools. */
export class NameLookup {
  readonly #byKey = new Map<string, string[]>();
  readonly #byOwnKey = new Map<string, string[]>();

  constructor(tools: readonly ToolDefinition[]) {
    for (const { name } of tools) {
      push(this.#byKey, nameKey(name), name);
      const at = name.lastIndexOf(UPSTREAM_SEPARATOR);
      if (at > 0 && at + UPSTREAM_SEPARATOR.length < name.length) push(this.#byOwnKey, nameKey(name.slice(at + UPSTREAM_SEPARATOR.length)), name);
    }
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
      for (const name of this.#byKey.get(key) ?? []) {
        const lower = name.toLowerCase();
        const closeness = name === text ? AS_WRITTEN : name === bare ? EXACT
          : lower === text.toLowerCase() || lower === bare.toLowerCase() ? IGNORING_CASE : WORDS;
        candidates.push({ name, closeness });
      }
      for (const name of this.#byOwnKey.get(key) ?? []) candidates.push({ name, closeness: OWN_NAME_WORDS });
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

function push(map: Map<string, string[]>, key: string, name: string): void {
  if (key === "") return;
  const names = map.get(key);
  if (names === undefined) map.set(key, [name]);
  else names.push(name);
}

/** `index` with the tools a query names placed first (NameLookup), then the rest of its own ranking. */
class ExactNamesFirst implements SearchIndex {
  #index: SearchIndex;
  #names: NameLookup;

  constructor(index: SearchIndex, tools: readonly ToolDefinition[]) {
    this.#index = index;
    this.#names = new NameLookup(tools);
  }

  get size(): number {
    return this.#index.size;
  }

  search(query: string): string[] {
    return this.searchPage(query, Infinity).names;
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

  /** The inner index's snapshot: the name lookup is made again from the tools when it is restored. */
  toSnapshot(out: SnapshotWriter): boolean {
    return this.#index.toSnapshot?.(out) === true;
  }

  update(tools: readonly ToolDefinition[]): SearchIndex | undefined {
    const next = this.#index.update?.(tools);
    if (next === undefined) return undefined;
    this.#index = next;
    this.#names = new NameLookup(tools);
    return this;
  }
}

/** `index` (over `tools`) answering a query that names a tool with that tool first. */
export function withExactNames(index: SearchIndex, tools: readonly ToolDefinition[]): SearchIndex {
  return new ExactNamesFirst(index, tools);
}
