// Request validation and the one error shape: 400 naming the field, 404, 405, 413, 503 on a bad configuration,
// and a 500 that never carries a stack trace.
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LIMITS } from "../../src/core/config.ts";
import { HttpError, toErrorResponse } from "../../src/http/errors.ts";
import { anError, api, errorOf, fetchWithEnv, json, request, sessionId, token } from "./helpers.ts";

let alice = "";
beforeAll(async () => {
  alice = await token({ sub: "alice-errors" });
  await api("/v1/health"); // the first request loads the modules: slow once
}, 60_000);

function searchPath(): string {
  return `/v1/sessions/${sessionId("body")}/search`;
}

describe("GET /v1/health", () => {
  it("answers ok and the version without a token", async () => {
    const response = await api("/v1/health");
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ ok: true, version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
  });
});

describe("routing", () => {
  it("answers 404 for an unknown /v1 route", async () => {
    expect(await errorOf(await api("/v1/nope", { token: alice }))).toMatchObject(anError(404, "not_found"));
    const unknown = await api("/v1/sessions/abc/unknown", { method: "POST", token: alice, body: {} });
    expect(await errorOf(unknown)).toMatchObject(anError(404, "not_found"));
  });

  it("serves the playground page at / (outside /v1, without a token)", async () => {
    const response = await api("/");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/html");
  });

  it("answers 404 outside /v1 when no static file matches", async () => {
    expect(await errorOf(await api("/no-such-file.txt"))).toMatchObject(anError(404, "not_found"));
  });

  it("answers 405 with Allow for a known path and another method", async () => {
    const health = await api("/v1/health", { method: "DELETE" });
    expect(health.headers.get("allow")).toBe("GET");
    expect(await errorOf(health)).toMatchObject(anError(405, "method_not_allowed"));
    const prepare = await api("/v1/sessions/abc/prepare", { token: alice });
    expect(prepare.headers.get("allow")).toBe("POST");
    expect(await errorOf(prepare)).toMatchObject(anError(405, "method_not_allowed"));
    const tools = await api("/v1/tools", { method: "POST", token: alice, body: {} });
    expect(tools.headers.get("allow")).toBe("GET, PUT");
    const playground = await api("/index.html", { method: "POST", body: {} });
    expect(playground.status).toBe(405);
  });
});

describe("request bodies", () => {
  it("answers 400 invalid_json for a body that is not JSON", async () => {
    expect(await errorOf(await api(searchPath(), { token: alice, body: "{not json" }))).toMatchObject(anError(400, "invalid_json"));
  });

  it("answers 400 for an empty body and for JSON that is not an object", async () => {
    for (const body of [undefined, "[1,2]", "null", '"text"']) {
      const response = await api(searchPath(), { token: alice, method: "POST", body });
      expect(await errorOf(response)).toMatchObject(anError(400, "invalid_json"));
    }
  });

  it("answers 400 naming an unknown field", async () => {
    const response = await api(searchPath(), { token: alice, body: { query: "x", qurey: "y" } });
    const error = await errorOf(response);
    expect(error).toMatchObject(anError(400, "invalid_request"));
    expect(error.message).toMatch(/^qurey: unknown field/);
  });

  it.each([
    [{ query: 5 }, /^query: must be a string/],
    [{ query: "", limit: 1.5 }, /^limit: must be an integer/],
    [{ query: "", offset: -1 }, /^offset: must be from 0/],
    [{ query: "", enabledGroups: ["web", 3] }, /^enabledGroups\[1\]: must be a string/],
    [{ query: "", enabledGroups: "web" }, /^enabledGroups: must be an array/],
    [{ query: "", mode: "fuzzy" }, /^mode: must be one of substring, minisearch/],
  ])("answers 400 naming the field of %j", async (body, message) => {
    const error = await errorOf(await api(searchPath(), { token: alice, body }));
    expect(error).toMatchObject(anError(400, "invalid_request"));
    expect(error.message).toMatch(message);
  });

  it("answers 400 naming a missing required field", async () => {
    const search = await errorOf(await api(searchPath(), { token: alice, body: {} }));
    expect(search).toMatchObject({ ...anError(400, "invalid_request"), message: "query: is required" });
    const prepare = await errorOf(await api(`/v1/sessions/${sessionId()}/prepare`, { token: alice, body: { tools: [] } }));
    expect(prepare).toMatchObject({ ...anError(400, "invalid_request"), message: "messages: is required" });
  });

  it("answers 400 for a query longer than the limit", async () => {
    const query = "q".repeat(DEFAULT_LIMITS.maxQueryLength + 1);
    const error = await errorOf(await api(searchPath(), { token: alice, body: { query } }));
    expect(error).toMatchObject(anError(400, "invalid_request"));
    expect(error.message).toContain("query");
  });

  it("answers 413 for a body over the limit, by its Content-Length", async () => {
    const big = JSON.stringify({ query: "x".repeat(DEFAULT_LIMITS.maxBodyBytes) });
    expect(await errorOf(await api(searchPath(), { token: alice, body: big }))).toMatchObject(anError(413, "payload_too_large"));
  });

  it("answers 413 for a body over the limit sent without Content-Length, while reading it", async () => {
    const chunk = new TextEncoder().encode(" ".repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > DEFAULT_LIMITS.maxBodyBytes * 4) {
          controller.close();
          return;
        }
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const req = new Request<unknown, IncomingRequestCfProperties>(`http://toolgate.test${searchPath()}`, {
      method: "POST",
      headers: { authorization: `Bearer ${alice}`, "content-type": "application/json" },
      body: stream,
    });
    expect(req.headers.get("content-length")).toBeNull();
    expect(await errorOf(await fetchWithEnv({}, req))).toMatchObject(anError(413, "payload_too_large"));
    // Reading stopped at the limit: far less than the whole stream was pulled.
    expect(sent).toBeLessThan(DEFAULT_LIMITS.maxBodyBytes * 2);
  });
});

