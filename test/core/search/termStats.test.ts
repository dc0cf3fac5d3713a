import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SnapshotError, SnapshotReader, SnapshotWriter } from "../../../src/core/search/snapshotCodec.ts";
import { PackedTermStats, statWords, UNSEEN_LENGTH, writeTermStats } from "../../../src/core/search/termStats.ts";

const FIELDS = 5;
const WORDS = statWords(FIELDS);

/** `records` written and read back: every term's record, as read. */
function roundTrip(records: Int32Array, terms = records.length / WORDS): Int32Array[] {
  const out = new SnapshotWriter();
  writeTermStats(out, records, FIELDS);
  const input = new SnapshotReader(out.finish());
  const stats = new PackedTermStats(input.deferredI32("term statistic starts"), input.deferredU8("term statistics"), terms, FIELDS);
  input.end();
  return Array.from({ length: terms }, (_, term) => stats.record(term).slice());
}

/** A field as a build leaves it when no tool ever held the term there. */
const unseen = [0, 0, UNSEEN_LENGTH, 0];

function record(toolCount: number, fields: readonly (readonly number[])[]): number[] {
  const values = [toolCount];
  for (let part = 0; part < 4; part++) for (let field = 0; field < FIELDS; field++) values.push(fields[field]?.[part] ?? 0);
  return values;
}

describe("packed term statistics", () => {
  it("read back exactly what was written, any int32 in any place (fields left out or not)", () => {
    const value = fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), fc.constant(UNSEEN_LENGTH));
    const field = fc.oneof(fc.constant(unseen), fc.array(value, { minLength: 4, maxLength: 4 }));
    const term = fc.tuple(value, fc.array(field, { minLength: FIELDS, maxLength: FIELDS })).map(([toolCount, fields]) => record(toolCount, fields));
    fc.assert(
      fc.property(fc.array(term, { maxLength: 40 }), (terms) => {
        const records = Int32Array.from(terms.flat());
        expect(roundTrip(records).map((read) => Array.from(read))).toEqual(terms);
      }),
      { numRuns: 300 },
    );
  });

  it("reads a term out of range as zeros, and refuses records that do not match the terms", () => {
    const records = Int32Array.from(record(3, [[2, 4, 7, 9], unseen, [1, 1, 5, 5], unseen, unseen]));
    const out = new SnapshotWriter();
    writeTermStats(out, records, FIELDS);
    const bytes = out.finish();
    const read = (terms: number): PackedTermStats => {
      const input = new SnapshotReader(bytes);
      return new PackedTermStats(input.deferredI32("term statistic starts"), input.deferredU8("term statistics"), terms, FIELDS);
    };
    expect(Array.from(read(1).record(0))).toEqual(Array.from(records));
    expect(Array.from(read(1).record(1))).toEqual(Array.from({ length: WORDS }, () => 0));
    expect(Array.from(read(1).record(-1))).toEqual(Array.from({ length: WORDS }, () => 0));
    expect(() => read(2)).toThrow(SnapshotError);
    // Written for more fields than the reader's index has: a record naming a field past them is refused.
    const wide = new SnapshotWriter();
    writeTermStats(wide, Int32Array.from([1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), 6);
    const input = new SnapshotReader(wide.finish());
    const stats = new PackedTermStats(input.deferredI32("term statistic starts"), input.deferredU8("term statistics"), 1, FIELDS);
    expect(() => stats.record(0)).toThrow(/name a field/);
    expect(() => writeTermStats(new SnapshotWriter(), new Int32Array(WORDS + 1), FIELDS)).toThrow(RangeError);
  });
});
