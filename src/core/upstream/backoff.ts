// A server that keeps failing is skipped for a while: after FAILURES_BEFORE_SKIP failures in a row (a list or a call
// that could not reach it, timed out, or broke the protocol; a tool's own isError is the server working), each further
// failure skips it for twice as long as the one before, from BASE_SKIP_MS up to MAX_SKIP_MS. One success resets it.

export const FAILURES_BEFORE_SKIP = 3;
export const BASE_SKIP_MS = 30_000;
export const MAX_SKIP_MS = 15 * 60_000;
const MAX_ERROR_CHARS = 500;

export interface UpstreamHealth {
  /** Failures in a row. */
  failures: number;
  /** Epoch milliseconds; 0 when not skipped. */
  skippedUntil: number;
  lastError: string | null;
  /** Epoch milliseconds; 0 when there never was one. */
  lastErrorAt: number;
}

export const HEALTHY: UpstreamHealth = Object.freeze({ failures: 0, skippedUntil: 0, lastError: null, lastErrorAt: 0 });

/** How long the `failures`-th failure in a row skips the server (0 below the threshold). */
export function skipDuration(failures: number): number {
  if (failures < FAILURES_BEFORE_SKIP) return 0;
  return Math.min(MAX_SKIP_MS, BASE_SKIP_MS * 2 ** Math.min(failures - FAILURES_BEFORE_SKIP, 20));
}

export function afterFailure(health: UpstreamHealth, error: string, now: number): UpstreamHealth {
  const failures = health.failures + 1;
  const skip = skipDuration(failures);
  return { failures, skippedUntil: skip > 0 ? now + skip : 0, lastError: error.slice(0, MAX_ERROR_CHARS), lastErrorAt: now };
}

/** A success clears the run of failures; the last error stays for GET /v1/upstreams to show. */
export function afterSuccess(health: UpstreamHealth): UpstreamHealth {
  return { ...health, failures: 0, skippedUntil: 0 };
}

export function isSkipped(health: UpstreamHealth, now: number): boolean {
  return health.skippedUntil > now;
}
