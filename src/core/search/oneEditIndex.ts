// The terms that can be one edit from a word (a typo: one letter inserted, deleted or changed), found without reading
// every term of a near length. Two strings one edit apart share their first letter or their last one, when either
// is two letters or longer: an edit at the first letter leaves the last in place, any other edit leaves the first.
// So a word's candidates are the terms of length n − 1 to n + 1 that start with its first letter or end with its last
// (and every term of one letter or none). At 10,000 tools, a typo's look-up read about 4,000 terms; now a few hundred.
import { type DeferredSection, SnapshotError } from "./snapshotCodec.ts";

/** Terms this long or shorter are kept by length alone: they can be one edit apart with neither end in common. */
const SHORT = 1;

/** A bucket's key: a length and a UTF-16 code unit. */
function keyOf(length: number, code: number): number {
  return length * 0x1_0000 + code;
}

export class OneEditIndex {
  /** (length, first code unit) → term ids. */
  readonly #byFirst = new Map<number, number[]>();
  /** (length, last code unit) → term ids, each followed by its term's first code unit. */
  readonly #byLast = new Map<number, number[]>();
  /** Length (at most SHORT) → term ids. */
  readonly #short = new Map<number, number[]>();

  /** Adds a term (each id once). */
  add(term: string, id: number): void {
    const length = term.length;
    if (length <= SHORT) {
      pushTo(this.#short, length, id);
      return;
    }
    const first = term.charCodeAt(0);
    pushTo(this.#byFirst, keyOf(length, first), id);
    const lastKey = keyOf(length, term.charCodeAt(length - 1));
    const byLast = this.#byLast.get(lastKey);
    if (byLast) byLast.push(id, first);
    else this.#byLast.set(lastKey, [id, first]);
  }

  /**
   * Calls `visit` once with the id of every term added that may be one edit from `word` (or be `word` itself): every
   * term that is, and others; the caller checks each (withinOneEdit).
   */
  forEachCandidate(word: string, visit: (id: number) => void): void {
    const length = word.length;
    const first = word.charCodeAt(0);
    const last = word.charCodeAt(length - 1);
    for (let n = Math.max(0, length - 1); n <= length + 1; n++) {
      if (n <= SHORT) {
        for (const id of this.#short.get(n) ?? []) visit(id);
        continue;
      }
      // A word of no letter is more than one edit from any term of two letters or more.
      if (length === 0) continue;
      for (const id of this.#byFirst.get(keyOf(n, first)) ?? []) visit(id);
      const byLast = this.#byLast.get(keyOf(n, last)) ?? [];
      // Those that also start with the word's first letter were visited above.
      for (let at = 0; at < byLast.length; at += 2) if (byLast[at + 1] !== first) visit(byLast[at] ?? 0);
    }
  }
}

function pushTo(map: Map<number, number[]>, key: number, id: number): void {
  const held = map.get(key);
  if (held) held.push(id);
  else map.set(key, [id]);
}

/** What fuzzy matching asks of a table of terms: OneEditIndex, or a snapshot's carried table. */
export interface OneEditCandidates {
  forEachCandidate(word: string, visit: (id: number) => void): void;
}

/**
 * A snapshot's one-edit table (carried: a cold isolate's first typo looked up made OneEditIndex's maps of every word,
 * about 6 % of its first prepare). The words by length, as the index keeps them (`lengthStarts[n] .. lengthStarts[n +
 * 1]` of `order`: length n), each length's ids sorted by their first code unit (`firsts`, alongside), and again by
 * last then first code unit (`lastOrder`, with `lastKeys`: last × 65,536 + first): a length and a letter are a range,
 * found by binary search. The same candidates as OneEditIndex's, in another order (the caller sorts what matches).
 */
export class CarriedOneEditIndex implements OneEditCandidates {
  readonly #lengthStarts: Int32Array;
  readonly #order: Int32Array;
  readonly #firsts: DeferredSection<Int32Array>;
  readonly #lastOrder: DeferredSection<Int32Array>;
  readonly #lastKeys: DeferredSection<Uint32Array>;

  constructor(lengthStarts: Int32Array, order: Int32Array, firsts: DeferredSection<Int32Array>, lastOrder: DeferredSection<Int32Array>, lastKeys: DeferredSection<Uint32Array>) {
    if (firsts.values.length !== order.length || lastOrder.values.length !== order.length || lastKeys.values.length !== order.length) {
      throw new SnapshotError("the one-edit table does not match the terms by length");
    }
    this.#lengthStarts = lengthStarts;
    this.#order = order;
    this.#firsts = firsts;
    this.#lastOrder = lastOrder;
    this.#lastKeys = lastKeys;
  }

  /** Checks every chunk of its lists (a change of the index checks the whole snapshot before it uses any of it). */
  verifyAll(): void {
    this.#firsts.verifyAll();
    this.#lastOrder.verifyAll();
    this.#lastKeys.verifyAll();
  }

  forEachCandidate(word: string, visit: (id: number) => void): void {
    const length = word.length;
    const first = word.charCodeAt(0);
    const last = word.charCodeAt(length - 1);
    const starts = this.#lengthStarts;
    for (let n = Math.max(0, length - 1); n <= length + 1 && n + 1 < starts.length; n++) {
      const start = starts[n] ?? 0;
      const end = Math.min(starts[n + 1] ?? 0, this.#order.length);
      if (n <= SHORT) {
        for (let at = start; at < end; at++) visit(this.#order[at] ?? 0);
        continue;
      }
      if (length === 0) continue;
      const firsts = this.#firsts;
      for (let at = lowerBound(firsts, start, end, first); at < end && firsts.at(at) === first; at++) visit(this.#order[at] ?? 0);
      const keys = this.#lastKeys;
      for (let at = lowerBound(keys, start, end, last * CODE_UNITS); at < end; at++) {
        const key = keys.at(at);
        if (Math.floor(key / CODE_UNITS) !== last) break;
        // Those that also start with the word's first letter were visited above.
        if (key % CODE_UNITS !== first) visit(this.#lastOrder.at(at));
      }
    }
  }
}

const CODE_UNITS = 0x1_0000;

/** The first place in `values[start .. end)` (sorted) not below `value`. */
function lowerBound(values: DeferredSection<Int32Array | Uint32Array>, start: number, end: number, value: number): number {
  let low = start;
  let high = end;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (values.at(middle) < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * What CarriedOneEditIndex reads, for the words `lengthOrder` lists by length (`lengthStarts`): that list with each
 * length's ids sorted by first code unit (then id), their first code units, and the ids and keys sorted by last then
 * first code unit.
 */
export function oneEditTables(lengthStarts: Int32Array, lengthOrder: readonly number[], termOf: (id: number) => string): { order: Int32Array; firsts: Int32Array; lastOrder: Int32Array; lastKeys: Uint32Array } {
  const count = lengthOrder.length;
  const order = new Int32Array(count);
  const firsts = new Int32Array(count);
  const lastOrder = new Int32Array(count);
  const lastKeys = new Uint32Array(count);
  for (let n = 0; n + 1 < lengthStarts.length; n++) {
    const start = lengthStarts[n] ?? 0;
    const ids = lengthOrder.slice(start, lengthStarts[n + 1] ?? 0);
    const firstOf = (id: number): number => termOf(id).charCodeAt(0) || 0;
    const keyOfId = (id: number): number => {
      const term = termOf(id);
      return term.length === 0 ? 0 : term.charCodeAt(term.length - 1) * CODE_UNITS + term.charCodeAt(0);
    };
    ids.toSorted((a, b) => firstOf(a) - firstOf(b) || a - b).forEach((id, i) => {
      order[start + i] = id;
      firsts[start + i] = firstOf(id);
    });
    ids.toSorted((a, b) => keyOfId(a) - keyOfId(b) || a - b).forEach((id, i) => {
      lastOrder[start + i] = id;
      lastKeys[start + i] = keyOfId(id);
    });
  }
  return { order, firsts, lastOrder, lastKeys };
}
