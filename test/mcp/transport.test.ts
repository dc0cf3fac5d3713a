// /mcp as a Streamable HTTP endpoint: initialize in both protocol versions, ping, the session (its id, two principals
// on one id, DELETE), authorization (401 naming the RFC 9728 metadata, the metadata itself, banned 403), Origin
// (DNS-rebinding protection) and the JSON-RPC and HTTP errors: unknown method, bad params, unknown session, oversize
// and malformed bodies, the rate limit.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LIMITS } from "../../src/core/config.ts";
import { api, BASE, fetchWithEnv, json, token } from "../http/helpers.ts";
import { connect, initializeBody, MCP_URL, principal, rpc, warmUp } from "./helpers.ts";
import type { Wire } from "./helpers.ts";

beforeAll(warmUp, 60_000);

interface RpcAnswer {
  jsonrpc: string;
  id: number | string | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

async function answer(response: Response): Promise<RpcAnswer> {
  expect(response.headers.get("content-type") ?? "").toContain("application/json");
  return json<RpcAnswer>(response);
}

/** A raw session: initialize (protocol `version`), then notifications/initialized; the headers later calls need. */
async function rawSession(tokenText: string, version = "2025-11-25"): Promise<Record<string, string>> {
  const auth = { authorization: `Bearer ${tokenText}` };
  const init = await rpc(initializeBody(version), auth);
  expect(init.status).toBe(200);
  const sid = init.headers.get("mcp-session-id");
  if (sid === null) throw new Error("no session id");
  const headers = { ...auth, "mcp-session-id": sid, "mcp-protocol-version": version };
  expect((await rpc({ jsonrpc: "2.0", method: "notifications/initialized" }, headers)).status).toBe(202);
  return headers;
}

function withConfig(change: Record<string, unknown>): Record<string, string> {
  const base: unknown = JSON.parse(env.TOOL_SEARCH_CONFIG);
  return { TOOL_SEARCH_CONFIG: JSON.stringify({ ...(typeof base === "object" ? base : {}), ...change }) };
}

function rawRequest(body: unknown, headers: Record<string, string>, url = MCP_URL): Request<unknown, IncomingRequestCfProperties> {
  return new Request<unknown, IncomingRequestCfProperties>(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body),
  });
}

describe("the lifecycle", () => {
  for (const version of ["2025-11-25", "2025-06-18"]) {
    it(`initialize negotiates ${version}; ping; tools/list in the same session`, async () => {
      const who = await principal(`init-${version}`);
      const init = await rpc(initializeBody(version), { authorization: `Bearer ${who.token}` });
      expect(init.status).toBe(200);
      const body = await answer(init);
      expect(body.result).toMatchObject({
        protocolVersion: version,
        serverInfo: { name: "toolgate" },
        capabilities: { tools: { listChanged: true } },
      });
      expect(typeof body.result?.["instructions"]).toBe("string");
      expect(init.headers.get("mcp-session-id")).toMatch(/^[0-9a-f-]{36}$/);
      const headers = await rawSession(who.token, version);
      expect(await answer(await rpc({ jsonrpc: "2.0", id: 2, method: "ping" }, headers))).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
      const level = await rpc({ jsonrpc: "2.0", id: 4, method: "logging/setLevel", params: { level: "info" } }, headers);
      expect(await answer(level)).toEqual({ jsonrpc: "2.0", id: 4, result: {} });
      const list = await answer(await rpc({ jsonrpc: "2.0", id: 3, method: "tools/list" }, headers));
      expect(Array.isArray(list.result?.["tools"])).toBe(true);
    });
  }

  it("the SDK client: POST initialize, POST initialized, GET 405 (no standalone stream), DELETE ends the session", async () => {
    const who = await principal("lifecycle");
    const wire: Wire = { seen: [] };
    const { client, transport, sessionId } = await connect(who.token, { wire });
    await client.callTool({ name: "search_tools", arguments: { query: "calc" } });
    await transport.terminateSession();
    expect(wire.seen).toEqual(["POST 200", "POST 202", "GET 405", "POST 200", "DELETE 204"]);
    const after = await rpc({ jsonrpc: "2.0", id: 1, method: "tools/list" }, {
      authorization: `Bearer ${who.token}`, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25",
    });
    expect(after.status).toBe(404);
    expect((await answer(after)).error).toMatchObject({ code: -32001 });
    // Its discovered set went with it.
    const prepared = await api(`/v1/sessions/${sessionId}/prepare`, { token: who.token, body: { messages: [] } });
    expect((await json<{ discovered: string[] }>(prepared)).discovered).toEqual([]);
    await client.close();
  });

  it("two principals never share an MCP session: another token with the same id finds no session", async () => {
    const alice = await principal("alice");
    const bob = await principal("bob");
    const headers = await rawSession(alice.token);
    const asBob = { ...headers, authorization: `Bearer ${bob.token}` };
    expect((await rpc({ jsonrpc: "2.0", id: 1, method: "tools/list" }, asBob)).status).toBe(404);
    const bobDelete = await fetchWithEnv({}, new Request<unknown, IncomingRequestCfProperties>(MCP_URL, { method: "DELETE", headers: asBob }));
    expect(bobDelete.status).toBe(404);
    expect((await rpc({ jsonrpc: "2.0", id: 2, method: "tools/list" }, headers)).status).toBe(200);
  });
});

