// The design documents' rule: split the query on white space; a tool matches when any keyword is a
// case-insensitive substring of its name or description. Ranked: more distinct keywords first, a name match
// above a description match, ties in catalog order.
import type { ToolDefinition } from "../types.ts";
import type { SearchIndex } from "./types.ts";

/** Splits a query into its distinct lowercase keywords (white space separates them). */
export function queryKeywords(query: string): string[] {
  const keywords = new Set<string>();
  for (const word of query.toLowerCase().split(/\s+/u)) {
    if (word !== "") keywords.add(word);
  }
  return [...keywords];
}

/**
 * The index. Every name and description is split on white space into lowercase words; each distinct word keeps the
 * tools that hold it (its postings). A keyword holds no white space, so wherever it occurs in a text it lies inside
 * one word of that text: the tools that match a keyword are exactly the postings of the words that contain it.
 * Those words are found through the words' character pairs (every pair of the keyword is a pair of the word), so a
 * search never scans the catalog's text: it checks a few candidate words per keyword and walks their postings.
 */
interface Vocabulary {
  words: string[];
  /** Postings of word w: `postings[postingStarts[w] .. postingStarts[w + 1])`, each `tool * 2 + (in name ? 1 : 0)`. */
  postingStarts: Uint32Array;
  postings: Uint32Array;
  /** Character (UTF-16 code unit) → the words holding it. */
  byChar: Map<number, Uint32Array>;
  /** Pair of adjacent code units (`first * 65536 + second`) → the words holding it. */
  byPair: Map<number, Uint32Array>;
}

const WHITE_SPACE = /\s+/u;

function pushTo(map: Map<number, number[]>, key: number, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function frozen(map: Map<number, number[]>): Map<number, Uint32Array> {
  const out = new Map<number, Uint32Array>();
  for (const [key, list] of map) out.set(key, Uint32Array.from(list));
  return out;
}

function buildVocabulary(tools: readonly ToolDefinition[]): Vocabulary {
  const postingsByWord = new Map<string, number[]>();
  const add = (text: string, entry: number): void => {
    // A word repeated within one text adds one posting (the Set): one posting per tool and field at most.
    for (const word of new Set(text.toLowerCase().split(WHITE_SPACE))) {
      if (word === "") continue;
      const list = postingsByWord.get(word);
      if (list) list.push(entry);
      else postingsByWord.set(word, [entry]);
    }
  };
  tools.forEach((tool, index) => {
    add(tool.name, index * 2 + 1);
    add(tool.description, index * 2);
  });

  const words = [...postingsByWord.keys()];
  const postingStarts = new Uint32Array(words.length + 1);
  const postings = new Uint32Array([...postingsByWord.values()].reduce((sum, list) => sum + list.length, 0));
  const byChar = new Map<number, number[]>();
  const byPair = new Map<number, number[]>();
  const seenChars = new Set<number>();
  const seenPairs = new Set<number>();
  let offset = 0;
  words.forEach((word, index) => {
    const list = postingsByWord.get(word) ?? [];
    postingStarts[index] = offset;
    postings.set(list, offset);
    offset += list.length;
    seenChars.clear();
    seenPairs.clear();
    for (let i = 0; i < word.length; i++) {
      const char = word.charCodeAt(i);
      if (!seenChars.has(char)) {
        seenChars.add(char);
        pushTo(byChar, char, index);
      }
      if (i === 0) continue;
      const pair = word.charCodeAt(i - 1) * 65536 + char;
      if (!seenPairs.has(pair)) {
        seenPairs.add(pair);
        pushTo(byPair, pair, index);
      }
    }
  });
  postingStarts[words.length] = offset;
  return { words, postingStarts, postings, byChar: frozen(byChar), byPair: frozen(byPair) };
}

export function createSubstringIndex(tools: readonly ToolDefinition[]): SearchIndex {
  const size = tools.length;
  const names = tools.map((tool) => tool.name);
  const { words, postingStarts, postings, byChar, byPair } = buildVocabulary(tools);
  // Scratch space reused by every search (a search runs to completion before the next one starts).
  const hits = new Uint16Array(size);
  const nameHit = new Uint8Array(size);
  /** The keyword (numbered from 1) that last hit a tool, so that each keyword counts once per tool. */
  const lastKeyword = new Uint16Array(size);
  const order = new Uint32Array(size);

  /** The words that may contain `keyword`: those holding its rarest character pair (or its one character). */
  function candidates(keyword: string): Uint32Array | undefined {
    if (keyword.length === 1) return byChar.get(keyword.charCodeAt(0));
    let best: Uint32Array | undefined;
    for (let i = 1; i < keyword.length; i++) {
      const list = byPair.get(keyword.charCodeAt(i - 1) * 65536 + keyword.charCodeAt(i));
      if (!list) return undefined;
      if (!best || list.length < best.length) best = list;
    }
    return best;
  }

  function scan(keyword: string, stamp: number): void {
    const list = candidates(keyword);
    if (!list) return;
    // A keyword of one or two code units is exactly its character or pair; a longer one is checked word by word.
    const exact = keyword.length <= 2;
    for (const word of list) {
      if (!exact && !(words[word] ?? "").includes(keyword)) continue;
      const end = postingStarts[word + 1] ?? 0;
      for (let p = postingStarts[word] ?? 0; p < end; p++) {
        const entry = postings[p] ?? 0;
        const tool = entry >>> 1;
        if (entry & 1) nameHit[tool] = 1;
        if (lastKeyword[tool] !== stamp) {
          lastKeyword[tool] = stamp;
          hits[tool] = (hits[tool] ?? 0) + 1;
        }
      }
    }
  }

  function search(query: string): string[] {
    // The stamps are 16-bit: at most 65,535 distinct keywords count (a query is capped far below that).
    const keywords = queryKeywords(query).slice(0, 0xffff);
    if (keywords.length === 0) return names.slice();

    hits.fill(0);
    nameHit.fill(0);
    lastKeyword.fill(0);
    keywords.forEach((keyword, index) => scan(keyword, index + 1));

    // score = 2 × distinct keywords matched + 1 when a keyword is in the name: both orderings in one number.
    // Counting sort on it, best first (bucket 0 = maxScore); stable, so ties keep catalog order.
    let maxScore = 0;
    for (let tool = 0; tool < size; tool++) {
      const score = (hits[tool] ?? 0) * 2 + (nameHit[tool] ?? 0);
      if (score > maxScore) maxScore = score;
    }
    const starts = new Uint32Array(maxScore + 2);
    for (let tool = 0; tool < size; tool++) {
      const hit = hits[tool] ?? 0;
      if (hit > 0) {
        const slot = maxScore - hit * 2 - (nameHit[tool] ?? 0) + 1;
        starts[slot] = (starts[slot] ?? 0) + 1;
      }
    }
    for (let bucket = 1; bucket < starts.length; bucket++) starts[bucket] = (starts[bucket] ?? 0) + (starts[bucket - 1] ?? 0);
    const matched = starts[maxScore + 1] ?? 0;
    for (let tool = 0; tool < size; tool++) {
      const hit = hits[tool] ?? 0;
      if (hit === 0) continue;
      const bucket = maxScore - hit * 2 - (nameHit[tool] ?? 0);
      const position = starts[bucket] ?? 0;
      starts[bucket] = position + 1;
      order[position] = tool;
    }
    const result: string[] = [];
    for (let i = 0; i < matched; i++) result.push(names[order[i] ?? 0] ?? "");
    return result;
  }

  return { size, search };
}
