// GET /v1/stats: usage figures per principal, counted after the answer (waitUntil) in the principal's object; the
// owner may read anyone's. fetchWithEnv waits for the request's waitUntil work, so the counts are in when it returns.
import { beforeAll, describe, expect, it } from "vitest";
import { anError, errorOf, fetchWithEnv, json, request, sessionId, token } from "./helpers.ts";

let owner = "";
beforeAll(async () => {
  owner = await token({ sub: "stats-owner", owner: true });
});

const send = (path: string, options: Parameters<typeof request>[1]): Promise<Response> => fetchWithEnv({}, request(path, options));

describe("GET /v1/stats", () => {
  it("counts turns, tokens, searches and executions by decision, and the owner reads them", async () => {
    const sub = `stats-user-${sessionId()}`;
    const caller = await token({ sub, level: 0 });
    const sid = sessionId("stats");
    const empty = await json(await send("/v1/stats", { token: caller }));
    expect(empty).toMatchObject({ principal: sub, turns: 0, searches: 0, lastActivity: null });

    const prepared = await json<{ stats: { tokensAll: number; tokensSent: number } }>(
      await send(`/v1/sessions/${sid}/prepare`, { token: caller, body: { messages: [] } }),
    );
    expect((await send(`/v1/sessions/${sid}/search`, { token: caller, body: { query: "time" } })).status).toBe(200);
    expect((await send(`/v1/sessions/${sid}/execute`, { token: caller, body: { name: "echo", arguments: { message: "hi" } } })).status).toBe(200);
    expect((await send(`/v1/sessions/${sid}/execute`, { token: caller, body: { name: "no_such_tool" } })).status).toBe(200);

    const mine = await json(await send("/v1/stats", { token: caller }));
    expect(mine).toMatchObject({
      principal: sub,
      turns: 1,
      tokensAll: prepared.stats.tokensAll,
      tokensSent: prepared.stats.tokensSent,
      tokensSaved: prepared.stats.tokensAll - prepared.stats.tokensSent,
      searches: 1,
      executions: { allow: 1, deny: 0, confirm: 0, error: 1, rate_limited: 0 },
    });
    expect(typeof mine.lastActivity).toBe("string");
    const read = await json(await send(`/v1/stats?principal=${encodeURIComponent(sub)}`, { token: owner }));
    expect(read).toEqual(mine);
  });

  it("refuses another principal's figures to anyone but the owner, and bad queries", async () => {
    const caller = await token({ sub: "stats-nosy" });
    expect(await errorOf(await send("/v1/stats?principal=stats-owner", { token: caller }))).toMatchObject(anError(403, "forbidden"));
    expect(await errorOf(await send("/v1/stats?who=x", { token: caller }))).toMatchObject(anError(400, "invalid_request"));
    expect(await errorOf(await send("/v1/stats?principal=", { token: owner }))).toMatchObject(anError(400, "invalid_request"));
    expect((await send("/v1/stats?principal=stats-nosy", { token: caller })).status).toBe(200);
  });
});

describe("usage batching", () => {
  it("sums an isolate's counts per principal and sends them once per usageFlushMs", async () => {
    const batched = { TOOL_SEARCH_CONFIG: JSON.stringify({ usageFlushMs: 200 }) };
    const sub = `stats-batch-${sessionId()}`;
    const caller = await token({ sub });
    const turns = Array.from({ length: 3 }, () =>
      fetchWithEnv(batched, request(`/v1/sessions/${sessionId("batch")}/prepare`, { token: caller, body: { messages: [] } })));
    for (const response of await Promise.all(turns)) expect(response.status).toBe(200);
    expect(await json(await fetchWithEnv(batched, request("/v1/stats", { token: caller })))).toMatchObject({ principal: sub, turns: 3 });
  });

  it("validates usageFlushMs", async () => {
    const response = await fetchWithEnv({ TOOL_SEARCH_CONFIG: JSON.stringify({ usageFlushMs: -1 }) }, request("/v1/stats", { token: owner }));
    expect(await errorOf(response)).toMatchObject(anError(503, "misconfigured"));
  });
});

describe("the Analytics Engine data point per turn", () => {
  it("is written once per prepare when USAGE_ANALYTICS is bound, and not at all when it is absent", async () => {
    const points: unknown[] = [];
    const dataset = { writeDataPoint: (point: unknown): void => { points.push(point); } };
    const caller = await token({ sub: "stats-analytics" });
    const body = { messages: [] };
    const bound = await fetchWithEnv({ USAGE_ANALYTICS: dataset }, request(`/v1/sessions/${sessionId("ae")}/prepare`, { token: caller, body }));
    const { stats } = await json<{ stats: { total: number; sent: number; tokensAll: number; tokensSent: number } }>(bound);
    expect(points).toEqual([{
      indexes: ["stats-analytics"],
      blobs: ["stats-analytics", "registry"],
      doubles: [stats.total, stats.sent, stats.tokensAll, stats.tokensSent, expect.any(Number)],
    }]);
    const absent = await fetchWithEnv({ USAGE_ANALYTICS: undefined }, request(`/v1/sessions/${sessionId("ae")}/prepare`, { token: caller, body }));
    expect(absent.status).toBe(200);
    expect(points).toHaveLength(1);
  });

  it("never fails the turn when the dataset throws", async () => {
    const dataset = { writeDataPoint: (): void => { throw new Error("dataset down"); } };
    const caller = await token({ sub: "stats-analytics-down" });
    const response = await fetchWithEnv({ USAGE_ANALYTICS: dataset }, request(`/v1/sessions/${sessionId("ae")}/prepare`, { token: caller, body: { messages: [] } }));
    expect(response.status).toBe(200);
  });
});
