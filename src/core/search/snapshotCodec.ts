// The binary form of an index snapshot (indexes' toSnapshot / restore): a sequence of typed sections (integer and
// float arrays, bytes, texts), each 8-byte aligned, so that a reader hands out typed arrays as views of the bytes it
// was given, with no copy and no parsing. A reader checks each section's kind and bounds: a snapshot read in another
// order, or cut short, throws SnapshotError rather than giving an index that ranks differently. Integrity (a flipped
// byte) is the container's check over the sections read up front (a registry snapshot's SHA-256 digest:
// registrySnapshot.ts; snapshotChecksum for the smaller ones), checked before a snapshot is read at all. Large
// sections a first request reads only a little of (definition texts, postings, forward lists, the terms' statistics)
// may be deferred: kept apart, in a deferred area, each with a checksum per chunk (64 KiB, or less
// for a table read a few records at a time) that is checked when a range of it is first read (DeferredSection.verify,
// .at) or all at once before it is copied; a flipped byte there throws SnapshotError from that read, before anything
// read from the chunk is used.

export class SnapshotError extends Error {
  override readonly name = "SnapshotError";
}

const KIND = { i32: 1, u32: 2, f32: 3, f64: 4, u8: 5, text: 6, deferred: 7, area: 8 } as const;
type Kind = (typeof KIND)[keyof typeof KIND];
/** A section's head: its kind and count. */
export const HEADER_BYTES = 8;
const ALIGN = 8;

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

function padded(length: number): number {
  return Math.ceil(length / ALIGN) * ALIGN;
}

/** Bytes per deferred chunk (each with its own checksum), unless the writer asks for smaller ones. */
const CHUNK_BYTES = 64 * 1024;
/** The smallest and largest chunks a deferred section may have (powers of two). */
const MIN_CHUNK_SHIFT = 8;
const MAX_CHUNK_SHIFT = 16;
/**
 * A deferred section's descriptor: element kind, element count, byte offset in the deferred area, log2 of its chunks'
 * size, then its chunks' sums.
 */
const DESCRIPTOR_WORDS = 4;

/**
 * Bytes made on demand, the same each time they are asked for: a large section written without being held whole
 * (SnapshotWriter.deferredU8Pieces), and a snapshot handed out in parts (SnapshotWriter.stream, byteParts).
 */
export interface ByteStream {
  readonly byteLength: number;
  /** The bytes from the start, in pieces (made again on each call). */
  pieces(): Iterable<Uint8Array>;
}

function sectionHead(kind: Kind, count: number): Uint8Array {
  const head = new Uint8Array(HEADER_BYTES);
  const view = new DataView(head.buffer);
  view.setUint32(0, kind, true);
  view.setUint32(4, count, true);
  return head;
}

function piecesOf(bytes: Uint8Array | ByteStream): Iterable<Uint8Array> {
  return bytes instanceof Uint8Array ? [bytes] : bytes.pieces();
}

/** `stream`'s bytes in one buffer; throws when its pieces do not add up to its length (a source that changed). */
export function collectBytes(stream: ByteStream): Uint8Array {
  const out = new Uint8Array(stream.byteLength);
  let at = 0;
  for (const piece of stream.pieces()) {
    if (at + piece.byteLength > out.byteLength) throw new Error("a snapshot's pieces run past its length");
    out.set(piece, at);
    at += piece.byteLength;
  }
  if (at !== out.byteLength) throw new Error("a snapshot's pieces fall short of its length");
  return out;
}

/**
 * `stream`'s bytes in parts of `partBytes` (the last one shorter), each in a buffer of its own, made as they are
 * asked for: one part held at a time, not the whole. Throws as collectBytes does.
 */
export function* byteParts(stream: ByteStream, partBytes: number): Generator<Uint8Array<ArrayBuffer>, void, undefined> {
  let part = new Uint8Array(Math.min(partBytes, stream.byteLength));
  let filled = 0;
  let total = 0;
  for (const piece of stream.pieces()) {
    total += piece.byteLength;
    if (total > stream.byteLength) throw new Error("a snapshot's pieces run past its length");
    for (let from = 0; from < piece.byteLength;) {
      const taken = Math.min(part.byteLength - filled, piece.byteLength - from);
      part.set(piece.subarray(from, from + taken), filled);
      filled += taken;
      from += taken;
      if (filled === part.byteLength) {
        yield part;
        part = new Uint8Array(Math.min(partBytes, stream.byteLength - total + piece.byteLength - from));
        filled = 0;
      }
    }
  }
  if (total !== stream.byteLength) throw new Error("a snapshot's pieces fall short of its length");
}

