// Ranked search with a query's embedding: the lexical ranking of the mode's index fused with the tools' vector
// similarity to the query (docs/search.md, "Embeddings providers"). The index is wrapped, not changed: the lexical
// ranking stays the index's own, and the wrapper exists only for a search that has its query's vector.
import type { ToolDefinition } from "../types.ts";
import { NameLookup } from "./exactNames.ts";
import type { ScoredMatch, SearchIndex, SearchPage } from "./types.ts";

/**
 * How the two rankings are fused, `weight` being the vector side's share (0 to 1): reciprocal rank fusion (the
 * lexical ranking adds (1 − weight)/(k + rank), the vector ranking weight/(k + rank)), or a mix of scores (weight ×
 * the similarity, scaled to 0..1 over the candidates, plus (1 − weight) × the lexical relevance).
 */
export type Fusion = { method: "rrf"; k: number; weight: number } | { method: "mix"; weight: number };

/**
 * Chosen on the four retrieval sets (bench/embeddingFusion.ts; docs/search.md, "Embeddings providers"): reciprocal
 * rank fusion needs no score scale, which differs from one embedding model to another, and was no worse than the best
 * mix on any set.
 */
export const DEFAULT_FUSION: Fusion = { method: "rrf", k: 20, weight: 0.5 };

/** How many of each ranking's best are fused; past them the lexical ranking continues as it is. */
export const FUSION_DEPTH = 50;

/** Names the query spells out (exactNames.ts), per catalog: they come first in the fused ranking as in the lexical. */
const lookups = new WeakMap<readonly ToolDefinition[], NameLookup>();

function lookupOf(catalog: readonly ToolDefinition[]): NameLookup {
  let lookup = lookups.get(catalog);
  if (lookup === undefined) {
    lookup = new NameLookup(catalog);
    lookups.set(catalog, lookup);
  }
  return lookup;
}

/** A catalog's vectors in one block, a row per tool that has one (the similarity loop reads memory in order). */
interface VectorMatrix {
  /** How many vectors the map held when the matrix was made (a fill adds vectors to the same map). */
  held: number;
  dimensions: number;
  /** Row → the tool's position in the catalog. */
  at: Int32Array;
  rows: Int8Array;
  /** Row → 1 / the row's length. */
  inverseNorms: Float64Array;
}

const matrices = new WeakMap<readonly ToolDefinition[], WeakMap<ReadonlyMap<string, Int8Array>, VectorMatrix>>();

function matrixOf(catalog: readonly ToolDefinition[], vectors: ReadonlyMap<string, Int8Array>, dimensions: number): VectorMatrix {
  let byVectors = matrices.get(catalog);
  if (byVectors === undefined) {
    byVectors = new WeakMap();
    matrices.set(catalog, byVectors);
  }
  const kept = byVectors.get(vectors);
  if (kept !== undefined && kept.held === vectors.size && kept.dimensions === dimensions) return kept;
  const at: number[] = [];
  const rows: Int8Array[] = [];
  catalog.forEach((tool, position) => {
    const vector = vectors.get(tool.name);
    // Another model's vector (other dimensions) is no candidate.
    if (vector?.length === dimensions) {
      at.push(position);
      rows.push(vector);
    }
  });
  const block = new Int8Array(rows.length * dimensions);
  const inverseNorms = new Float64Array(rows.length);
  rows.forEach((row, index) => {
    block.set(row, index * dimensions);
    let norm = 0;
    for (const value of row) norm += value * value;
    inverseNorms[index] = norm === 0 ? 0 : 1 / Math.sqrt(norm);
  });
  const matrix = { held: vectors.size, dimensions, at: Int32Array.from(at), rows: block, inverseNorms };
  byVectors.set(vectors, matrix);
  return matrix;
}

/** The `depth` tools most similar to `query` among those `accept` keeps, best first (ties in catalog order). */
function vectorRanking(
  catalog: readonly ToolDefinition[],
  vectors: ReadonlyMap<string, Int8Array>,
  query: Int8Array,
  depth: number,
  accept: (name: string) => boolean,
): { name: string; score: number }[] {
  const { at, rows, inverseNorms, dimensions } = matrixOf(catalog, vectors, query.length);
  let queryNorm = 0;
  for (const value of query) queryNorm += value * value;
  if (queryNorm === 0) return [];
  const scores = new Float64Array(at.length);
  for (let row = 0; row < at.length; row++) {
    let dot = 0;
    const base = row * dimensions;
    for (let d = 0; d < dimensions; d++) dot += (rows[base + d] ?? 0) * (query[d] ?? 0);
    scores[row] = dot * (inverseNorms[row] ?? 0);
  }
  // The best rows first; only those the caller accepts, until `depth`.
  const order = Array.from({ length: at.length }, (_, row) => row)
    .toSorted((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0) || (at[a] ?? 0) - (at[b] ?? 0));
  const scale = 1 / Math.sqrt(queryNorm);
  const ranked: { name: string; score: number }[] = [];
  for (const row of order) {
    if (ranked.length >= depth) break;
    const name = catalog[at[row] ?? -1]?.name;
    if (name !== undefined && accept(name)) ranked.push({ name, score: (scores[row] ?? 0) * scale });
  }
  return ranked;
}

