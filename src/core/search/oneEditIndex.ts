// The terms that can be one edit from a word (a typo: one letter inserted, deleted or changed), found without reading
// every term of a near length. Two strings one edit apart share their first letter or their last one, when either
// is two letters or longer: an edit at the first letter leaves the last in place, any other edit leaves the first.
// So a word's candidates are the terms of length n − 1 to n + 1 that start with its first letter or end with its last
// (and every term of one letter or none). At 10,000 tools, a typo's look-up read about 4,000 terms; now a few hundred.

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
