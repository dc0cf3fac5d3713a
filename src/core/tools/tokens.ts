// Token counts with a real tokenizer (gpt-tokenizer, o200k_base), never estimated from length.
import { GptEncoding } from "gpt-tokenizer/GptEncoding";
import { decodeTokenRanks } from "./tokenRanks.ts";

/**
 * The encoding, made on the first count: building its tables (a map of 200,000 byte pairs) took a new isolate
 * hundreds of milliseconds of CPU at start, which a cold isolate's first search (whose counts a registry snapshot
 * carries) never needs. The same encoding gpt-tokenizer's o200k_base module makes at its import.
 */
let o200k: GptEncoding | undefined;

type TokenRankBytes = () => ArrayBuffer | Uint8Array;
let rankSource: TokenRankBytes | undefined;

/**
 * Where this isolate's byte-pair ranks come from (o200kRanks.bin, format in tokenRanks.ts): a function giving the
 * file's bytes, called when the encoding is first built. The Worker passes its bundled Data module
 * (src/isolate/tokenRanks.ts), Node scripts a read of the file (bench/bundledData.ts).
 */
export function provideTokenRanks(load: TokenRankBytes): void {
  rankSource = load;
}

/** Whether this isolate built the encoding (for tests: a cold isolate's first turn from a snapshot builds none). */
export function tokenizerBuilt(): boolean {
  return o200k !== undefined;
}

function countO200k(text: string, options: Parameters<GptEncoding["countTokens"]>[1]): number {
  if (o200k === undefined) {
    const load = rankSource;
    if (load === undefined) {
      throw new Error("token ranks: none provided; the shell that runs the core calls provideTokenRanks (the Worker: src/isolate/tokenRanks.ts; Node: bench/bundledData.ts)");
    }
    o200k = GptEncoding.getEncodingApi("o200k_base", () => decodeTokenRanks(load()));
  }
  return o200k.countTokens(text, options);
}

// Tokenizing a large catalog takes tens of milliseconds, and clients send the same tool list on every turn: long
// texts are remembered by length and a 53-bit hash (a collision would only misstate a statistic). One tool's
// definition is long enough: the per-tool counts of an answer and the tools auto-discovery adds recur across turns.
// A count taken from elsewhere (rememberTokenCount: a registry snapshot's) is found for a text of any length, so that
// a short one (call_tool's definition) does not build the encoding either.
const MEMO_MIN_LENGTH = 256;
const MEMO_CAPACITY = 1024;
const memo = new Map<string, number>();
/** How many short texts' counts were taken from elsewhere: while none, a short text is counted without a look-up. */
let carriedShort = 0;

/** cyrb53: a fast, well-spread 53-bit string hash (public domain). */
function hash53(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/**
 * Byte-pair encoding takes time quadratic in the length of one pre-token, and a run of letters (CJK has no spaces),
 * of punctuation or emoji, or of white space is one pre-token: 64 KB of it in a client's tool took seconds. Such runs
 * are cut every LONG_RUN code points and the pieces counted apart (a token or so off per cut); text without such runs
 * is counted whole, exactly.
 */
const LONG_RUN = 256;
const LONG_RUN_PATTERN = /[\p{L}\p{M}]{256}|[^\s\p{L}\p{N}]{256}|\s{256}/gu;

function tokenizePiece(text: string): number {
  // Special-token text (e.g. "<|endoftext|>") inside a tool description counts as the plain text it is.
  return text === "" ? 0 : countO200k(text, { disallowedSpecial: new Set() });
}

function tokenize(text: string): number {
  if (text.length < LONG_RUN) return tokenizePiece(text);
  let total = 0;
  let start = 0;
  for (const match of text.matchAll(LONG_RUN_PATTERN)) {
    const end = match.index + match[0].length;
    total += tokenizePiece(text.slice(start, end));
    start = end;
  }
  return total + tokenizePiece(text.slice(start));
}

/** The key countTokens remembers a long text's count by (length and hash). */
export function tokenMemoKey(text: string): string {
  return `${text.length}:${hash53(text)}`;
}

/**
 * Takes the count of a text counted elsewhere (a registry snapshot carries the texts a cold isolate's first turn
 * counts), by tokenMemoKey: countTokens then answers with it. The caller vouches that it is countTokens' count.
 */
export function rememberTokenCount(key: string, tokens: number): void {
  if (memo.has(key)) return;
  if (Number.parseInt(key, 10) < MEMO_MIN_LENGTH) carriedShort++;
  memo.set(key, tokens);
  if (memo.size > MEMO_CAPACITY) {
    const oldest = memo.keys().next();
    if (!oldest.done) memo.delete(oldest.value);
  }
}

/** Tokens of `text` in the o200k_base encoding (the GPT-4o / GPT-5 family). */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  if (text.length < MEMO_MIN_LENGTH) return (carriedShort > 0 ? memo.get(tokenMemoKey(text)) : undefined) ?? tokenize(text);
  const key = tokenMemoKey(text);
  const known = memo.get(key);
  if (known !== undefined) {
    // Re-inserted so that the map's order stays least recently used first.
    memo.delete(key);
    memo.set(key, known);
    return known;
  }
  const count = tokenize(text);
  rememberTokenCount(key, count);
  return count;
}
