// Per-principal rate limit on the API's calls (a Durable Object counter per principal: RateLimiterObject, chosen
// over the Workers rate-limit binding because that binding only offers 10 s / 60 s periods per location and cannot
// answer how long to wait; the counter is exact across locations and gives Retry-After).
import type { RateLimiterObject } from "../durable/rateLimiterObject.ts";

export type RateLimitOutcome = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** Counts one call of `principalId` (weighing `cost` units); `limitPerMinute` 0 = unlimited (the object is not called). */
export async function checkRateLimit(
  namespace: DurableObjectNamespace<RateLimiterObject>,
  principalId: string,
  limitPerMinute: number,
  cost = 1,
): Promise<RateLimitOutcome> {
  if (limitPerMinute <= 0) return { allowed: true };
  return namespace.getByName(principalId).hit(limitPerMinute, cost);
}
