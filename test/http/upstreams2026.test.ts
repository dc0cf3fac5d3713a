// An upstream MCP server that speaks only the revision 2026-07-28 (test/fixtures/mcp-upstream-2026.ts, reached through
// the remote worker) behind toolgate over HTTP: found by server/discover, listed, searched and called without
// initialize or a session; its input_required answer (it wants the user's input) ends as a tool error that says what it
// asked for; a 2025 server's era is unchanged (test/http/upstreams.test.ts has the rest of it).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api, json, ownerToken, sessionId } from "./helpers.ts";

interface Detail {
  id: string;
  status: string;
  tools: number;
  lastError: string | null;
  transport: string | null;
  toolNames: { name: string; upstreamName: string }[];
}
interface ExecuteAnswer {
  content: string;
  isError: boolean;
}

const owner = await ownerToken();

function fixture(label: string, path = "mcp-upstream-2026"): { id: string; url: string; state: string } {
  const key = `${label}-${crypto.randomUUID().slice(0, 8)}`;
  return { id: key, url: `https://mcp.fixture.example/${path}/${key}`, state: `https://mcp.fixture.example/${path}/${key}/state` };
}

async function fixtureState(url: string): Promise<{ requests: number; calls: number; down: boolean; refused: string[] }> {
  return json(await env.TOOL_REMOTE.fetch(url));
}

async function setDown(url: string, down: boolean): Promise<void> {
  await env.TOOL_REMOTE.fetch(url, { method: "POST", body: JSON.stringify({ down }) });
}

async function detail(id: string): Promise<Detail & { consecutiveFailures: number }> {
  return (await json<{ upstream: Detail & { consecutiveFailures: number } }>(await api(`/v1/upstreams/${id}`, { token: owner }))).upstream;
}

async function added(id: string, url: string, more: Record<string, unknown> = {}): Promise<Detail> {
  const response = await api(`/v1/upstreams/${id}`, { method: "PUT", token: owner, body: { url, ...more } });
  expect(response.status).toBe(201);
  return (await json<{ upstream: Detail }>(response)).upstream;
}

async function execute(sid: string, name: string, args: Record<string, unknown> = {}): Promise<ExecuteAnswer> {
  const response = await api(`/v1/sessions/${sid}/execute`, { token: owner, body: { name, arguments: args } });
  expect(response.status).toBe(200);
  return json(response);
}

describe("an upstream MCP server of 2026-07-28 only", () => {
  it("is registered, listed, searched and called in that revision, with no initialize and no request refused", async () => {
    const { id, url, state } = fixture("modern");
    const upstream = await added(id, url);
    expect(upstream).toMatchObject({ id, status: "ok", tools: 4, lastError: null, transport: "streamable-http-2026-07-28" });
    expect(upstream.toolNames.map((tool) => tool.upstreamName).toSorted()).toEqual(["book_table", "forecast", "slow", "streamed"]);

    const listed = await json<{ tools: { name: string }[] }>(await api("/v1/tools?format=summary", { token: owner }));
    expect(listed.tools.map((tool) => tool.name)).toContain(`${id}__forecast`);

    const sid = sessionId("up2026");
    const search = await api(`/v1/sessions/${sid}/search`, { token: owner, body: { query: "forecasts the weather for a city", limit: 20 } });
    expect(search.status).toBe(200);
    const found = await json<{ tools: { name?: string; function?: { name: string } }[] }>(search);
    expect(found.tools.map((tool) => tool.function?.name ?? tool.name)).toContain(`${id}__forecast`);

    const forecast = await execute(sid, `${id}__forecast`, { city: "Oslo" });
    expect(forecast.isError).toBe(false);
    expect(forecast.content).toContain("sunny in Oslo");
    // An answer on an event stream (a progress notification first) is read up to the answer.
    const streamed = await execute(sid, `${id}__streamed`);
    expect(streamed).toMatchObject({ isError: false });
    expect(streamed.content).toContain("from the stream");

    // discover + list at registration, then one request per call: no initialize, no probe per call.
    expect(await fixtureState(state)).toEqual({ requests: 4, calls: 2, down: false, refused: [] });
  });

  it("answers a timeout as a tool error that does not count against the server, and a 503 as one that does", async () => {
    const { id, url, state } = fixture("modern-fail");
    await added(id, url, { timeoutMs: 300 });
    const sid = sessionId("up2026-fail");
    const slow = await execute(sid, `${id}__slow`, { ms: 2_000 });
    expect(slow.isError).toBe(true);
    expect(slow.content).toContain("took more than 300 ms");
    expect(slow.content).toContain("may have run on the server; it was not sent again");
    expect((await detail(id)).consecutiveFailures).toBe(0);

    await setDown(state, true);
    const down = await execute(sid, `${id}__forecast`, { city: "Oslo" });
    expect(down.isError).toBe(true);
    expect(down.content).toContain("HTTP 503");
    expect((await detail(id)).consecutiveFailures).toBe(1);
    await setDown(state, false);
    expect((await execute(sid, `${id}__forecast`, { city: "Oslo" })).content).toContain("sunny in Oslo");
    expect((await detail(id)).consecutiveFailures).toBe(0);
  });

  it("answers input_required (the server wants the user's input) with a tool error that says what was asked", async () => {
    const { id, url, state } = fixture("ask");
    await added(id, url);
    const answer = await execute(sessionId("up2026-ask"), `${id}__book_table`, { restaurant: "Nora" });
    expect(answer.isError).toBe(true);
    expect(answer.content).toContain("the upstream server needs input before it can answer");
    expect(answer.content).toContain("user input: \\\"Which time suits you?\\\"");
    expect(answer.content).toContain("cannot pass an upstream server's input requests on to its caller yet: the call did not complete");
    // Sent once, never retried without the input.
    expect((await fixtureState(state)).calls).toBe(1);
  });

  it("keeps a 2025-11-25 server on initialize after the server/discover probe", async () => {
    const { id, url } = fixture("legacy", "mcp-upstream");
    const upstream = await added(id, url);
    expect(upstream).toMatchObject({ status: "ok", tools: 9, lastError: null, transport: "streamable-http" });
    const echo = await execute(sessionId("up2026-legacy"), `${id}__echo`, { text: "old" });
    expect(echo.content).toContain("echo: old");
  });
});
