// Per-principal limits through the Worker's fetch: one rate-limit budget over every repeatable route (prepare,
// confirmations, memory/clear, untrusted/wrap and GET /v1/tools besides execute and search), and the bound on a
// principal's live sessions.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DEFAULT_LIMITS, parseConfigText } from "../../src/core/config.ts";
import { principalStub, sessionStub } from "../../src/durable/stubs.ts";
import type { SessionObject } from "../../src/durable/sessionObject.ts";
import { anError, api, errorOf, fetchWithEnv, json, openaiTools, request, sessionId, suiteConfig, token } from "./helpers.ts";
import type { ApiOptions } from "./helpers.ts";

/** The suite's configuration with other limits, for fetchWithEnv (the limits are read per request). */
function withLimits(limits: Record<string, number>): Record<string, string> {
  return suiteConfig({ limits });
}

/** A principal of its own (its own rate-limit counter and session index). */
async function fresh(label: string, claims: Record<string, unknown> = {}): Promise<string> {
  return token({ sub: `${label}-${crypto.randomUUID()}`, ...claims });
}

type Call = [path: string, options: ApiOptions];
type Route = "prepare" | "confirmation" | "clearSession" | "clearAll" | "wrap" | "list" | "search" | "execute";

function routeCalls(caller: string): Record<Route, Call> {
  const sid = sessionId("rl");
  return {
    prepare: [`/v1/sessions/${sid}/prepare`, { token: caller, body: { messages: [] } }],
    confirmation: [`/v1/sessions/${sid}/confirmations/no-such-id`, { token: caller, body: { approve: true } }],
    clearSession: ["/v1/memory/clear", { token: caller, body: { scope: "session", sessionId: sid } }],
    clearAll: ["/v1/memory/clear", { token: caller, body: { scope: "all" } }],
    wrap: ["/v1/untrusted/wrap", { token: caller, body: { content: "text", source: "test" } }],
    list: ["/v1/tools?format=summary", { token: caller }],
    search: [`/v1/sessions/${sid}/search`, { token: caller, body: { query: "" } }],
    execute: [`/v1/sessions/${sid}/execute`, { token: caller, body: { name: "echo", arguments: { text: "x" } } }],
  };
}

function send(vars: Record<string, string>, [path, options]: Call): Promise<Response> {
  return fetchWithEnv(vars, request(path, options));
}

async function expectRateLimited(response: Response): Promise<void> {
  const retryAfter = response.headers.get("retry-after");
  expect(await errorOf(response)).toMatchObject(anError(429, "rate_limited"));
  expect(Number(retryAfter)).toBeGreaterThan(0);
}

describe("the rate limit covers every repeatable route", () => {
  it.each<Route>(["prepare", "confirmation", "clearSession", "wrap", "list"])(
    "%s: limit calls pass, the next answers 429 with Retry-After",
    async (route) => {
      const vars = withLimits({ rateLimitPerMinute: 3 });
      const call = routeCalls(await fresh(`rl-${route}`))[route];
      for (let i = 0; i < 3; i++) expect((await send(vars, call)).status).toBeLessThan(429);
      await expectRateLimited(await send(vars, call));
    },
  );

  it("all routes draw on one budget per principal; another principal has its own", async () => {
    const vars = withLimits({ rateLimitPerMinute: 5 });
    const caller = await fresh("rl-shared");
    const calls = routeCalls(caller);
    for (const name of ["prepare", "confirmation", "wrap", "list", "search"] as const) {
      const call = calls[name];
      expect((await send(vars, call)).status, `route ${name}`).toBeLessThan(429);
    }
    await expectRateLimited(await send(vars, calls.execute));
    await expectRateLimited(await send(vars, calls.prepare));
    expect((await send(vars, routeCalls(await fresh("rl-other")).prepare)).status).toBe(200);
  });

  it("memory/clear with scope all costs 10 calls", async () => {
    const vars = withLimits({ rateLimitPerMinute: 12 });
    const calls = routeCalls(await fresh("rl-clear-all"));
    expect((await send(vars, calls.clearAll)).status).toBe(200);
    expect((await send(vars, calls.wrap)).status).toBe(200);
    expect((await send(vars, calls.wrap)).status).toBe(200);
    await expectRateLimited(await send(vars, calls.wrap));
    // A scope-all clear still passes on a fresh budget even with a limit below its cost (it takes the whole minute).
    const tight = withLimits({ rateLimitPerMinute: 4 });
    const small = routeCalls(await fresh("rl-clear-tight"));
    expect((await send(tight, small.clearAll)).status).toBe(200);
    await expectRateLimited(await send(tight, small.wrap));
  });

  it("malformed requests are refused before they count; 0 turns the limit off", async () => {
    const vars = withLimits({ rateLimitPerMinute: 1 });
    const caller = await fresh("rl-invalid");
    const bad: Call = ["/v1/untrusted/wrap", { token: caller, body: { content: "x" } }];
    for (let i = 0; i < 3; i++) expect((await send(vars, bad)).status).toBe(400);
    expect((await send(vars, routeCalls(caller).wrap)).status).toBe(200);
    const off = withLimits({ rateLimitPerMinute: 0 });
    const calls = routeCalls(await fresh("rl-off"));
    for (let i = 0; i < 20; i++) expect((await send(off, calls.wrap)).status).toBe(200);
  });
});

