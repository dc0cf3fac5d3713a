// The ranked mode's semantic half (README, "How the minisearch mode ranks"): a tool and a query are each the weighted
// average of their words' vectors (embeddings.ts: 15,000 common English words from GloVe, 48 dimensions, int8), and
// a tool's semantic score is the cosine of the two. It finds the tools a query shares no word with ("plan a
// celebration" → a gift tool), which the lexical half cannot. A word weighs its rarity in English (SIF: a / (a + p),
// p its Zipf probability from its frequency rank) times its rarity in the catalog (BM25's IDF over the tools that
// hold it). Vectors are centred on the catalog's mean, so that what every tool shares (the words of tool
// descriptions) does not make every tool look alike.
import { EMBEDDING_DIMENSIONS, EMBEDDING_SCALES, EMBEDDING_VECTORS, EMBEDDING_WORDS } from "./embeddings.ts";
import { isStopWord } from "./stemmer.ts";
import type { ToolDefinition } from "../types.ts";

/** SIF's smoothing: smaller discounts frequent words more (Arora et al. 2017 use 1e-3 to 1e-4). */
const SIF_A = 1e-4;
/** Zipf's law over GloVe's 400,000-word vocabulary: the word of rank r has probability 1 / (r · ln(1.78 · 400,000)). */
const ZIPF_NORM = Math.log(1.78 * 400_000);
const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const ID_PARTS = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g;
const LETTERS = /^[a-z]+$/;

interface Table {
  /** Word → its row (its frequency rank among the words kept). */
  rows: Map<string, number>;
  /** Row-major, dequantized. */
  vectors: Float32Array;
}

let table: Table | undefined;

/** Standard base64 without line breaks (as the generator writes it), four characters at a time. */
function decodeBase64(text: string): Uint8Array {
  const value = new Uint8Array(128);
  for (let i = 0; i < BASE64.length; i++) value[BASE64.charCodeAt(i)] = i;
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const bytes = new Uint8Array((text.length / 4) * 3 - padding);
  const sextet = (i: number): number => value[text.charCodeAt(i) & 127] ?? 0;
  let at = 0;
  for (let i = 0; i + 3 < text.length; i += 4) {
    const quad = (sextet(i) << 18) | (sextet(i + 1) << 12) | (sextet(i + 2) << 6) | sextet(i + 3);
    bytes[at++] = quad >> 16;
    if (at < bytes.length) bytes[at++] = (quad >> 8) & 0xff;
    if (at < bytes.length) bytes[at++] = quad & 0xff;
  }
  return bytes;
}

/** The word vectors, decoded once per isolate on first use. */
function wordTable(): Table {
  if (table) return table;
  const words = EMBEDDING_WORDS.split(" ");
  const bytes = decodeBase64(EMBEDDING_VECTORS);
  const vectors = new Float32Array(words.length * EMBEDDING_DIMENSIONS);
  for (let i = 0; i < vectors.length; i++) {
    const byte = bytes[i] ?? 0;
    vectors[i] = (byte > 127 ? byte - 256 : byte) * (EMBEDDING_SCALES[i % EMBEDDING_DIMENSIONS] ?? 0);
  }
  table = { rows: new Map(words.map((word, row) => [word, row])), vectors };
  return table;
}

// Identifier parts repeat across tools and queries: each is read once per isolate (as analyze.ts's terms are).
const PART_CACHE_LIMIT = 100_000;
const partCache = new Map<string, string | null>();

/**
 * The lower-case words of `text` the vectors may know: identifiers split (camelCase, snake_case), digits, lone
 * letters and stop words dropped (as the lexical half drops them: a query of stop words finds nothing).
 */
export function embeddingWords(text: string): string[] {
  const words: string[] = [];
  for (const part of text.match(ID_PARTS) ?? []) {
    let word = partCache.get(part);
    if (word === undefined) {
      const lower = part.toLowerCase();
      word = lower.length > 1 && LETTERS.test(lower) && !isStopWord(lower) ? lower : null;
      if (partCache.size >= PART_CACHE_LIMIT) partCache.clear();
      partCache.set(part, word);
    }
    if (word !== null) words.push(word);
  }
  return words;
}

/** Scales `vector` to length 1 in place; false when it is zero. */
function normalize(vector: Float32Array): boolean {
  let norm = 0;
  for (const x of vector) norm += x * x;
  if (norm === 0) return false;
  const scale = 1 / Math.sqrt(norm);
  for (let d = 0; d < vector.length; d++) vector[d] = (vector[d] ?? 0) * scale;
  return true;
}

