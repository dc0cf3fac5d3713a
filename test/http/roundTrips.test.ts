// Durable Object round trips per request on the common path (docs/scaling.md; two are allowed for prepare and
// search: the principal's rate limiter and the session). Every namespace the Worker is given is wrapped so that each
// RPC through one of its stubs is counted; calls the objects make among themselves are not round trips of the request.
// MCP requests are counted in the usage figures like the HTTP routes.
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { connect, envFetch, principal } from "../mcp/helpers.ts";
import { countingNamespace, fetchWithEnv, json, request, sessionId, token } from "./helpers.ts";

const NAMESPACES = ["SESSION", "RATE_LIMITER", "PRINCIPAL", "REGISTRY"] as const;
type Counts = Record<(typeof NAMESPACES)[number], number>;

const counts: Counts = { SESSION: 0, RATE_LIMITER: 0, PRINCIPAL: 0, REGISTRY: 0 };
const reset = (): void => {
  for (const name of NAMESPACES) counts[name] = 0;
};

function counted(name: keyof Counts): unknown {
  const namespace: object = Reflect.get(env, name);
  return countingNamespace(namespace, () => {
    counts[name] += 1;
  });
}

// A rate limit on (so its object is called), a registry version trusted for a minute (read once, by the warm-up),
// usage sent at once after each answer (one principal RPC per request, after the answer).
const overrides = {
  TOOL_SEARCH_CONFIG: JSON.stringify({
    maxDirectTools: 5,
    toolList: "fixed",
    registryVersionTtlMs: 60_000,
    usageFlushMs: 0,
    limits: { rateLimitPerMinute: 10_000 },
  }),
  ...Object.fromEntries(NAMESPACES.map((name) => [name, counted(name)])),
};

const send = (path: string, tokenText: string, body?: unknown): Promise<Response> =>
  fetchWithEnv(overrides, request(path, { token: tokenText, ...(body === undefined ? {} : { body }) }));

/** The round trips of one request, after `warm` has made the session and the isolate's registry steady. */
async function roundTrips(run: () => Promise<Response>): Promise<Counts> {
  reset();
  const response = await run();
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  return { ...counts };
}

let caller = "";
let sid = "";
beforeEach(async () => {
  caller = await token({ sub: `trips-${sessionId()}` });
  sid = sessionId("trips");
  // Warm: the registry read into the isolate, the session stored, echo found.
  for (const [route, body] of [["prepare", { messages: [] }], ["search", { query: "echo" }]] as const) {
    const response = await send(`/v1/sessions/${sid}/${route}`, caller, body);
    if (response.status !== 200) throw new Error(`warm-up ${route} answered ${response.status}`);
  }
});

describe("Durable Object round trips per request (steady session)", () => {
  it("prepare and search: the rate limiter and the session, one each; the usage figures after the answer", async () => {
    const steady = { SESSION: 1, RATE_LIMITER: 1, PRINCIPAL: 1, REGISTRY: 0 };
    expect(await roundTrips(() => send(`/v1/sessions/${sid}/prepare`, caller, { messages: [] }))).toEqual(steady);
    expect(await roundTrips(() => send(`/v1/sessions/${sid}/search`, caller, { query: "echo" }))).toEqual(steady);
  });

  it("execute of a registry tool, and call_tool of a found one: the rate limiter and the session, one each", async () => {
    const steady = { SESSION: 1, RATE_LIMITER: 1, PRINCIPAL: 1, REGISTRY: 0 };
    const echo = { name: "echo", arguments: { message: "hi" } };
    expect(await roundTrips(() => send(`/v1/sessions/${sid}/execute`, caller, echo))).toEqual(steady);
    const viaCallTool = await roundTrips(async () => {
      const response = await send(`/v1/sessions/${sid}/execute`, caller, { name: "call_tool", arguments: echo });
      const answer = await json<{ content: string; isError: boolean }>(response.clone());
      expect(answer).toMatchObject({ isError: false, content: expect.stringContaining("hi") });
      return response;
    });
    expect(viaCallTool).toEqual(steady);
    // Not found in that session: it runs all the same (the guard is the boundary), in the same one round trip.
    const other = sessionId("trips-other");
    await send(`/v1/sessions/${other}/prepare`, caller, { messages: [] });
    const unfound = await roundTrips(async () => {
      const response = await send(`/v1/sessions/${other}/execute`, caller, { name: "call_tool", arguments: echo });
      expect(await json<{ isError: boolean; content: string }>(response.clone())).toMatchObject({ isError: false, content: expect.stringContaining("hi") });
      return response;
    });
    expect(unfound).toEqual(steady);
  });
});

describe("usage batching", () => {
  it("sends an isolate's counts of concurrent requests to the principal's object in one RPC per usageFlushMs", async () => {
    const batched = { ...overrides, TOOL_SEARCH_CONFIG: overrides.TOOL_SEARCH_CONFIG.replace('"usageFlushMs":0', '"usageFlushMs":1000') };
    const sub = `trips-batch-${sessionId()}`;
    const batchCaller = await token({ sub });
    // The settings of these vars, and the registry under them, read before counting.
    expect((await fetchWithEnv(batched, request(`/v1/sessions/${sessionId("warm")}/prepare`, { token: await token({ sub: "warm" }), body: { messages: [] } }))).status).toBe(200);
    reset();
    const turns = await Promise.all(Array.from({ length: 4 }, () =>
      fetchWithEnv(batched, request(`/v1/sessions/${sessionId("batch")}/prepare`, { token: batchCaller, body: { messages: [] } }))));
    for (const response of turns) expect(response.status).toBe(200);
    expect(counts.PRINCIPAL).toBe(1);
    expect(await json(await fetchWithEnv(batched, request("/v1/stats", { token: batchCaller })))).toMatchObject({ principal: sub, turns: 4 });
  });
});

describe("MCP requests", () => {
  it("tools/list: the rate limiter and two session reads (the MCP session, the discovered set); counted as turns", async () => {
    const user = await principal("trips");
    const mcp = await connect(user.token, { env: overrides });
    try {
      reset();
      const listed = await mcp.client.listTools();
      expect(listed.tools.map((tool) => tool.name)).toContain("echo");
      expect(counts).toEqual({ SESSION: 2, RATE_LIMITER: 1, PRINCIPAL: 1, REGISTRY: 0 });
      const found = await mcp.client.callTool({ name: "search_tools", arguments: { query: "echo" } });
      expect(found.isError).toBe(false);
      const stats = await json(await envFetch(overrides)(new Request("https://toolgate.test/v1/stats", { headers: { authorization: `Bearer ${user.token}` } })));
      expect(stats).toMatchObject({
        principal: user.id,
        turns: 1,
        searches: 1,
        executions: { allow: 1, deny: 0, confirm: 0, error: 0, rate_limited: 0 },
      });
      expect(stats["tokensAll"]).toBeGreaterThan(0);
    } finally {
      await mcp.client.close();
    }
  });
});