// ---- live sessions per principal ------------------------------------------------------------------------------
// The suite's configuration keeps the default limit; each test fills a fresh principal's index with made-up entries
// up to a point, so that the limit is reached without creating a thousand session objects.

const MAX_SESSIONS = DEFAULT_LIMITS.maxSessionsPerPrincipal;
const DAY_MS = 86_400_000;

interface Principal {
  id: string;
  token: string;
}

async function principalWith(label: string, claims: Record<string, unknown> = {}): Promise<Principal> {
  const id = `${label}-${crypto.randomUUID()}`;
  return { id, token: await token({ sub: id, ...claims }) };
}

/** Lists `count` made-up sessions in the principal's index, as if it had that many live sessions. */
async function occupy(principalId: string, count: number): Promise<void> {
  await runInDurableObject(principalStub(env, principalId), (_instance, state) => {
    for (let i = 0; i < count; i++) {
      state.storage.sql.exec("INSERT INTO sessions (session_id, added) VALUES (?, ?)", `filler-${i}`, Date.now());
    }
  });
}

function sessionStubOf(principalId: string, sid: string): DurableObjectStub<SessionObject> {
  return sessionStub(env, principalId, sid);
}

/** What a session object holds (nothing at all for a refused one). */
function storedKeys(principalId: string, sid: string): Promise<{ keys: string[]; alarm: number | null }> {
  return runInDurableObject(sessionStubOf(principalId, sid), async (_instance, state) => ({
    keys: [...state.storage.kv.list()].map(([key]) => key),
    alarm: await state.storage.getAlarm(),
  }));
}

const prepareIn = (who: Principal, sid: string, body: Record<string, unknown> = { messages: [] }) =>
  api(`/v1/sessions/${sid}/prepare`, { token: who.token, body });

async function expectTooManySessions(response: Response): Promise<void> {
  const error = await errorOf(response);
  expect(error).toMatchObject(anError(429, "too_many_sessions"));
  expect(error.message).toContain(`already has ${MAX_SESSIONS} live sessions (limits.maxSessionsPerPrincipal)`);
}

