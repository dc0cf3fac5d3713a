// The word-vector table of the ranked mode's semantic half (semantic.ts), kept as a binary file beside this module
// (wordVectors.bin, made by scripts/wordVectors.ts; its licence in wordVectors.LICENSE): this module reads and writes
// that format, and holds the one table of the isolate. The core imports no file: the shell that runs it hands over
// the bytes (provideWordVectors: the Worker from its bundled Data module, Node scripts from the file).
//
// The table is read in place, as laid out in the file: a word is found by a binary search over its words in byte
// order (no map of them is built), a row is read from the int8 values where a search uses it, and each word's near
// words (semantic.ts, nearWords) were worked out by the generator. So a cold isolate's first query pays for the words
// it looks up, not for decoding 15,000 words and rows.
//
// The format (little-endian; every array starts at a multiple of 4 bytes), version 2:
//   0   "TGWV"                  magic
//   4   u32 version             2
//   8   u32 words (n)           the rows, most frequent word first
//   12  u32 dimensions          EMBEDDING_DIMENSIONS
//   16  f64 × dimensions        scales: dimension d of a row is its int8 value times scales[d]
//   ..  u32 length, then bytes  the words, ASCII, separated by one space: word i has row i (zero bytes to a multiple of 4)
//   ..  u32 × (n + 1)           where each word starts in those bytes (the last: the length plus one)
//   ..  u16 × n                 the rows in the byte order of their words, for the binary search (zero bytes to a
//                               multiple of 4)
//   ..  u32 near                the near-word entries, then u32 × (n + 1) where each row's entries start,
//   ..  u16 × near              the entries' rows, nearest first (zero bytes to a multiple of 4)
//   ..  i8 × n × dimensions     the rows, row after row
// The near words' cosines are not kept (a search works them out again, exactly, from the two rows): the file is part
// of the Worker's bundle, and float32 cosines would add most of a megabyte to it, compressed.
// and nothing after.

/** The table's dimensions: fixed, so that the semantic half sizes its arrays without reading the table. */
export const EMBEDDING_DIMENSIONS = 48;

const MAGIC = "TGWV";
const FORMAT_VERSION = 2;
const HEADER_BYTES = 16;
/** Rows are u16 (the sorted rows, the near words'): the table holds tens of thousands of words, not more. */
const MAX_WORDS = 0x10000;

/** Each row's near words (semantic.ts, nearWords), nearest first: row r's at rows[starts[r] .. starts[r + 1]). */
export interface NearLists {
  starts: Uint32Array;
  rows: Uint16Array;
}

/** What the generator writes: the words in row order, the scales, the int8 rows, and the near lists. */
export interface WordVectorSource {
  /** Row i's word. */
  words: readonly string[];
  /** Dimension d of a row is its int8 value times scales[d]. */
  scales: Float64Array;
  /** The rows, row-major: words.length × EMBEDDING_DIMENSIONS. */
  values: Int8Array;
  near: NearLists;
}

/** The table as read in place (decodeWordVectors). */
export interface WordVectorTable {
  /** How many words (rows). */
  readonly count: number;
  readonly scales: Float64Array;
  /** The rows, row-major: count × EMBEDDING_DIMENSIONS, a view of the file's bytes. */
  readonly values: Int8Array;
  /** Row `row`'s word. */
  word(row: number): string;
  /** The row of `word`, or -1 when the table does not hold it (a binary search in the file's bytes). */
  rowOf(word: string): number;
  /** Row `row`'s near words' rows, nearest first (a view). */
  near(row: number): Uint16Array;
  /** Every word in row order (made on each call: for the few callers that go over all of them). */
  words(): string[];
}

const pad4 = (length: number): number => (length + 3) & ~3;

