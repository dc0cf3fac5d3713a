import { describe, expect, it } from "vitest";
import { afterFailure, afterSuccess, BASE_SKIP_MS, FAILURES_BEFORE_SKIP, HEALTHY, isSkipped, MAX_SKIP_MS, skipDuration } from "../../../src/core/upstream/backoff.ts";

describe("the upstream backoff", () => {
  it("skips only after FAILURES_BEFORE_SKIP failures in a row, doubling up to the cap", () => {
    expect(FAILURES_BEFORE_SKIP).toBe(3);
    expect([1, 2, 3, 4, 5].map(skipDuration)).toEqual([0, 0, BASE_SKIP_MS, 2 * BASE_SKIP_MS, 4 * BASE_SKIP_MS]);
    expect(skipDuration(50)).toBe(MAX_SKIP_MS);
    expect(skipDuration(10_000)).toBe(MAX_SKIP_MS);
  });

  it("records the failures and clears them on a success, keeping the last error", () => {
    let health = HEALTHY;
    for (let i = 0; i < 3; i++) health = afterFailure(health, `down ${i}`, 1_000);
    expect(health).toEqual({ failures: 3, skippedUntil: 1_000 + BASE_SKIP_MS, lastError: "down 2", lastErrorAt: 1_000 });
    expect(isSkipped(health, 1_000 + BASE_SKIP_MS - 1)).toBe(true);
    expect(isSkipped(health, 1_000 + BASE_SKIP_MS)).toBe(false);
    expect(afterSuccess(health)).toEqual({ failures: 0, skippedUntil: 0, lastError: "down 2", lastErrorAt: 1_000 });
    expect(afterFailure(HEALTHY, "e".repeat(2_000), 0).lastError).toHaveLength(500);
  });
});
