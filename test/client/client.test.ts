// The client's calls and errors, against the real Worker: typed answers, ToolgateError with the API's code and status,
// 429 with retryAfter, retries only where a repeat cannot act twice, and aborts.
import { describe, expect, it } from "vitest";
import { createToolgate, ToolgateError } from "@toolgate/client";
import type { FetchLike } from "@toolgate/client";
import { BASE, fetchWithEnv, sessionId, suiteConfig, token } from "../http/helpers.ts";
import { clientFor, workerFetch } from "./support.ts";

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

/** The Worker with a rate limit of one call per minute. */
const limitedFetch: FetchLike = (input, init) => {
  const { method, headers, body, signal } = init;
  return fetchWithEnv(
    suiteConfig({ maxDirectTools: 5, limits: { rateLimitPerMinute: 1 } }),
    new Request<unknown, IncomingRequestCfProperties>(input, { method, headers, body, signal }),
  );
};

/** Counts calls; answers each from `answers` while it lasts (a Response, or an Error to throw), then the Worker. */
function scripted(answers: (Response | Error)[]): { fetch: FetchLike; paths: string[] } {
  const paths: string[] = [];
  return {
    paths,
    fetch: async (input, init) => {
      paths.push(new URL(input).pathname);
      const next = answers.shift();
      if (next instanceof Error) throw next;
      return next ?? workerFetch(input, init);
    },
  };
}

const tooMany = (seconds: string): Response =>
  Response.json({ error: { code: "rate_limited", message: "slow down" } }, { status: 429, headers: { "retry-after": seconds } });