function fuse(
  lexical: readonly string[],
  relevance: ReadonlyMap<string, number>,
  byVector: readonly { name: string; score: number }[],
  fusion: Fusion,
): string[] {
  const score = new Map<string, number>();
  const firstSeen = new Map<string, number>();
  const note = (name: string, order: number): void => { if (!firstSeen.has(name)) firstSeen.set(name, order); };
  lexical.forEach((name, rank) => note(name, rank));
  byVector.forEach(({ name }, rank) => note(name, lexical.length + rank));
  if (fusion.method === "rrf") {
    lexical.forEach((name, rank) => score.set(name, (1 - fusion.weight) / (fusion.k + rank + 1)));
    byVector.forEach(({ name }, rank) => score.set(name, (score.get(name) ?? 0) + fusion.weight / (fusion.k + rank + 1)));
  } else {
    const top = byVector[0]?.score ?? 0;
    const bottom = byVector.at(-1)?.score ?? 0;
    const span = top - bottom;
    const scaled = new Map(byVector.map(({ name, score: s }) => [name, span > 0 ? (s - bottom) / span : 1]));
    for (const name of firstSeen.keys()) {
      score.set(name, fusion.weight * (scaled.get(name) ?? 0) + (1 - fusion.weight) * (relevance.get(name) ?? 0));
    }
  }
  return [...firstSeen.keys()].toSorted((a, b) => (score.get(b) ?? 0) - (score.get(a) ?? 0) || (firstSeen.get(a) ?? 0) - (firstSeen.get(b) ?? 0));
}

class VectorFusedIndex implements SearchIndex {
  readonly #base: SearchIndex;
  readonly #catalog: readonly ToolDefinition[];
  readonly #vectors: ReadonlyMap<string, Int8Array>;
  readonly #query: Int8Array;
  readonly #fusion: Fusion;

  constructor(base: SearchIndex, catalog: readonly ToolDefinition[], vectors: ReadonlyMap<string, Int8Array>, query: Int8Array, fusion: Fusion) {
    this.#base = base;
    this.#catalog = catalog;
    this.#vectors = vectors;
    this.#query = query;
    this.#fusion = fusion;
  }

  get size(): number {
    return this.#base.size;
  }

  search(query: string): string[] {
    return this.searchPage(query, Infinity).names;
  }

  searchPage(query: string, count: number, accept: (name: string) => boolean = () => true): SearchPage {
    if (query.trim() === "") return this.#base.searchPage(query, count, accept);
    // A fixed depth, whatever the page: every page of one query cuts the same ranking.
    const depth = FUSION_DEPTH;
    const lexical = this.#base.searchPage(query, depth, accept);
    const byVector = vectorRanking(this.#catalog, this.#vectors, this.#query, depth, accept);
    const relevance = new Map<string, number>();
    if (this.#fusion.method === "mix") {
      for (const match of this.#base.scored(query, depth, accept)) relevance.set(match.name, match.relevance);
    }
    const fused = fuse(lexical.names, relevance, byVector, this.#fusion);
    // A tool the query names stays first, as in the lexical ranking.
    const named = lookupOf(this.#catalog).named(query).filter((name) => accept(name) && fused.includes(name));
    const placed = new Set(named);
    const ranking = [...named, ...fused.filter((name) => !placed.has(name))];
    for (const name of ranking) placed.add(name);
    // The total: the lexical matches, and the vector candidates the lexical ranking does not hold at all.
    const lexicalHead = new Set(lexical.names);
    const vectorOnly = new Set(byVector.map(({ name }) => name).filter((name) => !lexicalHead.has(name)));
    const alsoLexical = vectorOnly.size === 0 || lexical.total <= lexical.names.length
      ? 0
      : this.#base.searchPage(query, 0, (name) => vectorOnly.has(name)).total;
    const total = lexical.total + vectorOnly.size - alsoLexical;
    if (count <= ranking.length) return { names: ranking.slice(0, count), total };
    // Past the fused head, the lexical ranking goes on.
    const rest = this.#base.searchPage(query, count - ranking.length, (name) => accept(name) && !placed.has(name));
    return { names: [...ranking, ...rest.names], total };
  }

  scored(query: string, limit: number, accept?: (name: string) => boolean): ScoredMatch[] {
    if (query.trim() === "") return [];
    const names = this.searchPage(query, limit, accept).names;
    const wanted = new Set(names);
    const relevance = new Map(this.#base.scored(query, Infinity, (name) => wanted.has(name)).map((match) => [match.name, match.relevance]));
    return names.map((name) => ({ name, relevance: relevance.get(name) ?? 0 }));
  }
}

/**
 * `index` (over `catalog`) ranking by the lexical ranking fused with the similarity of each tool's vector (`vectors`,
 * by name; a tool without one takes part lexically only) to `query`'s vector. Build one per search.
 */
export function withQueryVector(
  index: SearchIndex,
  catalog: readonly ToolDefinition[],
  vectors: ReadonlyMap<string, Int8Array>,
  query: Int8Array,
  fusion: Fusion = DEFAULT_FUSION,
): SearchIndex {
  return new VectorFusedIndex(index, catalog, vectors, query, fusion);
}
