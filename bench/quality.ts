// The bench's quality section: retrieval quality on the four retrieval sets (bench/retrievalSets.ts), each on its own,
// in both modes, beside the plain-MiniSearch baseline computed in the same run; and its targets.
import type { SearchMode } from "../src/core/config.ts";
import { createSearchIndex } from "../src/core/search/createIndex.ts";
import type { MetaToolSet } from "./catalog.ts";
import { measureRetrieval, type RetrievalQuality } from "./metrics.ts";
import { loadRetrievalSetsWith, plainMiniSearchIndex, SET_NAMES, type SetName } from "./retrievalSets.ts";

export type SetQuality = Record<SearchMode | "plainMiniSearch", RetrievalQuality> & { tools: number };
export type QualitySection = Partial<Record<SetName, SetQuality>>;

export const QUALITY_METHOD =
  "bench/quality.ts: four retrieval sets of four sources (bench/retrievalSets.ts: MetaTool, Seal-Tools, Gorilla APIBench, API-Bank; " +
  "catalogs of names, descriptions and parameters), every query whose tools are all in the catalog; each set in both modes and in " +
  "plainMiniSearch (MiniSearch 7, identifiers split, a stop list, name ×3: the baseline), in the same run";

const rounded = (quality: RetrievalQuality): RetrievalQuality => ({
  queries: quality.queries,
  recallAt5: Number(quality.recallAt5.toFixed(4)),
  successAt5: Number(quality.successAt5.toFixed(4)),
  ndcgAt10: Number(quality.ndcgAt10.toFixed(4)),
});

export function qualitySection(meta: MetaToolSet, log: (message: string) => void): QualitySection {
  const section: QualitySection = {};
  for (const set of loadRetrievalSetsWith(meta)) {
    const names = new Set(set.catalog.map((tool) => tool.name));
    const measure = (search: (query: string) => readonly string[]): RetrievalQuality => rounded(measureRetrieval(search, set.queries, names));
    const ofMode = (mode: SearchMode): RetrievalQuality => {
      log(`${mode}: retrieval quality on ${set.name}`);
      const index = createSearchIndex(mode, set.catalog);
      return measure((query) => index.search(query));
    };
    const substring = ofMode("substring");
    const minisearch = ofMode("minisearch");
    log(`plain MiniSearch: retrieval quality on ${set.name}`);
    const plain = plainMiniSearchIndex(set.catalog);
    section[set.name] = { tools: set.catalog.length, substring, minisearch, plainMiniSearch: measure((query) => plain.search(query)) };
  }
  return section;
}

/** The figures each set must reach: minisearch's floor, substring's figure before the four-set work (not lower). */
export const QUALITY_TARGETS: Readonly<Record<SetName, { minisearch: number; substring: number }>> = {
  metaTool: { minisearch: 0.66, substring: 0.4923 },
  sealTools: { minisearch: 0.91, substring: 0.7173 },
  gorilla: { minisearch: 0.23, substring: 0.1652 },
  apiBank: { minisearch: 0.7, substring: 0.5732 },
};

export interface QualityTarget {
  target: string;
  value: number | null;
  limit: number;
  pass: boolean | null;
}

function atLeast(target: string, value: number | undefined, limit: number): QualityTarget {
  return value === undefined ? { target, value: null, limit, pass: null } : { target, value, limit, pass: value >= limit };
}

export function qualityTargets(section: QualitySection): QualityTarget[] {
  const targets: QualityTarget[] = [];
  for (const name of SET_NAMES) {
    const set = section[name];
    const limits = QUALITY_TARGETS[name];
    targets.push(atLeast(`minisearch nDCG@10 on ${name}`, set?.minisearch.ndcgAt10, limits.minisearch));
    targets.push(atLeast(`minisearch nDCG@10 on ${name} above plain MiniSearch's (same run)`, set?.minisearch.ndcgAt10, (set?.plainMiniSearch.ndcgAt10 ?? 0) + 1e-4));
    targets.push(atLeast(`substring nDCG@10 on ${name} (not lower than before)`, set?.substring.ndcgAt10, limits.substring));
  }
  return targets;
}