/** The bytes of a table in the format above. */
export function encodeWordVectors(table: WordVectorSource): Uint8Array {
  const { words, scales, values, near } = table;
  const count = words.length;
  if (scales.length !== EMBEDDING_DIMENSIONS) throw new Error(`word vectors: ${scales.length} scales, not ${EMBEDDING_DIMENSIONS}`);
  if (values.length !== count * EMBEDDING_DIMENSIONS) throw new Error(`word vectors: ${values.length} values for ${count} words`);
  for (const word of words) {
    if (!/^[\x21-\x7e]+$/.test(word)) throw new Error(`word vectors: ${JSON.stringify(word)} is not a printable ASCII word`);
  }
  if (count > MAX_WORDS) throw new Error(`word vectors: ${count} words, more than ${MAX_WORDS}`);
  if (new Set(words).size !== count) throw new Error("word vectors: a word is there twice");
  const total = near.starts[count] ?? 0;
  if (near.starts.length !== count + 1 || near.starts[0] !== 0 || near.rows.length !== total
    || near.starts.some((start, r) => r > 0 && start < (near.starts[r - 1] ?? 0)) || near.rows.some((row) => row >= count)) {
    throw new Error("word vectors: the near lists do not fit the words");
  }
  const text = new TextEncoder().encode(words.join(" "));
  const textAt = HEADER_BYTES + 8 * EMBEDDING_DIMENSIONS + 4;
  const startsAt = textAt + pad4(text.length);
  const sortedAt = startsAt + 4 * (count + 1);
  const nearAt = sortedAt + pad4(2 * count);
  const nearRowsAt = nearAt + 4 + 4 * (count + 1);
  const valuesAt = nearRowsAt + pad4(2 * total);
  const bytes = new Uint8Array(valuesAt + values.length);
  const view = new DataView(bytes.buffer);
  bytes.set(new TextEncoder().encode(MAGIC), 0);
  view.setUint32(4, FORMAT_VERSION, true);
  view.setUint32(8, count, true);
  view.setUint32(12, EMBEDDING_DIMENSIONS, true);
  scales.forEach((scale, d) => view.setFloat64(HEADER_BYTES + 8 * d, scale, true));
  view.setUint32(textAt - 4, text.length, true);
  bytes.set(text, textAt);
  let start = 0;
  words.forEach((word, row) => {
    view.setUint32(startsAt + 4 * row, start, true);
    start += word.length + 1;
  });
  view.setUint32(startsAt + 4 * count, start, true);
  // ASCII: the strings' order is their bytes' order.
  const sorted = words.map((_, row) => row).toSorted((a, b) => ((words[a] ?? "") < (words[b] ?? "") ? -1 : 1));
  sorted.forEach((row, i) => view.setUint16(sortedAt + 2 * i, row, true));
  view.setUint32(nearAt, total, true);
  near.starts.forEach((entry, r) => view.setUint32(nearAt + 4 + 4 * r, entry, true));
  near.rows.forEach((row, i) => view.setUint16(nearRowsAt + 2 * i, row, true));
  bytes.set(new Uint8Array(values.buffer, values.byteOffset, values.length), valuesAt);
  return bytes;
}

function fail(why: string): never {
  throw new Error(`word vectors: ${why} (expected the file scripts/wordVectors.ts writes)`);
}

/**
 * The table in `data` (the format above), read in place; throws, saying what is wrong, on anything else. Checks the
 * header and that the arrays fill the bytes exactly; what the generator wrote inside them is trusted (the file is
 * the Worker's own code), each row and entry bounded where it is read.
 */