/** Collects sections; `finish` lays them out in one buffer (`finishParts`: the deferred area apart; `stream`: in pieces). */
export class SnapshotWriter {
  readonly #parts: { kind: Kind; count: number; bytes: Uint8Array | ByteStream }[] = [];
  #length = 0;
  readonly #deferred: (Uint8Array | ByteStream)[] = [];
  #deferredLength = 0;

  /** A section kept in the deferred area, checked per chunk of `chunkBytes` (a power of two) when read (see the file's head). */
  #defer(kind: Kind, count: number, values: Uint8Array, chunkBytes = CHUNK_BYTES): void {
    const chunkShift = chunkShiftOf(chunkBytes);
    // Padded here, so that its checksums cover every byte of the area (a changed byte anywhere is found).
    let bytes = values;
    if (values.byteLength % ALIGN !== 0) {
      bytes = new Uint8Array(padded(values.byteLength));
      bytes.set(values);
    }
    const chunks = Math.ceil(bytes.byteLength / chunkBytes);
    const sums: number[] = [];
    for (let chunk = 0; chunk < chunks; chunk++) sums.push(chunkChecksum(bytes.subarray(chunk * chunkBytes, (chunk + 1) * chunkBytes)));
    this.#pushDeferred(kind, count, chunkShift, sums, bytes);
  }

  #pushDeferred(kind: Kind, count: number, chunkShift: number, sums: readonly number[], bytes: Uint8Array | ByteStream): void {
    const descriptor = new Uint32Array(DESCRIPTOR_WORDS + sums.length);
    descriptor[0] = kind;
    descriptor[1] = count;
    descriptor[2] = this.#deferredLength;
    descriptor[3] = chunkShift;
    descriptor.set(sums, DESCRIPTOR_WORDS);
    this.#push(KIND.deferred, descriptor.length, new Uint8Array(descriptor.buffer));
    this.#deferred.push(bytes);
    this.#deferredLength += bytes.byteLength;
  }

  /** An i32 section read as a DeferredSection; `chunkBytes`: smaller chunks for a table read a record at a time. */
  deferredI32(values: Int32Array, chunkBytes = CHUNK_BYTES): void {
    this.#defer(KIND.i32, values.length, new Uint8Array(values.buffer, values.byteOffset, values.byteLength), chunkBytes);
  }

  /** A u32 section read as a DeferredSection (`chunkBytes` as deferredI32's). */
  deferredU32(values: Uint32Array, chunkBytes = CHUNK_BYTES): void {
    this.#defer(KIND.u32, values.length, new Uint8Array(values.buffer, values.byteOffset, values.byteLength), chunkBytes);
  }

  /** A u8 section read as a DeferredSection (`chunkBytes` as deferredI32's). */
  deferredU8(values: Uint8Array, chunkBytes = CHUNK_BYTES): void {
    this.#defer(KIND.u8, values.length, values, chunkBytes);
  }

  /**
   * A u8 section read as a DeferredSection (as deferredU8 writes it, byte for byte), of bytes `pieces` makes, the same
   * on every call: gone over once now for its length and chunks' checksums, and again when the snapshot is laid out,
   * so that it is never held whole (a registry's definition texts: 65 MiB at 100,000 tools). `chunkBytes` as
   * deferredI32's.
   */
  deferredU8Pieces(pieces: () => Iterable<Uint8Array>, chunkBytes = CHUNK_BYTES): void {
    const chunkShift = chunkShiftOf(chunkBytes);
    const chunk = new Uint8Array(chunkBytes);
    const sums: number[] = [];
    let filled = 0;
    let length = 0;
    for (const piece of pieces()) {
      length += piece.byteLength;
      for (let from = 0; from < piece.byteLength;) {
        const taken = Math.min(chunkBytes - filled, piece.byteLength - from);
        chunk.set(piece.subarray(from, from + taken), filled);
        filled += taken;
        from += taken;
        if (filled === chunkBytes) {
          sums.push(chunkChecksum(chunk));
          filled = 0;
        }
      }
    }
    // The padding, as #defer's: zeros up to the next multiple of ALIGN, in the last chunk.
    const padding = padded(length) - length;
    if (filled + padding > 0) {
      chunk.fill(0, filled, filled + padding);
      sums.push(chunkChecksum(chunk.subarray(0, filled + padding)));
    }
    const byteLength = length + padding;
    this.#pushDeferred(KIND.u8, length, chunkShift, sums, {
      byteLength,
      *pieces() {
        yield* pieces();
        if (padding > 0) yield new Uint8Array(padding);
      },
    });
  }

  #push(kind: Kind, count: number, bytes: Uint8Array | ByteStream): void {
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

  /** A u8 section (as u8 writes it) of bytes made when the snapshot is laid out (ByteStream). */
  u8Stream(values: ByteStream): void {
    this.#push(KIND.u8, values.byteLength, values);
  }

  text(value: string): void {
    const bytes = encoder.encode(value);
    this.#push(KIND.text, bytes.length, bytes);
  }

  /**
   * A list of strings, as one text: a line feed, then the strings joined by line feeds (split apart again natively,
   * three times faster than JSON on a cold isolate's tens of thousands of terms); their JSON array when one holds a
   * line feed, or when there are none.
   */
  strings(values: readonly string[]): void {
    const lines = values.length > 0 && values.every((value) => !value.includes("\n"));
    this.text(lines ? `\n${values.join("\n")}` : JSON.stringify(values));
  }

  /** One integer (an i32 section of one value). */
  int(value: number): void {
    this.i32(Int32Array.of(value));
  }

  get byteLength(): number {
    return this.#length;
  }

  /** The sections read up front, in pieces (what finishParts' `sections` holds). */
  #sectionsStream(): ByteStream {
    const parts = this.#parts;
    return {
      byteLength: this.#length,
      *pieces() {
        for (const { kind, count, bytes } of parts) {
          yield sectionHead(kind, count);
          yield* piecesOf(bytes);
          const padding = padded(bytes.byteLength) - bytes.byteLength;
          if (padding > 0) yield new Uint8Array(padding);
        }
      },
    };
  }

  /** The deferred area, in pieces (what finishParts' `deferred` holds). */
  #deferredStream(): ByteStream {
    const deferred = this.#deferred;
    return {
      byteLength: this.#deferredLength,
      *pieces() {
        for (const bytes of deferred) yield* piecesOf(bytes);
      },
    };
  }

  /** The sections read up front, and the deferred area (empty when nothing was deferred): a reader takes both. */
  finishParts(): { sections: Uint8Array; deferred: Uint8Array } {
    return { sections: collectBytes(this.#sectionsStream()), deferred: collectBytes(this.#deferredStream()) };
  }

  /** finishParts with the deferred area left in pieces (laid out when streamed: u8Stream). */
  finishSections(): { sections: Uint8Array; deferred: ByteStream } {
    return { sections: collectBytes(this.#sectionsStream()), deferred: this.#deferredStream() };
  }

  /** What finish writes, in pieces: a snapshot handed on in parts (byteParts) without being held whole. */
  stream(): ByteStream {
    const deferred = this.#deferredStream();
    const sections = this.#sectionsStream();
    const area = deferred.byteLength === 0 ? 0 : HEADER_BYTES + deferred.byteLength;
    return {
      byteLength: area + sections.byteLength,
      *pieces() {
        if (area > 0) {
          yield sectionHead(KIND.area, deferred.byteLength);
          yield* deferred.pieces();
        }
        yield* sections.pieces();
      },
    };
  }

  /** Everything in one buffer (the deferred area, if any, first, as a section of its own). */
  finish(): Uint8Array {
    return collectBytes(this.stream());
  }
}

/**
 * snapshotChecksum of what a SnapshotWriter given only `texts` (text sections, in order) finishes with, laid out
 * directly: a cold isolate's fingerprint (registrySnapshot.ts) without the writer's pieces and streams.
 */
export function textsChecksum(texts: readonly string[]): string {
  const encoded = texts.map((text) => encoder.encode(text));
  const out = new Uint8Array(encoded.reduce((sum, bytes) => sum + HEADER_BYTES + padded(bytes.byteLength), 0));
  const view = new DataView(out.buffer);
  let at = 0;
  for (const bytes of encoded) {
    view.setUint32(at, KIND.text, true);
    view.setUint32(at + 4, bytes.byteLength, true);
    out.set(bytes, at + HEADER_BYTES);
    at += HEADER_BYTES + padded(bytes.byteLength);
  }
  return snapshotChecksum(out);
}

/** log2 of a deferred section's chunk size, which must be a power of two within the bounds. */
function chunkShiftOf(chunkBytes: number): number {
  const chunkShift = Math.log2(chunkBytes);
  if (!Number.isInteger(chunkShift) || chunkShift < MIN_CHUNK_SHIFT || chunkShift > MAX_CHUNK_SHIFT) throw new RangeError(`a deferred chunk of ${chunkBytes} bytes`);
  return chunkShift;
}

/**
 * A deferred section: its values as a view of the snapshot's bytes, trusted only over ranges `verify` has checked
 * (each 64 KiB chunk once: a corrupt one throws SnapshotError, every time it is asked for).
 */
export class DeferredSection<T extends Int32Array | Uint32Array | Uint8Array> {
  readonly values: T;
  readonly #bytes: Uint8Array;
  readonly #sums: Uint32Array;
  readonly #checked: Uint8Array;
  readonly #elementBytes: number;
  /** log2 of the chunks' size in bytes, and of the elements per chunk. */
  readonly #chunkShift: number;
  readonly #elementShift: number;
  readonly #what: string;
  readonly #onCorrupt: ((error: SnapshotError) => void) | undefined;

  /** `bytes`: the section's bytes with their padding (what `sums` are over, per chunk of 2 ** `chunkShift` bytes). */
  constructor(values: T, bytes: Uint8Array, sums: Uint32Array, what: string, onCorrupt?: (error: SnapshotError) => void, chunkShift = MAX_CHUNK_SHIFT) {
    this.#onCorrupt = onCorrupt;
    this.values = values;
    this.#bytes = bytes;
    this.#sums = sums;
    this.#checked = new Uint8Array(sums.length);
    this.#elementBytes = values.BYTES_PER_ELEMENT;
    this.#chunkShift = chunkShift;
    this.#elementShift = chunkShift - Math.log2(values.BYTES_PER_ELEMENT);
    this.#what = what;
  }

  /** Element `index`, its chunk checked first if not yet (0 past the end, as a typed array's `?? 0`). */
  at(index: number): number {
    if (this.#checked[index >>> this.#elementShift] !== 1) this.verify(index, index + 1);
    return this.values[index] ?? 0;
  }

  /** Checks the chunks holding elements `from` to `to` (exclusive), those not checked yet. */
  verify(start: number, to: number): void {
    const from = Math.max(0, start);
    if (to <= from) return;
    const chunkBytes = 2 ** this.#chunkShift;
    const last = Math.min(this.#sums.length - 1, Math.floor((to * this.#elementBytes - 1) / chunkBytes));
    for (let chunk = Math.floor((from * this.#elementBytes) / chunkBytes); chunk <= last; chunk++) {
      if (this.#checked[chunk] === 1) continue;
      const bytes = this.#bytes.subarray(chunk * chunkBytes, (chunk + 1) * chunkBytes);
      if (chunkChecksum(bytes) !== this.#sums[chunk]) {
        const error = new SnapshotError(`corrupt snapshot: chunk ${chunk} of its ${this.#what} does not match its checksum`);
        this.#onCorrupt?.(error);
        throw error;
      }
      this.#checked[chunk] = 1;
    }
  }

  /** Checks the chunks holding `view`, a view of some of `values` (a list handed out as a subarray). */
  verifyView(view: T): void {
    const from = (view.byteOffset - this.values.byteOffset) / this.#elementBytes;
    if (view.buffer !== this.values.buffer || !Number.isInteger(from) || from < 0 || from + view.length > this.values.length) {
      throw new RangeError(`a view outside the snapshot's ${this.#what}`);
    }
    this.verify(from, from + view.length);
  }

  /** Checks every chunk (before the values are copied or read as a whole). */
  verifyAll(): T {
    this.verify(0, this.values.length);
    return this.values;
  }
}

const ELEMENT_BYTES: Readonly<Record<Kind, number>> = { 1: 4, 2: 4, 3: 4, 4: 8, 5: 1, 6: 1, 7: 4, 8: 1 };

/** Reads the sections a SnapshotWriter laid out, in the order written. */
export class SnapshotReader {
  readonly #bytes: Uint8Array;
  readonly #view: DataView;
  #at = 0;

  readonly #deferred: Uint8Array;
  readonly #onCorrupt: ((error: SnapshotError) => void) | undefined;

  /**
   * `bytes`: what finish wrote, or (with `deferred`) the sections finishParts wrote; each copied once if not 8-byte
   * aligned in its buffer (typed views need their element alignment). `onCorrupt`: told of a deferred chunk found
   * corrupt (before the read that found it throws), so that the snapshot's reader can stop using it.
   */
  constructor(bytes: Uint8Array, deferred?: Uint8Array, onCorrupt?: (error: SnapshotError) => void) {
    this.#onCorrupt = onCorrupt;
    this.#bytes = bytes.byteOffset % ALIGN === 0 ? bytes : bytes.slice();
    this.#view = new DataView(this.#bytes.buffer, this.#bytes.byteOffset, this.#bytes.byteLength);
    if (deferred !== undefined) this.#deferred = deferred.byteOffset % ALIGN === 0 ? deferred : deferred.slice();
    else if (this.#bytes.byteLength >= HEADER_BYTES && this.#view.getUint32(0, true) === KIND.area) {
      const { offset, count } = this.#section(KIND.area);
      this.#deferred = new Uint8Array(this.#bytes.buffer, offset, count);
    } else this.#deferred = new Uint8Array(0);
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

  /** A deferred section of `kind` (its bounds in the deferred area checked now, its bytes when read). */
  #deferredSection(kind: Kind, what: string): { values: Uint8Array; bytes: Uint8Array; count: number; sums: Uint32Array; chunkShift: number } {
    const { offset, count } = this.#section(KIND.deferred);
    if (count < DESCRIPTOR_WORDS) throw new SnapshotError("a deferred section's descriptor is cut short");
    const descriptor = new Uint32Array(this.#bytes.buffer, offset, count);
    const [found = 0, elements = 0, at = 0, chunkShift = 0] = descriptor;
    if (found !== kind) throw new SnapshotError(`the snapshot holds a deferred section of kind ${found} where ${kind} was expected`);
    if (chunkShift < MIN_CHUNK_SHIFT || chunkShift > MAX_CHUNK_SHIFT) throw new SnapshotError(`the snapshot's ${what} have chunks of 2 ** ${chunkShift} bytes`);
    const length = elements * ELEMENT_BYTES[kind];
    const sums = descriptor.subarray(DESCRIPTOR_WORDS);
    if (at % ALIGN !== 0 || at + padded(length) > this.#deferred.byteLength || sums.length !== Math.ceil(padded(length) / 2 ** chunkShift)) {
      throw new SnapshotError(`the snapshot's ${what} run past its deferred area`);
    }
    const bytes = new Uint8Array(this.#deferred.buffer, this.#deferred.byteOffset + at, padded(length));
    return { values: bytes.subarray(0, length), bytes, count: elements, sums, chunkShift };
  }

  deferredI32(what: string): DeferredSection<Int32Array> {
    const { values, bytes, count, sums, chunkShift } = this.#deferredSection(KIND.i32, what);
    return new DeferredSection(new Int32Array(values.buffer, values.byteOffset, count), bytes, sums, what, this.#onCorrupt, chunkShift);
  }

  deferredU32(what: string): DeferredSection<Uint32Array> {
    const { values, bytes, count, sums, chunkShift } = this.#deferredSection(KIND.u32, what);
    return new DeferredSection(new Uint32Array(values.buffer, values.byteOffset, count), bytes, sums, what, this.#onCorrupt, chunkShift);
  }

  deferredU8(what: string): DeferredSection<Uint8Array> {
    const { values, bytes, sums, chunkShift } = this.#deferredSection(KIND.u8, what);
    return new DeferredSection(values, bytes, sums, what, this.#onCorrupt, chunkShift);
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
    const text = this.text();
    if (text.startsWith("\n")) return text.slice(1).split("\n");
    let value: unknown;
    try {
      value = JSON.parse(text);
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

/** A 32-bit Fletcher-style checksum of one deferred chunk (its 32-bit words, then its last bytes, and its length), mixed. */
function chunkChecksum(bytes: Uint8Array): number {
  const words = bytes.byteLength >>> 2;
  const view = new Int32Array(bytes.buffer, bytes.byteOffset, words);
  let a = 1;
  let b = 0;
  for (let i = 0; i < words; i++) {
    a = (a + (view[i] ?? 0)) | 0;
    b = (b + a) | 0;
  }
  for (let i = words * 4; i < bytes.byteLength; i++) {
    a = (a + (bytes[i] ?? 0)) | 0;
    b = (b + a) | 0;
  }
  // Mixed (not a multiply alone, under which a change of a word's top bit flipped the same bit of both sums and
  // cancelled out): any change of `a` spreads over every bit before `b` joins.
  return mix32(mix32(a ^ bytes.byteLength) ^ b);
}

/** MurmurHash3's finalizer: a bijection of 32-bit values whose every output bit depends on every input bit. */
function mix32(value: number): number {
  let x = value ^ (value >>> 16);
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/**
 * A 64-bit Fletcher-style checksum of `bytes`, as 16 hex digits: four lanes of 32-bit words (word i in lane i % 4),
 * each with two running sums (the second the sum of the first), mixed together at the end; any changed, lost or
 * reordered word changes it. Not a defence against a forger (the storage is the gateway's own), a check against
 * torn or damaged writes, synchronous and only additions per word: a part's or the whole statistics' snapshot, checked
 * whole before it is read, and the code's fingerprint (a registry snapshot's own sections are checked by a native
 * SHA-256 digest, which Web Crypto gives only asynchronously: registrySnapshot.ts).
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
