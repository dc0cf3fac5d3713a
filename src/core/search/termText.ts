// A restored ranked index's terms read in place: one text of every term, end to end, and where each starts (in UTF-16
// code units), instead of a string per term. Splitting the 55,000 terms of a 10,000-tool index into strings cost a
// cold isolate's first request 5 to 14 ms (and the young-generation collections their 2 MB brought on); a search
// looks up a few dozen terms, by binary search over the sorted ids comparing in place, and makes a string only of the
// terms it hands on (prefix and fuzzy matches).
import type { DeferredSection } from "./snapshotCodec.ts";

export class TermText {
  readonly #text: string;
  /** starts[id] .. starts[id + 1]: term `id` in #text (count + 1 values, checked per chunk as read). */
  readonly #starts: DeferredSection<Int32Array>;
  readonly count: number;

  /** `starts` must be count + 1 offsets, the last the text's length (the reader checks the first and last). */
  constructor(text: string, starts: DeferredSection<Int32Array>) {
    this.#text = text;
    this.#starts = starts;
    this.count = Math.max(0, starts.values.length - 1);
  }

  #start(id: number): number {
    return this.#starts.at(id);
  }

  /** Term `id` ("" for an id out of range, as a list of terms reads). */
  at(id: number): string {
    if (!(id >= 0 && id < this.count)) return "";
    return this.#text.slice(this.#start(id), this.#start(id + 1));
  }

  /** The length of term `id` in UTF-16 code units. */
  lengthOf(id: number): number {
    if (!(id >= 0 && id < this.count)) return 0;
    return this.#start(id + 1) - this.#start(id);
  }

  /** Code unit `index` of term `id` (NaN past its end, as charCodeAt). */
  codeAt(id: number, index: number): number {
    const start = this.#start(id);
    return index >= 0 && start + index < this.#start(id + 1) ? this.#text.charCodeAt(start + index) : NaN;
  }

  /** The sign of term `id` compared with `value` in UTF-16 order (as `<` compares strings), without a string made. */
  compare(id: number, value: string): number {
    if (!(id >= 0 && id < this.count)) return value.length === 0 ? 0 : -1;
    const start = this.#start(id);
    const length = this.#start(id + 1) - start;
    const shared = Math.min(length, value.length);
    const text = this.#text;
    for (let i = 0; i < shared; i++) {
      const difference = text.charCodeAt(start + i) - value.charCodeAt(i);
      if (difference !== 0) return difference;
    }
    return length - value.length;
  }

  /** Whether term `id` starts with `value`. */
  startsWith(id: number, value: string): boolean {
    const start = this.#start(id);
    return this.#start(id + 1) - start >= value.length && this.#text.startsWith(value, start);
  }

  /** Every term as a string (a thawing index's list), every chunk of the starts checked. */
  all(): string[] {
    const starts = this.#starts.verifyAll();
    const terms: string[] = [];
    for (let id = 0; id < this.count; id++) terms.push(this.#text.slice(starts[id] ?? 0, starts[id + 1] ?? 0));
    return terms;
  }
}
