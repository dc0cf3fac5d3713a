// The registry snapshot of a registry searched through shards (config searchShards, past its size): written without an
// index by the first isolate that builds the registry from the texts, and read by a cold isolate instead of reading and
// validating every stored text; the shards are searched as before and answer the same. A snapshot of the other kind
// (written under other settings) is refused and written again; below the size, the snapshot keeps its index.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { catalogNameLookup } from "../../src/core/tools/toolRegistry.ts";
import { toolListTokens } from "../../src/core/tools/toolTokens.ts";
import { registryStub } from "../../src/durable/stubs.ts";
import { currentRegistry, registrySearchIndex, resetIsolateRegistry } from "../../src/isolate/registryCache.ts";
import type { LoadedRegistry } from "../../src/isolate/registryCache.ts";
import { loadSettings } from "../../src/isolate/settings.ts";
import type { Settings } from "../../src/isolate/settings.ts";
import { shardedRegistrySearch } from "../../src/isolate/shardedSearches.ts";
import { api, token } from "../http/helpers.ts";

const TOOLS = 30;
const QUERIES = ["", "measure the quasar", "sharded_probe_7", "weather tomorrow in paris", "count alpha things"];

let base: Settings;
beforeAll(async () => {
  const owner = await token({ sub: "owner-sharded-snapshot", owner: true });
  const tools = Array.from({ length: TOOLS }, (_, i) => ({
    name: `sharded_probe_${i}`,
    description: `Sharded probe ${i}: ${i % 2 === 0 ? "measures quasars" : "counts alpha things"} for snapshot ${i}.`,
    parameters: { type: "object", properties: { text: { type: "string", description: `Text ${i}` } } },
    ...(i % 3 === 0 ? { groups: ["probes"] } : {}),
  }));
  const response = await api("/v1/tools", { method: "PUT", token: owner, body: { tools, context: "sharded-snapshot" } });
  if (response.status !== 200) throw new Error(`registering the tools failed: ${await response.text()}`);
  const loaded = loadSettings(env);
  if (!loaded.ok) throw loaded.error;
  base = loaded.settings;
}, 60_000);

/** The suite's settings with the shards on past `aboveTools` (and the version read on every call). */
function shardedPast(aboveTools: number): Settings {
  return { ...base, config: { ...base.config, registryVersionTtlMs: 0, searchShards: { aboveTools, count: 3 } } };
}

/** A cold isolate's registry under `settings`. */
async function cold(settings: Settings): Promise<LoadedRegistry> {
  resetIsolateRegistry();
  return currentRegistry(env, settings);
}

/** The stored registry snapshot's header (its first bytes), or undefined when none is stored. */
async function storedHeader(): Promise<string | undefined> {
  return runInDurableObject(registryStub(env), (_instance, state) => {
    const row = state.storage.sql.exec<{ data: ArrayBuffer }>("SELECT data FROM snapshot_chunks ORDER BY key, part LIMIT 1").toArray()[0];
    return row === undefined ? undefined : new TextDecoder().decode(new Uint8Array(row.data).subarray(0, 120));
  });
}

/** What callers see of a loaded registry: names, definitions, contexts, the list's tokens, and the sharded pages. */
async function servedBy(settings: Settings, loaded: LoadedRegistry): Promise<unknown> {
  const pages: unknown[] = [];
  for (const groups of [undefined, ["probes"]]) {
    const search = shardedRegistrySearch(env, settings, loaded, settings.config.searchMode, groups);
    if (search === undefined) throw new Error("the registry is not searched through shards");
    for (const query of QUERIES) pages.push(await search.searchPage(query, 6, ["search_tools"]), await search.scored(query, 4));
  }
  return {
    names: loaded.definitions.map((tool) => tool.name),
    definitions: loaded.definitions,
    contexts: loaded.definitions.map((tool) => loaded.registry.get(tool.name)?.contextId),
    tokens: toolListTokens(loaded.definitions, "openai"),
    pages,
  };
}

