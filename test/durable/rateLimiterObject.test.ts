// The rate limiter object through the http layer's call: N calls pass, then a wait; storage and the idle alarm.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { RateLimitOutcome } from "../../src/core/guard/rateLimit.ts";
import { rateLimiterStub } from "../../src/durable/stubs.ts";
import { checkRateLimit } from "../../src/http/limits.ts";

describe("RateLimiterObject and checkRateLimit", () => {
  it("allows N calls of a principal, then answers retryAfterSeconds > 0", async () => {
    const limit = 5;
    const outcomes: RateLimitOutcome[] = [];
    for (let i = 0; i < limit + 2; i++) outcomes.push(await checkRateLimit(env, "rl-alice", limit));
    expect(outcomes.slice(0, limit).every((o) => o.allowed)).toBe(true);
    const waits = outcomes.slice(limit).map((o) => (o.allowed ? 0 : o.retryAfterSeconds));
    expect(waits).toHaveLength(2);
    expect(Math.min(...waits)).toBeGreaterThan(0);
    // Another principal has its own counter.
    expect(await checkRateLimit(env, "rl-bob", limit)).toEqual({ allowed: true });
  });

  it("does not call the object at all when the limit is 0", async () => {
    const principal = "rl-unlimited";
    for (let i = 0; i < 20; i++) expect(await checkRateLimit(env, principal, 0)).toEqual({ allowed: true });
    const stored = await runInDurableObject(rateLimiterStub(env, principal), (instance) => instance.peek());
    expect(stored).toBeUndefined();
  });

  it("keeps its count in SQLite storage, and an idle counter deletes itself on its alarm", async () => {
    const stub = rateLimiterStub(env, "rl-carol");
    await checkRateLimit(env, "rl-carol", 10);
    await checkRateLimit(env, "rl-carol", 10);
    const stored = await runInDurableObject(stub, (instance, state) => {
      const rows = state.storage.sql.exec("SELECT current FROM rate_window").toArray();
      return { peek: instance.peek(), rows };
    });
    expect(stored.peek?.current).toBe(2);
    expect(stored.rows).toEqual([{ current: 2 }]);
    // The alarm while the window is live keeps the counter.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await runInDurableObject(stub, (instance) => instance.peek()))?.current).toBe(2);
    // Once both windows are over it deletes everything.
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec("UPDATE rate_window SET start = start - ?", 3 * 60_000);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await runInDurableObject(stub, (instance) => instance.peek())).toBeUndefined();
    // And counts again from scratch.
    expect(await checkRateLimit(env, "rl-carol", 1)).toEqual({ allowed: true });
    expect((await checkRateLimit(env, "rl-carol", 1)).allowed).toBe(false);
  });
});
