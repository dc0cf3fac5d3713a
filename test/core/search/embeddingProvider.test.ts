import { describe, expect, it } from "vitest";
import { BREAKER_FAILURES, CircuitBreaker, QueryVectorCache } from "../../../src/core/search/embeddingProvider.ts";

function clocked(): { breaker: CircuitBreaker; advance: (ms: number) => void } {
  let now = 1_000;
  return { breaker: new CircuitBreaker({ failures: 3, openMs: 500, now: () => now }), advance: (ms) => { now += ms; } };
}

describe("CircuitBreaker", () => {
  it("lets calls through until failures in a row reach the threshold, then skips them while open", () => {
    const { breaker } = clocked();
    for (let i = 0; i < 2; i++) {
      expect(breaker.allow()).toBe(true);
      breaker.failed();
    }
    expect(breaker.state).toBe("closed");
    expect(breaker.allow()).toBe(true);
    breaker.failed();
    expect(breaker.state).toBe("open");
    expect(breaker.allow()).toBe(false);
  });

  it("a success resets the count of failures", () => {
    const { breaker } = clocked();
    breaker.failed();
    breaker.failed();
    breaker.succeeded();
    breaker.failed();
    breaker.failed();
    expect(breaker.allow()).toBe(true);
  });

  it("after the open period lets one trial call through: its success closes, its failure reopens", () => {
    const { breaker, advance } = clocked();
    for (let i = 0; i < 3; i++) breaker.failed();
    advance(500);
    expect(breaker.allow()).toBe(true);
    // Only one trial at a time.
    expect(breaker.allow()).toBe(false);
    breaker.failed();
    expect(breaker.allow()).toBe(false);
    advance(499);
    expect(breaker.allow()).toBe(false);
    advance(1);
    expect(breaker.allow()).toBe(true);
    breaker.succeeded();
    expect(breaker.state).toBe("closed");
    expect(breaker.allow()).toBe(true);
    expect(breaker.allow()).toBe(true);
  });

  it("defaults to the documented threshold", () => {
    const breaker = new CircuitBreaker();
    for (let i = 0; i < BREAKER_FAILURES; i++) breaker.failed();
    expect(breaker.allow()).toBe(false);
  });
});

describe("QueryVectorCache", () => {
  it("keeps the most recently used entries up to its capacity", () => {
    const cache = new QueryVectorCache(2);
    const a = Int8Array.of(1);
    const b = Int8Array.of(2);
    const c = Int8Array.of(3);
    cache.set("a", a);
    cache.set("b", b);
    expect(cache.get("a")).toBe(a);
    cache.set("c", c);
    expect(cache.size).toBe(2);
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toBe(a);
    expect(cache.get("c")).toBe(c);
  });

  it("refuses a capacity that is not a positive integer", () => {
    expect(() => new QueryVectorCache(0)).toThrow(RangeError);
  });
});
