// Caches built search indexes per catalog version and mode, so that an index is never built per request.
import { SEARCH_MODES } from "../config.ts";
import type { SearchMode } from "../config.ts";
import type { ToolDefinition } from "../types.ts";
import { createSearchIndex } from "./createIndex.ts";
import type { SearchIndex } from "./types.ts";

/** Keeps the indexes of one catalog; `key` identifies a catalog version (e.g. registry version, catalog hash). */
export class SearchIndexCache {
  readonly #capacity: number;
  readonly #create: (mode: SearchMode, tools: readonly ToolDefinition[]) => SearchIndex;
  /** Insertion order is recency order: the first entry is the least recently used. */
  readonly #entries = new Map<string, SearchIndex>();

  /**
   * `capacity`: how many (key, mode) indexes to keep, least recently used dropped first.
   * `create`: builds an index (tests pass a counting one); `createSearchIndex` by default.
   */
  constructor(capacity = 8, create: (mode: SearchMode, tools: readonly ToolDefinition[]) => SearchIndex = createSearchIndex) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    this.#capacity = capacity;
    this.#create = create;
  }

  /** How many indexes are held now. */
  get size(): number {
    return this.#entries.size;
  }

  /** The index of (`key`, `mode`), built from `tools()` the first time only; `tools` is not called on a hit. */
  get(key: string, mode: SearchMode, tools: () => readonly ToolDefinition[]): SearchIndex {
    // JSON keeps (key, mode) pairs apart whatever characters the key holds.
    const entryKey = JSON.stringify([key, mode]);
    const cached = this.#entries.get(entryKey);
    if (cached) {
      this.#entries.delete(entryKey);
      this.#entries.set(entryKey, cached);
      return cached;
    }
    const index = this.#create(mode, tools());
    this.#entries.set(entryKey, index);
    while (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
    return index;
  }

  /** Drops every index of `key` (e.g. a catalog that will not be asked for again). */
  delete(key: string): void {
    for (const mode of SEARCH_MODES) this.#entries.delete(JSON.stringify([key, mode]));
  }

  clear(): void {
    this.#entries.clear();
  }
}
