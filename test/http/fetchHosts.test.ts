// fetch_url's host checks through POST /v1/sessions/:sid/execute: names that only resolve locally are refused, and
// the owner's TOOL_SEARCH_CONFIG.fetchUrl lists apply (a bad list stops the gateway with a message naming it).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { anError, api, errorOf, fetchWithEnv, json, request, sessionId, token } from "./helpers.ts";

interface ExecuteBody {
  content: string;
  isError: boolean;
}

/** The suite's configuration with fetchUrl lists, for fetchWithEnv. */
function withFetchUrl(fetchUrl: unknown): Record<string, string> {
  const base: unknown = JSON.parse(env.TOOL_SEARCH_CONFIG);
  if (typeof base !== "object" || base === null) throw new Error("TOOL_SEARCH_CONFIG is not an object");
  return { TOOL_SEARCH_CONFIG: JSON.stringify({ ...base, fetchUrl }) };
}

async function fetcher(): Promise<string> {
  return token({ sub: `fetch-hosts-${crypto.randomUUID()}`, level: 1, groups: ["web"] });
}

async function fetchThrough(caller: string, url: string, vars: Record<string, string> = {}): Promise<ExecuteBody> {
  const req = request(`/v1/sessions/${sessionId("fh")}/execute`, { token: caller, body: { name: "fetch_url", arguments: { url } } });
  const response = await fetchWithEnv(vars, req);
  expect(response.status).toBe(200);
  return json<ExecuteBody>(response);
}

describe("fetch_url host checks over HTTP", () => {
  it("refuses single-label and special-use names, also behind a redirect", async () => {
    const caller = await fetcher();
    for (const url of ["http://intranet/", "http://grafana.internal/", "http://nas.home.arpa/", "http://wiki.corp/"]) {
      const body = await fetchThrough(caller, url);
      expect(body.isError).toBe(true);
      expect(body.content).toMatch(/refusing to fetch a local or private address/);
    }
    const redirected = await fetchThrough(caller, `https://remote.test/redirect?to=${encodeURIComponent("http://intranet/admin")}`);
    expect(redirected.content).toMatch(/refusing to fetch a local or private address \(intranet\)/);
  });

  it("applies the owner's allow and deny lists", async () => {
    const caller = await fetcher();
    const vars = withFetchUrl({ allowHosts: ["remote.test", "*.remote.test"], denyHosts: ["secret.remote.test"] });
    const ok = await fetchThrough(caller, "https://remote.test/text?b64=aGk", vars);
    expect(ok).toMatchObject({ isError: false });
    expect(ok.content.endsWith("hi")).toBe(true);
    expect((await fetchThrough(caller, "https://api.remote.test/text?b64=aGk", vars)).isError).toBe(false);
    const denied = await fetchThrough(caller, "https://secret.remote.test/text?b64=aGk", vars);
    expect(denied.content).toMatch(/secret\.remote\.test: the gateway's owner denies this host/);
    const outside = await fetchThrough(caller, "https://news.example/", vars);
    expect(outside.content).toMatch(/news\.example: it is not among the hosts the gateway's owner allows/);
    const hop = await fetchThrough(caller, `https://remote.test/redirect?to=${encodeURIComponent("https://news.example/")}`, vars);
    expect(hop.content).toMatch(/news\.example: it is not among the hosts/);
    // Without lists the same hosts pass.
    expect((await fetchThrough(caller, "https://secret.remote.test/text?b64=aGk")).isError).toBe(false);
  });

  it("a bad list answers 503 naming the field, and health says why", async () => {
    const caller = await fetcher();
    const vars = withFetchUrl({ allowHosts: ["wiki.corp"] });
    const req = request(`/v1/sessions/${sessionId("fh")}/execute`, { token: caller, body: { name: "echo", arguments: {} } });
    const refused = await errorOf(await fetchWithEnv(vars, req));
    expect(refused).toMatchObject(anError(503, "misconfigured"));
    expect(refused.message).toContain("TOOL_SEARCH_CONFIG.fetchUrl.allowHosts[0]");
    const health = await json(await fetchWithEnv(vars, request("/v1/health")));
    expect(health).toMatchObject({ ok: false });
    expect(String(health.configError)).toContain("TOOL_SEARCH_CONFIG.fetchUrl.allowHosts[0]");
    // The suite's own configuration is untouched.
    expect((await api("/v1/health")).status).toBe(200);
  });
});
