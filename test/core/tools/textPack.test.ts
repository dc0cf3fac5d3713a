// The definition texts' codec: any text packed against any dictionary unpacks to itself, the real catalog's texts
// shrink, and malformed input (cut short, out of bounds, overlong, left over) is refused with SnapshotError, never
// read or written out of bounds.
import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SnapshotError } from "../../../src/core/search/snapshotCodec.ts";
import { buildDictionary, MAX_DICTIONARY_BYTES, MAX_TEXT_BYTES, TextPacker, unpackText } from "../../../src/core/tools/textPack.ts";
import { evalMcpTools, needsEvalData } from "../../evalData.ts";

const encoder = new TextEncoder();

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && a.every((byte, i) => byte === b[i]);
}

/** LEB128, as the packer writes numbers. */
function leb(value: number): number[] {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest & 0x7f) | 0x80);
    rest >>>= 7;
  }
  bytes.push(rest);
  return bytes;
}

describe("text packing", () => {
  it("unpacks the 527 real tools' texts as they were, in under 60% of their bytes with the dictionary counted", (context) => {
    needsEvalData(context);
    const texts = evalMcpTools.map((tool) => encoder.encode(JSON.stringify({ description: tool.description, parameters: tool.inputSchema })));
    const dictionary = buildDictionary(texts);
    expect(dictionary.byteLength).toBeLessThanOrEqual(MAX_DICTIONARY_BYTES);
    const packer = new TextPacker(dictionary);
    let raw = 0;
    let packed = 0;
    for (const text of texts) {
      const bytes = packer.pack(text);
      expect(sameBytes(unpackText(bytes, dictionary), text)).toBe(true);
      raw += text.byteLength;
      packed += bytes.byteLength;
    }
    expect(packed + dictionary.byteLength).toBeLessThan(raw * 0.6);
  });

  it("unpacks any text packed against any dictionary, repeats and matches across the dictionary's end included (property)", () => {
    const alphabet = fc.constantFrom(...encoder.encode('ab{}":,xé'));
    const bytes = fc.array(alphabet, { maxLength: 400 }).map((list) => Uint8Array.from(list));
    const repeated = fc.tuple(bytes, fc.integer({ min: 1, max: 30 })).map(([unit, times]) => {
      const out = new Uint8Array(unit.byteLength * times);
      for (let i = 0; i < times; i++) out.set(unit, i * unit.byteLength);
      return out;
    });
    fc.assert(
      fc.property(fc.array(fc.oneof(bytes, repeated), { maxLength: 6 }), fc.oneof(bytes, repeated), (samples, text) => {
        const dictionary = buildDictionary(samples, 256);
        expect(dictionary.byteLength).toBeLessThanOrEqual(256);
        const packer = new TextPacker(dictionary);
        // The same packer twice (its chains reset per text), and against no dictionary.
        expect(sameBytes(unpackText(packer.pack(text), dictionary), text)).toBe(true);
        expect(sameBytes(unpackText(packer.pack(text), dictionary), text)).toBe(true);
        expect(sameBytes(unpackText(new TextPacker(new Uint8Array(0)).pack(text), new Uint8Array(0)), text)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("builds a dictionary of the samples' shared stretches within its bound, from a bounded prefix of them", () => {
    const shared = encoder.encode('"type":"string","description":"The ');
    const samples = Array.from({ length: 400 }, (_, i) => encoder.encode(`{"n${i * 7919}":{${new TextDecoder().decode(shared)}${i}th thing"}}`));
    const dictionary = buildDictionary(samples, 1024);
    expect(dictionary.byteLength).toBeLessThanOrEqual(1024);
    // What every sample shares is in it; a text made of it packs to a few bytes.
    expect(new TextDecoder().decode(dictionary)).toContain('"type":"string","description":"The ');
    expect(new TextPacker(dictionary).pack(shared).byteLength).toBeLessThan(8);
    // Samples that fit are the dictionary as they are; none, an empty one.
    expect(sameBytes(buildDictionary([encoder.encode("ab"), encoder.encode("cd")]), encoder.encode("abcd"))).toBe(true);
    expect(buildDictionary([]).byteLength).toBe(0);
    expect(() => new TextPacker(new Uint8Array(MAX_DICTIONARY_BYTES + 1))).toThrow(RangeError);
  });

  it("refuses malformed packed texts with SnapshotError: cut short, out of bounds, overlong, too long, bytes left over", () => {
    const dictionary = encoder.encode("abcdefgh");
    const packed = new TextPacker(dictionary).pack(encoder.encode("xxabcdefgh-abcdefgh"));
    expect(new TextDecoder().decode(unpackText(packed, dictionary))).toBe("xxabcdefgh-abcdefgh");
    for (let cut = 0; cut < packed.byteLength; cut++) expect(() => unpackText(packed.subarray(0, cut), dictionary)).toThrow(SnapshotError);
    const malformed: [number[], RegExp][] = [
      // Declares 4 bytes, then 5 literals.
      [[4, 5, 1, 2, 3, 4, 5], /literals run past/],
      // Declares 4 bytes, 2 literals, then a match of 4 (more than is left).
      [[4, 2, 1, 2, 0, 1], /match runs out of bounds/],
      // A match reaching before the dictionary (distance 11 at position 2, the dictionary being 8 bytes).
      [[6, 2, 1, 2, 0, 11], /match runs out of bounds/],
      // A distance of 0.
      [[6, 2, 1, 2, 0, 0], /match runs out of bounds/],
      // A number of five bytes, and a length past the limit.
      [[0x80, 0x80, 0x80, 0x80, 0x01], /overlong/],
      [leb(MAX_TEXT_BYTES + 1), /declares/],
      // A complete text followed by a byte.
      [[1, 1, 65, 0], /past its end/],
    ];
    for (const [bytes, message] of malformed) expect(() => unpackText(Uint8Array.from(bytes), dictionary)).toThrow(message);
    // A match from the dictionary's end into the text (distance 4 at position 2: "gh", then the text's own bytes).
    expect(new TextDecoder().decode(unpackText(Uint8Array.from([7, 2, 49, 50, 1, 4, 0]), dictionary))).toBe("12gh12g");
  });
});
