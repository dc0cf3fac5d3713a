import { describe, expect, it } from "vitest";
import { pathDeeperThan } from "../../../src/core/jsonSchema/depth.ts";

describe("pathDeeperThan", () => {
  it("counts objects and arrays as levels, the value itself first", () => {
    expect(pathDeeperThan("text", 0)).toBeUndefined();
    expect(pathDeeperThan({}, 1)).toBeUndefined();
    expect(pathDeeperThan({}, 0)).toEqual([]);
    expect(pathDeeperThan({ a: [1, { b: "x" }] }, 3)).toBeUndefined();
    expect(pathDeeperThan({ a: [1, { b: {} }] }, 3)).toEqual(["a", 1, "b"]);
  });

  it("finds the first place too deep in a value nested 100,000 levels, without recursion", () => {
    let deep: unknown = null;
    for (let i = 0; i < 100_000; i++) deep = { next: [deep] };
    const path = pathDeeperThan({ ok: [[1]], deep }, 128);
    expect(path?.slice(0, 4)).toEqual(["deep", "next", 0, "next"]);
    expect(path).toHaveLength(128);
  });
});