describe("authorization", () => {
  it("401 without a token or with a bad one, the challenge naming the protected-resource metadata", async () => {
    const metadata = `resource_metadata="${BASE}/.well-known/oauth-protected-resource/mcp"`;
    const missing = await rpc(initializeBody());
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toBe(`Bearer realm="toolgate", ${metadata}`);
    expect((await answer(missing)).error).toMatchObject({ code: -32000, data: { code: "unauthorized" } });
    const bad = await rpc(initializeBody(), { authorization: "Bearer not.a.token" });
    expect(bad.status).toBe(401);
    expect(bad.headers.get("www-authenticate")).toMatch(new RegExp(`^Bearer realm="toolgate", error="invalid_token", .*, ${metadata}$`));
  });

  it("GET /.well-known/oauth-protected-resource[/mcp]: the resource and the configured authorization server", async () => {
    const suffixed = await api("/.well-known/oauth-protected-resource/mcp");
    expect(suffixed.status).toBe(200);
    expect(await json(suffixed)).toEqual({ resource: `${BASE}/mcp`, bearer_methods_supported: ["header"], resource_name: "toolgate" });
    const issuer = "https://auth.example.com";
    const root = await fetchWithEnv({ AUTH_ISSUER: issuer }, new Request<unknown, IncomingRequestCfProperties>(`${BASE}/.well-known/oauth-protected-resource`));
    expect(await json(root)).toEqual({ resource: BASE, authorization_servers: [issuer], bearer_methods_supported: ["header"], resource_name: "toolgate" });
  });

  it("a banned principal gets 403, as on /v1", async () => {
    const banned = await token({ sub: `mcp-banned-${crypto.randomUUID()}`, level: -1 });
    const response = await rpc(initializeBody(), { authorization: `Bearer ${banned}` });
    expect(response.status).toBe(403);
    expect((await answer(response)).error).toMatchObject({ data: { code: "banned" } });
  });
});

