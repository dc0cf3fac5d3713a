// The upstream object's storage: an object written by the old code (its whole state in one value) is read and
// converted into the head and rows once, and keeps working; a save writes only the rows that changed.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { HEALTHY } from "../../src/core/upstream/backoff.ts";
import { toolHash } from "../../src/core/upstream/pins.ts";
import type { McpTool } from "../../src/core/upstream/mcpTool.ts";
import type { UpstreamObject } from "../../src/durable/upstreamObject.ts";

const tool = (name: string, description = `Does ${name}.`): McpTool => ({ name, description, inputSchema: { type: "object", properties: {} } });

async function legacyState(id: string): Promise<Record<string, unknown>> {
  const kept = tool("kept");
  const held = tool("held", "Changed, and held.");
  return {
    config: { id, url: `https://mcp.fixture.example/mcp-upstream/${id}`, headers: {}, prefix: id, timeoutMs: 5_000, allowPrivate: false, newTools: "quarantine" },
    maxTools: 1_000,
    pins: {
      kept: { hash: await toolHash(kept), tool: kept, pinnedAt: 1 },
      held: { hash: await toolHash(tool("held")), tool: tool("held"), pinnedAt: 1 },
    },
    quarantine: { held: { name: "held", reason: "changed", hash: await toolHash(held), tool: held, diff: [{ field: "description", before: "Does held.", after: "Changed, and held." }], since: 2 } },
    accepted: [kept],
    listRejected: [{ name: "odd", reason: "no inputSchema" }],
    rejected: [{ name: "odd", reason: "no inputSchema" }],
    health: HEALTHY,
    lastRefresh: 1_700_000_000_000,
    transport: "streamable-http",
  };
}

/** A fresh upstream object holding what the old code stored (its constructor has run; nothing has read it yet). */
async function legacyObject(): Promise<{ id: string; stub: DurableObjectStub<UpstreamObject> }> {
  const id = `legacy-${crypto.randomUUID().slice(0, 8)}`;
  const stub = env.UPSTREAM.getByName(id);
  const legacy = await legacyState(id);
  await runInDurableObject(stub, (_instance, state) => {
    state.storage.kv.put("state", legacy);
  });
  return { id, stub };
}

describe("UpstreamObject storage", () => {
  it("converts the single value the old code stored into rows, once, and serves it as before", async () => {
    const { id, stub } = await legacyObject();
    const detail = await runInDurableObject(stub, (instance) => instance.detail());
    expect(detail).toMatchObject({ id, status: "ok", tools: 1, quarantined: 1, rejected: 1, lastRefresh: new Date(1_700_000_000_000).toISOString() });
    expect(detail?.toolNames.map((entry) => entry.upstreamName)).toEqual(["kept"]);
    expect(detail?.quarantine.map((held) => [held.name, held.reason])).toEqual([["held", "changed"]]);
    expect(detail?.rejectedTools).toEqual([{ name: "odd", reason: "no inputSchema" }]);
    const stored = await runInDurableObject(stub, (_instance, state) => ({
      legacy: state.storage.kv.get("state"),
      pins: state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM upstream_pins").one().n,
      accepted: state.storage.sql.exec<{ key: string }>("SELECT key FROM upstream_accepted").toArray().map((row) => row.key),
    }));
    expect(stored).toEqual({ legacy: undefined, pins: 2, accepted: ["kept"] });
    // Converted once: a later read writes nothing more, and calls find the tools in their rows.
    const before = await stub.storageWrites();
    expect(await stub.summary()).toMatchObject({ tools: 1, quarantined: 1 });
    expect(await stub.callTool("held", {}, 1_000)).toMatchObject({ ok: false, error: expect.stringContaining("held until the owner accepts it") });
    expect(await stub.callTool("gone", {}, 1_000)).toMatchObject({ ok: false, error: expect.stringContaining('has no tool "gone"') });
    expect(await stub.storageWrites()).toEqual(before);
  });

  it("accepts a held tool of a converted object by its digest, writing only the rows that change", async () => {
    const { id, stub } = await legacyObject();
    const detail = await runInDurableObject(stub, (instance) => instance.detail());
    const digest = detail?.quarantine[0]?.digest ?? "";
    const before = await stub.storageWrites();
    const accepted = await stub.accept([{ name: "held", digest }]);
    expect(accepted).toMatchObject({ ok: true, value: { tools: 2, quarantined: 0 } });
    const after = await stub.storageWrites();
    // The pin replaced, the quarantine row deleted, the accepted row inserted: three rows, not the whole state.
    expect(after.rows - before.rows).toBe(3);
    expect(after.heads - before.heads).toBe(1);
    await stub.remove(id);
  });
});
