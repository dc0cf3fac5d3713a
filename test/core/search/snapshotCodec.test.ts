// The snapshot checksum changes with any changed, lost, added or moved word or byte (what a torn or damaged write does).
import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SnapshotError, SnapshotReader, SnapshotWriter, snapshotChecksum } from "../../../src/core/search/snapshotCodec.ts";

describe("snapshotChecksum", () => {
  it("is 16 hex digits, the same for the same bytes wherever they lie in a buffer", () => {
    const bytes = Uint8Array.from({ length: 1_001 }, (_, i) => (i * 31) % 256);
    expect(snapshotChecksum(bytes)).toMatch(/^[0-9a-f]{16}$/);
    const shifted = new Uint8Array(1_003);
    shifted.set(bytes, 2);
    expect(snapshotChecksum(shifted.subarray(2))).toBe(snapshotChecksum(bytes));
  });

  it("changes when a byte changes, bytes are cut off or added, or two words trade places", () => {
    fc.assert(fc.property(fc.uint8Array({ minLength: 8, maxLength: 300 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (bytes, pick, flip) => {
      const sum = snapshotChecksum(bytes);
      const at = pick % bytes.length;
      const changed = bytes.slice();
      changed[at] = (changed[at] ?? 0) ^ flip;
      expect(snapshotChecksum(changed)).not.toBe(sum);
      expect(snapshotChecksum(bytes.subarray(0, bytes.length - 1 - (pick % 4)))).not.toBe(sum);
      const longer = new Uint8Array(bytes.length + 4);
      longer.set(bytes);
      expect(snapshotChecksum(longer)).not.toBe(sum);
      const word = 4 * (pick % Math.floor(bytes.length / 4 - 1 || 1));
      const swapped = bytes.slice();
      swapped.set(bytes.subarray(word + 4, word + 8), word);
      swapped.set(bytes.subarray(word, word + 4), word + 4);
      const same = bytes.subarray(word, word + 4).every((byte, i) => byte === bytes[word + 4 + i]);
      // Two different words traded: another checksum (equal words, or too few bytes for two, trade nothing).
      expect(same || word + 8 > bytes.length || snapshotChecksum(swapped) !== sum).toBe(true);
    }), { numRuns: 500 });
  });
});

describe("deferred sections", () => {
  it("check each chunk when first read (at, verify): a changed byte fails the reads of its chunk only, every time", () => {
    fc.assert(fc.property(
      fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { minLength: 1, maxLength: 3_000 }),
      fc.constantFrom(256, 4_096, 65_536),
      fc.nat(),
      fc.integer({ min: 1, max: 255 }),
      (list, chunkBytes, pick, flip) => {
        const values = Int32Array.from(list);
        const out = new SnapshotWriter();
        out.deferredI32(values, chunkBytes);
        const bytes = out.finish();
        // Intact: every value read, anything out of range read as 0 (never another chunk's check).
        const intact = new SnapshotReader(bytes).deferredI32("values");
        values.forEach((value, i) => expect(intact.at(i)).toBe(value));
        expect([intact.at(-1), intact.at(values.length), intact.at(values.length + 10 ** 6)]).toEqual([0, 0, 0]);
        // One byte of the values changed (the deferred area follows its 8-byte section header).
        const element = pick % values.length;
        const spoiled = bytes.slice();
        const at = 8 + element * 4 + (pick % 4);
        spoiled[at] = (spoiled[at] ?? 0) ^ flip;
        const found: SnapshotError[] = [];
        const read = new SnapshotReader(spoiled, undefined, (error) => found.push(error)).deferredI32("values");
        const perChunk = chunkBytes / 4;
        const outcome = (i: number): number | string => {
          try {
            return read.at(i);
          } catch (error) {
            return error instanceof SnapshotError ? "corrupt" : "another error";
          }
        };
        const expected = Array.from(values, (value, i) => (Math.floor(i / perChunk) === Math.floor(element / perChunk) ? "corrupt" : value));
        expect(Array.from(values, (_, i) => outcome(i))).toEqual(expected);
        expect(() => read.verifyAll()).toThrow(/corrupt snapshot: chunk \d+ of its values/);
        expect(found.length).toBeGreaterThan(0);
      },
    ), { numRuns: 200 });
  });

  it("refuses chunks of a size no writer makes", () => {
    expect(() => new SnapshotWriter().deferredI32(new Int32Array(4), 1_000)).toThrow(RangeError);
    expect(() => new SnapshotWriter().deferredI32(new Int32Array(4), 128)).toThrow(RangeError);
  });
});