describe("Origin", () => {
  it("refuses a foreign Origin, also when Host names the same foreign host (DNS rebinding): 403", async () => {
    const who = await principal("origin");
    const auth = { authorization: `Bearer ${who.token}` };
    const foreign = await rpc(initializeBody(), { ...auth, origin: "http://evil.example.com" });
    expect(foreign.status).toBe(403);
    expect((await answer(foreign)).error).toMatchObject({ data: { code: "forbidden_origin" } });
    const rebound = await rpc(initializeBody(), { ...auth, origin: "http://evil.example.com" }, "http://evil.example.com/mcp");
    expect(rebound.status).toBe(403);
  });

  it("accepts no Origin, the Worker's own loopback origin, and a configured origin", async () => {
    const who = await principal("origin-ok");
    const auth = { authorization: `Bearer ${who.token}` };
    expect((await rpc(initializeBody(), auth)).status).toBe(200);
    expect((await rpc(initializeBody(), { ...auth, origin: "http://127.0.0.1:8787" }, "http://127.0.0.1:8787/mcp")).status).toBe(200);
    const config = withConfig({ mcp: { allowedOrigins: ["https://chat.example.com"] } });
    const listed = await fetchWithEnv(config, rawRequest(initializeBody(), { ...auth, origin: "https://chat.example.com" }));
    expect(listed.status).toBe(200);
    const other = await fetchWithEnv(config, rawRequest(initializeBody(), { ...auth, origin: "https://chat.example.org" }));
    expect(other.status).toBe(403);
  });
});

describe("errors", () => {
  it("JSON-RPC: unknown method -32601, bad params -32602, unknown or missing session 404 / 400, parse error -32700", async () => {
    const who = await principal("errors");
    const headers = await rawSession(who.token);
    expect((await answer(await rpc({ jsonrpc: "2.0", id: 1, method: "resources/list" }, headers))).error).toMatchObject({ code: -32601 });
    const badParams = await rpc({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { arguments: {} } }, headers);
    const text = await badParams.text();
    expect(text).toContain('"code":-32602');
    expect(text).not.toContain("    at ");
    const unknown = await rpc({ jsonrpc: "2.0", id: 3, method: "tools/list" }, { ...headers, "mcp-session-id": crypto.randomUUID() });
    expect(unknown.status).toBe(404);
    expect((await answer(unknown)).error).toMatchObject({ code: -32001 });
    const { "mcp-session-id": _dropped, ...noSession } = headers;
    expect((await rpc({ jsonrpc: "2.0", id: 4, method: "tools/list" }, noSession)).status).toBe(400);
    const parse = await rpc("{not json", headers);
    expect(parse.status).toBe(400);
    expect((await answer(parse)).error).toMatchObject({ code: -32700 });
    const version = await rpc({ jsonrpc: "2.0", id: 5, method: "tools/list" }, { ...headers, "mcp-protocol-version": "1999-01-01" });
    expect(version.status).toBe(400);
  });

  it("a body over limits.maxBodyBytes answers 413, as on /v1", async () => {
    const who = await principal("oversize");
    const headers = await rawSession(who.token);
    const big = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { message: "x".repeat(DEFAULT_LIMITS.maxBodyBytes) } } };
    const response = await rpc(big, headers);
    expect(response.status).toBe(413);
    expect((await answer(response)).error).toMatchObject({ data: { code: "payload_too_large" } });
  });

  it("the rate limit applies as on /v1: one budget with the HTTP API, a JSON-RPC error with the wait", async () => {
    const who = await principal("limited");
    const limited = withConfig({ limits: { rateLimitPerMinute: 2 } });
    const auth = { authorization: `Bearer ${who.token}` };
    const init = await fetchWithEnv(limited, rawRequest(initializeBody(), auth));
    expect(init.status).toBe(200);
    const headers = { ...auth, "mcp-session-id": init.headers.get("mcp-session-id") ?? "", "mcp-protocol-version": "2025-11-25" };
    expect((await answer(await fetchWithEnv(limited, rawRequest({ jsonrpc: "2.0", id: 2, method: "tools/list" }, headers)))).result).toBeDefined();
    const refused = await answer(await fetchWithEnv(limited, rawRequest({ jsonrpc: "2.0", id: 3, method: "tools/list" }, headers)));
    expect(refused.error).toMatchObject({ code: -32000, data: { status: 429, code: "rate_limited" } });
    expect(refused.error?.data?.["retryAfterSeconds"]).toBeGreaterThan(0);
  });
});
