// The isolate's registry rebuilt for a new registry version: stored tools whose text did not change keep their
// definition objects (what is kept per definition survives), a changed tool is validated anew. A cold isolate reads
// the version's snapshot (written by the first isolate that built it); a stale or corrupt one is never served.
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { toolListTokens } from "../../src/core/tools/toolTokens.ts";
import { prepareTurn, WarnOnce } from "../../src/core/turn/prepare.ts";
import { registryStub } from "../../src/durable/stubs.ts";
import { currentRegistry, registrySearchIndex, resetIsolateRegistry } from "../../src/isolate/registryCache.ts";
import type { LoadedRegistry } from "../../src/isolate/registryCache.ts";
import { loadSettings } from "../../src/isolate/settings.ts";
import type { Settings } from "../../src/isolate/settings.ts";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { SESSION_META_KEY } from "../../src/mcp/stateless.ts";
import { api, json, sessionId, token } from "../http/helpers.ts";
import { connect } from "../mcp/helpers.ts";
import { modernMeta, modernRpc } from "../mcp/modernHelpers.ts";

let owner = "";
let settings: Settings;
beforeAll(async () => {
  owner = await token({ sub: "owner-registry-cache", owner: true });
  const loaded = loadSettings(env);
  if (!loaded.ok) throw loaded.error;
  // The version is read from the registry object on every call (no TTL): each write's version is seen at once.
  settings = { ...loaded.settings, config: { ...loaded.settings.config, registryVersionTtlMs: 0 } };
}, 60_000);

const body = (description: string): Record<string, unknown> => ({
  description,
  parameters: { type: "object", properties: { text: { type: "string", description: `Text for ${description}` } } },
});

/** Stores a tool through the route and lets this test's isolate know the version the write answered with. */
async function put(name: string, description: string): Promise<void> {
  const response = await api(`/v1/tools/${name}`, { method: "PUT", token: owner, body: body(description) });
  expect(response.status).toBeLessThan(300);
  const { version } = await json<{ version: number }>(response);
  expect(version).toBeGreaterThan(0);
}

function latest(): ReturnType<typeof currentRegistry> {
  return currentRegistry(env, settings);
}

describe("currentRegistry across registry versions", () => {
  it("keeps the definition objects of unchanged stored tools and validates a changed one anew", async () => {
    resetIsolateRegistry();
    await put("reuse_alpha", "Alpha tool: measures alpha things.");
    await put("reuse_beta", "Beta tool: counts beta things.");
    const first = await latest();
    const alpha = first.registry.get("reuse_alpha")?.definition;
    const beta = first.registry.get("reuse_beta")?.definition;
    expect(alpha).toBeDefined();
    expect(beta).toBeDefined();

    await put("reuse_beta", "Beta tool, second version: counts quasars.");
    const second = await latest();
    expect(second.key).not.toBe(first.key);
    expect(second.registry).not.toBe(first.registry);
    // Unchanged text: the very same object, in the registry and in the catalog the search indexes are built on.
    expect(second.registry.get("reuse_alpha")?.definition).toBe(alpha);
    expect(second.definitions).toContain(alpha);
    // Changed text: a new definition, validated (cleaned, frozen) from the new text.
    const newBeta = second.registry.get("reuse_beta")?.definition;
    expect(newBeta).not.toBe(beta);
    expect(newBeta?.description).toBe("Beta tool, second version: counts quasars.");
    expect(Object.isFrozen(newBeta)).toBe(true);

    // The same text written again (a new registry version): not sent to this isolate again, the same object; a tool
    // written back to an earlier text is a change, validated anew.
    await put("reuse_alpha", "Alpha tool: measures alpha things.");
    await put("reuse_beta", "Beta tool, second version: counts quasars.");
    const again = await latest();
    expect(again.key).not.toBe(second.key);
    expect(again.registry.get("reuse_alpha")?.definition).toBe(alpha);
    expect(again.registry.get("reuse_beta")?.definition).toBe(newBeta);
    await put("reuse_beta", "Beta tool: counts beta things.");
    const back = await latest();
    expect(back.registry.get("reuse_alpha")?.definition).toBe(alpha);
    expect(back.registry.get("reuse_beta")?.definition).not.toBe(newBeta);
    expect(back.registry.get("reuse_beta")?.definition.description).toBe("Beta tool: counts beta things.");

    // A removed tool is gone from the next version; the others stay the same objects.
    expect((await api("/v1/tools/reuse_beta", { method: "DELETE", token: owner })).status).toBe(200);
    const third = await latest();
    expect(third.registry.get("reuse_beta")).toBeUndefined();
    expect(third.registry.get("reuse_alpha")?.definition).toBe(alpha);
  });

  it("validates every stored tool again after the isolate forgot its registry", async () => {
    await put("reuse_gamma", "Gamma tool: weighs gamma things.");
    const before = (await latest()).registry.get("reuse_gamma")?.definition;
    resetIsolateRegistry();
    const after = (await latest()).registry.get("reuse_gamma")?.definition;
    expect(after).toEqual(before);
    expect(after).not.toBe(before);
  });
});

