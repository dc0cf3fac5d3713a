// Word vectors for analyzed terms (docs/search.md, "Learning from calls"): learned terms are stored as the index
// analyzes them (stemmed: "recipes" → "recip"), which the word-vector table (search/wordVectors.ts) does not know.
// Each term reads the vector of the most frequent word of the table that analyzes to it, weighted by that word's
// rarity in English as the semantic half weighs words (SIF), so that a profile of terms and a query have vectors on
// the same scale. Made on first use, once per isolate: a map from term to row, the vectors read from the table.
import { processTerm } from "../search/analyze.ts";
import { EMBEDDING_DIMENSIONS, wordVectors } from "../search/wordVectors.ts";

/** SIF's smoothing and Zipf's norm, as the semantic half weighs words (search/semantic.ts). */
const SIF_A = 1e-3;
const ZIPF_NORM = Math.log(1.78 * 400_000);

let termRows: Map<string, number> | undefined;

function rows(): Map<string, number> {
  if (termRows) return termRows;
  const words = wordVectors().words();
  termRows = new Map();
  for (let row = 0; row < words.length; row++) {
    const term = processTerm(words[row] ?? "");
    // The table is in frequency order: the first word of a term is its most frequent.
    if (term !== null && !termRows.has(term)) termRows.set(term, row);
  }
  return termRows;
}

/**
 * Adds `weight` times the vector of `term` to `out` (EMBEDDING_DIMENSIONS long); false, adding nothing, for a term
 * no word of the table analyzes to.
 */
export function addTermVector(term: string, weight: number, out: Float64Array): boolean {
  const row = rows().get(term);
  if (row === undefined) return false;
  const { scales, values } = wordVectors();
  const sif = SIF_A / (SIF_A + 1 / ((row + 1) * ZIPF_NORM));
  const at = row * EMBEDDING_DIMENSIONS;
  for (let d = 0; d < EMBEDDING_DIMENSIONS; d++) out[d] = (out[d] ?? 0) + weight * sif * (values[at + d] ?? 0) * (scales[d] ?? 0);
  return true;
}

/** `vector` scaled to unit length in place; false (left as it is) for a zero vector. */
export function toUnit(vector: Float64Array): boolean {
  let norm = 0;
  for (const value of vector) norm += value * value;
  if (norm === 0) return false;
  const scale = 1 / Math.sqrt(norm);
  for (let d = 0; d < vector.length; d++) vector[d] = (vector[d] ?? 0) * scale;
  return true;
}

export function dot(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  for (let d = 0; d < a.length; d++) sum += (a[d] ?? 0) * (b[d] ?? 0);
  return sum;
}

export function newVector(): Float64Array {
  return new Float64Array(EMBEDDING_DIMENSIONS);
}
