// One rate-limit counter per principal (issue 4): a SQLite-backed Durable Object named by the principal id, asked
// through RPC (`hit`) once per rate-limited call (src/http/limits.ts says which, and what each costs).
//
// Counting is a sliding one-minute window, estimated from two fixed windows (the current minute's count plus the
// previous minute's count weighted by how much of it still overlaps the last 60 s), the scheme Cloudflare's own rate
// limiting uses: O(1) storage per principal, no burst of twice the limit at a minute boundary. Refused calls do not
// count, so a client that keeps retrying is not locked out for longer. An idle counter deletes itself (alarm).
import { DurableObject } from "cloudflare:workers";
import type { RateLimitOutcome } from "../guard/rateLimit.ts";

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

export class RateLimiterObject extends DurableObject<Env> {
  #ready = false;

  #ensureTable(): void {
    if (this.#ready) return;
    this.ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS rate_window (id INTEGER PRIMARY KEY CHECK (id = 1), start INTEGER NOT NULL, current INTEGER NOT NULL, previous INTEGER NOT NULL)",
    );
    this.#ready = true;
  }

  #read(): WindowState | undefined {
    this.#ensureTable();
    const row = this.ctx.storage.sql.exec("SELECT start, current, previous FROM rate_window WHERE id = 1").toArray()[0];
    if (!row) return undefined;
    return { start: Number(row.start), current: Number(row.current), previous: Number(row.previous) };
  }

  /** Counts one call of weight `cost` against `limitPerMinute` (0 = unlimited: nothing is counted). */
  async hit(limitPerMinute: number, cost = 1): Promise<RateLimitOutcome> {
    if (!Number.isFinite(limitPerMinute) || limitPerMinute <= 0) return { allowed: true };
    const now = Date.now();
    const { state, outcome } = countCall(this.#read(), limitPerMinute, now, WINDOW_MS, Number.isFinite(cost) ? cost : 1);
    this.ctx.storage.sql.exec(
      "INSERT INTO rate_window (id, start, current, previous) VALUES (1, ?, ?, ?) " +
        "ON CONFLICT (id) DO UPDATE SET start = excluded.start, current = excluded.current, previous = excluded.previous",
      state.start,
      state.current,
      state.previous,
    );
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(state.start + 3 * WINDOW_MS);
    return outcome;
  }

  /** The counter as stored (for tests and diagnostics). */
  peek(): WindowState | undefined {
    return this.#read();
  }

  /** Once both windows are over, the counter holds nothing worth keeping: delete it, so idle principals cost nothing. */
  override async alarm(): Promise<void> {
    const state = this.#read();
    const now = Date.now();
    if (state && now < state.start + 2 * WINDOW_MS) {
      await this.ctx.storage.setAlarm(state.start + 3 * WINDOW_MS);
      return;
    }
    await this.ctx.storage.deleteAll();
    this.#ready = false;
  }
}