/** What a search and a prepare see of a loaded registry: names in order, pages, the tool list's tokens. */
function servedBy(loaded: LoadedRegistry): unknown {
  const index = registrySearchIndex(loaded, settings.config.searchMode, undefined);
  return {
    names: loaded.definitions.map((tool) => tool.name),
    definitions: loaded.definitions,
    contexts: loaded.definitions.map((tool) => loaded.registry.get(tool.name)?.contextId),
    pages: ["snapshot quasar", "measure alpha", "send an email", "weather tomorrow", "snap_tool_2"].map((query) => index.scored(query, 5)),
    tokens: toolListTokens(loaded.definitions, "openai"),
    // A first turn of an owner and of a caller without groups (what a snapshot carries figures for), and of another.
    turns: [["*"], [], ["no-such-group"]].map((groups) => {
      const tools = loaded.registry.getDefinitions({ groups });
      const { config } = settings;
      return prepareTurn({
        tools, messages: [{ role: "user", content: "measure alpha of a quasar" }], discovered: [], config, warnings: new WarnOnce(console),
        searchIndex: registrySearchIndex(loaded, config.searchMode, groups),
      });
    }),
  };
}

/** Runs `edit` on the registry object's SQLite (a test's hand on the stored snapshot). */
/** A cold isolate's registry: where it came from, after checking that it serves `expected` (servedBy). */
async function coldSource(expected: unknown): Promise<LoadedRegistry["source"]> {
  resetIsolateRegistry();
  const loaded = await latest();
  expect(servedBy(loaded)).toEqual(expected);
  return loaded.source;
}

/**
 * Restarts the registry object, then edits its storage behind its back (as damage at rest): the object that ran holds
 * the snapshot it last read whole in memory and would serve that; the new one holds none and reads the edited rows.
 */
async function onRegistryStorage(edit: (sql: SqlStorage) => void, restart = true): Promise<void> {
  if (restart) await evictDurableObject(registryStub(env));
  await runInDurableObject(registryStub(env), (_instance, state) => {
    edit(state.storage.sql);
  });
}

