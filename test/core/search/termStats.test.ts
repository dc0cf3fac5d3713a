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

  it("keeps each record read by kept, the same values as record's, past the bound of those kept; a corrupt one throws every time", () => {
    // More terms than are kept at once, each asked for twice out of order (and a term out of range).
    const terms = 1_500;
    const records = Int32Array.from(Array.from({ length: terms }, (_, term) => record(term * 7, [[term % 5, term % 3, term, term + 2], unseen, unseen, [1, 1, 1, 1], unseen])).flat());
    const out = new SnapshotWriter();
    writeTermStats(out, records, FIELDS);
    const bytes = out.finish();
    const read = (input: SnapshotReader): PackedTermStats => new PackedTermStats(input.deferredI32("term statistic starts"), input.deferredU8("term statistics"), terms, FIELDS);
    const stats = read(new SnapshotReader(bytes));
    const order = [...Array.from({ length: terms }, (_, term) => (term * 613) % terms), ...Array.from({ length: terms }, (_, term) => terms - 1 - term), terms, -1];
    // What kept handed out stays as it was while other records are read.
    const first = stats.kept(0);
    for (const term of order) {
      const expected = term >= 0 && term < terms ? Array.from(records.subarray(term * WORDS, (term + 1) * WORDS)) : Array.from({ length: WORDS }, () => 0);
      expect(Array.from(stats.kept(term))).toEqual(expected);
      expect(Array.from(stats.record(term))).toEqual(expected);
      expect(Array.from(stats.kept(term))).toEqual(expected);
    }
    expect(Array.from(first)).toEqual(Array.from(records.subarray(0, WORDS)));
    // A changed byte of the records (the deferred area comes first: its length after the section's kind): the terms
    // of its chunk throw from kept, the first time and the next.
    const area = new DataView(bytes.buffer, bytes.byteOffset).getUint32(4, true);
    const broken = bytes.slice();
    const at = 8 + area - 100;
    broken[at] = (broken[at] ?? 0) ^ 0x01;
    const spoiled = read(new SnapshotReader(broken));
    const errors: unknown[] = [];
    const failing = Array.from({ length: terms }, (_, term) => term).filter((term) => {
      try {
        spoiled.kept(term);
        return false;
      } catch (error) {
        errors.push(error);
        return true;
      }
    });
    expect(errors.every((error) => error instanceof SnapshotError)).toBe(true);
    expect(failing.length).toBeGreaterThan(0);
    expect(failing.length).toBeLessThan(terms / 2);
    for (const term of failing) expect(() => spoiled.kept(term)).toThrow(SnapshotError);
  });
});