describe("session ids", () => {
  it.each([
    ["a space", "bad%20id"],
    ["a slash (encoded)", "a%2Fb"],
    ["129 characters", "x".repeat(129)],
    ["a non-ASCII letter", "s%C3%A9ance"],
  ])("answers 400 invalid_session_id for %s", async (_label, sid) => {
    const response = await api(`/v1/sessions/${sid}/search`, { token: alice, body: { query: "" } });
    expect(await errorOf(response)).toMatchObject(anError(400, "invalid_session_id"));
  });

  it("accepts the longest and the most varied valid id", async () => {
    for (const sid of ["x".repeat(128), "A-z_0.9:colon"]) {
      const response = await api(`/v1/sessions/${sid}/search`, { token: alice, body: { query: "" } });
      expect(response.status).toBe(200);
    }
  });

  it("answers 400 for a bad session id in memory/clear", async () => {
    const response = await api("/v1/memory/clear", { token: alice, body: { scope: "session", sessionId: "no spaces" } });
    expect(await errorOf(response)).toMatchObject(anError(400, "invalid_session_id"));
  });
});

describe("a bad configuration", () => {
  it.each([
    ["TOOL_SEARCH_CONFIG", { TOOL_SEARCH_CONFIG: "{not json" }],
    ["TOOL_SEARCH_CONFIG.maxDirectTools", { TOOL_SEARCH_CONFIG: '{"maxDirectTools":-1}' }],
    ["ALLOW_ANONYMOUS", { ALLOW_ANONYMOUS: "yes" }],
    ["AUTH_JWT_SECRET", { AUTH_JWT_SECRET: "short" }],
    ["AUTH_JWKS_URL", { AUTH_JWKS_URL: "ftp://keys.example/jwks.json" }],
  ])("names %s in health and answers 503 elsewhere", async (variable, overrides) => {
    const health = await fetchWithEnv(overrides, request("/v1/health"));
    expect(health.status).toBe(200);
    const status = await json<{ ok: boolean; configError: string }>(health);
    expect(status).toMatchObject({ ok: false, configError: expect.stringContaining(variable) });

    const search = await fetchWithEnv(overrides, request(searchPath(), { token: alice, body: { query: "" } }));
    const error = await errorOf(search);
    expect(error).toMatchObject(anError(503, "misconfigured"));
    expect(error.message).toContain(variable);
    expect(error.message).not.toMatch(/\n\s+at /);
    const tools = await fetchWithEnv(overrides, request("/v1/tools", { token: alice }));
    expect(tools.status).toBe(503);
  });

  it("answers 503 when no way to authenticate is configured", async () => {
    const error = await errorOf(await fetchWithEnv({ AUTH_JWT_SECRET: "" }, request("/v1/tools", { token: alice })));
    expect(error).toMatchObject(anError(503, "misconfigured"));
    expect(error.message).toContain("AUTH_JWT_SECRET");
  });
});

describe("internal errors", () => {
  it("become a bare 500 without a stack trace", async () => {
    const broken = {
      getByName(): never {
        throw new Error("secret detail at /work/main/src/somewhere.ts:1:1");
      },
    };
    const response = await fetchWithEnv(
      { SESSION: broken },
      request(`/v1/sessions/${sessionId()}/prepare`, { token: alice, body: { messages: [], tools: [] } }),
    );
    expect(response.status).toBe(500);
    expect(await response.text()).toBe('{"error":{"code":"internal","message":"internal error"}}');
  });

  it("keeps an HttpError's status, code and headers", async () => {
    const response = toErrorResponse(new HttpError(429, "rate_limited", "slow down", { "Retry-After": "7" }), request("/x"));
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("7");
    expect(await response.json()).toEqual({ error: { code: "rate_limited", message: "slow down" } });
  });
});