describe("registry snapshots for cold isolates", () => {
  it("a cold isolate reads the snapshot the first one wrote: the same registry, index and token counts", async () => {
    for (let i = 0; i < 5; i++) await put(`snap_tool_${i}`, `Snapshot tool ${i}: counts quasars and measures alpha ${i}.`);
    resetIsolateRegistry();
    const built = await latest();
    expect(built.source).toBe("texts");
    const expected = servedBy(built);
    resetIsolateRegistry();
    const read = await latest();
    expect(read.source).toBe("snapshot");
    expect(read.key).toBe(built.key);
    expect(servedBy(read)).toEqual(expected);
    expect(Object.isFrozen(read.registry.get("snap_tool_1")?.definition)).toBe(true);
    // A call through a snapshot-read registry runs as any other.
    expect(read.registry.get("snap_tool_3")?.definition.description).toBe("Snapshot tool 3: counts quasars and measures alpha 3.");

    // The next version from a snapshot-read isolate: unchanged tools are the same objects, the new one is there.
    await put("snap_tool_new", "Snapshot tool, new: weighs quasars.");
    const next = await latest();
    expect(next.source).toBe("texts");
    expect(next.registry.get("snap_tool_1")?.definition).toBe(read.registry.get("snap_tool_1")?.definition);
    expect(next.registry.get("snap_tool_new")?.definition.description).toBe("Snapshot tool, new: weighs quasars.");
  });

  it("a stale snapshot (of an earlier version) is never served", async () => {
    await put("stale_probe", "Stale probe: the first text.");
    resetIsolateRegistry();
    await latest();
    resetIsolateRegistry();
    expect((await latest()).source).toBe("snapshot");
    // The stored snapshot said to be of the version before: refused, the registry read from the texts.
    await onRegistryStorage((sql) => sql.exec("UPDATE snapshot_heads SET version = version - 1"));
    resetIsolateRegistry();
    const fromTexts = await latest();
    expect(fromTexts.source).toBe("texts");
    // A write makes every snapshot stale: the next cold isolate sees the new text, not the snapshot's.
    resetIsolateRegistry();
    expect((await latest()).source).toBe("snapshot");
    await put("stale_probe", "Stale probe: the second text.");
    resetIsolateRegistry();
    const after = await latest();
    expect(after.source).toBe("texts");
    expect(after.registry.get("stale_probe")?.definition.description).toBe("Stale probe: the second text.");
  });

  it("a corrupt snapshot is refused, dropped and written again", async () => {
    await put("corrupt_probe", "Corrupt probe: measures how snapshots break.");
    resetIsolateRegistry();
    const built = await latest();
    const expected = servedBy(built);
    // One byte flipped in the sections checked before anything is read: the first place the tool's name is stored
    // (the list of names, before the definitions' texts).
    const needle = new TextEncoder().encode("corrupt_probe");
    await onRegistryStorage((sql) => {
      const rows = sql.exec<{ part: number; data: ArrayBuffer }>("SELECT part, data FROM snapshot_chunks ORDER BY part").toArray();
      const row = rows.find((candidate) => indexOf(new Uint8Array(candidate.data), needle) >= 0);
      if (row === undefined) throw new Error("the name is not in the stored snapshot");
      const bytes = new Uint8Array(row.data);
      const at = indexOf(bytes, needle);
      bytes[at] = (bytes[at] ?? 0) ^ 0x5a;
      sql.exec("UPDATE snapshot_chunks SET data = ? WHERE part = ?", bytes, row.part);
    });
    resetIsolateRegistry();
    const refused = await latest();
    expect(refused.source).toBe("texts");
    expect(servedBy(refused)).toEqual(expected);
    // Written again by the isolate that refused it: the next cold isolate reads it.
    resetIsolateRegistry();
    const reread = await latest();
    expect(reread.source).toBe("snapshot");
    expect(servedBy(reread)).toEqual(expected);
  });

  it("a snapshot streamed in many rows is read whole; one with a row missing is refused, dropped and written again", async () => {
    await put("rows_probe", "Rows probe: read back from a snapshot of many rows.");
    resetIsolateRegistry();
    const expected = servedBy(await latest());
    // The stored snapshot cut into rows of 4 KiB: the cold isolate's read fills its buffer from many stream chunks.
    let rows = 0;
    await onRegistryStorage((sql) => {
      const stored = sql.exec<{ key: string; data: ArrayBuffer }>("SELECT key, data FROM snapshot_chunks ORDER BY key, part").toArray();
      const keys = [...new Set(stored.map((row) => row.key))];
      expect(keys).toHaveLength(1);
      const whole = new Uint8Array(stored.reduce((sum, row) => sum + row.data.byteLength, 0));
      let at = 0;
      for (const row of stored) {
        whole.set(new Uint8Array(row.data), at);
        at += row.data.byteLength;
      }
      sql.exec("DELETE FROM snapshot_chunks");
      for (let from = 0; from < whole.length; from += 4096) {
        sql.exec("INSERT INTO snapshot_chunks (key, part, data) VALUES (?, ?, ?)", keys[0], from / 4096, whole.slice(from, from + 4096));
        rows += 1;
      }
    });
    expect(rows).toBeGreaterThan(10);
    const cold = (): Promise<LoadedRegistry["source"]> => coldSource(expected);
    expect(await cold()).toBe("snapshot");
    // A row gone: the stream comes short of the length the head gives. Never decoded: refused, dropped, and written
    // again by the isolate that refused it (whole again, in its own rows).
    await onRegistryStorage((sql) => sql.exec("DELETE FROM snapshot_chunks WHERE part = 3"));
    expect(await cold()).toBe("texts");
    expect(await cold()).toBe("snapshot");
    // A byte more than the head's length: refused as well.
    await onRegistryStorage((sql) => sql.exec("UPDATE snapshot_heads SET bytes = bytes - 1"));
    expect(await cold()).toBe("texts");
  });

  it("a snapshot stream that errors while it is read is not served: the isolate builds from the texts, the snapshot stays", async () => {
    await put("stream_probe", "Stream probe: its snapshot's stream fails while a cold isolate reads it.");
    resetIsolateRegistry();
    const expected = servedBy(await latest());
    const cold = (): Promise<LoadedRegistry["source"]> => coldSource(expected);
    expect(await cold()).toBe("snapshot");
    // The rows' table out of reach: the head is found, the stream's first pull throws in the object.
    await onRegistryStorage((sql) => sql.exec("ALTER TABLE snapshot_chunks RENAME TO snapshot_chunks_away"));
    try {
      expect(await cold()).toBe("texts");
    } finally {
      // The same object (a new one would have made an empty table of that name).
      await onRegistryStorage((sql) => sql.exec("ALTER TABLE snapshot_chunks_away RENAME TO snapshot_chunks"), false);
    }
    // Not taken for corrupt: the stored snapshot was neither dropped nor written again, and the next cold isolate reads it.
    expect(await cold()).toBe("snapshot");
  });

  it("a definition text found corrupt when first read is never answered: that request answers 503 (retry), the next is built from the texts", async () => {
    const description = "Late probe: its text is checked when it is first read.";
    await put("late_probe", description);
    resetIsolateRegistry();
    const built = await search();
    expect(built.status).toBe(200);
    const expected = await built.text();
    expect(expected).toContain(description);
    // One letter of the description changed where the snapshot keeps the definitions' texts (checked when read).
    await changeFirstLetter(description, "M");
    resetIsolateRegistry();
    // The snapshot decodes (the texts are checked when read): the search reading them fails, answering nothing.
    const refused = await search();
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    const refusedText = await refused.text();
    expect(refusedText).not.toContain("Mate probe");
    expect(JSON.parse(refusedText)).toMatchObject({ error: { code: "index_rebuilding" } });
    // The next request builds from the texts (the snapshot dropped) and answers as before.
    const rebuilt = await search();
    expect(rebuilt.status).toBe(200);
    expect(await rebuilt.text()).toBe(expected);
    // ... and this isolate wrote the snapshot again: the next cold isolate reads it, whole.
    resetIsolateRegistry();
    const reread = await latest();
    expect(reread.source).toBe("snapshot");
    expect(reread.registry.get("late_probe")?.definition.description).toBe(description);
  });
});

