// The ranked mode's semantic half (docs/search.md, "How the minisearch mode ranks"): a tool and a query are each the weighted
// average of their words' vectors (wordVectors.ts: 15,000 common English words from GloVe, 48 dimensions, int8), and
// a tool's semantic score is the cosine of the two. It finds the tools a query shares no word with ("plan a
// celebration" → a gift tool), which the lexical half cannot. A word weighs its rarity in English (SIF: a / (a + p),
// p its Zipf probability from its frequency rank), so a tool's vector depends on its own text only: an update computes
// the vectors of the tools it adds, and no other. Vectors are centred on the catalog's mean, so that what every tool
// shares (the words of tool descriptions) does not make every tool look alike; the mean is kept as an exact sum
// (SemanticVectors), so an updated index scores exactly as a fresh build of the same catalog. The query side also
// reads the vectors word by word: how central each word is to the query (wordCentralities), and a word's near words
// (nearWords), which depend on the table only.
import { EMBEDDING_DIMENSIONS, type NearLists, wordVectors } from "./wordVectors.ts";
import { MAX_CACHED_TERM_LENGTH } from "./analyze.ts";
import { isStopWord } from "./stemmer.ts";
import type { ToolWords } from "./bm25Postings.ts";
import { IntList } from "./intList.ts";
import { SnapshotError, type SnapshotReader, type SnapshotWriter } from "./snapshotCodec.ts";

/**
 * SIF's smoothing: smaller discounts frequent words more (Arora et al. 2017 use 1e-3 to 1e-4; 1e-3 was picked on
 * bench/tuning.ts's cross-validation folds, every fold, among 1e-4 to 1e-3).
 */
const SIF_A = 1e-3;
/** Zipf's law over GloVe's 400,000-word vocabulary: the word of rank r has probability 1 / (r · ln(1.78 · 400,000)). */
const ZIPF_NORM = Math.log(1.78 * 400_000);
const ID_PARTS = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g;
const LETTERS = /^[a-z]+$/;

interface Table {
  /** Word → its row (its frequency rank among the words kept): looked up in the table's bytes (wordVectors.ts). */
  rows: { get(word: string): number | undefined };
  /**
   * Row-major, dequantized, each row times its word's weight (SIF). A row is filled when its word is first looked up
   * (`rows.get`), which is how every row a search or build reads is found: the rest stay zero, never read.
   */
  vectors: Float32Array;
  /** Fills row `row` of `vectors` (a row found otherwise than by its word: a near word's). */
  fill: (row: number) => void;
}

let table: Table | undefined;

/**
 * The word vectors as a search reads them, once per isolate on first use: the table is read in place (wordVectors.ts),
 * and a row is dequantized with its weight worked out when its word is first looked up, not all 15,000 up front.
 */
function wordTable(): Table {
  if (table) return table;
  const words = wordVectors();
  const { scales, values } = words;
  const vectors = new Float32Array(words.count * EMBEDDING_DIMENSIONS);
  const filled = new Uint8Array(words.count);
  const fill = (row: number): void => {
    if (filled[row] !== 0) return;
    fillRow(vectors, row, scales, values);
    filled[row] = 1;
  };
  const rows = {
    get(word: string): number | undefined {
      const row = words.rowOf(word);
      if (row === -1) return undefined;
      fill(row);
      return row;
    },
  };
  table = { rows, vectors, fill };
  return table;
}

/** Row `row` of `vectors`: the int8 values times their scales, times the word's weight (SIF). */
function fillRow(vectors: Float32Array, row: number, scales: Float64Array, values: Int8Array): void {
  const weight = SIF_A / (SIF_A + 1 / ((row + 1) * ZIPF_NORM));
  for (let d = 0, i = row * EMBEDDING_DIMENSIONS; d < EMBEDDING_DIMENSIONS; d++, i++) vectors[i] = (values[i] ?? 0) * (scales[d] ?? 0) * weight;
}

// Identifier parts repeat across tools and queries: each is read once per isolate (as analyze.ts's terms are), into
// its row in the table (-1: a word the vectors do not know, or not a word).
const PART_CACHE_LIMIT = 100_000;
const partRows = new Map<string, number>();

/** The lower-case word an identifier part is, or undefined: digits, lone letters and stop words are none. */
function wordOf(part: string): string | undefined {
  const lower = part.toLowerCase();
  return lower.length > 1 && LETTERS.test(lower) && !isStopWord(lower) ? lower : undefined;
}

/**
 * The lower-case words of `text` the vectors may know: identifiers split (camelCase, snake_case), digits, lone
 * letters and stop words dropped (as the lexical half drops them: a query of stop words finds nothing).
 */
export function embeddingWords(text: string): string[] {
  return (text.match(ID_PARTS) ?? []).flatMap((part) => wordOf(part) ?? []);
}

/** The table's row of an identifier part, or -1. */
function rowOf(part: string, rows: Table["rows"]): number {
  let row = partRows.get(part);
  if (row === undefined) {
    const word = wordOf(part);
    row = word === undefined ? -1 : (rows.get(word) ?? -1);
    // Long parts are no word the table knows and are not kept (analyze.ts's terms alike): the cache stays small.
    if (part.length <= MAX_CACHED_TERM_LENGTH) {
      if (partRows.size >= PART_CACHE_LIMIT) partRows.clear();
      partRows.set(part, row);
    }
  }
  return row;
}

/** The rows of the words of `text` the table knows, in order. */
function textRows(text: string): number[] {
  const { rows } = wordTable();
  const found: number[] = [];
  for (const part of text.match(ID_PARTS) ?? []) {
    const row = rowOf(part, rows);
    if (row !== -1) found.push(row);
  }
  return found;
}

/**
 * The rows of a piece of a tool's text (no ASCII separator in it: identifier parts never span one, so a text's rows
 * are its pieces' rows one after the other): how an index build reads them, with the pieces it reads for its terms.
 */
