// The bounded discovered set of one session: most recent first, re-use moves a name to the front.

export class DiscoveredSet {
  /** `max` 0 = unlimited. `initial` is most recent first (the stored order). */
  constructor(_max: number, _initial: Iterable<string> = []) {}
  /** Marks names as used now, in the order given: the last one given ends up most recent. */
  touch(_names: Iterable<string>): void { throw new Error("not implemented"); }
  has(_name: string): boolean { throw new Error("not implemented"); }
  delete(_name: string): boolean { throw new Error("not implemented"); }
  clear(): void { throw new Error("not implemented"); }
  get size(): number { throw new Error("not implemented"); }
  /** Most recent first. */
  toArray(): string[] { throw new Error("not implemented"); }
}