describe("a damaged snapshot reached over MCP", () => {
  it("answers search_tools with index_rebuilding (retry in 1 s) in both revisions, never the damaged text, then serves from the texts", async () => {
    const description = "Mcp probe: its text is checked when it is first read.";
    await put("mcp_probe", description);
    resetIsolateRegistry();
    const { client } = await connect(owner);
    const built = await client.callTool({ name: "search_tools", arguments: { query: "mcp probe" } });
    expect(JSON.stringify(built)).toContain(description);

    /** Damages the stored snapshot where it keeps the probe's text, and makes this isolate cold again. */
    const damage = async (): Promise<void> => {
      await changeFirstLetter(description, "N");
      resetIsolateRegistry();
    };

    // 2025-11-25 (the SDK's server): a JSON-RPC error carrying the HTTP code and the retry, not "internal error".
    await damage();
    const refused: unknown = await client.callTool({ name: "search_tools", arguments: { query: "mcp probe" } }).then(
      (answer) => JSON.stringify(answer),
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(McpError);
    expect(refused).toMatchObject({ data: { status: 503, code: "index_rebuilding", retryAfterSeconds: 1 } });
    expect(JSON.stringify(refused)).not.toContain("Ncp probe");
    const rebuilt = await client.callTool({ name: "search_tools", arguments: { query: "mcp probe" } });
    expect(JSON.stringify(rebuilt)).toContain(description);

    // 2026-07-28 (one POST per request): the same refusal, then the same answer as before.
    resetIsolateRegistry();
    expect((await latest()).source).toBe("snapshot");
    await damage();
    const call = { name: "search_tools", arguments: { query: "mcp probe" }, _meta: modernMeta({ [SESSION_META_KEY]: sessionId("mcp-late") }) };
    const modernRefused = await modernRpc(owner, "tools/call", call);
    const refusedText = await modernRefused.text();
    expect(refusedText).not.toContain("Ncp probe");
    expect(JSON.parse(refusedText)).toMatchObject({ error: { data: { status: 503, code: "index_rebuilding", retryAfterSeconds: 1 } } });
    const modernRebuilt = await modernRpc(owner, "tools/call", call);
    expect(await modernRebuilt.text()).toContain(description);
  });
});

/** Changes the first letter of `text` where the stored snapshot keeps it (the definitions' texts, checked when read). */
async function changeFirstLetter(text: string, letter: string): Promise<void> {
  const needle = new TextEncoder().encode(text);
  await onRegistryStorage((sql) => {
    const rows = sql.exec<{ part: number; data: ArrayBuffer }>("SELECT part, data FROM snapshot_chunks ORDER BY part").toArray();
    const row = rows.find((candidate) => indexOf(new Uint8Array(candidate.data), needle) >= 0);
    if (row === undefined) throw new Error("the text is not in the stored snapshot");
    const bytes = new Uint8Array(row.data);
    bytes[indexOf(bytes, needle)] = letter.charCodeAt(0);
    sql.exec("UPDATE snapshot_chunks SET data = ? WHERE part = ?", bytes, row.part);
  });
}

/** The owner's search for the late probe, in a new session, through the route. */
function search(): Promise<Response> {
  return api(`/v1/sessions/${sessionId("late")}/search`, { token: owner, body: { query: "late probe" } });
}

function indexOf(bytes: Uint8Array, needle: Uint8Array): number {
  for (let i = 0; i + needle.length <= bytes.length; i++) {
    if (needle.every((byte, k) => bytes[i + k] === byte)) return i;
  }
  return -1;
}

