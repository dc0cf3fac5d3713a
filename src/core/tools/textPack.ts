// A small LZ77 codec for a registry snapshot's definition texts (definitionTable.ts): each text packed on its own,
// against a dictionary written once per snapshot (samples of the catalog's own texts), so that a cold isolate unpacks
// only the few definitions a first search reads (one text: a few hundred bytes), with no block to unpack around it.
// The snapshot's bytes are what a cold isolate streams before its first answer (about 4.5 ms of wall per MB through
// the Workers runtime), and JSON definitions repeat their schema words ("type":"string","description": ...) across
// tools: the dictionary holds them once.
//
// A packed text: its unpacked length (LEB128), then sequences of [literal count (LEB128), the literals, then, unless
// the text is complete, match length - MIN_MATCH (LEB128) and distance (LEB128)]. A distance counts back from the
// current position in the dictionary followed by the text so far (a match may start in the dictionary). The decoder
// is bounded: it writes exactly the declared length, never reads or writes out of bounds, and throws SnapshotError on
// anything malformed (a length over the limit, a distance before the dictionary, bytes left over or missing).
import { collectBytes, SnapshotError } from "../search/snapshotCodec.ts";

/** The shortest match worth a sequence (its length and distance take two bytes or more). */
const MIN_MATCH = 4;
/** The longest text the decoder unpacks (a definition is far smaller: definition.ts bounds them). */
export const MAX_TEXT_BYTES = 1 << 24;
/** The dictionary's largest size: distances into it stay within three bytes of LEB128. */
export const MAX_DICTIONARY_BYTES = 1 << 16;
/** Candidates tried per position in the dictionary, and in the text itself: bounded work per byte. */
const DICTIONARY_PROBES = 8;
const TEXT_PROBES = 4;
const HASH_BITS = 15;
const HASH_SIZE = 1 << HASH_BITS;
/** A match this long is taken without trying further candidates. */
const GOOD_ENOUGH = 64;

function hashAt(bytes: Uint8Array, at: number): number {
  const word = (bytes[at] ?? 0) | ((bytes[at + 1] ?? 0) << 8) | ((bytes[at + 2] ?? 0) << 16) | ((bytes[at + 3] ?? 0) << 24);
  return Math.imul(word, 0x9e3779b1) >>> (32 - HASH_BITS);
}

/** Packs texts against one dictionary (its hash chains built once). */
export class TextPacker {
  readonly dictionary: Uint8Array;
  readonly #dictionaryHeads = new Int32Array(HASH_SIZE).fill(-1);
  readonly #dictionaryChain: Int32Array;
  /** The text's chains, reset per text by generation rather than cleared. */
  readonly #heads = new Int32Array(HASH_SIZE);
  readonly #stamps = new Int32Array(HASH_SIZE);
  #generation = 0;
  #chain = new Int32Array(1024);
  #out = new Uint8Array(1024);
  #at = 0;
  /** The distance of the match #longest found last. */
  #distance = 0;

  constructor(dictionary: Uint8Array) {
    if (dictionary.byteLength > MAX_DICTIONARY_BYTES) throw new RangeError(`a dictionary of ${dictionary.byteLength} bytes`);
    this.dictionary = dictionary;
    this.#dictionaryChain = new Int32Array(dictionary.byteLength);
    for (let at = 0; at + MIN_MATCH <= dictionary.byteLength; at++) {
      const hash = hashAt(dictionary, at);
      this.#dictionaryChain[at] = this.#dictionaryHeads[hash] ?? -1;
      this.#dictionaryHeads[hash] = at;
    }
  }

