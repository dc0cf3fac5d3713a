import { describe, expect, it } from "vitest";
import type { SearchMode } from "../../../src/core/config.ts";
import { createSearchIndex } from "../../../src/core/search/createIndex.ts";
import { SearchIndexCache } from "../../../src/core/search/indexCache.ts";
import type { SearchIndex } from "../../../src/core/search/types.ts";
import type { ToolDefinition } from "../../../src/core/types.ts";

const catalog: ToolDefinition[] = [
  { name: "get_weather", description: "Current conditions for a city.", parameters: { type: "object", properties: {} } },
  { name: "send_email", description: "Sends a message.", parameters: { type: "object", properties: {} } },
];

/**
 * A cache (that builds every index, never patches one) whose factory counts its calls. `get(key, mode)` records "key/mode" when the cache reads the catalog,
 * which it does exactly when it builds.
 */
function countingCache(capacity: number) {
  const builds: string[] = [];
  const factory = { calls: 0 };
  const cache = new SearchIndexCache(
    capacity,
    (mode, tools): SearchIndex => {
      factory.calls++;
      return createSearchIndex(mode, tools);
    },
    { patch: false },
  );
  const get = (key: string, mode: SearchMode, tools: readonly ToolDefinition[] = catalog): SearchIndex =>
    cache.get(key, mode, () => {
      builds.push(`${key}/${mode}`);
      return tools;
    });
  return { cache, get, builds, factory };
}

describe("SearchIndexCache", () => {
  it("builds once per (key, mode), then answers from the cache without reading the catalog", () => {
    const { get, builds, factory } = countingCache(8);
    const first = get("v1", "minisearch");
    for (let i = 0; i < 5; i++) expect(get("v1", "minisearch")).toBe(first);
    expect(builds).toEqual(["v1/minisearch"]);
    expect(factory.calls).toBe(1);
    expect(first.search("weather")).toEqual(["get_weather"]);
  });

  it("keeps modes and keys apart", () => {
    const { cache, get, builds, factory } = countingCache(8);
    const minisearch = get("v1", "minisearch");
    const substring = get("v1", "substring");
    const next = get("v2", "minisearch", catalog.slice(0, 1));
    expect(new Set([minisearch, substring, next]).size).toBe(3);
    expect(next.size).toBe(1);
    expect(builds).toEqual(["v1/minisearch", "v1/substring", "v2/minisearch"]);
    expect(factory.calls).toBe(3);
    expect(cache.size).toBe(3);
  });

  it("does not confuse keys that only differ by where a separator falls", () => {
    const { get, builds } = countingCache(8);
    get("a/substring", "minisearch");
    get("a", "substring");
    expect(builds).toHaveLength(2);
  });

  it("drops the least recently used index beyond its capacity", () => {
    const { cache, get, builds } = countingCache(2);
    get("a", "minisearch");
    get("b", "minisearch");
    get("a", "minisearch"); // a is now the most recently used
    get("c", "minisearch"); // evicts b
    expect(cache.size).toBe(2);
    get("a", "minisearch");
    expect(builds).toEqual(["a/minisearch", "b/minisearch", "c/minisearch"]);
    get("b", "minisearch"); // rebuilt, evicts c
    expect(builds).toEqual(["a/minisearch", "b/minisearch", "c/minisearch", "b/minisearch"]);
  });

  it("forgets a key, or everything, on demand", () => {
    const { cache, get, builds } = countingCache(8);
    get("a", "minisearch");
    get("a", "substring");
    get("b", "substring");
    cache.delete("a");
    expect(cache.size).toBe(1);
    get("a", "substring");
    expect(builds.filter((b) => b === "a/substring")).toHaveLength(2);
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it("uses createSearchIndex by default and refuses a capacity below one", () => {
    const cache = new SearchIndexCache();
    expect(cache.get("k", "substring", () => catalog).search("eath")).toEqual(["get_weather"]);
    expect(() => new SearchIndexCache(0)).toThrow(RangeError);
    expect(() => new SearchIndexCache(1.5)).toThrow(RangeError);
  });
});

describe("SearchIndexCache.set", () => {
  it("keeps an index made elsewhere under its key and mode, within the capacity", () => {
    const built: SearchMode[] = [];
    const cache = new SearchIndexCache(2, (mode, tools) => {
      built.push(mode);
      return createSearchIndex(mode, tools);
    });
    const restored = createSearchIndex("minisearch", catalog);
    cache.set("v1", "minisearch", restored);
    expect(cache.get("v1", "minisearch", () => catalog)).toBe(restored);
    expect(built).toEqual([]);
    cache.set("v2", "minisearch", createSearchIndex("minisearch", catalog));
    cache.set("v3", "minisearch", createSearchIndex("minisearch", catalog));
    expect(cache.size).toBe(2);
    expect(cache.get("v1", "minisearch", () => catalog)).not.toBe(restored);
  });
});
