// The binary form of an index snapshot (indexes' toSnapshot / restore): a sequence of typed sections (integer and
// float arrays, bytes, texts), each 8-byte aligned, so that a reader hands out typed arrays as views of the bytes it
// was given, with no copy and no parsing. A reader checks each section's kind and bounds: a snapshot read in another
// order, or cut short, throws SnapshotError rather than giving an index that ranks differently. Integrity (a flipped
// byte) is the container's checksum (snapshotChecksum), checked before a snapshot is read at all.

export class SnapshotError extends Error {
  override readonly name = "SnapshotError";
}

const KIND = { i32: 1, u32: 2, f32: 3, f64: 4, u8: 5, text: 6 } as const;
type Kind = (typeof KIND)[keyof typeof KIND];
const HEADER_BYTES = 8;
const ALIGN = 8;

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

function padded(length: number): number {
  return Math.ceil(length / ALIGN) * ALIGN;
}

/** Collects sections; `finish` lays them out in one buffer. */
export class SnapshotWriter {
  readonly #parts: { kind: Kind; count: number; bytes: Uint8Array }[] = [];
  #length = 0;

  #push(kind: Kind, count: number, bytes: Uint8Array): void {
    this.#parts.push({ kind, count, bytes });
    this.#length += HEADER_BYTES + padded(bytes.byteLength);
  }

  i32(values: Int32Array): void {
    this.#push(KIND.i32, values.length, new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
  }

  u32(values: Uint32Array): void {
    this.#push(KIND.u32, values.length, new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
  }

  f32(values: Float32Array): void {
    this.#push(KIND.f32, values.length, new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
  }

  f64(values: Float64Array): void {
    this.#push(KIND.f64, values.length, new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
  }

  u8(values: Uint8Array): void {
    this.#push(KIND.u8, values.length, values);
  }

  text(value: string): void {
    const bytes = encoder.encode(value);
    this.#push(KIND.text, bytes.length, bytes);
  }

  /** A list of strings (one text: the strings' JSON array). */
  strings(values: readonly string[]): void {
    this.text(JSON.stringify(values));
  }

  /** One integer (an i32 section of one value). */
  int(value: number): void {
    this.i32(Int32Array.of(value));
  }

  get byteLength(): number {
    return this.#length;
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.#length);
    const view = new DataView(out.buffer);
    let at = 0;
    for (const { kind, count, bytes } of this.#parts) {
      view.setUint32(at, kind, true);
      view.setUint32(at + 4, count, true);
      out.set(bytes, at + HEADER_BYTES);
      at += HEADER_BYTES + padded(bytes.byteLength);
    }
    return out;
  }
}

const ELEMENT_BYTES: Readonly<Record<Kind, number>> = { 1: 4, 2: 4, 3: 4, 4: 8, 5: 1, 6: 1 };

/** Reads the sections a SnapshotWriter laid out, in the order written. */
export class SnapshotReader {
  readonly #bytes: Uint8Array;
  readonly #view: DataView;
  #at = 0;

  /** `bytes`: copied once if not 8-byte aligned in its buffer (typed views need their element alignment). */
  constructor(bytes: Uint8Array) {
    this.#bytes = bytes.byteOffset % ALIGN === 0 ? bytes : bytes.slice();
    this.#view = new DataView(this.#bytes.buffer, this.#bytes.byteOffset, this.#bytes.byteLength);
  }

  get done(): boolean {
    return this.#at === this.#bytes.byteLength;
  }