  /** `text` packed (a new buffer). */
  pack(text: Uint8Array): Uint8Array {
    if (text.byteLength > MAX_TEXT_BYTES) throw new RangeError(`a text of ${text.byteLength} bytes`);
    const length = text.byteLength;
    this.#at = 0;
    this.#reserve(length + 16);
    if (this.#chain.length < length) this.#chain = new Int32Array(Math.max(length, this.#chain.length * 2));
    const generation = ++this.#generation;
    this.#varint(length);
    let literalStart = 0;
    let at = 0;
    while (at + MIN_MATCH <= length) {
      const hash = hashAt(text, at);
      const matched = this.#longest(text, at, hash, generation);
      const distance = this.#distance;
      this.#insert(at, hash, generation);
      if (matched === 0) {
        at++;
        continue;
      }
      this.#literals(text, literalStart, at);
      this.#varint(matched - MIN_MATCH);
      this.#varint(distance);
      const end = at + matched;
      for (let next = at + 1; next < end && next + MIN_MATCH <= length; next++) this.#insert(next, hashAt(text, next), generation);
      at = end;
      literalStart = at;
    }
    this.#literals(text, literalStart, length);
    return this.#out.slice(0, this.#at);
  }

  /**
   * The length of the longest match for `text` at `at` (its distance left in #distance), within the probes, in the
   * text so far or the dictionary; 0 when none is worth a sequence (no longer than its length's and distance's bytes
   * plus one).
   */
  #longest(text: Uint8Array, at: number, hash: number, generation: number): number {
    const dictionary = this.dictionary;
    const base = dictionary.byteLength;
    const length = text.byteLength;
    const chain = this.#chain;
    let bestLength = 0;
    let bestDistance = 0;
    let candidate = this.#stamps[hash] === generation ? (this.#heads[hash] ?? -1) : -1;
    for (let probes = 0; candidate >= 0 && probes < TEXT_PROBES && bestLength < GOOD_ENOUGH; probes++) {
      let matched = 0;
      while (at + matched < length && text[candidate + matched] === text[at + matched]) matched++;
      if (matched > bestLength) {
        bestLength = matched;
        bestDistance = at - candidate;
      }
      candidate = chain[candidate] ?? -1;
    }
    // In the dictionary (a match there ends at its end).
    candidate = this.#dictionaryHeads[hash] ?? -1;
    for (let probes = 0; candidate >= 0 && probes < DICTIONARY_PROBES && bestLength < GOOD_ENOUGH; probes++) {
      let matched = 0;
      const most = Math.min(length - at, base - candidate);
      while (matched < most && dictionary[candidate + matched] === text[at + matched]) matched++;
      if (matched > bestLength) {
        bestLength = matched;
        bestDistance = base + at - candidate;
      }
      candidate = this.#dictionaryChain[candidate] ?? -1;
    }
    const worth = bestLength >= MIN_MATCH && bestLength > 2 + (bestDistance < 0x80 ? 1 : bestDistance < 0x4000 ? 2 : 3);
    this.#distance = bestDistance;
    return worth ? bestLength : 0;
  }

