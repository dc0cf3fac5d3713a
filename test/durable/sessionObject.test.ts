// The session Durable Object: what it stores survives eviction, idle sessions expire through the alarm, grants
// are kept in storage, and the object's name keeps principals apart.
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import * as fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { parseConfigText } from "../../src/core/config.ts";
import { ID_PATTERN } from "../../src/core/ids.ts";
import { parseSessionObjectName, sessionObjectName } from "../../src/durable/names.ts";
import { orRefusal } from "../../src/durable/sessionLimit.ts";
import { principalStub, sessionStub } from "../../src/durable/stubs.ts";
import type { SessionObject } from "../../src/durable/sessionObject.ts";
import { api, json, sessionId, token } from "../http/helpers.ts";
import { inShape, plainTools } from "../http/shapes.ts";

const DAY_MS = 86_400_000;
const TTL_DAYS = 30; // wrangler.toml's sessionTtlDays
/** The suite's configuration, which the Worker passes with every session call that needs it. */
const CONFIG = parseConfigText(env.TOOL_SEARCH_CONFIG, "TOOL_SEARCH_CONFIG");
/** What a grant is bound to (the guard passes SHA-256 digests; the object only compares them). */
const BINDING = { tool: "tool-digest", arguments: "args-digest" };

const PRINCIPAL = "durable-dora";
let dora = "";
beforeAll(async () => {
  dora = await token({ sub: PRINCIPAL });
  await api("/v1/health");
}, 60_000);

function stubOf(sid: string, principalId = PRINCIPAL): DurableObjectStub<SessionObject> {
  return sessionStub(env, principalId, sid);
}

async function seed(sid: string, queries: string[]): Promise<void> {
  const tools = plainTools("dur", 10).map((t) => inShape(t, "openai"));
  expect((await api(`/v1/sessions/${sid}/prepare`, { token: dora, body: { messages: [], tools } })).status).toBe(200);
  for (const query of queries) {
    expect((await api(`/v1/sessions/${sid}/search`, { token: dora, body: { query } })).status).toBe(200);
  }
}

interface Stored {
  discovered: unknown;
  lastActive: unknown;
  catalogRows: number;
  alarm: number | null;
}

function stored(sid: string): Promise<Stored> {
  return runInDurableObject(stubOf(sid), async (_instance, state) => ({
    discovered: state.storage.kv.get("discovered"),
    lastActive: state.storage.kv.get("lastActive"),
    catalogRows: state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM catalog_tools").one().n,
    alarm: await state.storage.getAlarm(),
  }));
}

describe("eviction", () => {
  it("keeps the discovered set and the client catalog", async () => {
    const sid = sessionId("evict");
    await seed(sid, ["thing1x", "thing2x"]);
    const stub = stubOf(sid);
    expect(await stub.getDiscovered()).toEqual(["dur_2", "dur_1"]);
    await evictDurableObject(stub);
    expect(await stub.getDiscovered()).toEqual(["dur_2", "dur_1"]);
    // The catalog comes back from SQL: a search after the eviction still finds client tools.
    const response = await api(`/v1/sessions/${sid}/search`, { token: dora, body: { query: "thing3x" } });
    expect(await json(response)).toMatchObject({ tools: [{ name: "dur_3" }] });
    expect(await stub.getDiscovered()).toEqual(["dur_3", "dur_2", "dur_1"]);
  });

  it("keeps pending confirmations and grants", async () => {
    const stub = stubOf(sessionId("grants"));
    const pending = orRefusal(await stub.requestConfirmation("tool:demo", "always", BINDING, CONFIG));
    await evictDurableObject(stub);
    expect(await stub.resolveConfirmation(pending.id, true, CONFIG)).toMatchObject({ ok: true, approved: true });
    await evictDurableObject(stub);
    expect(await stub.consumeGrant("tool:demo", { ...BINDING, arguments: "other" }, CONFIG)).toBe(false);
    expect(await stub.consumeGrant("tool:demo", BINDING, CONFIG)).toBe(true);
    expect(await stub.consumeGrant("tool:demo", BINDING, CONFIG)).toBe(false);
    expect(await stub.resolveConfirmation(pending.id, true, CONFIG)).toMatchObject({ ok: false });
  });

  it("drops confirmations and grants stored before approvals were bound to the call (fail closed)", async () => {
    const stub = stubOf(sessionId("old-grants"));
    const later = Date.now() + 600_000;
    // The stored shape before approvals were bound to the call: no tool or arguments digest.
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.kv.put("grants", {
        pending: [{ id: "old-id", capability: "tool:demo", mode: "always", expiresAt: later }],
        grants: [{ capability: "tool:demo", mode: "session", expiresAt: later }, { capability: "tool:demo", mode: "always", expiresAt: later }],
      });
    });
    expect(await stub.consumeGrant("tool:demo", BINDING, CONFIG)).toBe(false);
    expect(await stub.resolveConfirmation("old-id", true, CONFIG)).toEqual({ ok: false, code: "not_found" });
    const fresh = orRefusal(await stub.requestConfirmation("tool:demo", "always", BINDING, CONFIG));
    expect(fresh.id).not.toBe("old-id");
    expect(await stub.resolveConfirmation(fresh.id, true, CONFIG)).toMatchObject({ ok: true, approved: true });
    expect(await stub.consumeGrant("tool:demo", BINDING, CONFIG)).toBe(true);
  });
});

