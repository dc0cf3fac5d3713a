// A map from a pair of small non-negative integers (two term ids) to an integer, in one flat typed array (open
// addressing, linear probing): an index build looks up every pair of adjacent terms of every name and description,
// and a Map keyed by a number past 2^31 (the two ids in one float) cost a build at 10,000 tools about a tenth of its
// time in hashing and boxed keys. An entry's first id, second id and value lie side by side (ENTRY ints apart): a
// probe reads one cache line, not one in each of three arrays (at 50,000 pairs the table is past the caches).

const EMPTY = -1;
const INITIAL_CAPACITY = 1024;
/** Ints per entry: first, second, value, and one unused (an entry never straddles a cache line). */
const ENTRY = 4;

function emptyEntries(capacity: number): Int32Array {
  const entries = new Int32Array(capacity * ENTRY);
  for (let at = 2; at < entries.length; at += ENTRY) entries[at] = EMPTY;
  return entries;
}

export class PairTable {
  #entries = emptyEntries(INITIAL_CAPACITY);
  #capacity = INITIAL_CAPACITY;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** The value of the pair (first, second), or -1 when it has none. */
  get(first: number, second: number): number {
    const entries = this.#entries;
    const mask = this.#capacity - 1;
    for (let slot = slotOf(first, second, mask); ; slot = (slot + 1) & mask) {
      const at = slot * ENTRY;
      const value = entries[at + 2] ?? EMPTY;
      if (value === EMPTY || (entries[at] === first && entries[at + 1] === second)) return value;
    }
  }

  /** Sets the value of the pair (first, second); values and ids must be non-negative 32-bit integers. */
  set(first: number, second: number, value: number): void {
    if (value < 0 || first < 0 || second < 0) throw new RangeError("PairTable holds non-negative integers only");
    if (2 * (this.#size + 1) > this.#capacity) this.#grow();
    this.#put(first, second, value);
  }

  #put(first: number, second: number, value: number): void {
    const entries = this.#entries;
    const mask = this.#capacity - 1;
    for (let slot = slotOf(first, second, mask); ; slot = (slot + 1) & mask) {
      const at = slot * ENTRY;
      const held = entries[at + 2] ?? EMPTY;
      if (held === EMPTY) {
        entries[at] = first;
        entries[at + 1] = second;
        entries[at + 2] = value;
        this.#size++;
        return;
      }
      if (entries[at] === first && entries[at + 1] === second) {
        entries[at + 2] = value;
        return;
      }
    }
  }

  #grow(): void {
    const entries = this.#entries;
    this.#capacity *= 2;
    this.#entries = emptyEntries(this.#capacity);
    this.#size = 0;
    for (let at = 0; at < entries.length; at += ENTRY) {
      const value = entries[at + 2] ?? EMPTY;
      if (value !== EMPTY) this.#put(entries[at] ?? 0, entries[at + 1] ?? 0, value);
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