  #insert(at: number, hash: number, generation: number): void {
    this.#chain[at] = this.#stamps[hash] === generation ? (this.#heads[hash] ?? -1) : -1;
    this.#heads[hash] = at;
    this.#stamps[hash] = generation;
  }

  #literals(text: Uint8Array, from: number, to: number): void {
    this.#varint(to - from);
    this.#reserve(to - from);
    this.#out.set(text.subarray(from, to), this.#at);
    this.#at += to - from;
  }

  #varint(value: number): void {
    this.#reserve(5);
    let rest = value;
    while (rest >= 0x80) {
      this.#out[this.#at++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    this.#out[this.#at++] = rest;
  }

  #reserve(bytes: number): void {
    if (this.#at + bytes <= this.#out.byteLength) return;
    const grown = new Uint8Array(Math.max(this.#at + bytes, this.#out.byteLength * 2));
    grown.set(this.#out.subarray(0, this.#at));
    this.#out = grown;
  }
}

/** Copies shorter than this go byte by byte: on a cold isolate a native copy's view costs more than a few bytes. */
const NATIVE_COPY = 32;

/** The text `packed` holds (TextPacker.pack against `dictionary`); SnapshotError when it is malformed. */
export function unpackText(packed: Uint8Array, dictionary: Uint8Array): Uint8Array {
  const size = packed.byteLength;
  const base = dictionary.byteLength;
  let read = 0;
  // LEB128 of at most four bytes (below 2 ** 28), read in line (no call per number).
  const number = (): number => {
    let value = 0;
    for (let shift = 0; shift < 28; shift += 7) {
      if (read >= size) throw new SnapshotError("a packed definition text ends early");
      const byte = packed[read++] ?? 0;
      value |= (byte & 0x7f) << shift;
      if (byte < 0x80) return value;
    }
    throw new SnapshotError("a packed definition text holds an overlong number");
  };
  const length = number();
  if (length > MAX_TEXT_BYTES) throw new SnapshotError(`a packed definition text declares ${length} bytes`);
  const out = new Uint8Array(length);
  let at = 0;
  for (;;) {
    const literals = number();
    if (literals > length - at || literals > size - read) throw new SnapshotError("a packed definition text's literals run past its end");
    if (literals >= NATIVE_COPY) {
      out.set(packed.subarray(read, read + literals), at);
      read += literals;
      at += literals;
    } else for (const last = at + literals; at < last;) out[at++] = packed[read++] ?? 0;
    if (at === length) break;
    const matched = number() + MIN_MATCH;
    const distance = number();
    if (matched > length - at || distance < 1 || distance > base + at) throw new SnapshotError("a packed definition text's match runs out of bounds");
    // From the dictionary (the part before the text), then from the text (an overlapping copy repeats its last
    // `distance` bytes: byte by byte).
    let from = base + at - distance;
    const end = at + matched;
    if (from < base) {
      const last = Math.min(end, at + base - from);
      if (last - at >= NATIVE_COPY) {
        out.set(dictionary.subarray(from, from + last - at), at);
        from += last - at;
        at = last;
      } else while (at < last) out[at++] = dictionary[from++] ?? 0;
    }
    from -= base;
    if (end - at >= NATIVE_COPY && end - at <= at - from) {
      out.copyWithin(at, from, from + end - at);
      at = end;
    }
    while (at < end) out[at++] = out[from++] ?? 0;
  }
  if (read !== size) throw new SnapshotError("a packed definition text holds bytes past its end");
  return out;
}

/**
 * A dictionary of at most `maxBytes` from `samples` (texts of the catalog, in order): the samples' most shared
 * stretches. Each sample's 8-byte windows are counted (the texts holding them, per hash); stretches of the samples
 * are then taken greedily by how many other texts share their windows, each window at most once, most shared last
 * (nearest the texts: smaller distances). Bounded: the samples are read up to 8 times `maxBytes`.
 */
export function buildDictionary(samples: Iterable<Uint8Array>, maxBytes = MAX_DICTIONARY_BYTES): Uint8Array {
  const size = Math.min(maxBytes, MAX_DICTIONARY_BYTES);
  const budget = size * 8;
  const taken: Uint8Array[] = [];
  let total = 0;
  for (const sample of samples) {
    if (total >= budget) break;
    const piece = sample.subarray(0, budget - total);
    taken.push(piece);
    total += piece.byteLength;
  }
  if (total <= size) return collectBytes({ byteLength: total, pieces: () => taken });
  // How many samples hold each window (by hash), counted once per sample.
  const counts = new Uint16Array(1 << 20);
  const seenIn = new Int32Array(1 << 20).fill(-1);
  taken.forEach((sample, index) => {
    for (let at = 0; at + WINDOW <= sample.byteLength; at++) {
      const hash = windowHash(sample, at);
      if (seenIn[hash] === index) continue;
      seenIn[hash] = index;
      if ((counts[hash] ?? 0) < 0xffff) counts[hash] = (counts[hash] ?? 0) + 1;
    }
  });
  // Stretches of STRETCH bytes scored by their windows' counts beyond one (a window in one text only is no use).
  const stretches: { sample: number; at: number; score: number }[] = [];
  taken.forEach((sample, index) => {
    for (let at = 0; at < sample.byteLength; at += STRETCH) {
      let score = 0;
      for (let w = at; w < at + STRETCH && w + WINDOW <= sample.byteLength; w++) score += (counts[windowHash(sample, w)] ?? 1) - 1;
      if (score > 0) stretches.push({ sample: index, at, score });
    }
  });
  stretches.sort((a, b) => b.score - a.score || a.sample - b.sample || a.at - b.at);
  // Greedily, each window's hash used once: a stretch whose windows were all taken already adds nothing.
  const used = new Uint8Array(1 << 20);
  const chosen: Uint8Array[] = [];
  let chosenBytes = 0;
  for (const { sample: index, at } of stretches) {
    if (chosenBytes >= size) break;
    const sample = taken[index] ?? new Uint8Array(0);
    const stretch = sample.subarray(at, Math.min(sample.byteLength, at + STRETCH, at + size - chosenBytes));
    let fresh = 0;
    for (let w = 0; w + WINDOW <= stretch.byteLength; w++) if (used[windowHash(stretch, w)] === 0) fresh++;
    if (fresh * 2 < stretch.byteLength) continue;
    for (let w = 0; w + WINDOW <= stretch.byteLength; w++) used[windowHash(stretch, w)] = 1;
    chosen.push(stretch);
    chosenBytes += stretch.byteLength;
  }
  // Most shared last.
  chosen.reverse();
  return collectBytes({ byteLength: chosenBytes, pieces: () => chosen });
}

const WINDOW = 8;
const STRETCH = 64;

function windowHash(bytes: Uint8Array, at: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < WINDOW; i++) hash = Math.imul(hash ^ (bytes[at + i] ?? 0), 0x01000193);
  return hash >>> 12;
}