function rowsOfPiece(piece: string): readonly number[] {
  // Most pieces are one lower-case word: no identifier parts to find.
  if (!LETTERS.test(piece)) return textRows(piece);
  const row = rowOf(piece, wordTable().rows);
  return row === -1 ? NO_ROWS : [row];
}

const NO_ROWS: readonly number[] = Object.freeze([]);

/** An empty ToolWords for an index build to fill (Bm25Postings.addTools), then SemanticVectors.add. */
export function toolWords(): ToolWords {
  return { of: rowsOfPiece, rows: new IntList(), ends: new IntList() };
}

/**
 * The vector of the words at `rows[from .. to)` into `out`: the weighted average of their vectors, unit length,
 * each component rounded to a multiple of 1 / GRID (exact in a float32; so a float64 sums millions of them exactly,
 * in any order); false when there are none.
 */
function rowsVector(rows: Int32Array, from: number, to: number, out: Float32Array): boolean {
  const { vectors } = wordTable();
  out.fill(0);
  for (let i = from; i < to; i++) {
    const at = (rows[i] ?? 0) * EMBEDDING_DIMENSIONS;
    for (let d = 0; d < EMBEDDING_DIMENSIONS; d++) out[d] = (out[d] ?? 0) + (vectors[at + d] ?? 0);
  }
  // Indexed loops: a for-of over a typed array costs this function (10,000 times a build) a fifth of its time.
  let norm = 0;
  for (let d = 0; d < EMBEDDING_DIMENSIONS; d++) norm += (out[d] ?? 0) * (out[d] ?? 0);
  if (norm === 0) return false;
  const scale = GRID / Math.sqrt(norm);
  for (let d = 0; d < EMBEDDING_DIMENSIONS; d++) out[d] = Math.round((out[d] ?? 0) * scale) / GRID;
  return true;
}

/** A text's vector (rowsVector of its words): a query's; a tool's is made from the same words as its index reads them. */
function textVector(text: string, out: Float32Array): boolean {
  const rows = Int32Array.from(textRows(text));
  return rowsVector(rows, 0, rows.length, out);
}

/**
 * A word's near words (nearWords) are looked for among the table's most frequent words only, the NEAR_COUNT nearest
 * at a cosine of NEAR_MIN_COSINE or more: a word the catalog lacks is read as words a catalog is likely to hold
 * ("laptop" → computers, phones; "rain" → wind, snow, weather). They depend on the table only: the generator works
 * them out for every word (nearListsOf, scripts/wordVectors.ts) and the table carries them, so that a search reads
 * them (changing these constants means writing the table again).
 */
const NEAR_ROWS = 5_000;
const NEAR_COUNT = 20;
const NEAR_MIN_COSINE = 0.55;

export interface NearWord {
  word: string;
  cosine: number;
}

/**
 * The words nearest `word` (lower-case) among the table's NEAR_ROWS most frequent, nearest first, at most NEAR_COUNT
 * at a cosine of NEAR_MIN_COSINE or more (the word itself left out); none for a word the table lacks.
 */
export function nearWords(word: string): NearWord[] {
  const { rows, vectors, fill } = wordTable();
  const own = rows.get(word);
  const target = new Float32Array(EMBEDDING_DIMENSIONS);
  if (own === undefined || !unitLength(vectors, own, target)) return [];
  const words = wordVectors();
  const near: NearWord[] = [];
  const unit = new Float32Array(EMBEDDING_DIMENSIONS);
  for (const row of words.near(own)) {
    fill(row);
    unitLength(vectors, row, unit);
    // The cosine nearListsOf found (float32, as the lists always kept it), worked out again from the two rows.
    near.push({ word: words.word(row), cosine: Math.fround(dotWithRow(target, unit, 0)) });
  }
  return near;
}

/**
 * Every row's near words (nearWords), as the table carries them: for the generator (scripts/wordVectors.ts). A pass
 * of NEAR_ROWS dot products per word (seconds for the whole table), with the float32 rows a search reads. `listed`:
 * the lists of the first rows only, the others left empty (a test's sample).
 */
export function nearListsOf(words: { count: number; scales: Float64Array; values: Int8Array }, listed = words.count): NearLists {
  const vectors = new Float32Array(words.count * EMBEDDING_DIMENSIONS);
  for (let row = 0; row < words.count; row++) fillRow(vectors, row, words.scales, words.values);
  const nearRows = Math.min(NEAR_ROWS, words.count);
  const units = new Float32Array(nearRows * EMBEDDING_DIMENSIONS);
  const unit = new Float32Array(EMBEDDING_DIMENSIONS);
  for (let r = 0; r < nearRows; r++) {
    if (unitLength(vectors, r, unit)) units.set(unit, r * EMBEDDING_DIMENSIONS);
  }
  const starts = new Uint32Array(words.count + 1);
  const rows: number[] = [];
  const target = new Float32Array(EMBEDDING_DIMENSIONS);
  for (let own = 0; own < words.count; own++) {
    const found: { row: number; cosine: number }[] = [];
    if (own < listed && unitLength(vectors, own, target)) {
      for (let row = 0; row < nearRows; row++) {
        const cosine = dotWithRow(target, units, row * EMBEDDING_DIMENSIONS);
        if (cosine >= NEAR_MIN_COSINE && row !== own) found.push({ row, cosine });
      }
    }
    for (const { row } of found.toSorted((x, y) => y.cosine - x.cosine).slice(0, NEAR_COUNT)) rows.push(row);
    starts[own + 1] = rows.length;
  }
  return { starts, rows: Uint16Array.from(rows) };
}

