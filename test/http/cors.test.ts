// CORS: off by default; with CORS_ALLOW_ORIGINS, preflights from those origins are answered and every answer
// (errors included) carries the headers a browser needs to read it.
import { describe, expect, it } from "vitest";
import { fetchWithEnv, request, sessionId, token } from "./helpers.ts";

const APP = "https://app.example.com";
const EXTENSION = "chrome-extension://abcdefghijklmnopabcdefghijklmnop";

function preflightRequest(origin: string) {
  return request("/v1/sessions/cors/search", {
    method: "OPTIONS",
    headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" },
  });
}

describe("CORS", () => {
  it("sends no CORS headers and answers no preflight when CORS_ALLOW_ORIGINS is unset", async () => {
    const answer = await fetchWithEnv({}, preflightRequest(APP));
    expect(answer.status).toBe(405);
    expect(answer.headers.get("access-control-allow-origin")).toBeNull();
    const health = await fetchWithEnv({}, request("/v1/health", { headers: { origin: APP } }));
    expect(health.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("answers a preflight from a listed origin, and not from another", async () => {
    const vars = { CORS_ALLOW_ORIGINS: `${APP}, ${EXTENSION}` };
    for (const origin of [APP, EXTENSION]) {
      const answer = await fetchWithEnv(vars, preflightRequest(origin));
      expect(answer.status).toBe(204);
      expect(answer.headers.get("access-control-allow-origin")).toBe(origin);
      expect(answer.headers.get("access-control-allow-methods")).toContain("POST");
      expect(answer.headers.get("access-control-allow-headers")).toContain("authorization");
      expect(answer.headers.get("vary")).toContain("Origin");
    }
    const other = await fetchWithEnv(vars, preflightRequest("https://evil.example"));
    expect(other.status).toBe(405);
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("marks answers, errors included, for a listed origin only", async () => {
    const vars = { CORS_ALLOW_ORIGINS: APP };
    const alice = await token({ sub: "cors-alice" });
    const ok = await fetchWithEnv(
      vars,
      request(`/v1/sessions/${sessionId()}/search`, { token: alice, body: { query: "" }, headers: { origin: APP } }),
    );
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe(APP);
    expect(ok.headers.get("access-control-expose-headers")).toContain("retry-after");

    const unauthorized = await fetchWithEnv(vars, request("/v1/tools", { headers: { origin: APP } }));
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get("access-control-allow-origin")).toBe(APP);

    const other = await fetchWithEnv(vars, request("/v1/health", { headers: { origin: "https://evil.example" } }));
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    expect(other.headers.get("vary")).toContain("Origin");
  });

  it("echoes any origin with *", async () => {
    const answer = await fetchWithEnv({ CORS_ALLOW_ORIGINS: "*" }, preflightRequest("https://anywhere.example"));
    expect(answer.status).toBe(204);
    expect(answer.headers.get("access-control-allow-origin")).toBe("https://anywhere.example");
  });

  it.each(["https://app.example.com/", "https://*.example.com", "app.example.com", "https://a.example, *"])(
    "refuses CORS_ALLOW_ORIGINS=%s naming the variable",
    async (value) => {
      const health = await fetchWithEnv({ CORS_ALLOW_ORIGINS: value }, request("/v1/health"));
      const body: { ok: boolean; configError?: string } = await health.json();
      expect(body.ok).toBe(false);
      expect(body.configError).toContain("CORS_ALLOW_ORIGINS");
      const tools = await fetchWithEnv({ CORS_ALLOW_ORIGINS: value }, request("/v1/tools"));
      expect(tools.status).toBe(503);
    },
  );
});
