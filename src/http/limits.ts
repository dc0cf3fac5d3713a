// The per-principal rate limit on execute and search (the counter itself is src/guard/rateLimit.ts).
import { checkRateLimit } from "../guard/rateLimit.ts";
import type { RateLimitOutcome } from "../guard/rateLimit.ts";
import type { Call } from "./context.ts";
import { HttpError } from "./errors.ts";

/** 429 with Retry-After when the caller is over its limit. A failing counter lets the call through (logged). */
export async function enforceRateLimit(call: Call): Promise<void> {
  const limit = call.settings.config.limits.rateLimitPerMinute;
  if (limit === 0) return;
  let outcome: RateLimitOutcome;
  try {
    outcome = await checkRateLimit(call.env.RATE_LIMITER, call.principal.id, limit);
  } catch (error) {
    console.error(`rate limit unavailable: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  if (!outcome.allowed) {
    const seconds = Math.max(1, Math.ceil(outcome.retryAfterSeconds));
    throw new HttpError(429, "rate_limited", `too many requests; retry in ${seconds} s`, { "Retry-After": String(seconds) });
  }
}
