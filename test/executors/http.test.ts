import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { texts } from "../../src/core/locale.ts";
import type { ExecutorSpec } from "../../src/core/types.ts";
import { countBannerMarkers, sanitizeSource } from "../../src/core/boundary/untrusted.ts";
import { asObject, configWith, jsonObject, run } from "./helpers.ts";

const ECHO = "https://api.remote.test/echo";
const TOKEN = "remote-token-for-vitest-only";

function http(spec: Partial<Extract<ExecutorSpec, { type: "http" }>> = {}): ExecutorSpec {
  return { type: "http", url: ECHO, untrusted: false, ...spec };
}

describe("http executor: success", () => {
  it("POSTs the JSON arguments with headers whose values come from tool secrets", async () => {
    expect(env.TOOL_SECRET_REMOTE_TOKEN).toBe(TOKEN);
    const args = { city: "上海", days: 3, flags: ["a"] };
    const echoed = jsonObject(
      await run(http({ headers: { Authorization: "TOOL_SECRET_REMOTE_TOKEN", "X-Api-Key": "TOOL_SECRET_REMOTE_TOKEN" } }), args),
    );
    expect(echoed).toMatchObject({ method: "POST", path: "/echo", body: args });
    expect(asObject(echoed.headers)).toMatchObject({ authorization: TOKEN, "x-api-key": TOKEN, "content-type": "application/json" });
  });

  it("uses the method of the definition; GET sends the arguments as query parameters", async () => {
    expect(jsonObject(await run(http({ method: "PUT" }), { a: 1 }))).toMatchObject({ method: "PUT", body: { a: 1 } });
    const get = jsonObject(await run(http({ method: "GET", url: `${ECHO}?fixed=1` }), { q: "tea & cake", n: 2, o: { x: true } }));
    expect(get).toMatchObject({ method: "GET", body: null, query: { fixed: "1", q: "tea & cake", n: "2", o: '{"x":true}' } });
  });

  it("wraps the answer as untrusted content by default, naming method and URL", async () => {
    const result = await run({ type: "http", url: ECHO }, { a: 1 });
    const banner = texts("en").untrustedBanner(sanitizeSource(`http POST ${ECHO}`));
    expect(result.startsWith(banner)).toBe(true);
    expect(countBannerMarkers(result)).toBe(1);
    expect(jsonObject(result.slice(banner.length)).body).toEqual({ a: 1 });
  });
});

describe("http executor: failures", () => {
  it("refuses a secret that is not a tool secret, without revealing it", async () => {
    const message = await run(http({ headers: { Authorization: "AUTH_JWT_SECRET" } }), {}).then(
      () => "resolved",
      (error: unknown) => (error instanceof Error ? error.message : "not an Error"),
    );
    expect(message).toMatch(/secret "AUTH_JWT_SECRET" is not a tool secret/);
    expect(message).not.toContain(env.AUTH_JWT_SECRET);
  });

  it("names a missing secret", async () => {
    await expect(run(http({ headers: { Authorization: "TOOL_SECRET_MISSING" } }), {})).rejects.toThrow(
      'secret "TOOL_SECRET_MISSING" is not set on the gateway',
    );
  });

  it("reports a non-2xx answer with its status and host, without its body", async () => {
    // The exact message: the answer's body ("status 502") stays out of it.
    await expect(run(http({ url: "https://api.remote.test/status/502" }), {})).rejects.toThrow(/^HTTP 502 from api\.remote\.test$/);
  });

  it("does not follow redirects (they would carry the secret headers along)", async () => {
    const url = `https://api.remote.test/redirect?to=${encodeURIComponent("https://elsewhere.test/echo")}`;
    await expect(run(http({ url, headers: { Authorization: "TOOL_SECRET_REMOTE_TOKEN" } }), {})).rejects.toThrow(
      "HTTP 302 from api.remote.test (redirects are not followed)",
    );
  });

  it("times out after the definition's timeoutMs, or the configured default", async () => {
    await expect(run(http({ url: "https://api.remote.test/slow?ms=5000", timeoutMs: 100 }), {})).rejects.toThrow(
      "timed out after 100 ms waiting for api.remote.test",
    );
    await expect(run(http({ url: "https://api.remote.test/slow?ms=5000" }), {}, configWith({ executorTimeoutMs: 120 }))).rejects.toThrow(
      "timed out after 120 ms",
    );
  });

  it("caps the answer's size and refuses binary answers", async () => {
    await expect(run(http({ url: "https://api.remote.test/big?bytes=50000" }), {}, configWith({ maxResponseBytes: 2048 }))).rejects.toThrow(
      "larger than 2048 bytes",
    );
    await expect(run(http({ url: "https://api.remote.test/binary" }), {})).rejects.toThrow(/not text/);
  });

  it("refuses a bad URL in the definition", async () => {
    await expect(run(http({ url: "not a url" }), {})).rejects.toThrow(/not a valid absolute URL/);
    await expect(run(http({ url: "ftp://remote.test/" }), {})).rejects.toThrow(/must be http or https/);
    await expect(run(http({ url: "https://a:b@remote.test/" }), {})).rejects.toThrow(/credentials/);
  });
});
