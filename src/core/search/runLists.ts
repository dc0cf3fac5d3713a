// Many int32 lists held as runs of a few shared buffers: per list, the buffer it lies in, where it starts and where
// it ends. An index build lays every term's postings (and every tool's forward list) in one buffer; a view per list
// (a typed array object, about 110 bytes and 0.1 to 0.2 µs to make) cost a 10,000-tool build 65,000 such objects.
import { IntList } from "./intList.ts";

const EMPTY = new Int32Array(0);

export class RunLists {
  /** Per list: its buffer (undefined: no list, as a removed tool's). */
  readonly #buffers: (Int32Array | undefined)[] = [];
  readonly #starts = new IntList();
  readonly #ends = new IntList();

  get length(): number {
    return this.#buffers.length;
  }

  /** Appends a list: `buffer[start .. end)` (undefined: none). */
  push(buffer: Int32Array | undefined, start: number, end: number): void {
    this.#buffers.push(buffer);
    this.#starts.push(start);
    this.#ends.push(end);
  }

  /** Makes list `i` `buffer[start .. end)` (undefined: none). */
  set(i: number, buffer: Int32Array | undefined, start: number, end: number): void {
    this.#buffers[i] = buffer;
    this.#starts.set(i, start);
    this.#ends.set(i, end);
  }

  /** Whether list `i` is held (not undefined). */
  has(i: number): boolean {
    return this.#buffers[i] !== undefined;
  }

  /** The buffer list `i` lies in (an empty one for none): read from start(i) to end(i). */
  buffer(i: number): Int32Array {
    return this.#buffers[i] ?? EMPTY;
  }

  start(i: number): number {
    return this.#buffers[i] === undefined ? 0 : this.#starts.at(i);
  }

  end(i: number): number {
    return this.#buffers[i] === undefined ? 0 : this.#ends.at(i);
  }

  /** List `i` as a view of its buffer (an object made per call). */
  view(i: number): Int32Array {
    const buffer = this.#buffers[i];
    return buffer === undefined ? EMPTY : buffer.subarray(this.#starts.at(i), this.#ends.at(i));
  }

  /** List `i` followed by `more`, in a buffer of its own. */
  append(i: number, more: Int32Array): void {
    const held = this.view(i);
    const joined = new Int32Array(held.length + more.length);
    joined.set(held);
    joined.set(more, held.length);
    this.set(i, joined, 0, joined.length);
  }

  /** Removes `count` values of list `i` from its index `at` (of the buffer): the rest moved down in place. */
  remove(i: number, at: number, count: number): void {
    const buffer = this.#buffers[i];
    if (buffer === undefined) return;
    const end = this.#ends.at(i);
    buffer.copyWithin(at, at + count, end);
    this.#ends.set(i, end - count);
  }
}
