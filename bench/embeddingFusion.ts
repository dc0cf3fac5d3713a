// How an embeddings provider's vectors are best fused with the lexical ranking (src/core/search/vectorFusion.ts):
// nDCG@10 of the `minisearch` mode on the four retrieval sets (bench/retrievalSets.ts), lexical alone, vectors
// alone, reciprocal rank fusion and score mixes, with the deterministic hashed-word vectors of the test fixture (no
// hosted model is reachable here: the figures compare the fusion methods, they do not predict a real model's gain).
// Run: `npx node bench/embeddingFusion.ts` (prints one JSON object); with `--cpu`, instead the time of the vector
// side of one search (1,024 dimensions, random vectors) over 1,000, 10,000 and 50,000 tools, median of 15.
import { createSearchIndex } from "../src/core/search/createIndex.ts";
import { embeddingText, packVector } from "../src/core/search/toolVectors.ts";
import { withQueryVector, type Fusion } from "../src/core/search/vectorFusion.ts";
import { hashedEmbedding } from "../test/fixtures/hashedEmbeddings.ts";
import { loadBenchData } from "./catalog.ts";
import { measureRetrieval } from "./metrics.ts";
import { loadRetrievalSetsWith } from "./retrievalSets.ts";

const FUSIONS: Record<string, Fusion> = {
  "rrf k60 w0.5": { method: "rrf", k: 60, weight: 0.5 },
  "rrf k20 w0.5": { method: "rrf", k: 20, weight: 0.5 },
  "rrf k20 w0.3": { method: "rrf", k: 20, weight: 0.3 },
  "rrf k20 w0.2": { method: "rrf", k: 20, weight: 0.2 },
  "mix w0.7": { method: "mix", weight: 0.7 },
  "mix w0.5": { method: "mix", weight: 0.5 },
  "mix w0.3": { method: "mix", weight: 0.3 },
  "mix w0.2": { method: "mix", weight: 0.2 },
};

function pack(text: string): Int8Array {
  return packVector(hashedEmbedding(text)) ?? new Int8Array(0);
}

function cpu(): void {
  let seed = 1;
  const random = (): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648 - 0.5;
  };
  const vectorOf = (): Int8Array => packVector(Array.from({ length: 1_024 }, random)) ?? new Int8Array(0);
  const empty = createSearchIndex("substring", []);
  const medians: Record<string, number> = {};
  for (const size of [1_000, 10_000, 50_000]) {
    const catalog = Array.from({ length: size }, (_, i) => ({ name: `t${i}`, description: "", parameters: { type: "object" as const } }));
    const vectors = new Map(catalog.map((tool) => [tool.name, vectorOf()]));
    const times: number[] = [];
    for (let run = 0; run < 15; run++) {
      const query = vectorOf();
      const started = performance.now();
      withQueryVector(empty, catalog, vectors, query).searchPage("query", 5);
      times.push(performance.now() - started);
    }
    medians[`${size} tools`] = Number((times.toSorted((a, b) => a - b)[7] ?? 0).toFixed(2));
  }
  console.log(JSON.stringify({ medianMs: medians }, null, 2));
}

if (process.argv.includes("--cpu")) {
  cpu();
  process.exit(0);
}

const data = loadBenchData();
if ("missing" in data) {
  console.error(data.missing);
  process.exit(1);
}
const results: Record<string, Record<string, number>> = {};
for (const set of loadRetrievalSetsWith(data.meta)) {
  const names = new Set(set.catalog.map((tool) => tool.name));
  const index = createSearchIndex("minisearch", set.catalog);
  const vectors = new Map(set.catalog.map((tool) => [tool.name, pack(embeddingText(tool))]));
  const row: Record<string, number> = {};
  const ndcg = (search: (query: string) => readonly string[]): number => Number(measureRetrieval(search, set.queries, names).ndcgAt10.toFixed(4));
  row["lexical"] = ndcg((query) => index.searchPage(query, 10).names);
  row["vectorsOnly"] = ndcg((query) => {
    const q = pack(query);
    return withQueryVector(createSearchIndex("substring", []), set.catalog, vectors, q, { method: "rrf", k: 60, weight: 1 }).searchPage(query, 10).names;
  });
  for (const [label, fusion] of Object.entries(FUSIONS)) {
    row[label] = ndcg((query) => withQueryVector(index, set.catalog, vectors, pack(query), fusion).searchPage(query, 10).names);
  }
  results[set.name] = { tools: set.catalog.length, queries: set.queries.length, ...row };
  console.error(`${set.name}: ${JSON.stringify(row)}`);
}
console.log(JSON.stringify(results, null, 2));
