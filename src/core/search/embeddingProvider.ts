// What ranked search asks of an embeddings provider (docs/search.md, "Embeddings providers"), and the two pieces of
// per-isolate state around it that are plain logic: the circuit breaker that skips a provider that keeps failing, and
// the bounded cache of query vectors. The providers themselves (Workers AI, an OpenAI-compatible endpoint) are the
// Worker's (src/isolate/embeddingProviders.ts): the core never calls out.

/** A source of text embeddings. */
export interface EmbeddingProvider {
  /** `provider:model`: vectors under different ids are never compared (a tool's stored vector is keyed by it). */
  readonly id: string;
  /** Most texts in one call; longer lists are sent in batches of this many. */
  readonly batchSize: number;
  /**
   * One vector per text, in order. Rejects on any failure, and gives up (rejects with EmbeddingTimeout) past
   * `timeoutMs`; a wrong count or a vector that is no list of finite numbers is a failure too.
   */
  embed(texts: readonly string[], timeoutMs: number): Promise<ArrayLike<number>[]>;
}

/** A provider call that took longer than it was given. */
export class EmbeddingTimeout extends Error {
  constructor(ms: number) {
    super(`the embeddings provider did not answer within ${ms} ms`);
    this.name = "EmbeddingTimeout";
  }
}

/** Why a search ranked without its query's vector. */
export type FallbackReason = "error" | "timeout" | "circuit_open";

/** Consecutive failures that open the breaker, and how long it then stays open (milliseconds). */
export const BREAKER_FAILURES = 3;
export const BREAKER_OPEN_MS = 30_000;

/**
 * Skips a provider that keeps failing: after `failures` failures in a row, no call is made for `openMs`; then one
 * call is let through (half-open): its success closes the breaker, its failure opens it again for another `openMs`.
 */
export class CircuitBreaker {
  readonly #failures: number;
  readonly #openMs: number;
  readonly #now: () => number;
  #inARow = 0;
  #openUntil = 0;
  #trial = false;

  constructor(options: { failures?: number; openMs?: number; now?: () => number } = {}) {
    this.#failures = options.failures ?? BREAKER_FAILURES;
    this.#openMs = options.openMs ?? BREAKER_OPEN_MS;
    this.#now = options.now ?? Date.now;
  }

  /** Whether a call may be made now (true for the one trial call once an open period is over). */
  allow(): boolean {
    if (this.#inARow < this.#failures) return true;
    if (this.#now() < this.#openUntil || this.#trial) return false;
    this.#trial = true;
    return true;
  }

  succeeded(): void {
    this.#inARow = 0;
    this.#trial = false;
  }

  failed(): void {
    this.#inARow += 1;
    this.#trial = false;
    if (this.#inARow >= this.#failures) this.#openUntil = this.#now() + this.#openMs;
  }

  /** "closed" (calls made), "open" (calls skipped). */
  get state(): "closed" | "open" {
    return this.#inARow >= this.#failures && this.#now() < this.#openUntil ? "open" : "closed";
  }
}

/** Query vectors kept per isolate: a repeated request costs no provider call. */
export const QUERY_CACHE_ENTRIES = 512;

/** A least-recently-used map of query → vector, at most `capacity` entries. */
export class QueryVectorCache {
  readonly #capacity: number;
  /** Insertion order is recency order: the first key is the least recently used. */
  readonly #entries = new Map<string, Int8Array>();

  constructor(capacity = QUERY_CACHE_ENTRIES) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): Int8Array | undefined {
    const vector = this.#entries.get(key);
    if (vector !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, vector);
    }
    return vector;
  }

  set(key: string, vector: Int8Array): void {
    this.#entries.delete(key);
    this.#entries.set(key, vector);
    while (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
  }
}
