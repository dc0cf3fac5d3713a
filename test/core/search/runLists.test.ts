import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RunLists } from "../../../src/core/search/runLists.ts";

type Step = { kind: "append"; list: number; values: number[] } | { kind: "remove"; list: number; at: number } | { kind: "drop"; list: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("append" as const), list: fc.nat(5), values: fc.array(fc.integer(), { maxLength: 4 }) }),
  fc.record({ kind: fc.constant("remove" as const), list: fc.nat(5), at: fc.nat() }),
  fc.record({ kind: fc.constant("drop" as const), list: fc.nat(5) }),
);

describe("RunLists", () => {
  it("holds lists laid in one shared buffer as plain arrays would, through appends, removals and drops", () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.integer(), { maxLength: 5 }), { minLength: 6, maxLength: 6 }), fc.array(step, { maxLength: 30 }), (initial, steps) => {
        // Laid out as a build lays them: one buffer, each list a run of it.
        const buffer = Int32Array.from(initial.flat());
        const lists = new RunLists();
        let start = 0;
        for (const values of initial) {
          lists.push(buffer, start, start + values.length);
          start += values.length;
        }
        const expected: (number[] | undefined)[] = initial.map((values) => [...values]);
        for (const change of steps) {
          const held = expected[change.list];
          if (change.kind === "drop") {
            lists.set(change.list, undefined, 0, 0);
            expected[change.list] = undefined;
          } else if (change.kind === "append" && held !== undefined) {
            lists.append(change.list, Int32Array.from(change.values));
            held.push(...change.values);
          } else if (change.kind === "remove" && held !== undefined && held.length > 0) {
            const at = change.at % held.length;
            lists.remove(change.list, lists.start(change.list) + at, 1);
            held.splice(at, 1);
          }
        }
        expected.forEach((values, i) => {
          expect(lists.has(i)).toBe(values !== undefined);
          expect([...lists.view(i)]).toEqual(values ?? []);
          expect([...lists.buffer(i).subarray(lists.start(i), lists.end(i))]).toEqual(values ?? []);
        });
      }),
      { numRuns: 500 },
    );
  });
});
