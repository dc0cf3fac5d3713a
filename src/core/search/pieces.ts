// The pieces of texts (runs between ASCII separators: words, identifier parts, runs of other scripts), each analyzed
// once per table (index builds read with their isolate's table: postings.ts, SharedPieces). A piece is looked up by
// its characters where it lies in the text, with a hash computed while scanning: no string is cut out of the text
// unless the piece is new. Tool texts repeat their words heavily (at 10,000 tools, 527,000 pieces are 21,000
// distinct ones).
import { IntList } from "./intList.ts";
import { separatesTerms } from "./text.ts";

const EMPTY_SLOT = 0;
const INITIAL_SLOTS = 4096;

/** Spreads a polynomial hash's bits, so that the low ones can index the table. */
function mix(hash: number): number {
  let h = hash ^ (hash >>> 16);
  h = Math.imul(h, 0x85eb_ca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2_ae35);
  return h ^ (h >>> 16);
}

/** Whether no piece of `text` runs across `at`: the pieces of the text before and after it are the whole text's. */
export function isPieceEnd(text: string, at: number): boolean {
  return at <= 0 || at >= text.length || separatesTerms(text.charCodeAt(at - 1)) || separatesTerms(text.charCodeAt(at));
}

export class PieceTable {
  /** Analyzes a new piece into its term ids. */
  readonly #analyze: (piece: string) => readonly number[];
  /**
   * Open addressing with linear probing, two ints per slot: piece id + 1 (or EMPTY_SLOT), and the piece's hash (a probe
   * rejects another piece without reading anything else).
   */
  #slots = new Int32Array(2 * INITIAL_SLOTS);
  /**
   * The characters of every piece, one after the other: a piece is compared with the text from a typed array rather
   * than from a string cut out of a text (one of 13 or more characters is a view of its text, read through it).
   */
  #chars = new Uint16Array(INITIAL_SLOTS * 8);
  #charCount = 0;
  // Per piece.
  readonly #hashes = new IntList();
  readonly #charStarts = new IntList();
  readonly #termStarts = new IntList();
  /** The term ids of every piece, one after the other (piece p's are `termStarts[p] .. termStarts[p + 1]`). */
  readonly #terms = new IntList();
  /** A second reading of a piece (the semantic half's word rows), made once per piece when first asked for. */
  readonly #analyzeWords: ((piece: string) => readonly number[]) | undefined;
  /** Per piece: where its words are in `words` (from -1: not read yet), one piece's after another's as asked for. */
  readonly #wordsFrom = new IntList();
  readonly #wordsTo = new IntList();
  readonly #words = new IntList();

  constructor(analyze: (piece: string) => readonly number[], words?: (piece: string) => readonly number[]) {
    this.#analyze = analyze;
    this.#analyzeWords = words;
    this.#termStarts.push(0);
    this.#charStarts.push(0);
  }

  /**
   * Appends to `into` the term ids of every piece of `text` (split where `separatesTerms`), in order; and to
   * `wordsInto`, when given, every piece's words (the second reading the table was made with). `from` and `to`: of
   * `text[from .. to)` only (ends of pieces, isPieceEnd, for the pieces of the whole text there).
   */
  appendTerms(text: string, into: IntList, wordsInto?: IntList, from = 0, to = text.length): void {
    const length = to;
    let end = from;
    while (end < length) {
      let code = text.charCodeAt(end);
      if (separatesTerms(code)) {
        end++;
        continue;
      }
      const start = end;
      let hash = 0;
      do {
        hash = (Math.imul(hash, 31) + code) | 0;
        end++;
        code = end < length ? text.charCodeAt(end) : 0x20;
      } while (!separatesTerms(code));
      const piece = this.#find(text, start, end, hash);
      for (let k = this.#termStarts.at(piece), stop = this.#termStarts.at(piece + 1); k < stop; k++) into.push(this.#terms.at(k));
      if (wordsInto === undefined) continue;
      if (this.#wordsFrom.at(piece) === -1) this.#readWords(piece, text.slice(start, end));
      for (let k = this.#wordsFrom.at(piece), stop = this.#wordsTo.at(piece); k < stop; k++) wordsInto.push(this.#words.at(k));
    }
  }

  /** How many distinct pieces the table holds, and their characters (what an isolate-wide table is bounded by). */
  get size(): number {
    return this.#hashes.length;
  }

  get charCount(): number {
    return this.#charCount;
  }

  #readWords(piece: number, text: string): void {
    this.#wordsFrom.set(piece, this.#words.length);
    for (const word of this.#analyzeWords?.(text) ?? []) this.#words.push(word);
    this.#wordsTo.set(piece, this.#words.length);
  }

  /** The id of the piece `text[start..end)`, added (and analyzed) if it is new. */
  #find(text: string, start: number, end: number, hash: number): number {
    const slots = this.#slots;
    const mask = slots.length / 2 - 1;
    for (let slot = mix(hash) & mask; ; slot = (slot + 1) & mask) {
      const entry = slots[2 * slot] ?? EMPTY_SLOT;
      if (entry === EMPTY_SLOT) return this.#add(text, start, end, hash, slot);
      if (slots[2 * slot + 1] === hash && this.#holds(entry - 1, text, start, end)) return entry - 1;
    }
  }

  /** Whether piece `id` is exactly `text[start..end)`. */
  #holds(id: number, text: string, start: number, end: number): boolean {
    const from = this.#charStarts.at(id);
    if (this.#charStarts.at(id + 1) - from !== end - start) return false;
    const chars = this.#chars;
    for (let i = start; i < end; i++) if (chars[from + i - start] !== text.charCodeAt(i)) return false;
    return true;
  }

  #add(text: string, start: number, end: number, hash: number, slot: number): number {
    const id = this.#hashes.push(hash);
    if (this.#charCount + end - start > this.#chars.length) {
      const grown = new Uint16Array(Math.max(2 * this.#chars.length, this.#charCount + end - start));
      grown.set(this.#chars);
      this.#chars = grown;
    }
    for (let i = start; i < end; i++) this.#chars[this.#charCount++] = text.charCodeAt(i);
    this.#charStarts.push(this.#charCount);
    for (const termId of this.#analyze(text.slice(start, end))) this.#terms.push(termId);
    this.#termStarts.push(this.#terms.length);
    this.#wordsFrom.push(-1);
    this.#wordsTo.push(-1);
    this.#slots[2 * slot] = id + 1;
    this.#slots[2 * slot + 1] = hash;
    // At most half full, so that probes stay short.
    if (4 * this.#hashes.length > this.#slots.length) this.#grow();
    return id;
  }

  #grow(): void {
    const slots = new Int32Array(this.#slots.length * 2);
    const mask = slots.length / 2 - 1;
    for (let id = 0; id < this.#hashes.length; id++) {
      const hash = this.#hashes.at(id);
      let slot = mix(hash) & mask;
      while (slots[2 * slot] !== EMPTY_SLOT) slot = (slot + 1) & mask;
      slots[2 * slot] = id + 1;
      slots[2 * slot + 1] = hash;
    }
    this.#slots = slots;
  }
}
