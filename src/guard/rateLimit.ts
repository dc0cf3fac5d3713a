// Per-principal rate limit on execute and search (a Durable Object counter per principal).

export type RateLimitOutcome = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** Counts one call of `principalId`; `limitPerMinute` 0 = unlimited. */
export async function checkRateLimit(
  _namespace: DurableObjectNamespace<import("../index.ts").RateLimiterObject>,
  _principalId: string,
  _limitPerMinute: number,
): Promise<RateLimitOutcome> {
  throw new Error("not implemented");
}
