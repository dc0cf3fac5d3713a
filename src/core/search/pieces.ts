// The pieces of a build's texts (runs between ASCII separators: words, identifier parts, runs of other scripts), each
// analyzed once. A piece is looked up by its characters where it lies in the text, with a hash computed while
// scanning: no string is cut out of the text unless the piece is new. Tool texts repeat their words heavily (at
// 10,000 tools, 527,000 pieces are 21,000 distinct ones).
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

export class PieceTable {
  /** Analyzes a new piece into its term ids. */
  readonly #analyze: (piece: string) => readonly number[];
  /** Open addressing with linear probing: piece id + 1, or EMPTY_SLOT. */
  #slots = new Int32Array(INITIAL_SLOTS);
  // Per piece.
  readonly #pieces: string[] = [];
  readonly #hashes = new IntList();
  readonly #termStarts = new IntList();
  readonly #termEnds = new IntList();
  /** The term ids of every piece, one after the other. */
  readonly #terms = new IntList();

  constructor(analyze: (piece: string) => readonly number[]) {
    this.#analyze = analyze;
  }

  /**
   * Calls `visit` with the term ids of every piece of `text` (split where `separatesTerms`), in order.
   */
  forEachTerm(text: string, visit: (termId: number) => void): void {
    const length = text.length;
    let end = 0;
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
      for (let k = this.#termStarts.at(piece), stop = this.#termEnds.at(piece); k < stop; k++) visit(this.#terms.at(k));
    }
  }

  /** The id of the piece `text[start..end)`, added (and analyzed) if it is new. */
  #find(text: string, start: number, end: number, hash: number): number {
    const mask = this.#slots.length - 1;
    for (let slot = mix(hash) & mask; ; slot = (slot + 1) & mask) {
      const entry = this.#slots[slot] ?? EMPTY_SLOT;
      if (entry === EMPTY_SLOT) return this.#add(text.slice(start, end), hash, slot);
      const id = entry - 1;
      if (this.#hashes.at(id) === hash && sameText(this.#pieces[id] ?? "", text, start, end)) return id;
    }
  }

  #add(piece: string, hash: number, slot: number): number {
    const id = this.#pieces.push(piece) - 1;
    this.#hashes.push(hash);
    this.#termStarts.push(this.#terms.length);
    for (const termId of this.#analyze(piece)) this.#terms.push(termId);
    this.#termEnds.push(this.#terms.length);
    this.#slots[slot] = id + 1;
    // At most half full, so that probes stay short.
    if (2 * this.#pieces.length > this.#slots.length) this.#grow();
    return id;
  }

  #grow(): void {
    const slots = new Int32Array(this.#slots.length * 2);
    const mask = slots.length - 1;
    for (let id = 0; id < this.#pieces.length; id++) {
      let slot = mix(this.#hashes.at(id)) & mask;
      while (slots[slot] !== EMPTY_SLOT) slot = (slot + 1) & mask;
      slots[slot] = id + 1;
    }
    this.#slots = slots;
  }
}

/** Whether `piece` is exactly `text[start..end)`. */
function sameText(piece: string, text: string, start: number, end: number): boolean {
  if (piece.length !== end - start) return false;
  for (let i = 0; i < piece.length; i++) if (piece.charCodeAt(i) !== text.charCodeAt(start + i)) return false;
  return true;
}
