// The snapshot checksum changes with any changed, lost, added or moved word or byte (what a torn or damaged write does).
import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { byteParts, collectBytes, SnapshotError, SnapshotReader, SnapshotWriter, snapshotChecksum, textsChecksum } from "../../../src/core/search/snapshotCodec.ts";

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

  it("of texts laid out directly (textsChecksum) is that of a writer's text sections, and differs where they do", () => {
    fc.assert(fc.property(fc.array(fc.string({ unit: "grapheme", maxLength: 40 }), { maxLength: 4 }), fc.string({ minLength: 1, maxLength: 5 }), (texts, extra) => {
      const writer = new SnapshotWriter();
      for (const text of texts) writer.text(text);
      expect(textsChecksum(texts)).toBe(snapshotChecksum(writer.finish()));
      expect(textsChecksum([...texts.slice(0, -1), `${texts.at(-1) ?? ""}${extra}`])).not.toBe(textsChecksum(texts));
    }), { numRuns: 200 });
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

/** A snapshot of a few sections around a deferred u8 section of `bytes` (in chunks of `chunkBytes`), given whole or in `pieces`. */
function written(bytes: Uint8Array, pieces?: readonly Uint8Array[], chunkBytes = 65_536): SnapshotWriter {
  const out = new SnapshotWriter();
  out.text("before");
  if (pieces === undefined) out.deferredU8(bytes, chunkBytes);
  else out.deferredU8Pieces(() => pieces, chunkBytes);
  out.i32(Int32Array.of(1, 2, 3));
  return out;
}

describe("sections made in pieces (deferredU8Pieces, stream, byteParts)", () => {
  it("lay out the same bytes as the section given whole, in chunks and parts of any size, each in a buffer of its own", () => {
    fc.assert(fc.property(
      fc.uint8Array({ maxLength: 200_000 }),
      fc.array(fc.nat(), { maxLength: 12 }),
      fc.integer({ min: 1, max: 300_000 }),
      fc.constantFrom(256, 4_096, 65_536),
      (bytes, cuts, partBytes, chunkBytes) => {
        const at = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].toSorted((a, b) => a - b);
        const pieces = [0, ...at].map((from, i) => bytes.subarray(from, [...at, bytes.length][i]));
        const whole = written(bytes, undefined, chunkBytes).finish();
        const streamed = written(bytes, pieces, chunkBytes);
        expect(streamed.finish()).toEqual(whole);
        expect(collectBytes(streamed.stream())).toEqual(whole);
        const parts = [...byteParts(streamed.stream(), partBytes)];
        expect(parts.every((part, i) => part.byteOffset === 0 && part.buffer.byteLength === part.byteLength && (i === parts.length - 1 || part.byteLength === partBytes))).toBe(true);
        expect(collectBytes({ byteLength: whole.length, pieces: () => parts })).toEqual(whole);
        expect(new SnapshotReader(collectBytes({ byteLength: whole.length, pieces: () => parts })).text()).toBe("before");
      },
    ), { numRuns: 60 });
  });

  it("are refused when read if their source gave other bytes the second time, and fail when it gave another length", () => {
    const bytes = Uint8Array.from({ length: 150_000 }, (_, i) => i % 251);
    let calls = 0;
    const out = new SnapshotWriter();
    out.deferredU8Pieces(() => {
      calls++;
      const copy = bytes.slice();
      if (calls > 1) copy[100_000] = 7;
      return [copy];
    });
    const read = new SnapshotReader(out.finish()).deferredU8("texts");
    expect(() => read.verifyAll()).toThrow(/corrupt snapshot: chunk 1 of its texts/);
    const shorter = new SnapshotWriter();
    let first = true;
    shorter.deferredU8Pieces(() => {
      const length = first ? bytes.length : bytes.length - 1;
      first = false;
      return [bytes.subarray(0, length)];
    });
    expect(() => shorter.finish()).toThrow(/fall short/);
    expect(() => [...byteParts(shorter.stream(), 1024)]).toThrow(/fall short/);
  });
});