/** The dot product of `vector` with the row of `rows` starting at `at`: four sums at a time (the dimensions are a multiple of 4). */
function dotWithRow(vector: Float32Array, rows: Float32Array, at: number): number {
  let a = 0;
  let b = 0;
  let c = 0;
  let e = 0;
  for (let d = 0; d < EMBEDDING_DIMENSIONS; d += 4) {
    a += (vector[d] ?? 0) * (rows[at + d] ?? 0);
    b += (vector[d + 1] ?? 0) * (rows[at + d + 1] ?? 0);
    c += (vector[d + 2] ?? 0) * (rows[at + d + 2] ?? 0);
    e += (vector[d + 3] ?? 0) * (rows[at + d + 3] ?? 0);
  }
  return a + b + c + e;
}

/** Row `row` of `vectors` at unit length into `out`; false for a zero row. */
function unitLength(vectors: Float32Array, row: number, out: Float32Array): boolean {
  const at = row * EMBEDDING_DIMENSIONS;
  let norm = 0;
  for (let d = 0; d < EMBEDDING_DIMENSIONS; d++) norm += (vectors[at + d] ?? 0) ** 2;
  if (norm === 0) return false;
  const scale = 1 / Math.sqrt(norm);
  for (let d = 0; d < EMBEDDING_DIMENSIONS; d++) out[d] = (vectors[at + d] ?? 0) * scale;
  return true;
}

/** Slots kept free past the catalog: an update that adds a few tools copies no vectors. */
const SPARE_SLOTS = 64;

/** 2^22: a unit vector's components, multiples of 1 / GRID, need at most 23 bits. */
const GRID = 4_194_304;

/**
 * The semantic vectors of one catalog's tools, by slot (as the index numbers them: a tool added takes the next slot,
 * a tool removed leaves its slot empty). Each tool's vector depends on its text only; the catalog's mean, which
 * centres them, is an exact sum (the vectors are on a grid: GRID), so any sequence of adds and removes leaves the same
 * mean, and the same cosines, as a fresh build of the catalog that results.
 */
export class SemanticVectors {
  /** Slot → the tool's unit vector before centring (row-major; with room for SPARE_SLOTS more). */
  #vectors: Float32Array = new Float32Array(0);
  /** Slot → whether it holds a tool with a vector (some word the table knows). */
  #has = new Uint8Array(0);
  #slots = 0;
  /** The sum of the vectors held, and how many. */
  readonly #sum = new Float64Array(EMBEDDING_DIMENSIONS);
  #count = 0;
  /** The mean, and each slot's 1 / |vector − mean| (0: no vector, or the mean itself), once per catalog version. */
  readonly #mean = new Float32Array(EMBEDDING_DIMENSIONS);
  #inverseNorms: Float32Array = new Float32Array(0);
  #centred = false;
  /** The sum and count of the whole catalog when these are a part of it (shardedSearch.ts): its mean centres them. */
  #catalog: { sum: Float64Array; count: number } | undefined;

