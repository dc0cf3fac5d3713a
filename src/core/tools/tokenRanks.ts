// The o200k_base byte-pair ranks as bytes (o200kRanks.bin, written by scripts/tokenRanks.ts from gpt-tokenizer's
// table). gpt-tokenizer ships the table as a JavaScript array literal of 200,000 strings: every isolate parsed and
// evaluated that source when the Worker's module loaded (about 80 ms of CPU, 140 ms wall, in a fresh Node process
// here), whether or not it ever counted a token, and it was a third of the bundle. As a Data module the table is bytes
// in memory from the isolate's start, decoded only when the encoding is first built (src/core/tools/tokens.ts).
//
// Format (little-endian):
//   "TGR1"                    magic and format version
//   u32 entries               one per rank, in rank order (no holes: a table with holes is refused when written)
//   u32 textBytes             length of the UTF-8 block below
//   entries × varint          (length << 1) | isBytes: a text's length in UTF-16 code units, or a byte sequence's
//                             length (ranks whose bytes are not valid UTF-8 on their own)
//   textBytes × u8            every text rank's UTF-8, concatenated in rank order
//   the rest                  every byte rank's bytes, concatenated in rank order
// The texts are decoded with one TextDecoder call and cut by their lengths: 198,000 short strings cost little.

/** A rank's value as gpt-tokenizer's `GptEncoding` takes it: the text it stands for, or its bytes. */
export type TokenRank = string | number[];

const MAGIC = "TGR1";
const HEADER_BYTES = 12;

function fail(message: string): never {
  throw new Error(`token ranks: ${message}`);
}

/** The table's bytes: refuses holes and text ranks that do not round-trip through UTF-8 (they would decode otherwise). */
export function encodeTokenRanks(ranks: readonly (string | readonly number[])[]): Uint8Array {
  const encoder = new TextEncoder();
  const lengths: number[] = [];
  const texts: Uint8Array[] = [];
  const bytes: number[] = [];
  let textBytes = 0;
  for (let rank = 0; rank < ranks.length; rank++) {
    if (!(rank in ranks)) fail(`rank ${String(rank)} is a hole`);
    const value = ranks[rank];
    if (typeof value === "string") {
      const encoded = encoder.encode(value);
      if (new TextDecoder("utf-8", { fatal: false, ignoreBOM: true }).decode(encoded) !== value) fail(`rank ${String(rank)}'s text is not valid UTF-16`);
      texts.push(encoded);
      textBytes += encoded.length;
      lengths.push(value.length * 2);
    } else if (value !== undefined) {
      for (const byte of value) {
        if (!Number.isInteger(byte) || byte < 0 || byte > 255) fail(`rank ${String(rank)} holds ${String(byte)}, not a byte`);
        bytes.push(byte);
      }
      lengths.push(value.length * 2 + 1);
    }
  }
  const varints: number[] = [];
  for (let length of lengths) {
    while (length >= 0x80) {
      varints.push((length & 0x7f) | 0x80);
      length >>>= 7;
    }
    varints.push(length);
  }
  const out = new Uint8Array(HEADER_BYTES + varints.length + textBytes + bytes.length);
  const view = new DataView(out.buffer);
  for (let i = 0; i < MAGIC.length; i++) out[i] = MAGIC.charCodeAt(i);
  view.setUint32(4, ranks.length, true);
  view.setUint32(8, textBytes, true);
  out.set(varints, HEADER_BYTES);
  let at = HEADER_BYTES + varints.length;
  for (const text of texts) {
    out.set(text, at);
    at += text.length;
  }
  out.set(bytes, at);
  return out;
}

/** The ranks, in rank order; refuses a table that is not this format or whose parts do not add up. */
export function decodeTokenRanks(file: ArrayBuffer | Uint8Array): TokenRank[] {
  const data = file instanceof Uint8Array ? file : new Uint8Array(file);
  if (data.length < HEADER_BYTES) fail("the table is truncated");
  for (let i = 0; i < MAGIC.length; i++) if (data[i] !== MAGIC.charCodeAt(i)) fail(`not a ${MAGIC} table`);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const entries = view.getUint32(4, true);
  const textBytes = view.getUint32(8, true);
  // Each entry takes at least one varint byte: a count past the file's size is refused before anything is allocated.
  if (entries > data.length - HEADER_BYTES) fail("the entry count is past the table's size");
  const lengths = new Uint32Array(entries);
  let at = HEADER_BYTES;
  let textUnits = 0;
  let byteTotal = 0;
  for (let entry = 0; entry < entries; entry++) {
    let value = 0;
    let shift = 0;
    for (;;) {
      if (at >= data.length || shift > 28) fail("a length is truncated");
      const byte = data[at++] ?? 0;
      value |= (byte & 0x7f) << shift;
      if (byte < 0x80) break;
      shift += 7;
    }
    lengths[entry] = value >>> 0;
    if ((value & 1) === 0) textUnits += value >>> 1;
    else byteTotal += value >>> 1;
  }
  if (at + textBytes + byteTotal !== data.length) fail("the texts and bytes do not fill the table");
  const texts = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(data.subarray(at, at + textBytes));
  if (texts.length !== textUnits) fail("the texts' lengths do not add up");
  const ranks: TokenRank[] = Array.from({ length: entries });
  let textAt = 0;
  let byteAt = at + textBytes;
  for (let entry = 0; entry < entries; entry++) {
    const value = lengths[entry] ?? 0;
    const length = value >>> 1;
    if ((value & 1) === 0) {
      ranks[entry] = texts.slice(textAt, textAt + length);
      textAt += length;
    } else {
      ranks[entry] = Array.from(data.subarray(byteAt, byteAt + length));
      byteAt += length;
    }
  }
  return ranks;
}
