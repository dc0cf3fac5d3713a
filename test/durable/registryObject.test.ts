// The registry object's snapshot to a reader that holds an earlier version: only the tools written since come with
// their text; everything else is named, with the revision that wrote it. Each test uses an object of its own.
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ToolDefinition } from "../../src/core/types.ts";
import { RegistryObject } from "../../src/durable/registryObject.ts";
import type { RegistryPage, RegistryVersion, SnapshotRead } from "../../src/durable/registryObject.ts";

const tool = (name: string, description = `Tool ${name}.`): ToolDefinition => ({
  name,
  description,
  parameters: { type: "object", properties: { q: { type: "string" } } },
});

const registry = (name: string): DurableObjectStub<RegistryObject> => env.REGISTRY.getByName(`test-registry-${name}`);

/** The page as name → [revision, whether its text came]. */
function shape(page: RegistryPage): Record<string, [number, boolean]> {
  return Object.fromEntries(page.tools.map((stored) => [stored.name, [stored.revision, stored.definition !== undefined]]));
}

describe("RegistryObject snapshot with a known version", () => {
  it("sends the texts of tools written after the reader's version only", async () => {
    const stub = registry("delta");
    const first = await stub.put([{ context: "runtime", definition: tool("alpha") }, { context: "runtime", definition: tool("beta") }], 100, false);
    if (!first.ok) throw new Error("put failed");
    const second = await stub.put([{ context: "runtime", definition: tool("gamma") }], 100, false);
    if (!second.ok) throw new Error("put failed");
    const v1 = { epoch: first.epoch, version: first.version };

    expect(shape(await stub.snapshot(0))).toEqual({ alpha: [1, true], beta: [1, true], gamma: [2, true] });
    const delta = await stub.snapshot(0, v1);
    expect(delta.version).toBe(2);
    expect(shape(delta)).toEqual({ alpha: [1, false], beta: [1, false], gamma: [2, true] });
    expect(delta.tools.find((stored) => stored.name === "gamma")?.definition).toBe(JSON.stringify(tool("gamma")));

    // A replaced tool is written anew: its text is sent to a reader of version 2.
    await stub.put([{ context: "runtime", definition: tool("alpha", "Alpha, second text.") }], 100, false);
    expect(shape(await stub.snapshot(0, { epoch: first.epoch, version: 2 }))).toEqual({ alpha: [3, true], beta: [1, false], gamma: [2, false] });

    // Another epoch (storage recreated) or a version the object never had: every text.
    expect(shape(await stub.snapshot(0, { epoch: "another", version: 3 }))).toEqual({ alpha: [3, true], beta: [1, true], gamma: [2, true] });
    expect(shape(await stub.snapshot(0, { epoch: first.epoch, version: 99 }))).toEqual({ alpha: [3, true], beta: [1, true], gamma: [2, true] });
  });

  it("keeps the revision of the tools an upstream refresh leaves unchanged", async () => {
    const stub = registry("refresh");
    const before = await stub.replaceContext("upstream:a", [tool("a__one"), tool("a__two")], 100, false);
    if (!before.ok) throw new Error("replace failed");
    const after = await stub.replaceContext("upstream:a", [tool("a__one"), tool("a__two", "Two, changed."), tool("a__three")], 100, false);
    if (!after.ok) throw new Error("replace failed");
    expect(after.version).toBe(before.version + 1);
    expect(shape(await stub.snapshot(0, { epoch: before.epoch, version: before.version }))).toEqual({
      a__one: [before.version, false],
      a__two: [after.version, true],
      a__three: [after.version, true],
    });
  });

  it("a bulk write keeps the revision of a tool written again with the same text, and moves a changed one's", async () => {
    const stub = registry("rewrite");
    const first = await stub.put([{ context: "runtime", definition: tool("same") }, { context: "runtime", definition: tool("edited") }], 100, false);
    if (!first.ok) throw new Error("put failed");
    const second = await stub.put([{ context: "runtime", definition: tool("same") }, { context: "runtime", definition: tool("edited", "Edited, second text.") }], 100, false);
    if (!second.ok) throw new Error("put failed");
    // Every write moves the version; only the changed text is new to a reader of the version before.
    expect(second.version).toBe(first.version + 1);
    expect(shape(await stub.snapshot(0, { epoch: first.epoch, version: first.version }))).toEqual({ same: [first.version, false], edited: [second.version, true] });
    const edited = (await stub.snapshot(0, { epoch: first.epoch, version: first.version })).tools.find((stored) => stored.name === "edited");
    expect(edited?.definition).toBe(JSON.stringify(tool("edited", "Edited, second text.")));
    // Written back to its first text: a new revision again (the reader holds the second).
    const third = await stub.put([{ context: "other", definition: tool("edited") }], 100, false);
    if (!third.ok) throw new Error("put failed");
    expect(shape(await stub.snapshot(0, { epoch: first.epoch, version: second.version }))).toEqual({ same: [first.version, false], edited: [third.version, true] });
  });

  it("gives the tools of storage from before revisions were kept revision 0, unchanged whatever a reader holds", async () => {
    const stub = registry("legacy");
    const put = await stub.put([{ context: "runtime", definition: tool("old") }], 100, false);
    if (!put.ok) throw new Error("put failed");
    const page = await runInDurableObject(stub, (_instance, state) => {
      // The table as an older release made it, then the object constructed anew on that storage.
      state.storage.sql.exec("ALTER TABLE tools DROP COLUMN revision");
      return new RegistryObject(state, env).snapshot(0, { epoch: put.epoch, version: put.version });
    });
    expect(shape(page)).toEqual({ old: [0, false] });
  });
});

