// A restored ranked index's terms read in place: one text of every term, end to end, and where each starts (in UTF-16
// code units), instead of a string per term. Splitting the 55,000 terms of a 10,000-tool index into strings cost a
// cold isolate's first request 5 to 14 ms (and the young-generation collections their 2 MB brought on); a search
// looks up a few dozen terms, by binary search over the sorted ids comparing in place, and makes a string only of the
// terms it hands on (prefix and fuzzy matches).
// The starts are read up front (checked with the snapshot's digest), not per chunk: a binary search's probes land on
// terms all over the index, so a first search's few dozen lookups checked nearly every chunk of them one by one (about
// 1.5 ms of a cold first search, against 0.15 ms of the native digest over their 220 KB).

export class TermText {
  readonly #text: string;
  /** starts[id] .. starts[id + 1]: term `id` in #text (count + 1 values). */
  readonly #starts: Int32Array;
  readonly count: number;

  /** `starts` must be count + 1 offsets, the last the text's length (the reader checks the first and last). */
  constructor(text: string, starts: Int32Array) {
    this.#text = text;
    this.#starts = starts;
    this.count = Math.max(0, starts.length - 1);
  }

  /** Term `id` ("" for an id out of range, as a list of terms reads). */
  at(id: number): string {
    if (!(id >= 0 && id < this.count)) return "";
    return this.#text.slice(this.#starts[id] ?? 0, this.#starts[id + 1] ?? 0);
  }

  /** The length of term `id` in UTF-16 code units. */
  lengthOf(id: number): number {
    if (!(id >= 0 && id < this.count)) return 0;
    return (this.#starts[id + 1] ?? 0) - (this.#starts[id] ?? 0);
  }

  /** The sign of term `id` compared with `value` in UTF-16 order (as `<` compares strings), without a string made. */
  compare(id: number, value: string): number {
    if (!(id >= 0 && id < this.count)) return value.length === 0 ? 0 : -1;
    const starts = this.#starts;
    const start = starts[id] ?? 0;
    const length = (starts[id + 1] ?? 0) - start;
    const shared = Math.min(length, value.length);
    const text = this.#text;
    for (let i = 0; i < shared; i++) {
      const difference = text.charCodeAt(start + i) - value.charCodeAt(i);
      if (difference !== 0) return difference;
    }
    return length - value.length;
  }

  /** The first place of `ids` (term ids in the order of their terms) whose term is not below `value`. */
  lowerBound(ids: Int32Array, value: string): number {
    let low = 0;
    let high = ids.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.compare(ids[middle] ?? 0, value) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /**
   * Whether term `id` is at most one edit (insert, delete or substitute one code unit) from `value`, as
   * bm25Postings.ts's withinOneEdit compares the term's string (an id out of range as "").
   */
  withinOneEdit(id: number, value: string): boolean {
    const inRange = id >= 0 && id < this.count;
    const start = inRange ? (this.#starts[id] ?? 0) : 0;
    return withinOneEditAt(this.#text, start, inRange ? (this.#starts[id + 1] ?? 0) - start : 0, value);
  }

  /** Whether term `id` starts with `value`. */
  startsWith(id: number, value: string): boolean {
    const start = this.#starts[id] ?? 0;
    return (this.#starts[id + 1] ?? 0) - start >= value.length && this.#text.startsWith(value, start);
  }

  /** Every term as a string (a thawing index's list). */
  all(): string[] {
    const starts = this.#starts;
    const terms: string[] = [];
    for (let id = 0; id < this.count; id++) terms.push(this.#text.slice(starts[id] ?? 0, starts[id + 1] ?? 0));
    return terms;
  }
}

/**
 * Levenshtein distance at most 1 (insert, delete or substitute one code unit) between `text`'s `length` code units
 * from `start` and `value`: a term compared in place, or a whole string (start 0).
 */
export function withinOneEditAt(text: string, start: number, length: number, value: string): boolean {
  const other = value.length;
  if (Math.abs(length - other) > 1) return false;
  let i = 0;
  while (i < length && i < other && text.charCodeAt(start + i) === value.charCodeAt(i)) i++;
  if (length === other) {
    for (let j = i + 1; j < length; j++) if (text.charCodeAt(start + j) !== value.charCodeAt(j)) return false;
    return true;
  }
  // One code unit more on one side: the rest of the shorter is the rest of the longer past it.
  if (length > other) {
    for (let j = i; j < other; j++) if (text.charCodeAt(start + j + 1) !== value.charCodeAt(j)) return false;
  } else {
    for (let j = i; j < length; j++) if (value.charCodeAt(j + 1) !== text.charCodeAt(start + j)) return false;
  }
  return true;
}
