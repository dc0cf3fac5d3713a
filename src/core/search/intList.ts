/** A list of 32-bit integers in one typed array that grows by doubling (no object per element). */
export class IntList {
  #values: Int32Array;
  #length = 0;

  constructor(capacity = 1024) {
    this.#values = new Int32Array(Math.max(1, capacity));
  }

  get length(): number {
    return this.#length;
  }

  at(index: number): number {
    return this.#values[index] ?? 0;
  }

  set(index: number, value: number): void {
    this.#values[index] = value;
  }

  /** The values, without copying them (valid until the next push). */
  view(): Int32Array {
    return this.#values.subarray(0, this.#length);
  }

  /** Makes the list `values` (copied: the list grows in place later). */
  replace(values: Int32Array): void {
    this.#values = new Int32Array(Math.max(1, values.length));
    this.#values.set(values);
    this.#length = values.length;
  }

  /** Empties the list (its capacity stays). */
  clear(): void {
    this.#length = 0;
  }

  /** Appends `value` until the list is `length` long (no-op when it is already). */
  padTo(length: number, value: number): void {
    if (length <= this.#length) return;
    if (length > this.#values.length) {
      const grown = new Int32Array(Math.max(length, this.#values.length * 2));
      grown.set(this.#values.subarray(0, this.#length));
      this.#values = grown;
    }
    this.#values.fill(value, this.#length, length);
    this.#length = length;
  }

  /** Appends `value`; returns its index. */
  push(value: number): number {
    if (this.#length === this.#values.length) {
      const grown = new Int32Array(this.#values.length * 2);
      grown.set(this.#values);
      this.#values = grown;
    }
    this.#values[this.#length] = value;
    return this.#length++;
  }
}
