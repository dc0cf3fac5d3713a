import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PairTable } from "../../../src/core/search/pairTable.ts";

describe("PairTable", () => {
  it("answers as a Map keyed by both integers, through growth, overwrites and colliding pairs", () => {
    const id = fc.integer({ min: 0, max: 2 ** 31 - 1 });
    const small = fc.integer({ min: 0, max: 40 });
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.oneof(small, id), fc.oneof(small, id), fc.nat()), { maxLength: 3_000 }), (entries) => {
        const table = new PairTable();
        const reference = new Map<string, number>();
        for (const [first, second, value] of entries) {
          table.set(first, second, value);
          reference.set(`${first},${second}`, value);
        }
        expect(table.size).toBe(reference.size);
        for (const [first, second] of entries) expect(table.get(first, second)).toBe(reference.get(`${first},${second}`));
        // (a, b) is not (b, a).
        for (const [first, second] of entries) expect(table.get(second, first)).toBe(reference.get(`${second},${first}`) ?? -1);
      }),
      { numRuns: 60 },
    );
  });

  it("gives -1 for a pair it does not hold, and refuses negative numbers", () => {
    const table = new PairTable();
    expect(table.get(1, 2)).toBe(-1);
    table.set(1, 2, 0);
    expect(table.get(1, 2)).toBe(0);
    expect(table.get(2, 1)).toBe(-1);
    expect(() => table.set(-1, 2, 3)).toThrow(RangeError);
    expect(() => table.set(1, 2, -3)).toThrow(RangeError);
  });
});
