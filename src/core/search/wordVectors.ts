// The word-vector table of the ranked mode's semantic half (semantic.ts), kept as a binary file beside this module
// (wordVectors.bin, made by scripts/wordVectors.ts; its licence in wordVectors.LICENSE): this module reads and writes
// that format, and holds the one table of the isolate. The core imports no file: the shell that runs it hands over
// the bytes (provideWordVectors: the Worker from its bundled Data module, Node scripts from the file), and the table
// is decoded on its first use, once per isolate.
//
// The format (little-endian), version 1:
//   0   "TGWV"                  magic
//   4   u32 version             1
//   8   u32 words               the rows, most frequent word first
//   12  u32 dimensions          EMBEDDING_DIMENSIONS
//   16  f64 × dimensions        scales: dimension d of a row is its int8 value times scales[d]
//   ..  u32 length, then bytes  the words, ASCII, separated by one space: word i has row i
//   ..  i8 × words × dimensions the rows, row after row
// and nothing after.

/** The table's dimensions: fixed, so that the semantic half sizes its arrays without reading the table. */
export const EMBEDDING_DIMENSIONS = 48;

const MAGIC = "TGWV";
const FORMAT_VERSION = 1;
const HEADER_BYTES = 16;
/** A bound against a corrupt header: the table holds tens of thousands of words, not millions. */
const MAX_WORDS = 1_000_000;

export interface WordVectorTable {
  /** Row i's word. */
  words: string[];
  /** Dimension d of a row is its int8 value times scales[d]. */
  scales: Float64Array;
  /** The rows, row-major: words.length × EMBEDDING_DIMENSIONS. */
  values: Int8Array;
}

/** The bytes of a table in the format above. */
export function encodeWordVectors(table: WordVectorTable): Uint8Array {
  const { words, scales, values } = table;
  if (scales.length !== EMBEDDING_DIMENSIONS) throw new Error(`word vectors: ${scales.length} scales, not ${EMBEDDING_DIMENSIONS}`);
  if (values.length !== words.length * EMBEDDING_DIMENSIONS) throw new Error(`word vectors: ${values.length} values for ${words.length} words`);
  for (const word of words) {
    if (!/^[\x21-\x7e]+$/.test(word)) throw new Error(`word vectors: ${JSON.stringify(word)} is not a printable ASCII word`);
  }
  const text = new TextEncoder().encode(words.join(" "));
  const wordsAt = HEADER_BYTES + 8 * EMBEDDING_DIMENSIONS;
  const valuesAt = wordsAt + 4 + text.length;
  const bytes = new Uint8Array(valuesAt + values.length);
  const view = new DataView(bytes.buffer);
  bytes.set(new TextEncoder().encode(MAGIC), 0);
  view.setUint32(4, FORMAT_VERSION, true);
  view.setUint32(8, words.length, true);
  view.setUint32(12, EMBEDDING_DIMENSIONS, true);
  scales.forEach((scale, d) => view.setFloat64(HEADER_BYTES + 8 * d, scale, true));
  view.setUint32(wordsAt, text.length, true);
  bytes.set(text, wordsAt + 4);
  bytes.set(new Uint8Array(values.buffer, values.byteOffset, values.length), valuesAt);
  return bytes;
}

function fail(why: string): never {
  throw new Error(`word vectors: ${why} (expected the file scripts/wordVectors.ts writes)`);
}

/** The table in `data` (the format above); throws, saying what is wrong, on anything else. */
export function decodeWordVectors(data: ArrayBuffer | Uint8Array): WordVectorTable {
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  if (bytes.length < HEADER_BYTES) fail(`${bytes.length} bytes, too short for the header`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  if (String.fromCharCode(...bytes.subarray(0, 4)) !== MAGIC) fail(`no ${MAGIC} magic`);
  const version = view.getUint32(4, true);
  if (version !== FORMAT_VERSION) fail(`format version ${version}, not ${FORMAT_VERSION}`);
  const count = view.getUint32(8, true);
  const dimensions = view.getUint32(12, true);
  if (dimensions !== EMBEDDING_DIMENSIONS) fail(`${dimensions} dimensions, not ${EMBEDDING_DIMENSIONS}`);
  if (count === 0 || count > MAX_WORDS) fail(`${count} words`);
  const wordsAt = HEADER_BYTES + 8 * dimensions;
  if (bytes.length < wordsAt + 4) fail("cut short in the scales");
  const scales = new Float64Array(dimensions);
  for (let d = 0; d < dimensions; d++) scales[d] = view.getFloat64(HEADER_BYTES + 8 * d, true);
  const textLength = view.getUint32(wordsAt, true);
  const valuesAt = wordsAt + 4 + textLength;
  if (bytes.length !== valuesAt + count * dimensions) fail(`${bytes.length} bytes, not the ${valuesAt + count * dimensions} its header gives`);
  const words = new TextDecoder().decode(bytes.subarray(wordsAt + 4, valuesAt)).split(" ");
  if (words.length !== count) fail(`${words.length} words, not the ${count} its header gives`);
  // A view, no copy: the Worker's Data module stays in memory anyway.
  const values = new Int8Array(bytes.buffer, bytes.byteOffset + valuesAt, count * dimensions);
  return { words, scales, values };
}

type WordVectorSource = () => ArrayBuffer | Uint8Array;

let source: WordVectorSource | undefined;
let decoded: WordVectorTable | undefined;

/**
 * Where this isolate's table comes from: a function giving the file's bytes, called on the table's first use. The
 * Worker passes its bundled Data module (src/isolate/wordVectors.ts), Node scripts a read of the file. Once the table
 * is decoded it stays: a later call changes nothing (the table is the same file everywhere).
 */
export function provideWordVectors(load: WordVectorSource): void {
  source = load;
}

/** The isolate's table, decoded on first use; throws when no shell provided it (provideWordVectors). */
export function wordVectors(): WordVectorTable {
  if (decoded) return decoded;
  if (!source) {
    throw new Error("word vectors: none provided; the shell that runs the core calls provideWordVectors (the Worker: src/isolate/wordVectors.ts; Node: bench/wordVectors.ts)");
  }
  decoded = decodeWordVectors(source());
  return decoded;
}
