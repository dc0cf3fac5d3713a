// The per-principal rate limit (the window arithmetic is core/guard/rateLimit.ts, the counter durable/rateLimiterObject.ts). Every route a caller can repeat at
// will, owner routes aside, draws on ONE budget per principal, limits.rateLimitPerMinute: execute, search, prepare,
// confirmations, memory/clear, untrusted/wrap and GET /v1/tools. One budget, rather than one per route, because
// separate budgets would multiply what a client may do (seven routes, seven times the limit) and leave the owner seven
// numbers to tune; a normal turn (a prepare, a search or two, an execute) costs a handful of units either way. Each
// call costs 1, but memory/clear with scope "all" costs CLEAR_ALL_COST: it fans out to up to 500 session objects in
// the request (the rest by alarm), work that ten ordinary calls do not come near.
import { TOO_MANY_SESSIONS } from "../durable/sessionLimit.ts";
import type { SessionRefusal } from "../durable/sessionLimit.ts";
import type { RateLimitOutcome } from "../core/guard/rateLimit.ts";
import { rateLimiterStub } from "../durable/stubs.ts";
import type { Call } from "./stage.ts";
import { HttpError } from "./errors.ts";

/** What memory/clear with scope "all" costs from the budget. */
export const CLEAR_ALL_COST = 10;

/** Counts one call of `principalId` (weighing `cost` units); `limitPerMinute` 0 = unlimited (the object is not called). */
export async function checkRateLimit(env: Env, principalId: string, limitPerMinute: number, cost = 1): Promise<RateLimitOutcome> {
  if (limitPerMinute <= 0) return { allowed: true };
  return rateLimiterStub(env, principalId).hit(limitPerMinute, cost);
}

/**
 * 429 with Retry-After when the caller is over its limit; `cost` units are counted (1 for most calls). A failing
 * counter lets the call through (logged).
 */
export async function enforceRateLimit(call: Call, cost = 1): Promise<void> {
  const limit = call.settings.config.limits.rateLimitPerMinute;
  if (limit === 0) return;
  let outcome: RateLimitOutcome;
  try {
    outcome = await checkRateLimit(call.env, call.principal.id, limit, cost);
  } catch (error) {
    console.error(`rate limit unavailable: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  if (!outcome.allowed) {
    const seconds = Math.max(1, Math.ceil(outcome.retryAfterSeconds));
    throw new HttpError(429, "rate_limited", `too many requests; retry in ${seconds} s`, { "Retry-After": String(seconds) });
  }
}

/**
 * 429 for a new session past limits.maxSessionsPerPrincipal (the session object refused to store anything). No
 * Retry-After: a place frees when one of the principal's sessions expires or is cleared empty, which nobody here knows.
 */
export function tooManySessions(refusal: SessionRefusal): HttpError {
  return new HttpError(429, TOO_MANY_SESSIONS, refusal.refused);
}