describe("the registry snapshot of a sharded registry", () => {
  it("is written without an index, and a cold isolate reads it: the same registry and the same sharded answers", async () => {
    const sharded = shardedPast(10);
    const built = await cold(sharded);
    expect(built.source).toBe("texts");
    expect(built.definitions.length).toBeGreaterThan(TOOLS);
    const expected = await servedBy(sharded, built);
    expect(await storedHeader()).toContain("toolgate registry snapshot without index");

    const read = await cold(sharded);
    expect(read.source).toBe("snapshot");
    expect(read.key).toBe(built.key);
    expect(await servedBy(sharded, read)).toEqual(expected);
    expect(read.registry.get("sharded_probe_4")?.definition.description).toBe("Sharded probe 4: measures quasars for snapshot 4.");
  });

  it("is refused under settings that search in the isolate, which then write and read an indexed one", async () => {
    const sharded = shardedPast(10);
    await cold(sharded);
    const unsharded = shardedPast(10_000);
    const built = await cold(unsharded);
    expect(built.source).toBe("texts");
    expect(await storedHeader()).not.toContain("without index");
    const pages = QUERIES.map((query) => registrySearchIndex(built, unsharded.config.searchMode, undefined).searchPage(query, 6));
    const read = await cold(unsharded);
    expect(read.source).toBe("snapshot");
    expect(QUERIES.map((query) => registrySearchIndex(read, unsharded.config.searchMode, undefined).searchPage(query, 6))).toEqual(pages);

    // And the indexed one under sharded settings: refused, the one without an index written instead.
    expect((await cold(sharded)).source).toBe("texts");
    expect(await storedHeader()).toContain("without index");
    expect((await cold(sharded)).source).toBe("snapshot");
  });

  it("is made as the texts are read by an isolate that holds nothing, which serves the registry read back from it", async () => {
    // Without the demo catalog (a deployment's registry: only stored tools). The same registry built by an isolate
    // that searches in itself (every definition validated and held as before) is what the pages must give.
    const inIsolate = { ...shardedPast(10_000), demoCatalog: false };
    const reference = await cold(inIsolate);
    expect(reference.definitions.length).toBe(TOOLS);
    expect(catalogNameLookup(reference.definitions)).toBeUndefined();
    const sharded = { ...shardedPast(10), demoCatalog: false };
    const built = await cold(sharded);
    expect(built.source).toBe("texts");
    // Read from the snapshot it made (a table of definitions, decoded when read), not a list of validated objects.
    expect(catalogNameLookup(built.definitions)).toBeDefined();
    expect(built.definitions.map((tool) => tool.name)).toEqual(reference.definitions.map((tool) => tool.name));
    expect(built.definitions).toEqual(reference.definitions);
    expect(built.definitions.map((tool) => built.registry.get(tool.name)?.contextId)).toEqual(reference.definitions.map((tool) => reference.registry.get(tool.name)?.contextId));
    const expected = await servedBy(sharded, built);
    // Written whole for the isolates after it, which read it and answer the same.
    expect(await storedHeader()).toContain("toolgate registry snapshot without index");
    const read = await cold(sharded);
    expect(read.source).toBe("snapshot");
    expect(await servedBy(sharded, read)).toEqual(expected);

    // The next version, in the isolate that holds this one: one tool changed, read as after any snapshot.
    const owner = await token({ sub: "owner-sharded-snapshot", owner: true });
    const changed = { description: "Sharded probe 5, second text: weighs comets.", parameters: { type: "object" } };
    expect((await api("/v1/tools/sharded_probe_5", { method: "PUT", token: owner, body: changed })).status).toBeLessThan(300);
    const next = await currentRegistry(env, sharded);
    expect(next.key).not.toBe(read.key);
    expect(next.registry.get("sharded_probe_5")?.definition.description).toBe("Sharded probe 5, second text: weighs comets.");
    expect(next.registry.get("sharded_probe_4")?.definition.description).toBe("Sharded probe 4: measures quasars for snapshot 4.");
  });
});