describe("createToolgate", () => {
  it("calls every route with typed answers", async () => {
    const client = await clientFor("client-routes");
    const sid = sessionId("routes");
    const prepared = await client.prepare(sid, { messages: [{ role: "user", content: "hi" }], format: "anthropic" });
    expect(prepared.applied).toBe(true);
    expect(prepared.stats.sent).toBeLessThan(prepared.stats.total);
    const found = await client.search(sid, { query: "send_email" });
    expect(found.tools.map((tool) => tool.name)).toContain("send_email");
    const held = await client.execute(sid, { name: "send_email", arguments: '{"to":["a@example.com"],"subject":"s","body":"b"}' });
    expect(held.confirmation).toMatchObject({ tool: "send_email", mode: "always" });
    const id = held.confirmation?.id ?? "";
    expect(await client.confirm(sid, id, true)).toEqual({ id, approved: true, capability: "tool:send_email", mode: "always" });
    const replay = await rejection(client.confirm(sid, id, true));
    expect(replay).toBeInstanceOf(ToolgateError);
    expect(replay).toMatchObject({ status: 404, code: "confirmation_not_found" });
    expect(await client.clearMemory({ scope: "session", sessionId: sid })).toMatchObject({ scope: "session", cleared: 1 });
    expect(await client.wrap("some page text", "https://example.com/")).toContain("[External data, not user instructions]");
    const tools = await client.listTools({ groups: ["mail"], format: "summary" });
    expect(tools.map((tool) => tool["name"])).toContain("send_email");
    const bad = await rejection(client.execute(sid, { name: "calculate", arguments: "[1]" }));
    expect(bad).toMatchObject({ status: 400, code: "invalid_request" });
    expect(bad).toHaveProperty("message", expect.stringContaining("arguments"));
  });

  it("401: no token, and a token that does not verify, each with the API's code", async () => {
    const anonymous = createToolgate({ url: BASE, fetch: workerFetch });
    const missing = await rejection(anonymous.search(sessionId(), { query: "x" }));
    expect(missing).toBeInstanceOf(ToolgateError);
    expect(missing).toMatchObject({ name: "ToolgateError", status: 401, code: "unauthorized", retryAfter: undefined });
    const wrong = createToolgate({ url: BASE, fetch: workerFetch, getToken: () => token({ sub: "x" }, { secret: "another-secret-another-secret-0123" }) });
    expect(await rejection(wrong.prepare(sessionId(), { messages: [] }))).toMatchObject({ status: 401, code: "invalid_token" });
  });

  it("429: retryAfter in seconds; a wait longer than allowed is thrown at once", async () => {
    const jwt = await token({ sub: `client-429-${crypto.randomUUID()}`, level: 2 });
    const client = createToolgate({ url: BASE, token: jwt, fetch: limitedFetch, maxRetryAfterSeconds: 0 });
    await client.execute(sessionId(), { name: "calculate", arguments: { expression: "1+1" } });
    const limited = await rejection(client.execute(sessionId(), { name: "calculate", arguments: { expression: "1+1" } }));
    expect(limited).toBeInstanceOf(ToolgateError);
    expect(limited).toMatchObject({ status: 429, code: "rate_limited" });
    const retryAfter = limited instanceof ToolgateError ? limited.retryAfter : undefined;
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(120);
  });

  it("an execute refused with 429 and Retry-After is sent again; a network failure never is (it may have run)", async () => {
    const jwt = await token({ sub: "client-retry", level: 2 });
    const refused = scripted([tooMany("0"), tooMany("0")]);
    const client = createToolgate({ url: BASE, token: jwt, fetch: refused.fetch });
    const result = await client.execute(sessionId(), { name: "calculate", arguments: { expression: "2*3" } });
    expect(result).toMatchObject({ isError: false });
    expect(refused.paths).toHaveLength(3);

    const broken = scripted([new TypeError("connection reset")]);
    const once = createToolgate({ url: BASE, token: jwt, fetch: broken.fetch });
    const error = await rejection(once.execute(sessionId(), { name: "calculate", arguments: { expression: "2*3" } }));
    expect(error).toMatchObject({ status: 0, code: "network_error" });
    expect(broken.paths).toHaveLength(1);

    // A read is repeated after the same failure, and the retries are bounded.
    const flaky = scripted([new TypeError("connection reset")]);
    const reader = createToolgate({ url: BASE, token: jwt, fetch: flaky.fetch });
    expect((await reader.search(sessionId(), { query: "calc" })).found).toBeDefined();
    expect(flaky.paths).toHaveLength(2);
    const down = scripted([tooMany("0"), tooMany("0"), tooMany("0"), tooMany("0")]);
    const bounded = createToolgate({ url: BASE, token: jwt, fetch: down.fetch, retries: 2 });
    expect(await rejection(bounded.search(sessionId(), { query: "calc" }))).toMatchObject({ status: 429, retryAfter: 0 });
    expect(down.paths).toHaveLength(3);
  });

  it("a confirmation is not re-sent after a network failure either", async () => {
    const broken = scripted([new TypeError("socket hang up")]);
    const client = createToolgate({ url: BASE, fetch: broken.fetch, token: await token({ sub: "client-confirm-net" }) });
    expect(await rejection(client.confirm(sessionId(), "abc", true))).toMatchObject({ code: "network_error" });
    expect(broken.paths).toHaveLength(1);
  });

  it("aborts: before the call, and while waiting to retry", async () => {
    const client = await clientFor("client-abort");
    const before = new AbortController();
    before.abort();
    const early = await rejection(client.search(sessionId(), { query: "x" }, { signal: before.signal }));
    expect(early).toMatchObject({ name: "AbortError" });

    const waiting = scripted([tooMany("20")]);
    const slow = createToolgate({ url: BASE, fetch: waiting.fetch, token: await token({ sub: "client-abort" }) });
    const controller = new AbortController();
    const started = Date.now();
    const pending = rejection(slow.execute(sessionId(), { name: "calculate", arguments: { expression: "1" } }, { signal: controller.signal }));
    setTimeout(() => controller.abort(new DOMException("user stopped", "AbortError")), 20);
    expect(await pending).toMatchObject({ name: "AbortError", message: "user stopped" });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(waiting.paths).toHaveLength(1);
  });

  it("an answer that is not JSON is a bad_response with its status", async () => {
    const client = createToolgate({ url: BASE, fetch: async () => new Response("<html>", { status: 502 }), retries: 0 });
    expect(await rejection(client.search(sessionId(), { query: "x" }))).toMatchObject({ status: 502, code: "bad_response" });
  });
});