describe("expiry", () => {
  it("schedules an alarm sessionTtlDays after the last activity", async () => {
    const sid = sessionId("ttl");
    await seed(sid, ["thing4x"]);
    const state = await stored(sid);
    expect(typeof state.lastActive).toBe("number");
    expect(state.alarm).not.toBeNull();
    expect(state.alarm ?? 0).toBeGreaterThanOrEqual(Number(state.lastActive) + TTL_DAYS * DAY_MS - 60_000);
  });

  it("deletes everything once idle for sessionTtlDays, and leaves the principal's index", async () => {
    const sid = sessionId("ttl");
    await seed(sid, ["thing5x"]);
    expect(await principalStub(env, PRINCIPAL).listSessions()).toContain(sid);
    const stub = stubOf(sid);
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.kv.put("lastActive", Date.now() - (TTL_DAYS + 1) * DAY_MS);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await stored(sid)).toEqual({ discovered: undefined, lastActive: undefined, catalogRows: 0, alarm: null });
    expect(await principalStub(env, PRINCIPAL).listSessions()).not.toContain(sid);
    // The session can start again from nothing.
    await seed(sid, ["thing6x"]);
    expect(await stub.getDiscovered()).toEqual(["dur_6"]);
    expect((await stored(sid)).alarm).not.toBeNull();
  });

  it("counts an execute as activity: a session used only for executes does not expire mid-use", async () => {
    const sid = sessionId("ttl-reads");
    await seed(sid, ["thing8x"]);
    const stub = stubOf(sid);
    // The last write was longer ago than the lifetime; the session has been used since by executes only.
    const lastWrite = Date.now() - (TTL_DAYS + 1) * DAY_MS;
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.kv.put("lastActive", lastWrite);
    });
    const run = await api(`/v1/sessions/${sid}/execute`, { token: dora, body: { name: "dur_8", arguments: {} } });
    expect(run.status).toBe(200);
    expect(Number((await stored(sid)).lastActive)).toBeGreaterThan(lastWrite + TTL_DAYS * DAY_MS);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await stored(sid)).discovered).toEqual(["dur_8"]);
    expect(await principalStub(env, PRINCIPAL).listSessions()).toContain(sid);
  });

  it("keeps a session that was active since, and waits for its new deadline", async () => {
    const sid = sessionId("ttl");
    await seed(sid, ["thing7x"]);
    const stub = stubOf(sid);
    const lastActive = Date.now() - (TTL_DAYS - 1) * DAY_MS;
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.kv.put("lastActive", lastActive);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const state = await stored(sid);
    expect(state.discovered).toEqual(["dur_7"]);
    expect(state.alarm).toBe(lastActive + TTL_DAYS * DAY_MS);
  });

  it("expires after the lifetime its last write was given (the object reads no environment)", async () => {
    const sid = sessionId("ttl-given");
    const stub = stubOf(sid);
    await stub.touchDiscovered({ principalId: PRINCIPAL, sessionId: sid }, ["a"], { ...CONFIG, sessionTtlDays: 2 });
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.kv.put("lastActive", Date.now() - 3 * DAY_MS);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await stored(sid)).toEqual({ discovered: undefined, lastActive: undefined, catalogRows: 0, alarm: null });
  });
});

describe("the principal's index of sessions", () => {
  it("lists a session that only the guard touched (the object reads its identity from its name)", async () => {
    const sid = sessionId("guard-only");
    await stubOf(sid, "guard-only-user").requestConfirmation("tool:x", "session", BINDING, CONFIG);
    expect(await principalStub(env, "guard-only-user").listSessions()).toEqual([sid]);
  });

  it("clears past the synchronous batch through its alarm", async () => {
    const principalId = `many-${crypto.randomUUID()}`;
    const sessions = Array.from({ length: 7 }, (_, i) => `m-${i}`);
    await Promise.all(
      sessions.map((sid) => stubOf(sid, principalId).touchDiscovered({ principalId, sessionId: sid }, ["a", "b"], CONFIG)),
    );
    const principal = principalStub(env, principalId);
    expect(await principal.sessionCount()).toBe(7);
    expect(await principal.clearAll(principalId, 3)).toEqual({ cleared: 3, pending: 4 });
    // The rest follows in alarm invocations (scheduled for now: they may already be running).
    await runDurableObjectAlarm(principal);
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && (await runInDurableObject(principal, (_i, state) => state.storage.kv.get("clearJob"))) !== undefined) {
      await runDurableObjectAlarm(principal);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const sets = await Promise.all(sessions.map((sid) => stubOf(sid, principalId).getDiscovered()));
    expect(sets).toEqual(sessions.map(() => []));
    expect(await runInDurableObject(principal, (_i, state) => state.storage.getAlarm())).toBeNull();
  });
});

describe("session object names", () => {
  const sessionIds = fc.stringMatching(ID_PATTERN);

  it("round-trip any principal id and session id", () => {
    const failures: string[] = [];
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 64 }), sessionIds, (principalId, sid) => {
        const parsed = parseSessionObjectName(sessionObjectName(principalId, sid));
        const ok = parsed?.principalId === principalId && parsed.sessionId === sid;
        if (!ok) failures.push(`${principalId} ${sid}`);
        return ok;
      }),
    );
    expect(failures).toEqual([]);
  });

  it("never give two different (principal, session) pairs the same object", () => {
    const collisions: string[] = [];
    fc.assert(
      fc.property(fc.string({ maxLength: 16 }), sessionIds, fc.string({ maxLength: 16 }), sessionIds, (p1, s1, p2, s2) => {
        const same = sessionObjectName(p1, s1) === sessionObjectName(p2, s2);
        const collision = same && (p1 !== p2 || s1 !== s2);
        if (collision) collisions.push(`${p1}/${s1} ${p2}/${s2}`);
        return !collision;
      }),
    );
    expect(collisions).toEqual([]);
    expect(sessionObjectName("a/b", "c")).not.toBe(sessionObjectName("a", "b/c"));
  });
});
