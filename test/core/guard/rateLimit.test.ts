import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countCall, WINDOW_MS, type RateLimitOutcome, type WindowState } from "../../../src/core/guard/rateLimit.ts";

const MINUTE_START = 1_700_000_040_000; // a whole minute

/** Fails a fast-check property with a message (fast-check then shrinks and reports the counterexample). */
function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

function replay(limit: number, times: number[]): { outcomes: RateLimitOutcome[]; state: WindowState | undefined } {
  let state: WindowState | undefined;
  const outcomes = times.map((now) => {
    const next = countCall(state, limit, now);
    state = next.state;
    return next.outcome;
  });
  return { outcomes, state };
}

describe("countCall (sliding one-minute window)", () => {
  it("allows `limit` calls, then refuses with a wait until the window has room again", () => {
    const { outcomes } = replay(3, [0, 1_000, 2_000, 3_000].map((t) => MINUTE_START + t));
    expect(outcomes.slice(0, 3)).toEqual([{ allowed: true }, { allowed: true }, { allowed: true }]);
    // 3 calls in this minute: room again once the next minute's weight of them drops to 2, 20 s into it → 77 s.
    expect(outcomes[3]).toEqual({ allowed: false, retryAfterSeconds: 77 });
  });

  it("a refused call does not count", () => {
    const { state } = replay(1, [MINUTE_START, MINUTE_START + 1, MINUTE_START + 2]);
    expect(state?.current).toBe(1);
  });

  it("carries the previous minute's calls with a decaying weight", () => {
    const times = [...Array.from({ length: 10 }, (_, i) => MINUTE_START + 50_000 + i), MINUTE_START + WINDOW_MS + 6_000];
    const { outcomes } = replay(10, times);
    // 6 s into the next minute the last minute still weighs 9 calls: one more is allowed, not two.
    expect(outcomes.at(-1)).toEqual({ allowed: true });
    const again = replay(10, [...times, MINUTE_START + WINDOW_MS + 6_001]).outcomes.at(-1);
    expect(again).toMatchObject({ allowed: false });
    // After two quiet minutes everything is forgotten.
    const later = replay(1, [MINUTE_START, MINUTE_START + 2 * WINDOW_MS]).outcomes;
    expect(later).toEqual([{ allowed: true }, { allowed: true }]);
  });

  it("counts a call's cost; a cost above the limit takes the whole window", () => {
    let state: WindowState | undefined;
    const at = (t: number, cost: number) => {
      const next = countCall(state, 12, MINUTE_START + t, WINDOW_MS, cost);
      state = next.state;
      return next.outcome;
    };
    expect(at(0, 10)).toEqual({ allowed: true });
    expect(at(1, 2)).toEqual({ allowed: true });
    expect(at(2, 1)).toMatchObject({ allowed: false });
    expect(state?.current).toBe(12);
    const big = countCall(undefined, 4, MINUTE_START, WINDOW_MS, 10);
    expect(big).toEqual({ state: { start: MINUTE_START, current: 4, previous: 0 }, outcome: { allowed: true } });
  });

  it("property: with costs, never more than twice the limit in any 60 s, and waiting retryAfterSeconds is enough", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 1, max: 25 })), { minLength: 1, maxLength: 60 }),
        (limit, calls) => {
          let now = MINUTE_START;
          let state: WindowState | undefined;
          const allowed: [number, number][] = [];
          for (const [gap, cost] of calls) {
            now += gap;
            const { state: next, outcome } = countCall(state, limit, now, WINDOW_MS, cost);
            if (outcome.allowed) {
              allowed.push([now, Math.min(cost, limit)]);
              check(next.current <= limit, `window holds ${next.current} > ${limit}`);
              const lastMinute = allowed.filter(([t]) => t > now - WINDOW_MS).reduce((sum, [, c]) => sum + c, 0);
              check(lastMinute <= 2 * limit, `${lastMinute} units in 60 s with limit ${limit}`);
            } else {
              const wait = outcome.retryAfterSeconds;
              check(wait > 0 && wait <= 120, `retryAfterSeconds ${wait}`);
              check(countCall(next, limit, now + wait * 1000, WINDOW_MS, cost).outcome.allowed, `still refused after ${wait} s`);
            }
            state = next;
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("0 means unlimited", () => {
    const { outcomes } = replay(0, Array.from({ length: 100 }, () => MINUTE_START));
    expect(outcomes.every((o) => o.allowed)).toBe(true);
  });

  it("property: never more than `limit` allowed calls in any 60 s, and waiting retryAfterSeconds is enough", () => {
    let refused = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.integer({ min: 0, max: 20_000 }), { minLength: 1, maxLength: 80 }),
        (limit, gaps) => {
          let now = MINUTE_START;
          let state: WindowState | undefined;
          const allowedAt: number[] = [];
          for (const gap of gaps) {
            now += gap;
            const { state: next, outcome } = countCall(state, limit, now);
            if (outcome.allowed) {
              allowedAt.push(now);
              // The estimate counts at least the calls of the current fixed window, so a fixed window never holds
              // more than the limit, and any 60 s span never more than twice the limit.
              check(next.current <= limit, `window holds ${next.current} > ${limit}`);
              const lastMinute = allowedAt.filter((t) => t > now - WINDOW_MS).length;
              check(lastMinute <= 2 * limit, `${lastMinute} calls in 60 s with limit ${limit}`);
            } else {
              refused++;
              const wait = outcome.retryAfterSeconds;
              check(wait > 0 && wait <= 120, `retryAfterSeconds ${wait}`);
              check(countCall(next, limit, now + wait * 1000).outcome.allowed, `still refused after waiting ${wait} s`);
            }
            state = next;
          }
        },
      ),
      { numRuns: 300 },
    );
    expect(refused).toBeGreaterThan(100);
  });
});
