// The bounded discovered set of one session: most recent first, re-use moves a name to the front.

/**
 * A most-recently-used set of tool names. A Map keeps insertion order, so the least recent name is the first key and
 * the most recent the last: touch, has, delete and eviction are all O(1).
 */
export class DiscoveredSet {
  readonly max: number;
  /** Least recent first (insertion order). */
  private readonly names = new Map<string, true>();

  /** `max` 0 = unlimited. `initial` is most recent first (the stored order). */
  constructor(max: number, initial: Iterable<string> = []) {
    if (!Number.isSafeInteger(max) || max < 0) {
      throw new RangeError(`max must be a non-negative integer (0 = unlimited), got ${String(max)}`);
    }
    this.max = max;
    // Insert oldest first so that the first of `initial` ends up most recent; a repeated name keeps its most recent
    // (first) place, and the bound keeps the first `max`.
    this.touch([...initial].toReversed());
  }

  /** Marks names as used now, in the order given: the last one given ends up most recent. */
  touch(names: Iterable<string>): void {
    for (const name of names) {
      this.names.delete(name);
      this.names.set(name, true);
      if (this.max > 0 && this.names.size > this.max) this.evictLeastRecent();
    }
  }

  has(name: string): boolean {
    return this.names.has(name);
  }

  delete(name: string): boolean {
    return this.names.delete(name);
  }

  clear(): void {
    this.names.clear();
  }

  get size(): number {
    return this.names.size;
  }

  /** Most recent first. */
  toArray(): string[] {
    return [...this.names.keys()].toReversed();
  }

  private evictLeastRecent(): void {
    for (const oldest of this.names.keys()) {
      this.names.delete(oldest);
      return;
    }
  }
}
