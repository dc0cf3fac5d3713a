// Caches built search indexes per catalog version and mode, so that an index is never built per request. A new
// version of a catalog is indexed by patching the latest index of the same mode (SearchIndex.update: only the tools
// that changed are analyzed), when the mode's index can be patched and the change is small; else it is built.
import { SEARCH_MODES } from "../config.ts";
import type { SearchMode } from "../config.ts";
import type { ToolDefinition } from "../types.ts";
import { createSearchIndex } from "./createIndex.ts";
import type { SearchIndex } from "./types.ts";

/** Keeps the indexes of one catalog; `key` identifies a catalog version (e.g. registry version, catalog hash). */
export class SearchIndexCache {
  readonly #capacity: number;
  readonly #create: (mode: SearchMode, tools: readonly ToolDefinition[]) => SearchIndex;
  readonly #patch: boolean;
  /** Insertion order is recency order: the first entry is the least recently used. */
  readonly #entries = new Map<string, { mode: SearchMode; index: SearchIndex }>();

  /**
   * `capacity`: how many (key, mode) indexes to keep, least recently used dropped first.
   * `create`: builds an index (tests pass a counting one); `createSearchIndex` by default.
   * `patch`: whether a new key's index may be made by updating the latest one of its mode (which then answers for
   * the new key only: an index from `get` is to be used before the next `get`, as the request paths do).
   */
  constructor(
    capacity = 8,
    create: (mode: SearchMode, tools: readonly ToolDefinition[]) => SearchIndex = createSearchIndex,
    options: { patch?: boolean } = {},
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    this.#capacity = capacity;
    this.#create = create;
    this.#patch = options.patch ?? true;
  }

  /** How many indexes are held now. */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * The index of (`key`, `mode`), from `tools()` the first time only (`tools` is not called on a hit): the latest
   * index of the mode patched to it, or a new one.
   */
  get(key: string, mode: SearchMode, tools: () => readonly ToolDefinition[]): SearchIndex {
    // JSON keeps (key, mode) pairs apart whatever characters the key holds.
    const entryKey = JSON.stringify([key, mode]);
    const cached = this.#entries.get(entryKey);
    if (cached) {
      this.#entries.delete(entryKey);
      this.#entries.set(entryKey, cached);
      return cached.index;
    }
    const catalog = tools();
    const index = this.#patched(mode, catalog) ?? this.#create(mode, catalog);
    this.#entries.set(entryKey, { mode, index });
    this.#evict();
    return index;
  }

  /** Drops the least recently used entries past the capacity. */
  #evict(): void {
    while (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
  }

  /** Keeps `index` as the index of (`key`, `mode`) (one made elsewhere: read from a snapshot). */
  set(key: string, mode: SearchMode, index: SearchIndex): void {
    const entryKey = JSON.stringify([key, mode]);
    this.#entries.delete(entryKey);
    this.#entries.set(entryKey, { mode, index });
    this.#evict();
  }

  /** The latest index of `mode`, updated to `catalog` (and no longer kept under its old key), if it can be. */
  #patched(mode: SearchMode, catalog: readonly ToolDefinition[]): SearchIndex | undefined {
    if (!this.#patch) return undefined;
    const latest = [...this.#entries].findLast(([, entry]) => entry.mode === mode);
    if (!latest?.[1].index.update) return undefined;
    const updated = latest[1].index.update(catalog);
    if (updated) this.#entries.delete(latest[0]);
    return updated;
  }

  /** Drops every index of `key` (e.g. a catalog that will not be asked for again). */
  delete(key: string): void {
    for (const mode of SEARCH_MODES) this.#entries.delete(JSON.stringify([key, mode]));
  }

  clear(): void {
    this.#entries.clear();
  }
}