/** The semantic vectors of one catalog's tools (by slot; undefined = an empty slot), and its query vectors. */
export class SemanticVectors {
  readonly #vectors: Float32Array;
  /** Per slot: whether the tool has a vector (some word the table knows). */
  readonly #has: Uint8Array;
  readonly #mean = new Float32Array(EMBEDDING_DIMENSIONS);
  readonly #toolFrequency = new Map<string, number>();
  readonly #toolCount: number;
  /** Each row's word's weight in this catalog, once worked out (NaN until then). */
  readonly #weights = new Float64Array(wordTable().rows.size).fill(Number.NaN);

  constructor(tools: readonly (ToolDefinition | undefined)[]) {
    const words = tools.map((tool) => (tool ? embeddingWords(`${tool.name} ${tool.description ?? ""}`) : []));
    for (const list of words) for (const word of new Set(list)) this.#toolFrequency.set(word, (this.#toolFrequency.get(word) ?? 0) + 1);
    this.#toolCount = tools.filter((tool) => tool !== undefined).length;
    this.#vectors = new Float32Array(tools.length * EMBEDDING_DIMENSIONS);
    this.#has = new Uint8Array(tools.length);
    const vector = new Float32Array(EMBEDDING_DIMENSIONS);
    let withVectors = 0;
    words.forEach((list, slot) => {
      if (!this.#average(list, vector)) return;
      this.#vectors.set(vector, slot * EMBEDDING_DIMENSIONS);
      this.#has[slot] = 1;
      withVectors++;
      for (let d = 0; d < EMBEDDING_DIMENSIONS; d++) this.#mean[d] = (this.#mean[d] ?? 0) + (vector[d] ?? 0);
    });
    for (let d = 0; d < EMBEDDING_DIMENSIONS; d++) this.#mean[d] = withVectors === 0 ? 0 : (this.#mean[d] ?? 0) / withVectors;
    for (let slot = 0; slot < tools.length; slot++) {
      if (this.#has[slot] !== 1) continue;
      const row = this.#vectors.subarray(slot * EMBEDDING_DIMENSIONS, (slot + 1) * EMBEDDING_DIMENSIONS);
      this.#centre(row);
      if (!normalize(row)) this.#has[slot] = 0;
    }
  }

  /** The unit-length weighted average of `words`' vectors into `out`; false when the table knows none of them. */
  #average(words: readonly string[], out: Float32Array): boolean {
    const { rows, vectors } = wordTable();
    out.fill(0);
    for (const word of words) {
      const row = rows.get(word);
      if (row === undefined) continue;
      const weight = this.#weight(word, row);
      const at = row * EMBEDDING_DIMENSIONS;
      for (let d = 0; d < EMBEDDING_DIMENSIONS; d++) out[d] = (out[d] ?? 0) + weight * (vectors[at + d] ?? 0);
    }
    return normalize(out);
  }

  /** SIF's weight of the word of `row` (its rank) times its IDF over this catalog's tools. */
  #weight(word: string, row: number): number {
    const known = this.#weights[row] ?? Number.NaN;
    if (!Number.isNaN(known)) return known;
    const probability = 1 / ((row + 1) * ZIPF_NORM);
    const weight = (SIF_A / (SIF_A + probability)) * Math.log(1 + this.#toolCount / ((this.#toolFrequency.get(word) ?? 0) + 0.5));
    this.#weights[row] = weight;
    return weight;
  }

  #centre(vector: Float32Array): void {
    for (let d = 0; d < EMBEDDING_DIMENSIONS; d++) vector[d] = (vector[d] ?? 0) - (this.#mean[d] ?? 0);
  }

  /**
   * The cosine of `query`'s vector with every slot's (0 for an empty slot or a tool without a vector), or undefined
   * when the table knows none of the query's words.
   */
  cosines(query: string): Float32Array | undefined {
    const vector = new Float32Array(EMBEDDING_DIMENSIONS);
    if (!this.#average(embeddingWords(query), vector)) return undefined;
    this.#centre(vector);
    if (!normalize(vector)) return undefined;
    const slots = this.#has.length;
    const cosines = new Float32Array(slots);
    const tools = this.#vectors;
    const has = this.#has;
    // Four sums at a time (the dimensions are a multiple of 4): the one loop a search runs over every tool.
    for (let slot = 0; slot < slots; slot++) {
      if (has[slot] !== 1) continue;
      const at = slot * EMBEDDING_DIMENSIONS;
      let a = 0;
      let b = 0;
      let c = 0;
      let e = 0;
      for (let d = 0; d < EMBEDDING_DIMENSIONS; d += 4) {
        a += (vector[d] ?? 0) * (tools[at + d] ?? 0);
        b += (vector[d + 1] ?? 0) * (tools[at + d + 1] ?? 0);
        c += (vector[d + 2] ?? 0) * (tools[at + d + 2] ?? 0);
        e += (vector[d + 3] ?? 0) * (tools[at + d + 3] ?? 0);
      }
      cosines[slot] = a + b + c + e;
    }
    return cosines;
  }
}
