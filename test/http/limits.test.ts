// Per-principal limits through the Worker's fetch: one rate-limit budget over every repeatable route (prepare,
// confirmations, memory/clear, untrusted/wrap and GET /v1/tools besides execute and search), and the bound on a
// principal's live sessions.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { anError, errorOf, fetchWithEnv, request, sessionId, token } from "./helpers.ts";
import type { ApiOptions } from "./helpers.ts";

/** The suite's configuration with other limits, for fetchWithEnv (the limits are read per request). */
function withLimits(limits: Record<string, number>): Record<string, string> {
  const base: unknown = JSON.parse(env.TOOL_SEARCH_CONFIG);
  if (typeof base !== "object" || base === null) throw new Error("TOOL_SEARCH_CONFIG is not an object");
  return { TOOL_SEARCH_CONFIG: JSON.stringify({ ...base, limits }) };
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
