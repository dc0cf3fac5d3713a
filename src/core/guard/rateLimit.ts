// The per-principal rate limit's arithmetic: a sliding one-minute window, estimated from two fixed windows (the
// current minute's count plus the previous minute's count weighted by how much of it still overlaps the last 60 s),
// the scheme Cloudflare's own rate limiting uses: O(1) storage per principal, no burst of twice the limit at a minute
// boundary. Refused calls do not count, so a client that keeps retrying is not locked out for longer. The state is
// kept by durable/rateLimiterObject.ts.

export type RateLimitOutcome = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export const WINDOW_MS = 60_000;

/** The counter of one principal: the fixed window that started at `start` (epoch ms) and the one before it. */
export interface WindowState {
  start: number;
  current: number;
  previous: number;
}

/**
 * Counts one call of weight `cost` at `now` against `limit` units per sliding window. Returns the new state
 * (unchanged when refused) and the outcome; `retryAfterSeconds` is the (rounded up, at least 1) wait until the same
 * call would pass. A cost above the limit counts as the whole limit, so that such a call can still pass in an empty
 * window.
 */
export function countCall(
  state: WindowState | undefined,
  limit: number,
  now: number,
  windowMs = WINDOW_MS,
  cost = 1,
): { state: WindowState; outcome: RateLimitOutcome } {
  const aligned = Math.floor(now / windowMs) * windowMs;
  let next: WindowState = state ? { ...state } : { start: aligned, current: 0, previous: 0 };
  if (now < next.start) next = { start: aligned, current: 0, previous: 0 }; // the clock went back: start over
  const elapsedWindows = Math.floor((now - next.start) / windowMs);
  if (elapsedWindows >= 1) {
    next = { start: next.start + elapsedWindows * windowMs, current: 0, previous: elapsedWindows === 1 ? next.current : 0 };
  }
  if (limit <= 0) return { state: next, outcome: { allowed: true } };
  const weight = Math.min(Math.max(1, Math.ceil(cost)), limit);

  const elapsed = now - next.start;
  const estimate = next.previous * (1 - elapsed / windowMs) + next.current;
  if (estimate + weight <= limit) {
    return { state: { ...next, current: next.current + weight }, outcome: { allowed: true } };
  }
  let waitMs: number;
  if (next.current + weight <= limit) {
    // Only the previous window's weight is in the way: wait until it has decayed enough.
    const needed = windowMs * (1 - (limit - next.current - weight) / next.previous);
    waitMs = needed - elapsed;
  } else {
    // This window is full: wait for the next one, then until this window's count (now "previous") decays enough.
    const needed = windowMs * (1 - (limit - weight) / next.current);
    waitMs = windowMs - elapsed + needed;
  }
  return { state: next, outcome: { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) } };
}
