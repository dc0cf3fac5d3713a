// A map from a pair of small non-negative integers (two term ids) to an integer, in flat typed arrays (open
// addressing, linear probing): an index build looks up every pair of adjacent terms of every name and description,
// and a Map keyed by a number past 2^31 (the two ids in one float) cost a build at 10,000 tools about a tenth of its
// time in hashing and boxed keys.

const EMPTY = -1;
const INITIAL_CAPACITY = 1024;

export class PairTable {
  #first = new Int32Array(INITIAL_CAPACITY);
  #second = new Int32Array(INITIAL_CAPACITY);
  #values = new Int32Array(INITIAL_CAPACITY).fill(EMPTY);
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** The value of the pair (first, second), or -1 when it has none. */
  get(first: number, second: number): number {
    const mask = this.#values.length - 1;
    for (let at = slotOf(first, second, mask); ; at = (at + 1) & mask) {
      const value = this.#values[at] ?? EMPTY;
      if (value === EMPTY || (this.#first[at] === first && this.#second[at] === second)) return value;
    }
  }

  /** Sets the value of the pair (first, second); values and ids must be non-negative 32-bit integers. */
  set(first: number, second: number, value: number): void {
    if (value < 0 || first < 0 || second < 0) throw new RangeError("PairTable holds non-negative integers only");
    if (2 * (this.#size + 1) > this.#values.length) this.#grow();
    this.#put(first, second, value);
  }

  #put(first: number, second: number, value: number): void {
    const mask = this.#values.length - 1;
    for (let at = slotOf(first, second, mask); ; at = (at + 1) & mask) {
      const held = this.#values[at] ?? EMPTY;
      if (held === EMPTY) {
        this.#first[at] = first;
        this.#second[at] = second;
        this.#values[at] = value;
        this.#size++;
        return;
      }
      if (this.#first[at] === first && this.#second[at] === second) {
        this.#values[at] = value;
        return;
      }
    }
  }

  #grow(): void {
    const first = this.#first;
    const second = this.#second;
    const values = this.#values;
    const capacity = values.length * 2;
    this.#first = new Int32Array(capacity);
    this.#second = new Int32Array(capacity);
    this.#values = new Int32Array(capacity).fill(EMPTY);
    this.#size = 0;
    for (let at = 0; at < values.length; at++) {
      const value = values[at] ?? EMPTY;
      if (value !== EMPTY) this.#put(first[at] ?? 0, second[at] ?? 0, value);
    }
  }
}

/** The first slot to probe for a pair: the two ids mixed (multiplicative hashing), within `mask`. */
function slotOf(first: number, second: number, mask: number): number {
  let h = Math.imul(first, 0x9e3779b1) ^ Math.imul(second + 0x7f4a7c15, 0x85ebca77);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h & mask;
}