  #section(kind: Kind): { offset: number; count: number } {
    if (this.#at + HEADER_BYTES > this.#bytes.byteLength) throw new SnapshotError("the snapshot ends early");
    const found = this.#view.getUint32(this.#at, true);
    const count = this.#view.getUint32(this.#at + 4, true);
    if (found !== kind) throw new SnapshotError(`the snapshot holds a section of kind ${found} where ${kind} was expected`);
    const length = count * ELEMENT_BYTES[kind];
    const offset = this.#bytes.byteOffset + this.#at + HEADER_BYTES;
    if (this.#at + HEADER_BYTES + length > this.#bytes.byteLength) throw new SnapshotError("a section runs past the snapshot's end");
    this.#at += HEADER_BYTES + padded(length);
    return { offset, count };
  }

  i32(): Int32Array {
    const { offset, count } = this.#section(KIND.i32);
    return new Int32Array(this.#bytes.buffer, offset, count);
  }

  u32(): Uint32Array {
    const { offset, count } = this.#section(KIND.u32);
    return new Uint32Array(this.#bytes.buffer, offset, count);
  }

  f32(): Float32Array {
    const { offset, count } = this.#section(KIND.f32);
    return new Float32Array(this.#bytes.buffer, offset, count);
  }

  f64(): Float64Array {
    const { offset, count } = this.#section(KIND.f64);
    return new Float64Array(this.#bytes.buffer, offset, count);
  }

  u8(): Uint8Array {
    const { offset, count } = this.#section(KIND.u8);
    return new Uint8Array(this.#bytes.buffer, offset, count);
  }

  text(): string {
    const { offset, count } = this.#section(KIND.text);
    try {
      return decoder.decode(new Uint8Array(this.#bytes.buffer, offset, count));
    } catch {
      throw new SnapshotError("a text section is not UTF-8");
    }
  }

  strings(): string[] {
    let value: unknown;
    try {
      value = JSON.parse(this.text());
    } catch {
      throw new SnapshotError("a list of strings does not parse");
    }
    if (!Array.isArray(value)) throw new SnapshotError("a list of strings holds something else");
    const strings: string[] = [];
    for (const item of value as unknown[]) {
      if (typeof item !== "string") throw new SnapshotError("a list of strings holds something else");
      strings.push(item);
    }
    return strings;
  }

  int(): number {
    const values = this.i32();
    if (values.length !== 1) throw new SnapshotError("an integer section holds several values");
    return values[0] ?? 0;
  }

  /** Fails unless every section was read. */
  end(): void {
    if (!this.done) throw new SnapshotError("the snapshot holds more than was read");
  }
}

/**
 * A 64-bit Fletcher-style checksum of `bytes`, as 16 hex digits: four lanes of 32-bit words (word i in lane i % 4),
 * each with two running sums (the second the sum of the first), mixed together at the end; any changed, lost or
 * reordered word changes it. Not a defence against a forger (the storage is the gateway's own), a check against
 * torn or damaged writes: only additions per word, since a cold isolate checks its whole snapshot before it reads it
 * (about a millisecond per megabyte on a loaded machine).
 */
export function snapshotChecksum(bytes: Uint8Array): string {
  const words = Math.floor(bytes.byteLength / 4);
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  const view = new Int32Array(aligned.buffer, aligned.byteOffset, words);
  let a0 = 1;
  let a1 = 0;
  let a2 = 0;
  let a3 = 0;
  let b0 = 0;
  let b1 = 0;
  let b2 = 0;
  let b3 = 0;
  const whole = words - (words % 4);
  for (let i = 0; i < whole; i += 4) {
    a0 = (a0 + (view[i] ?? 0)) | 0;
    b0 = (b0 + a0) | 0;
    a1 = (a1 + (view[i + 1] ?? 0)) | 0;
    b1 = (b1 + a1) | 0;
    a2 = (a2 + (view[i + 2] ?? 0)) | 0;
    b2 = (b2 + a2) | 0;
    a3 = (a3 + (view[i + 3] ?? 0)) | 0;
    b3 = (b3 + a3) | 0;
  }
  // The last words and bytes go to the first lane.
  for (let i = whole; i < words; i++) {
    a0 = (a0 + (view[i] ?? 0)) | 0;
    b0 = (b0 + a0) | 0;
  }
  for (let i = words * 4; i < bytes.byteLength; i++) {
    a0 = (a0 + (bytes[i] ?? 0)) | 0;
    b0 = (b0 + a0) | 0;
  }
  // Lanes mixed in order (a word moved to another lane changes the result), the length last.
  let high = 0x9e3779b9;
  let low = bytes.byteLength;
  for (const lane of [a0, a1, a2, a3]) high = Math.imul(high ^ lane, 0x01000193);
  for (const lane of [b0, b1, b2, b3]) low = Math.imul(low ^ lane, 0x01000193) + lane;
  return (high >>> 0).toString(16).padStart(8, "0") + (low >>> 0).toString(16).padStart(8, "0");
}