export function decodeWordVectors(data: ArrayBuffer | Uint8Array): WordVectorTable {
  let bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  if (bytes.length < HEADER_BYTES) fail(`${bytes.length} bytes, too short for the header`);
  // The arrays are views: a copy when the bytes do not start at a multiple of 4 (a Node Buffer may not; the Worker's
  // Data module, an ArrayBuffer of its own, does).
  if (bytes.byteOffset % 4 !== 0) bytes = bytes.slice();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  if (String.fromCharCode(...bytes.subarray(0, 4)) !== MAGIC) fail(`no ${MAGIC} magic`);
  const version = view.getUint32(4, true);
  if (version !== FORMAT_VERSION) fail(`format version ${version}, not ${FORMAT_VERSION}`);
  const count = view.getUint32(8, true);
  const dimensions = view.getUint32(12, true);
  if (dimensions !== EMBEDDING_DIMENSIONS) fail(`${dimensions} dimensions, not ${EMBEDDING_DIMENSIONS}`);
  if (count === 0 || count > MAX_WORDS) fail(`${count} words`);
  const textAt = HEADER_BYTES + 8 * dimensions + 4;
  const u32At = (at: number, what: string): number => {
    if (at + 4 > bytes.length) fail(`cut short in ${what}`);
    return view.getUint32(at, true);
  };
  const scales = new Float64Array(dimensions);
  if (bytes.length < textAt) fail("cut short in the scales");
  for (let d = 0; d < dimensions; d++) scales[d] = view.getFloat64(HEADER_BYTES + 8 * d, true);
  const textLength = u32At(textAt - 4, "the words");
  const startsAt = textAt + pad4(textLength);
  const sortedAt = startsAt + 4 * (count + 1);
  const nearAt = sortedAt + pad4(2 * count);
  const total = u32At(nearAt, "the near lists");
  if (total > count * count) fail(`${total} near-word entries`);
  const nearRowsAt = nearAt + 4 + 4 * (count + 1);
  const valuesAt = nearRowsAt + pad4(2 * total);
  if (bytes.length !== valuesAt + count * dimensions) fail(`${bytes.length} bytes, not the ${valuesAt + count * dimensions} its header gives`);
  const base = bytes.byteOffset;
  const starts = new Uint32Array(bytes.buffer, base + startsAt, count + 1);
  if (starts[count] !== textLength + 1) fail(`words of ${String(starts[count])} bytes, not the ${textLength + 1} its header gives`);
  const sorted = new Uint16Array(bytes.buffer, base + sortedAt, count);
  const nearStarts = new Uint32Array(bytes.buffer, base + nearAt + 4, count + 1);
  if (nearStarts[count] !== total) fail(`${String(nearStarts[count])} near-word entries, not the ${total} its header gives`);
  const nearRows = new Uint16Array(bytes.buffer, base + nearRowsAt, total);
  // A view, no copy: the Worker's Data module stays in memory anyway.
  const values = new Int8Array(bytes.buffer, base + valuesAt, count * dimensions);
  const text = bytes.subarray(textAt, textAt + textLength);
  const decoder = new TextDecoder();

  const word = (row: number): string => {
    const from = starts[row] ?? 0;
    const to = (starts[row + 1] ?? 0) - 1;
    return from < to && to <= textLength ? decoder.decode(text.subarray(from, to)) : "";
  };
  /** Compares `target` with row `row`'s word, byte by byte: <0, 0 or >0 as `target` sorts before, at or after it. */
  const compare = (target: string, row: number): number => {
    const from = starts[row] ?? 0;
    const length = Math.min((starts[row + 1] ?? 0) - 1, textLength) - from;
    const shorter = Math.min(target.length, length);
    for (let i = 0; i < shorter; i++) {
      const difference = target.charCodeAt(i) - (text[from + i] ?? 0);
      if (difference !== 0) return difference;
    }
    return target.length - length;
  };
  return {
    count,
    scales,
    values,
    word,
    rowOf(target: string): number {
      let low = 0;
      let high = count - 1;
      while (low <= high) {
        const middle = (low + high) >>> 1;
        const row = sorted[middle] ?? 0;
        const order = compare(target, row);
        if (order === 0) return row < count ? row : -1;
        if (order < 0) high = middle - 1;
        else low = middle + 1;
      }
      return -1;
    },
    near(row: number): Uint16Array {
      const from = Math.min(nearStarts[row] ?? 0, total);
      return nearRows.subarray(from, Math.min(Math.max(nearStarts[row + 1] ?? 0, from), total));
    },
    words(): string[] {
      return decoder.decode(text).split(" ");
    },
  };
}

type WordVectorBytes = () => ArrayBuffer | Uint8Array;

let source: WordVectorBytes | undefined;
let decoded: WordVectorTable | undefined;

/**
 * Where this isolate's table comes from: a function giving the file's bytes, called on the table's first use. The
 * Worker passes its bundled Data module (src/isolate/wordVectors.ts), Node scripts a read of the file. Once the table
 * is read it stays: a later call changes nothing (the table is the same file everywhere).
 */
export function provideWordVectors(load: WordVectorBytes): void {
  source = load;
}

/** The isolate's table, read on first use; throws when no shell provided it (provideWordVectors). */
export function wordVectors(): WordVectorTable {
  if (decoded) return decoded;
  if (!source) {
    throw new Error("word vectors: none provided; the shell that runs the core calls provideWordVectors (the Worker: src/isolate/wordVectors.ts; Node: bench/bundledData.ts)");
  }
  decoded = decodeWordVectors(source());
  return decoded;
}
