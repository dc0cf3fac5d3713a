// Keeping the best k of a stream of scored ids, without sorting them all.
/** The k best ids seen (highest score, then lowest position): a heap with the worst of them on top. */
export class TopK {
  readonly #k: number;
  readonly #position: (id: number) => number;
  readonly #slots: number[] = [];
  readonly #scores: number[] = [];

  constructor(k: number, position: (id: number) => number) {
    this.#k = k;
    this.#position = position;
  }

  get full(): boolean {
    return this.#slots.length >= this.#k;
  }

  /** The worst score kept (0 while not full). */
  get lowest(): number {
    return this.full ? (this.#scores[0] ?? 0) : 0;
  }

  /** Whether (score a, slot a) ranks below (score b, slot b). */
  #worse(i: number, j: number): boolean {
    const a = this.#scores[i] ?? 0;
    const b = this.#scores[j] ?? 0;
    if (a !== b) return a < b;
    return this.#position(this.#slots[i] ?? 0) > this.#position(this.#slots[j] ?? 0);
  }

  offer(slot: number, score: number): void {
    if (this.#k <= 0) return;
    if (!this.full) {
      this.#slots.push(slot);
      this.#scores.push(score);
      this.#up(this.#slots.length - 1);
      return;
    }
    const rootScore = this.#scores[0] ?? 0;
    const rootPosition = this.#position(this.#slots[0] ?? 0);
    // Better than the worst kept: a higher score, or the same score earlier in the catalog.
    if (score < rootScore || (score === rootScore && this.#position(slot) > rootPosition)) return;
    this.#slots[0] = slot;
    this.#scores[0] = score;
    this.#down(0);
  }

  #swap(i: number, j: number): void {
    const slot = this.#slots[i] ?? 0;
    const score = this.#scores[i] ?? 0;
    this.#slots[i] = this.#slots[j] ?? 0;
    this.#scores[i] = this.#scores[j] ?? 0;
    this.#slots[j] = slot;
    this.#scores[j] = score;
  }

  #up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#worse(i, parent)) return;
      this.#swap(i, parent);
      i = parent;
    }
  }

  #down(i: number): void {
    const length = this.#slots.length;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < length && this.#worse(left, worst)) worst = left;
      if (right < length && this.#worse(right, worst)) worst = right;
      if (worst === i) return;
      this.#swap(i, worst);
      i = worst;
    }
  }

  /** The kept slots, best first. */
  sorted(): number[] {
    return this.sortedWithScores().slots;
  }

  /** The kept slots, best first, and their scores. */
  sortedWithScores(): { slots: number[]; scores: number[] } {
    const order = this.#slots.map((_, i) => i);
    order.sort((i, j) => (this.#worse(i, j) ? 1 : this.#worse(j, i) ? -1 : 0));
    return { slots: order.map((i) => this.#slots[i] ?? 0), scores: order.map((i) => this.#scores[i] ?? 0) };
  }
}
