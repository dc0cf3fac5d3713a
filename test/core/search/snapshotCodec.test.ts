// The snapshot checksum changes with any changed, lost, added or moved word or byte (what a torn or damaged write does).
import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { snapshotChecksum } from "../../../src/core/search/snapshotCodec.ts";

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
