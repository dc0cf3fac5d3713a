// The bounded discovered set of one session: most recent first, re-use moves a name to the front. It also remembers
// the order in which names were found, which is the order a "stable" tool list sends them in.

/**
 * How a full set makes room:
 * - `lru`: the least recently used name goes (the original design's rule; "grow" and "fixed" lists).
 * - `stable`: among the names not used recently (all but the most recent half), the one found last goes. A "stable"
 *   list sends discovered tools in the order found, so dropping a name changes the list from its place onwards (and
 *   with it every cached token after it): dropping the latest-found cold name keeps the longest prefix, while the
 *   recent half is never touched, so a tool in use is not dropped.
 */
export type Eviction = "lru" | "stable";

/**
 * A most-recently-used set of tool names. A Map keeps insertion order, so the least recent name is the first key and
 * the most recent the last: touch, has and delete are O(1); an eviction is O(1) for `lru`, O(size) for `stable`.
 */
export class DiscoveredSet {
  readonly max: number;
  readonly eviction: Eviction;
  /** Least recent first (insertion order). */
  private readonly names = new Map<string, true>();
  /** The same names, first found first: re-use does not move a name. */
  private readonly found = new Map<string, true>();

  /**
   * `max` 0 = unlimited. `initial` is most recent first (the stored order). `foundOrder` (first found first) is the
   * stored found order: names it lacks follow it, oldest use first; names `initial` lacks are dropped.
   */
  constructor(max: number, initial: Iterable<string> = [], options: { eviction?: Eviction; foundOrder?: Iterable<string> } = {}) {
    if (!Number.isSafeInteger(max) || max < 0) {
      throw new RangeError(`max must be a non-negative integer (0 = unlimited), got ${String(max)}`);
    }
    this.max = max;
    this.eviction = options.eviction ?? "lru";
    // Insert oldest first so that the first of `initial` ends up most recent; a repeated name keeps its most recent
    // (first) place, and the bound keeps the first `max` (the most recent: loading never uses the stable rule).
    const recent: string[] = [];
    const seen = new Set<string>();
    for (const name of initial) {
      if (seen.has(name)) continue;
      seen.add(name);
      recent.push(name);
      if (max > 0 && recent.length >= max) break;
    }
    for (const name of recent.toReversed()) this.names.set(name, true);
    for (const name of options.foundOrder ?? []) if (this.names.has(name)) this.found.set(name, true);
    for (const name of this.names.keys()) if (!this.found.has(name)) this.found.set(name, true);
  }

  /** Marks names as used now, in the order given: the last one given ends up most recent. */
  touch(names: Iterable<string>): void {
    for (const name of names) {
      this.names.delete(name);
      this.names.set(name, true);
      if (!this.found.has(name)) this.found.set(name, true);
      if (this.max > 0 && this.names.size > this.max) this.evict();
    }
  }

  has(name: string): boolean {
    return this.names.has(name);
  }

  delete(name: string): boolean {
    this.found.delete(name);
    return this.names.delete(name);
  }

  clear(): void {
    this.names.clear();
    this.found.clear();
  }

  get size(): number {
    return this.names.size;
  }

  /** Most recent first. */
  toArray(): string[] {
    return [...this.names.keys()].toReversed();
  }

  /** First found first (the order a "stable" list sends them in). */
  foundOrder(): string[] {
    return [...this.found.keys()];
  }

  private evict(): void {
    const victim = this.eviction === "stable" ? this.stableVictim() : this.leastRecent();
    if (victim === undefined) return;
    this.names.delete(victim);
    this.found.delete(victim);
  }

  private leastRecent(): string | undefined {
    for (const oldest of this.names.keys()) return oldest;
    return undefined;
  }

  /** The latest-found of the names outside the most recent half (the name just touched is always in that half). */
  private stableVictim(): string | undefined {
    const protectedCount = Math.ceil(this.max / 2);
    const coldCount = this.names.size - protectedCount;
    const cold = new Set<string>();
    for (const name of this.names.keys()) {
      if (cold.size >= coldCount) break;
      cold.add(name);
    }
    const order = [...this.found.keys()];
    for (let i = order.length - 1; i >= 0; i--) {
      const name = order[i];
      if (name !== undefined && cold.has(name)) return name;
    }
    return this.leastRecent();
  }
}