/** Every byte of a found snapshot's stream, joined. */
async function streamed(read: SnapshotRead): Promise<Uint8Array> {
  if (!read.found) throw new Error("not found");
  return new Uint8Array(await new Response(read.stream).arrayBuffer());
}

/** Whether `bytes` are `expected`, byte for byte (a failing match of whole snapshots would print megabytes). */
function same(bytes: Uint8Array, expected: Uint8Array): boolean {
  return bytes.length === expected.length && bytes.every((byte, i) => byte === expected[i]);
}

/** Flips the first byte of every stored row of snapshot "k", behind the object's back (storage changed at rest). */
async function flipStoredRows(stub: DurableObjectStub<RegistryObject>): Promise<void> {
  await runInDurableObject(stub, (_instance: RegistryObject, state) => {
    const sql = state.storage.sql;
    for (const row of sql.exec<{ part: number; data: ArrayBuffer }>("SELECT part, data FROM snapshot_chunks WHERE key = 'k'").toArray()) {
      const bytes = new Uint8Array(row.data);
      bytes[0] = (bytes[0] ?? 0) ^ 0xff;
      sql.exec("UPDATE snapshot_chunks SET data = ? WHERE key = 'k' AND part = ?", bytes, row.part);
    }
  });
}

/** Puts the tool `name`: the registry version it made. */
async function putVersion(stub: DurableObjectStub<RegistryObject>, name: string): Promise<RegistryVersion> {
  const put = await stub.put([{ context: "runtime", definition: tool(name) }], 100, false);
  if (!put.ok) throw new Error("put failed");
  return { epoch: put.epoch, version: put.version };
}

/** A registry object of one tool whose snapshot "k" is `bytes`, written and then read whole once (so held). */
async function readWhole(name: string, bytes: Uint8Array<ArrayBuffer>): Promise<{ stub: DurableObjectStub<RegistryObject>; version: RegistryVersion }> {
  const stub = registry(name);
  const version = await putVersion(stub, "alpha");
  expect(await stub.claimRegistrySnapshot("k", version)).toBe(true);
  expect(await stub.writeRegistrySnapshot("k", version, bytes.length, 0, bytes.buffer)).toBe(true);
  expect(same(await streamed(await stub.readRegistrySnapshot("k")), bytes)).toBe(true);
  return { stub, version };
}

/** Reads `reader` to its end; how many bytes it gave. */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<number> {
  let total = 0;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) total += chunk.value.byteLength;
  return total;
}

/** Claims and writes `bytes` as snapshot "k" of `version`, then opens its stream and reads its first row. */
async function writtenAndOpened(stub: DurableObjectStub<RegistryObject>, version: RegistryVersion, bytes: Uint8Array<ArrayBuffer>): Promise<ReadableStreamDefaultReader<Uint8Array>> {
  expect(await stub.claimRegistrySnapshot("k", version)).toBe(true);
  expect(await stub.writeRegistrySnapshot("k", version, bytes.length, 0, bytes.buffer)).toBe(true);
  const read = await stub.readRegistrySnapshot("k");
  if (!read.found) throw new Error("not found");
  const reader = read.stream.getReader();
  expect((await reader.read()).done).toBe(false);
  return reader;
}