  /** The sum of the vectors held, and how many (what a part of a sharded catalog adds to the others'). */
  vectorSum(): { sum: Float64Array; count: number } {
    return { sum: this.#sum.slice(), count: this.#count };
  }

  /**
   * Centres on the mean of a catalog these vectors are a part of (its vectors' exact sum and count), or on their own
   * (undefined); a change re-centres.
   */
  centreOn(catalog: { sum: Float64Array; count: number } | undefined): void {
    const same = catalog === undefined ? this.#catalog === undefined
      : this.#catalog !== undefined && this.#catalog.count === catalog.count && this.#catalog.sum.every((value, d) => value === catalog.sum[d]);
    if (same) return;
    this.#catalog = catalog === undefined ? undefined : { sum: catalog.sum.slice(), count: catalog.count };
    this.#centred = false;
  }

  /** The tools of the next slots, by their words (ToolWords: as an index build read them, tool by tool). */
  add(words: ToolWords): void {
    const ends = words.ends.view();
    const rows = words.rows.view();
    // Room for a few tools more: an update that adds them copies nothing.
    this.#reserve(this.#slots + ends.length);
    const vector = new Float32Array(EMBEDDING_DIMENSIONS);
    for (let tool = 0; tool < ends.length; tool++) {
      const slot = this.#slots++;
      if (!rowsVector(rows, tool === 0 ? 0 : (ends[tool - 1] ?? 0), ends[tool] ?? 0, vector)) continue;
      this.#vectors.set(vector, slot * EMBEDDING_DIMENSIONS);
      this.#has[slot] = 1;
      this.#count++;
      for (let d = 0; d < EMBEDDING_DIMENSIONS; d++) this.#sum[d] = (this.#sum[d] ?? 0) + (vector[d] ?? 0);
    }
    this.#centred = false;
  }

  /** Writes the whole state (snapshotCodec.ts), centred first; `restore` reads it back into a new instance. */
  toSnapshot(out: SnapshotWriter): void {
    // A snapshot is of these vectors alone: centred on their own mean.
    this.centreOn(undefined);
    this.centre();
    out.int(this.#slots);
    out.f32(this.#vectors.subarray(0, this.#slots * EMBEDDING_DIMENSIONS));
    out.u8(this.#has.subarray(0, this.#slots));
    out.f64(this.#sum);
    out.int(this.#count);
    out.f32(this.#mean);
    out.f32(this.#inverseNorms);
    // What a first query would otherwise work out from every vector (the same values: this code, these vectors).
    out.f64(this.#tailNormsOf());
  }

  /** Reads what toSnapshot wrote into this instance, which must be new (nothing added yet). */
  restore(input: SnapshotReader): void {
    if (this.#slots > 0) throw new Error("restore needs an empty SemanticVectors");
    const slots = input.int();
    const vectors = input.f32();
    const has = input.u8();
    const sum = input.f64();
    const count = input.int();
    const mean = input.f32();
    const inverseNorms = input.f32();
    const tailNorms = input.f64();
    if (vectors.length !== slots * EMBEDDING_DIMENSIONS || has.length !== slots || inverseNorms.length !== slots || tailNorms.length !== slots
      || sum.length !== EMBEDDING_DIMENSIONS || mean.length !== EMBEDDING_DIMENSIONS) {
      throw new SnapshotError("the word vectors' snapshot does not match its slot count");
    }
    // The vectors, norms and tail norms read in place: add grows the vectors into a new array first (no spare room
    // here), centring makes new norms. `has` is copied: remove writes into it.
    this.#vectors = vectors;
    this.#has = has.slice();
    this.#slots = slots;
    this.#sum.set(sum);
    this.#count = count;
    this.#mean.set(mean);
    this.#inverseNorms = inverseNorms;
    this.#tailNorms = tailNorms;
    this.#centred = true;
  }

  /** Empties `slot`. */
  remove(slot: number): void {
    if (this.#has[slot] !== 1) return;
    this.#has[slot] = 0;
    this.#count--;
    const at = slot * EMBEDDING_DIMENSIONS;
    for (let d = 0; d < EMBEDDING_DIMENSIONS; d++) this.#sum[d] = (this.#sum[d] ?? 0) - (this.#vectors[at + d] ?? 0);
    this.#centred = false;
  }

  #reserve(slots: number): void {
    if (slots <= this.#has.length) return;
    const capacity = Math.max(slots + SPARE_SLOTS, Math.ceil(1.5 * this.#has.length));
    const vectors = new Float32Array(capacity * EMBEDDING_DIMENSIONS);
    vectors.set(this.#vectors);
    this.#vectors = vectors;
    const has = new Uint8Array(capacity);
    has.set(this.#has);
    this.#has = has;
  }

  /** The mean of this catalog version, and each slot's distance to it: one pass over the vectors, after a change. */
  centre(): void {
    if (this.#centred) return;
    const { sum, count } = this.#catalog ?? { sum: this.#sum, count: this.#count };
    for (let d = 0; d < EMBEDDING_DIMENSIONS; d++) this.#mean[d] = count === 0 ? 0 : (sum[d] ?? 0) / count;
    const inverseNorms = new Float32Array(this.#slots);
    const mean = this.#mean;
    const tools = this.#vectors;
    for (let slot = 0; slot < this.#slots; slot++) {
      if (this.#has[slot] !== 1) continue;
      const at = slot * EMBEDDING_DIMENSIONS;
      let norm = 0;
      for (let d = 0; d < EMBEDDING_DIMENSIONS; d++) {
        const x = (tools[at + d] ?? 0) - (mean[d] ?? 0);
        norm += x * x;
      }
      inverseNorms[slot] = norm === 0 ? 0 : 1 / Math.sqrt(norm);
    }
    this.#inverseNorms = inverseNorms;
    this.#tailNorms = undefined;
    this.#centred = true;
  }

  /**
   * `query`'s vector centred on this catalog's mean, unit length (what wordCentralities and cosines compare with: made
   * once per search); undefined when it has none.
   */
  queryVector(query: string): Float32Array | undefined {
    const vector = new Float32Array(EMBEDDING_DIMENSIONS);
    if (!textVector(query, vector)) return undefined;
    this.centre();
    const mean = this.#mean;
    let norm = 0;
    for (let d = 0; d < EMBEDDING_DIMENSIONS; d++) {
      vector[d] = (vector[d] ?? 0) - (mean[d] ?? 0);
      norm += (vector[d] ?? 0) ** 2;
    }
    if (norm === 0) return undefined;
    for (let d = 0; d < EMBEDDING_DIMENSIONS; d++) vector[d] = (vector[d] ?? 0) / Math.sqrt(norm);
    return vector;
  }

  /**
   * How central each of `words` (lower-case) is to a query's meaning: the cosine of the word's vector with the query's
   * (queryVector, as `cosines` compares tools with), or undefined for a word the table does not know, or when the
   * query has no vector. Query-side only: O(words × dimensions).
   */
  wordCentralities(vector: Float32Array | undefined, words: readonly string[]): (number | undefined)[] {
    if (vector === undefined) return words.map(() => undefined);
    const { rows, vectors } = wordTable();
    return words.map((word) => {
      const row = rows.get(word);
      if (row === undefined) return undefined;
      const at = row * EMBEDDING_DIMENSIONS;
      let dot = 0;
      let norm = 0;
      for (let d = 0; d < EMBEDDING_DIMENSIONS; d++) {
        const x = vectors[at + d] ?? 0;
        dot += x * (vector[d] ?? 0);
        norm += x * x;
      }
      return norm === 0 ? undefined : dot / Math.sqrt(norm);
    });
  }

  /**
   * How central `word` (lower-case) is to each tool: the cosine of the word's vector with the tool's centred vector
   * (one dot product per call: per description a query word hits); undefined for a word the table does not know. As exact as `cosines`: it depends on the catalog's mean.
   */
  wordToolCosines(word: string): ((slot: number) => number) | undefined {
    const { rows, vectors } = wordTable();
    const row = rows.get(word);
    const unit = new Float32Array(EMBEDDING_DIMENSIONS);
    if (row === undefined || !unitLength(vectors, row, unit)) return undefined;
    this.centre();
    const mean = this.#mean;
    let offset = 0;
    for (let d = 0; d < EMBEDDING_DIMENSIONS; d++) offset += (unit[d] ?? 0) * (mean[d] ?? 0);
    const tools = this.#vectors;
    const inverseNorms = this.#inverseNorms;
    // Worked out on each call: a dot product costs less than a per-search array of every slot to keep them in.
    return (slot) => (dotWithRow(unit, tools, slot * EMBEDDING_DIMENSIONS) - offset) * (inverseNorms[slot] ?? 0);
  }

  /**
   * The cosine of a query's vector (queryVector) with every slot's (0 for an empty slot or a tool without a vector), or
   * undefined when the query has none. With q the query's centred unit vector, a tool's cosine is
   * q · (v − mean) / |v − mean| = (q · v − q · mean) × its inverse norm: one dot product per tool.
   */
  cosines(vector: Float32Array | undefined): Float32Array | undefined {
    if (vector === undefined) return undefined;
    const cosines = new Float32Array(this.#slots);
    this.mixedCosinesInto(vector, [], 0, cosines);
    return cosines;
  }

  /** How many slots there are (mixedCosinesInto's output needs room for as many). */
  get slotCount(): number {
    return this.#slots;
  }

  /**
   * Each slot's cosine with `vector` (a whole request's), times (1 − share), plus share × its best cosine with one of
   * `parts` (its sentences' vectors, queryVector each), into `out` (a search's buffer, reused: at least slotCount long;
   * every slot is written); with no parts, the cosines alone. Each row is
   * read once for the request's dot product and its sentences' (up to three at a time); each dot product is summed
   * as dotWithRow sums it, in the same order, so the cosines are the same to the last bit.
   */
  mixedCosinesInto(vector: Float32Array, parts: readonly Float32Array[], share: number, out: Float32Array): void {
    this.centre();
    const mean = this.#mean;
    const offsetOf = (v: Float32Array): number => meanOffset(v, mean);
    const offset = offsetOf(vector);
    const mixed = parts.length > 0 && share > 0;
    const slots = this.#slots;
    if (out.length < slots) throw new RangeError(`mixedCosinesInto needs room for ${slots} slots, not ${out.length}`);
    const tools = this.#vectors;
    const inverseNorms = this.#inverseNorms;
    if (!mixed) {
      // The one loop a search runs over every tool.
      for (let slot = 0; slot < slots; slot++) {
        const inverseNorm = inverseNorms[slot] ?? 0;
        out[slot] = inverseNorm === 0 ? 0 : (dotWithRow(vector, tools, slot * EMBEDDING_DIMENSIONS) - offset) * inverseNorm;
      }
      return;
    }
    const partOffsets = parts.map(offsetOf);
    // The first (up to) three sentences are read with the request in one pass over each row; more, one at a time.
    const first = parts[0] ?? vector;
    const second = parts[1] ?? first;
    const third = parts[2] ?? second;
    const firstOffset = partOffsets[0] ?? 0;
    const secondOffset = partOffsets[1] ?? firstOffset;
    const thirdOffset = partOffsets[2] ?? secondOffset;
    const fused = Math.min(parts.length, 3);
    const dots = this.#dots;
    for (let slot = 0; slot < slots; slot++) {
      const inverseNorm = inverseNorms[slot] ?? 0;
      if (inverseNorm === 0) {
        out[slot] = 0;
        continue;
      }
      const at = slot * EMBEDDING_DIMENSIONS;
      if (fused === 3) dotsWithRow3(vector, first, second, third, tools, at, dots);
      else if (fused === 2) dotsWithRow2(vector, first, second, tools, at, dots);
      else {
        dots[0] = dotWithRow(vector, tools, at);
        dots[1] = dotWithRow(first, tools, at);
      }
      let dot = (dots[0] ?? 0) - offset;
      let best = Math.max(-Infinity, (dots[1] ?? 0) - firstOffset);
      if (fused > 1) best = Math.max(best, (dots[2] ?? 0) - secondOffset);
      if (fused > 2) best = Math.max(best, (dots[3] ?? 0) - thirdOffset);
      for (let p = 3; p < parts.length; p++) best = Math.max(best, dotWithRow(parts[p] ?? vector, tools, at) - (partOffsets[p] ?? 0));
      dot = (1 - share) * dot + share * best;
      out[slot] = dot * inverseNorm;
    }
  }

  /**
   * One slot's cosine as mixedCosinesInto writes it (the same sums in the same order, rounded to float32 as its output
   * holds them), for a ranking that reads the cosines of a few slots only: a reader per query, its offsets worked out once.
   */
  cosineReader(vector: Float32Array, parts: readonly Float32Array[], share: number): (slot: number) => number {
    this.centre();
    const mean = this.#mean;
    const offset = meanOffset(vector, mean);
    const mixed = parts.length > 0 && share > 0;
    const partOffsets = mixed ? parts.map((part) => meanOffset(part, mean)) : [];
    const tools = this.#vectors;
    const inverseNorms = this.#inverseNorms;
    return (slot) => {
      const inverseNorm = inverseNorms[slot] ?? 0;
      if (inverseNorm === 0) return 0;
      const at = slot * EMBEDDING_DIMENSIONS;
      const dot = dotWithRow(vector, tools, at) - offset;
      if (!mixed) return Math.fround(dot * inverseNorm);
      let best = -Infinity;
      for (let p = 0; p < parts.length; p++) best = Math.max(best, dotWithRow(parts[p] ?? vector, tools, at) - (partOffsets[p] ?? 0));
      return Math.fround(((1 - share) * dot + share * best) * inverseNorm);
    };
  }

  /** Scratch for the dot products of one row (mixedCosinesInto). */
  readonly #dots = new Float64Array(4);

  /** Per slot: the length of its centred vector's dimensions from BOUND_SPLIT on (cosinesAtLeast's bound), once per centring. */
  #tailNorms: Float64Array | undefined;

  #tailNormsOf(): Float64Array {
    if (this.#tailNorms) return this.#tailNorms;
    const norms = new Float64Array(this.#slots);
    const tools = this.#vectors;
    const mean = this.#mean;
    for (let slot = 0; slot < this.#slots; slot++) {
      if (this.#has[slot] !== 1) continue;
      let norm = 0;
      for (let d = BOUND_SPLIT, at = slot * EMBEDDING_DIMENSIONS + BOUND_SPLIT; d < EMBEDDING_DIMENSIONS; d++, at++) {
        const y = (tools[at] ?? 0) - (mean[d] ?? 0);
        norm += y * y;
      }
      norms[slot] = Math.sqrt(norm);
    }
    this.#tailNorms = norms;
    return norms;
  }

  /**
   * mixedCosinesInto for a ranking that reads the cosine of a slot only where `exact[slot]` is 1 or the cosine is
   * `floor` or more: every other slot gets BELOW_FLOOR, found by a bound when it can be, without its whole dot
   * products. Each row's dot products are summed as mixedCosinesInto sums them; at dimension BOUND_SPLIT,
   * Cauchy–Schwarz bounds what the other dimensions can add (|q's rest| × |the tool's centred rest|), and a slot
   * whose cosine cannot reach the floor (with a margin far above rounding) stops there. The others go on with the
   * same sums: their cosines are mixedCosinesInto's to the last bit. More than three sentences: mixedCosinesInto.
   * The slots not marked exact whose cosine is `floor` or more go into `above`, in slot order, and their count is
   * returned: a page reads those few instead of every slot's cosine (a cold search runs that loop interpreted).
   */
  cosinesAtLeast(vector: Float32Array, parts: readonly Float32Array[], share: number, floor: number, exact: Uint8Array, out: Float32Array, above: Int32Array): number {
    const slots = this.#slots;
    if (out.length < slots || above.length < slots) throw new RangeError(`cosinesAtLeast needs room for ${slots} slots, not ${Math.min(out.length, above.length)}`);
    const mixed = parts.length > 0 && share > 0;
    if (mixed && parts.length > 3) {
      this.mixedCosinesInto(vector, parts, share, out);
      let found = 0;
      for (let slot = 0; slot < slots; slot++) if (exact[slot] !== 1 && (out[slot] ?? 0) >= floor) above[found++] = slot;
      return found;
    }
    this.centre();
    const rows: BoundedRows = { tools: this.#vectors, inverseNorms: this.#inverseNorms, tailNorms: this.#tailNormsOf(), slots, floor, exact, out, above };
    if (!mixed) return boundedCosines1(rows, queryTerms(vector, this.#mean));
    // One sentence is read as two alike (as mixedCosinesInto reads it: the same sums).
    const first = queryTerms(parts[0] ?? vector, this.#mean);
    const second = parts.length > 1 ? queryTerms(parts[1] ?? vector, this.#mean) : first;
    if (parts.length === 3) return boundedCosines4(rows, queryTerms(vector, this.#mean), first, second, queryTerms(parts[2] ?? vector, this.#mean), share);
    return boundedCosines3(rows, queryTerms(vector, this.#mean), first, second, share);
  }
}

/** v · mean, summed in dimension order (what a centred cosine subtracts from v · the tool's vector). */
function meanOffset(v: Float32Array, mean: Float32Array): number {
  let offset = 0;
  for (let d = 0; d < EMBEDDING_DIMENSIONS; d++) offset += (v[d] ?? 0) * (mean[d] ?? 0);
  return offset;
}

/** What the bounded cosine loops read: the tools' rows, their norms, and where the cosines go. */
interface BoundedRows {
  tools: Float32Array;
  inverseNorms: Float32Array;
  tailNorms: Float64Array;
  slots: number;
  floor: number;
  exact: Uint8Array;
  out: Float32Array;
  /** The slots not marked exact whose cosine is the floor or more, in slot order (the loops return how many). */
  above: Int32Array;
}

/**
 * A query vector as the bounded loops read it: the vector, its offset (q · mean, summed as mixedCosinesInto sums it),
 * and for the bound what its dimensions from BOUND_SPLIT on give the offset, and their length.
 */
interface QueryTerms {
  q: Float32Array;
  offset: number;
  restOffset: number;
  restNorm: number;
}

function queryTerms(q: Float32Array, mean: Float32Array): QueryTerms {
  let offset = 0;
  let restOffset = 0;
  let rest = 0;
  for (let d = 0; d < EMBEDDING_DIMENSIONS; d++) {
    offset += (q[d] ?? 0) * (mean[d] ?? 0);
    if (d >= BOUND_SPLIT) {
      restOffset += (q[d] ?? 0) * (mean[d] ?? 0);
      rest += (q[d] ?? 0) ** 2;
    }
  }
  return { q, offset, restOffset, restNorm: Math.sqrt(rest) };
}

/** Whether a cosine bound (a bound of the dot product minus its offset, times the inverse norm) is surely below the floor. */
function belowFloor(reach: number, inverseNorm: number, floor: number): boolean {
  return reach * inverseNorm + BOUND_MARGIN * (1 + inverseNorm) < floor;
}

// The loops below are written out per number of vectors on purpose (as dotsWithRow2 and dotsWithRow3 are): each
// keeps its sums in locals across the bound, so that a row that goes on costs what mixedCosinesInto's does.

/** cosinesAtLeast for a request alone. */
function boundedCosines1(rows: BoundedRows, wq: QueryTerms): number {
  const { tools, inverseNorms, tailNorms, slots, floor, exact, out, above } = rows;
  let found = 0;
  const w = wq.q;
  each: for (let slot = 0; slot < slots; slot++) {
    const inverseNorm = inverseNorms[slot] ?? 0;
    if (inverseNorm === 0) {
      out[slot] = 0;
      if (exact[slot] !== 1 && 0 >= floor) above[found++] = slot;
      continue;
    }
    const at = slot * EMBEDDING_DIMENSIONS;
    let w0 = 0, w1 = 0, w2 = 0, w3 = 0;
    for (let d = 0; d < EMBEDDING_DIMENSIONS; d += 4) {
      if (d === BOUND_SPLIT && exact[slot] !== 1) {
        const tail = tailNorms[slot] ?? 0;
        if (belowFloor(w0 + w1 + w2 + w3 - wq.offset + wq.restOffset + wq.restNorm * tail, inverseNorm, floor)) {
          out[slot] = BELOW_FLOOR;
          continue each;
        }
      }
      w0 += (w[d] ?? 0) * (tools[at + d] ?? 0);
      w1 += (w[d + 1] ?? 0) * (tools[at + d + 1] ?? 0);
      w2 += (w[d + 2] ?? 0) * (tools[at + d + 2] ?? 0);
      w3 += (w[d + 3] ?? 0) * (tools[at + d + 3] ?? 0);
    }
    out[slot] = (w0 + w1 + w2 + w3 - wq.offset) * inverseNorm;
    if (exact[slot] !== 1 && (out[slot] ?? 0) >= floor) above[found++] = slot;
  }
  return found;
}

/** cosinesAtLeast for a request of two sentences (or one, read twice). */
function boundedCosines3(rows: BoundedRows, wq: QueryTerms, aq: QueryTerms, bq: QueryTerms, share: number): number {
  const { tools, inverseNorms, tailNorms, slots, floor, exact, out, above } = rows;
  let found = 0;
  const w = wq.q;
  const a = aq.q;
  const b = bq.q;
  each: for (let slot = 0; slot < slots; slot++) {
    const inverseNorm = inverseNorms[slot] ?? 0;
    if (inverseNorm === 0) {
      out[slot] = 0;
      if (exact[slot] !== 1 && 0 >= floor) above[found++] = slot;
      continue;
    }
    const at = slot * EMBEDDING_DIMENSIONS;
    let w0 = 0, w1 = 0, w2 = 0, w3 = 0;
    let a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    let b0 = 0, b1 = 0, b2 = 0, b3 = 0;
    for (let d = 0; d < EMBEDDING_DIMENSIONS; d += 4) {
      if (d === BOUND_SPLIT && exact[slot] !== 1) {
        const tail = tailNorms[slot] ?? 0;
        const whole = w0 + w1 + w2 + w3 - wq.offset + wq.restOffset + wq.restNorm * tail;
        const best = Math.max(a0 + a1 + a2 + a3 - aq.offset + aq.restOffset + aq.restNorm * tail, b0 + b1 + b2 + b3 - bq.offset + bq.restOffset + bq.restNorm * tail);
        if (belowFloor((1 - share) * whole + share * best, inverseNorm, floor)) {
          out[slot] = BELOW_FLOOR;
          continue each;
        }
      }
      const x0 = tools[at + d] ?? 0;
      const x1 = tools[at + d + 1] ?? 0;
      const x2 = tools[at + d + 2] ?? 0;
      const x3 = tools[at + d + 3] ?? 0;
      w0 += (w[d] ?? 0) * x0;
      w1 += (w[d + 1] ?? 0) * x1;
      w2 += (w[d + 2] ?? 0) * x2;
      w3 += (w[d + 3] ?? 0) * x3;
      a0 += (a[d] ?? 0) * x0;
      a1 += (a[d + 1] ?? 0) * x1;
      a2 += (a[d + 2] ?? 0) * x2;
      a3 += (a[d + 3] ?? 0) * x3;
      b0 += (b[d] ?? 0) * x0;
      b1 += (b[d + 1] ?? 0) * x1;
      b2 += (b[d + 2] ?? 0) * x2;
      b3 += (b[d + 3] ?? 0) * x3;
    }
    // As mixedCosinesInto combines them.
    const dot = w0 + w1 + w2 + w3 - wq.offset;
    let best = Math.max(-Infinity, a0 + a1 + a2 + a3 - aq.offset);
    best = Math.max(best, b0 + b1 + b2 + b3 - bq.offset);
    out[slot] = ((1 - share) * dot + share * best) * inverseNorm;
    if (exact[slot] !== 1 && (out[slot] ?? 0) >= floor) above[found++] = slot;
  }
  return found;
}

/** cosinesAtLeast for a request of three sentences. */
function boundedCosines4(rows: BoundedRows, wq: QueryTerms, aq: QueryTerms, bq: QueryTerms, cq: QueryTerms, share: number): number {
  const { tools, inverseNorms, tailNorms, slots, floor, exact, out, above } = rows;
  let found = 0;
  const w = wq.q;
  const a = aq.q;
  const b = bq.q;
  const c = cq.q;
  each: for (let slot = 0; slot < slots; slot++) {
    const inverseNorm = inverseNorms[slot] ?? 0;
    if (inverseNorm === 0) {
      out[slot] = 0;
      if (exact[slot] !== 1 && 0 >= floor) above[found++] = slot;
      continue;
    }
    const at = slot * EMBEDDING_DIMENSIONS;
    let w0 = 0, w1 = 0, w2 = 0, w3 = 0;
    let a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    let b0 = 0, b1 = 0, b2 = 0, b3 = 0;
    let c0 = 0, c1 = 0, c2 = 0, c3 = 0;
    for (let d = 0; d < EMBEDDING_DIMENSIONS; d += 4) {
      if (d === BOUND_SPLIT && exact[slot] !== 1) {
        const tail = tailNorms[slot] ?? 0;
        const whole = w0 + w1 + w2 + w3 - wq.offset + wq.restOffset + wq.restNorm * tail;
        const best = Math.max(
          a0 + a1 + a2 + a3 - aq.offset + aq.restOffset + aq.restNorm * tail,
          b0 + b1 + b2 + b3 - bq.offset + bq.restOffset + bq.restNorm * tail,
          c0 + c1 + c2 + c3 - cq.offset + cq.restOffset + cq.restNorm * tail,
        );
        if (belowFloor((1 - share) * whole + share * best, inverseNorm, floor)) {
          out[slot] = BELOW_FLOOR;
          continue each;
        }
      }
      const x0 = tools[at + d] ?? 0;
      const x1 = tools[at + d + 1] ?? 0;
      const x2 = tools[at + d + 2] ?? 0;
      const x3 = tools[at + d + 3] ?? 0;
      w0 += (w[d] ?? 0) * x0;
      w1 += (w[d + 1] ?? 0) * x1;
      w2 += (w[d + 2] ?? 0) * x2;
      w3 += (w[d + 3] ?? 0) * x3;
      a0 += (a[d] ?? 0) * x0;
      a1 += (a[d + 1] ?? 0) * x1;
      a2 += (a[d + 2] ?? 0) * x2;
      a3 += (a[d + 3] ?? 0) * x3;
      b0 += (b[d] ?? 0) * x0;
      b1 += (b[d + 1] ?? 0) * x1;
      b2 += (b[d + 2] ?? 0) * x2;
      b3 += (b[d + 3] ?? 0) * x3;
      c0 += (c[d] ?? 0) * x0;
      c1 += (c[d + 1] ?? 0) * x1;
      c2 += (c[d + 2] ?? 0) * x2;
      c3 += (c[d + 3] ?? 0) * x3;
    }
    const dot = w0 + w1 + w2 + w3 - wq.offset;
    let best = Math.max(-Infinity, a0 + a1 + a2 + a3 - aq.offset);
    best = Math.max(best, b0 + b1 + b2 + b3 - bq.offset);
    best = Math.max(best, c0 + c1 + c2 + c3 - cq.offset);
    out[slot] = ((1 - share) * dot + share * best) * inverseNorm;
    if (exact[slot] !== 1 && (out[slot] ?? 0) >= floor) above[found++] = slot;
  }
  return found;
}

/** cosinesAtLeast bounds a row's dot products once this many of its dimensions are summed (a multiple of 4). */
const BOUND_SPLIT = 24;
/** A bound proves a cosine below the floor only by more than this (times 1 + the tool's inverse norm): far above rounding. */
const BOUND_MARGIN = 1e-7;
/** What cosinesAtLeast writes for a slot proved below the floor. */
export const BELOW_FLOOR = -2;

/**
 * The dot products of `w`, `a` and `b` with the row of `rows` starting at `at`, into `out[0..3)`: the row read once,
 * each sum in dotWithRow's order (four partial sums, added at the end).
 */
function dotsWithRow2(w: Float32Array, a: Float32Array, b: Float32Array, rows: Float32Array, at: number, out: Float64Array): void {
  let w0 = 0, w1 = 0, w2 = 0, w3 = 0;
  let a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  let b0 = 0, b1 = 0, b2 = 0, b3 = 0;
  for (let d = 0; d < EMBEDDING_DIMENSIONS; d += 4) {
    const x0 = rows[at + d] ?? 0;
    const x1 = rows[at + d + 1] ?? 0;
    const x2 = rows[at + d + 2] ?? 0;
    const x3 = rows[at + d + 3] ?? 0;
    w0 += (w[d] ?? 0) * x0;
    w1 += (w[d + 1] ?? 0) * x1;
    w2 += (w[d + 2] ?? 0) * x2;
    w3 += (w[d + 3] ?? 0) * x3;
    a0 += (a[d] ?? 0) * x0;
    a1 += (a[d + 1] ?? 0) * x1;
    a2 += (a[d + 2] ?? 0) * x2;
    a3 += (a[d + 3] ?? 0) * x3;
    b0 += (b[d] ?? 0) * x0;
    b1 += (b[d + 1] ?? 0) * x1;
    b2 += (b[d + 2] ?? 0) * x2;
    b3 += (b[d + 3] ?? 0) * x3;
  }
  out[0] = w0 + w1 + w2 + w3;
  out[1] = a0 + a1 + a2 + a3;
  out[2] = b0 + b1 + b2 + b3;
}

/**
 * dotsWithRow2 with a third sentence (`c`, into out[3]). Written out twice on purpose: a loop over an array of vectors
 * reads them through the array in the innermost loop, which is what these two avoid.
 */
function dotsWithRow3(w: Float32Array, a: Float32Array, b: Float32Array, c: Float32Array, rows: Float32Array, at: number, out: Float64Array): void {
  let w0 = 0, w1 = 0, w2 = 0, w3 = 0;
  let a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  let b0 = 0, b1 = 0, b2 = 0, b3 = 0;
  let c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  for (let d = 0; d < EMBEDDING_DIMENSIONS; d += 4) {
    const x0 = rows[at + d] ?? 0;
    const x1 = rows[at + d + 1] ?? 0;
    const x2 = rows[at + d + 2] ?? 0;
    const x3 = rows[at + d + 3] ?? 0;
    w0 += (w[d] ?? 0) * x0;
    w1 += (w[d + 1] ?? 0) * x1;
    w2 += (w[d + 2] ?? 0) * x2;
    w3 += (w[d + 3] ?? 0) * x3;
    a0 += (a[d] ?? 0) * x0;
    a1 += (a[d + 1] ?? 0) * x1;
    a2 += (a[d + 2] ?? 0) * x2;
    a3 += (a[d + 3] ?? 0) * x3;
    b0 += (b[d] ?? 0) * x0;
    b1 += (b[d + 1] ?? 0) * x1;
    b2 += (b[d + 2] ?? 0) * x2;
    b3 += (b[d + 3] ?? 0) * x3;
    c0 += (c[d] ?? 0) * x0;
    c1 += (c[d + 1] ?? 0) * x1;
    c2 += (c[d + 2] ?? 0) * x2;
    c3 += (c[d + 3] ?? 0) * x3;
  }
  out[0] = w0 + w1 + w2 + w3;
  out[1] = a0 + a1 + a2 + a3;
  out[2] = b0 + b1 + b2 + b3;
  out[3] = c0 + c1 + c2 + c3;
}
