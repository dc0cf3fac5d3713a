// One rate-limit counter per principal: a SQLite-backed Durable Object named by the principal id, asked through RPC
// (`hit`) once per rate-limited call (src/http/limits.ts says which, and what each costs). It stores the window state;
// the counting is core's (core/guard/rateLimit.ts). An idle counter deletes itself (alarm).
//
// A Durable Object rather than the Workers rate-limit binding: that binding only offers 10 s / 60 s periods per
// location and cannot answer how long to wait; the counter is exact across locations and gives Retry-After.
import { DurableObject } from "cloudflare:workers";
import { countCall, WINDOW_MS } from "../core/guard/rateLimit.ts";
import type { RateLimitOutcome, WindowState } from "../core/guard/rateLimit.ts";

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
