import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, TooDeep } from "../../../src/core/jsonSchema/canonical.ts";

/** The same value with every object's keys in reverse order. */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(Object.entries(value).toReversed().map(([key, item]) => [key, reordered(item)]));
}

/** The value with keys sorted (JSON.stringify of it compares JSON values, -0 as 0). */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(Object.entries(value).toSorted(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, item]) => [key, sortedKeys(item)]));
}

describe("canonicalJson", () => {
  it("writes sorted keys, so that key order does not matter and types stay apart", () => {
    expect(canonicalJson({ b: [1, { d: 1, c: 2 }], a: "x" }, 10)).toBe('{"":["a","x","b",[1,{"":["c",2,"d",1]}]]}');
    expect(canonicalJson({ "": ["a", 1] }, 10)).not.toBe(canonicalJson({ a: 1 }, 10));
    expect(canonicalJson([["a", 1]], 10)).not.toBe(canonicalJson({ a: 1 }, 10));
    expect(canonicalJson(1.0, 10)).toBe(canonicalJson(1, 10));
    expect(canonicalJson(-0, 10)).toBe("0");
    expect(new Set([1, "1", true, "true", null, "null", [1], ["1"]].map((v) => canonicalJson(v, 10))).size).toBe(8);
  });

  it("property: equal strings exactly for equal JSON values (key order aside)", () => {
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 4 }), fc.jsonValue({ maxDepth: 4 }), (a, b) => {
      expect(canonicalJson(reordered(a), 10)).toBe(canonicalJson(a, 10));
      const same = JSON.stringify(sortedKeys(a)) === JSON.stringify(sortedKeys(b));
      expect(canonicalJson(a, 10) === canonicalJson(b, 10)).toBe(same);
    }));
  });

  it("counts its work and stops past the depth it is given", () => {
    let values = 0;
    let characters = 0;
    canonicalJson({ a: [1, "xyz"], b: null }, 10, (v, c) => {
      values += v;
      characters += c;
    });
    // The object (1 + two keys and two values), the array (1 + two items); the characters of keys and strings.
    expect([values, characters]).toEqual([5 + 3, 2 + 3]);
    expect(() => canonicalJson([[[1]]], 2)).toThrow(TooDeep);
    expect(canonicalJson([[[1]]], 3)).toBe("[[[1]]]");
  });
});