describe("live sessions per principal (limits.maxSessionsPerPrincipal)", () => {
  it("refuses a new session past the limit on prepare, search and execute of search_tools; it stores nothing", async () => {
    const alice = await principalWith("sessions-full");
    await occupy(alice.id, MAX_SESSIONS - 1);
    const last = sessionId("last");
    expect((await prepareIn(alice, last)).status).toBe(200);
    const extra = sessionId("extra");
    await expectTooManySessions(await prepareIn(alice, extra, { messages: [], tools: openaiTools("full", 8) }));
    await expectTooManySessions(await api(`/v1/sessions/${extra}/search`, { token: alice.token, body: { query: "" } }));
    await expectTooManySessions(
      await api(`/v1/sessions/${extra}/execute`, { token: alice.token, body: { name: "search_tools", arguments: { query: "" } } }),
    );
    expect(await storedKeys(alice.id, extra)).toEqual({ keys: [], alarm: null });
    const listed = await principalStub(env, alice.id).listSessions();
    expect(listed).toHaveLength(MAX_SESSIONS);
    expect(listed).toContain(last);
    expect(listed).not.toContain(extra);
    // The sessions it has keep working, and another principal is not affected.
    expect((await prepareIn(alice, last)).status).toBe(200);
    expect((await api(`/v1/sessions/${last}/search`, { token: alice.token, body: { query: "echo" } })).status).toBe(200);
    expect((await prepareIn(await principalWith("sessions-other"), extra)).status).toBe(200);
  });

  it("refuses a confirmation that would open a new session past the limit: 429, nothing stored, nothing run", async () => {
    const bob = await principalWith("sessions-confirm", { level: 2, groups: ["mail"] });
    await occupy(bob.id, MAX_SESSIONS);
    const sid = sessionId("confirm");
    const mail = { name: "send_email", arguments: { to: ["carol@example.com"], subject: "Hi", body: "Text." } };
    await expectTooManySessions(await api(`/v1/sessions/${sid}/execute`, { token: bob.token, body: mail }));
    expect(await storedKeys(bob.id, sid)).toEqual({ keys: [], alarm: null });
    // A tool that needs no session state still runs in a session that does not exist.
    const echo = await api(`/v1/sessions/${sid}/execute`, { token: bob.token, body: { name: "echo", arguments: { text: "x" } } });
    expect(await json(echo)).toMatchObject({ isError: false });
    // The guard's session calls answer the refusal as a value, not as an exception out of the object (which workerd
    // reports there as uncaught besides handing it on), and keep nothing.
    const config = parseConfigText(env.TOOL_SEARCH_CONFIG, "TOOL_SEARCH_CONFIG");
    const binding = { tool: "tool-digest", arguments: "args-digest" };
    const direct = sessionId("confirm-direct");
    const refused = { refused: expect.stringContaining(`already has ${MAX_SESSIONS} live sessions`) as unknown };
    expect(await sessionStubOf(bob.id, direct).consumeGrant("tool:send_email", binding, config)).toEqual(refused);
    expect(await sessionStubOf(bob.id, direct).requestConfirmation("tool:send_email", "session", binding, config)).toEqual(refused);
    expect(await storedKeys(bob.id, direct)).toEqual({ keys: [], alarm: null });
  });

  it("a session that expires frees its place", async () => {
    const dora = await principalWith("sessions-expire");
    await occupy(dora.id, MAX_SESSIONS - 1);
    const first = sessionId("first");
    expect((await prepareIn(dora, first)).status).toBe(200);
    const second = sessionId("second");
    await expectTooManySessions(await prepareIn(dora, second));
    const stub = sessionStubOf(dora.id, first);
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.kv.put("lastActive", Date.now() - 366 * DAY_MS);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await principalStub(env, dora.id).listSessions()).not.toContain(first);
    expect((await prepareIn(dora, second)).status).toBe(200);
  });

  it("a cleared session that holds nothing else frees its place; one with a client catalog keeps it", async () => {
    const erin = await principalWith("sessions-clear");
    await occupy(erin.id, MAX_SESSIONS - 1);
    const plain = sessionId("plain");
    expect((await prepareIn(erin, plain)).status).toBe(200);
    const clear = (sid: string) => api("/v1/memory/clear", { token: erin.token, body: { scope: "session", sessionId: sid } });
    expect((await clear(plain)).status).toBe(200);
    expect(await storedKeys(erin.id, plain)).toEqual({ keys: [], alarm: null });
    expect(await principalStub(env, erin.id).listSessions()).not.toContain(plain);

    const withCatalog = sessionId("catalog");
    expect((await prepareIn(erin, withCatalog, { messages: [], tools: openaiTools("clear", 8) })).status).toBe(200);
    expect((await clear(withCatalog)).status).toBe(200);
    expect(await principalStub(env, erin.id).listSessions()).toContain(withCatalog);
    await expectTooManySessions(await prepareIn(erin, sessionId("more")));
    // The cleared session that was deleted starts again from nothing, if there is room: there is none now.
    await expectTooManySessions(await prepareIn(erin, plain));
  });

  it("a scope-all clear frees the places of the sessions it leaves empty", async () => {
    const finn = await principalWith("sessions-clear-all");
    const empty = [sessionId("e1"), sessionId("e2")];
    for (const sid of empty) expect((await prepareIn(finn, sid)).status).toBe(200);
    const kept = sessionId("kept");
    expect((await prepareIn(finn, kept, { messages: [], tools: openaiTools("all", 8) })).status).toBe(200);
    expect(await principalStub(env, finn.id).sessionCount()).toBe(3);
    expect(await json(await api("/v1/memory/clear", { token: finn.token, body: { scope: "all" } }))).toEqual({ scope: "all", cleared: 3, pending: 0 });
    expect(await principalStub(env, finn.id).listSessions()).toEqual([kept]);
  });
});