/** `length` bytes of a recognisable pattern. */
const pattern = (length: number, seed: number): Uint8Array<ArrayBuffer> => {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 31 + seed) & 0xff;
  return bytes;
};

describe("RegistryObject registry snapshots", () => {
  it("one writer per version: the first to ask writes, the others wait; a whole snapshot is served as one stream", { timeout: 60_000 }, async () => {
    const stub = registry("snapshot-claims");
    const put = await stub.put([{ context: "runtime", definition: tool("alpha") }], 100, false);
    if (!put.ok) throw new Error("put failed");
    const version = { epoch: put.epoch, version: put.version };
    const first = await stub.readRegistrySnapshot("minisearch:f");
    const second = await stub.readRegistrySnapshot("minisearch:f");
    expect(first).toMatchObject({ found: false, claimed: true });
    expect(second).toMatchObject({ found: false, claimed: false });
    expect(await stub.claimRegistrySnapshot("minisearch:f", version)).toBe(false);
    // Another key (mode or fingerprint) is claimed apart.
    expect(await stub.claimRegistrySnapshot("substring:f", version)).toBe(true);

    // Larger than an RPC message may be (32 MiB), written in 4 MiB calls (rows of 1 MiB): one stream of every row.
    const bytes = pattern(33 * 1024 * 1024 + 12_345, 7);
    const step = 4 * 1024 * 1024;
    for (let from = 0; from < bytes.length; from += step) {
      expect(await stub.readRegistrySnapshot("minisearch:f")).toMatchObject({ found: false });
      expect(await stub.writeRegistrySnapshot("minisearch:f", version, bytes.length, from, bytes.slice(from, from + step).buffer)).toBe(true);
    }
    const read = await stub.readRegistrySnapshot("minisearch:f");
    if (!read.found) throw new Error("not found");
    // Field by field: a failing match would print megabytes.
    expect([read.bytes, read.version]).toEqual([bytes.length, version.version]);
    const joined = await streamed(read);
    expect(joined.length).toBe(bytes.length);
    expect(joined.every((byte, i) => byte === bytes[i])).toBe(true);
    // Whole: no second write is taken.
    expect(await stub.writeRegistrySnapshot("minisearch:f", version, bytes.length, 0, bytes.slice(0, 10).buffer)).toBe(false);
  });

  it("a stream whose snapshot is replaced while it is read errors rather than mix the rows of two", async () => {
    const stub = registry("snapshot-stream-stale");
    const put = await stub.put([{ context: "runtime", definition: tool("alpha") }], 100, false);
    if (!put.ok) throw new Error("put failed");
    const version = { epoch: put.epoch, version: put.version };
    // More rows than the stream's flow control reads ahead of its reader.
    const bytes = pattern(16 * 1024 * 1024 + 5, 3);
    const reader = await writtenAndOpened(stub, version, bytes);
    // A registry write between two rows: the snapshot read is of the version before, its rows gone. The stream errors
    // (the reader sees the RPC stream cut short).
    await stub.put([{ context: "runtime", definition: tool("beta") }], 100, false);
    await expect(drain(reader)).rejects.toThrow(/disconnected prematurely/);

    // Dropped and written again (the same version, another claim) between two rows: refused as well.
    const now = await stub.getVersion();
    const secondReader = await writtenAndOpened(stub, now, bytes);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await stub.dropRegistrySnapshot("k", now)).toMatchObject({ found: false, claimed: true });
    expect(await stub.writeRegistrySnapshot("k", now, bytes.length, 0, bytes.buffer)).toBe(true);
    await expect(drain(secondReader)).rejects.toThrow(/disconnected prematurely/);
  });

  it("a snapshot read whole is held and served again without its rows; over 32 MiB it is read from its rows each time", { timeout: 60_000 }, async () => {
    const bytes = pattern(3 * 1024 * 1024 + 77, 5);
    const { stub, version } = await readWhole("snapshot-held", bytes);
    // Its rows changed behind the object's back: the held copy is served (twice: serving it gives nothing away), until
    // the object restarts and reads the rows again.
    await flipStoredRows(stub);
    expect(same(await streamed(await stub.readRegistrySnapshot("k")), bytes)).toBe(true);
    expect(same(await streamed(await stub.readRegistrySnapshot("k")), bytes)).toBe(true);
    await evictDurableObject(stub);
    const flipped = await streamed(await stub.readRegistrySnapshot("k"));
    expect(flipped.length).toBe(bytes.length);
    expect(flipped[0]).toBe((bytes[0] ?? 0) ^ 0xff);

    // Dropped and written again with other bytes: the new ones, never the held copy of the old.
    const other = pattern(bytes.length, 9);
    expect(await stub.dropRegistrySnapshot("k", version)).toMatchObject({ found: false, claimed: true });
    expect(await stub.writeRegistrySnapshot("k", version, other.length, 0, other.buffer)).toBe(true);
    expect(same(await streamed(await stub.readRegistrySnapshot("k")), other)).toBe(true);
    // A registry write, then the new version's snapshot: its bytes as well.
    const nextVersion = await putVersion(stub, "beta");
    expect(await stub.claimRegistrySnapshot("k", nextVersion)).toBe(true);
    expect(await stub.writeRegistrySnapshot("k", nextVersion, bytes.length, 0, bytes.buffer)).toBe(true);
    expect(same(await streamed(await stub.readRegistrySnapshot("k")), bytes)).toBe(true);

    // Over 32 MiB: not held (the object's memory), so a change of its rows shows in the next read.
    const large = pattern(33 * 1024 * 1024, 11);
    const largeVersion = await putVersion(stub, "gamma");
    expect(await stub.claimRegistrySnapshot("k", largeVersion)).toBe(true);
    const step = 4 * 1024 * 1024;
    for (let from = 0; from < large.length; from += step) {
      expect(await stub.writeRegistrySnapshot("k", largeVersion, large.length, from, large.slice(from, from + step).buffer)).toBe(true);
    }
    expect(same(await streamed(await stub.readRegistrySnapshot("k")), large)).toBe(true);
    await flipStoredRows(stub);
    const reread = await streamed(await stub.readRegistrySnapshot("k"));
    expect(reread.length).toBe(large.length);
    expect(reread[0]).toBe((large[0] ?? 0) ^ 0xff);
  });

  it("a stream of a held snapshot errors when a registry write comes while it is read", async () => {
    const { stub } = await readWhole("snapshot-held-stale", pattern(16 * 1024 * 1024 + 5, 4));
    // Held now: a second stream is served from memory, and a write between two of its rows errors it all the same.
    const held = await stub.readRegistrySnapshot("k");
    if (!held.found) throw new Error("not found");
    const heldReader = held.stream.getReader();
    expect((await heldReader.read()).done).toBe(false);
    await stub.put([{ context: "runtime", definition: tool("beta") }], 100, false);
    await expect(drain(heldReader)).rejects.toThrow(/disconnected prematurely/);
  });

  it("a registry write makes every snapshot stale: deleted, and a write for the old version refused", async () => {
    const stub = registry("snapshot-stale");
    const put = await stub.put([{ context: "runtime", definition: tool("alpha") }], 100, false);
    if (!put.ok) throw new Error("put failed");
    const version = { epoch: put.epoch, version: put.version };
    expect(await stub.claimRegistrySnapshot("k", version)).toBe(true);
    expect(await stub.writeRegistrySnapshot("k", version, 100, 0, pattern(100, 1).buffer)).toBe(true);
    const found = await stub.readRegistrySnapshot("k");
    expect(found.found).toBe(true);
    if (found.found) await found.stream.cancel();
    await stub.put([{ context: "runtime", definition: tool("beta") }], 100, false);
    const rows = await runInDurableObject(stub, (_instance: RegistryObject, state) => state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM snapshot_chunks").one().n);
    expect(rows).toBe(0);
    expect(await stub.claimRegistrySnapshot("k", version)).toBe(false);
    expect(await stub.writeRegistrySnapshot("k", version, 100, 0, pattern(100, 1).buffer)).toBe(false);
    const now = await stub.readRegistrySnapshot("k");
    expect(now).toMatchObject({ found: false, claimed: true, version: version.version + 1 });
  });

  it("a corrupt snapshot dropped by a reader is the dropper's to write again", async () => {
    const stub = registry("snapshot-drop");
    const put = await stub.put([{ context: "runtime", definition: tool("alpha") }], 100, false);
    if (!put.ok) throw new Error("put failed");
    const version = { epoch: put.epoch, version: put.version };
    expect(await stub.claimRegistrySnapshot("k", version)).toBe(true);
    expect(await stub.writeRegistrySnapshot("k", version, 64, 0, pattern(64, 2).buffer)).toBe(true);
    expect(await stub.dropRegistrySnapshot("k", version)).toMatchObject({ found: false, claimed: true });
    expect(await stub.readRegistrySnapshot("k")).toMatchObject({ found: false, claimed: false });
  });
});
