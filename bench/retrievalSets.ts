// The four retrieval sets the ranking is judged by (../shared/eval/README.md): MetaTool, Seal-Tools, Gorilla APIBench
// and API-Bank, four sources with four query styles, each a catalog and its queries; and the plain-MiniSearch baseline
// every set is measured beside, in the same run. Read at run time, never copied into the repo; a set whose file is
// missing is left out (the bench says which).
import MiniSearch from "minisearch";
import { loadRetrievalSets, type RetrievalSetName } from "../scripts/evalData.ts";
import { isRecord } from "../src/core/records.ts";
import { isStopWord } from "../src/core/search/stemmer.ts";
import { tokenize } from "../src/core/search/text.ts";
import type { SearchIndex } from "../src/core/search/types.ts";
import type { ToolDefinition } from "../src/core/types.ts";
import { metaToolCatalog, type MetaToolSet } from "./catalog.ts";
import type { RetrievalQuery } from "./metrics.ts";

export const SET_NAMES = ["metaTool", "sealTools", "gorilla", "apiBank"] as const;
export type SetName = (typeof SET_NAMES)[number];

export interface RetrievalSet {
  name: SetName;
  catalog: ToolDefinition[];
  /** The queries whose right tools are all in the catalog (the others are not measured). */
  queries: RetrievalQuery[];
}

/** The four sets (those whose data is there), in SET_NAMES order; `meta` is MetaTool's, already read with the rest. */
export function loadRetrievalSetsWith(meta: MetaToolSet): RetrievalSet[] {
  const others = loadRetrievalSets();
  const sets: RetrievalSet[] = [measurable("metaTool", metaToolCatalog(meta), meta.queries)];
  for (const name of ["sealTools", "gorilla", "apiBank"] as const satisfies readonly RetrievalSetName[]) {
    const set = others[name];
    if (set === undefined) continue;
    // The sets' `group` is a topic label, not an access group: it is not part of the catalog (no gateway has it).
    sets.push(measurable(name, set.tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })), set.queries));
  }
  return sets;
}

function measurable(name: SetName, catalog: ToolDefinition[], queries: readonly RetrievalQuery[]): RetrievalSet {
  const names = new Set(catalog.map((tool) => tool.name));
  return { name, catalog, queries: queries.filter((q) => q.tools.length > 0 && q.tools.every((tool) => names.has(tool))) };
}

function parameterText(schema: unknown): string {
  const properties = isRecord(schema) ? schema.properties : undefined;
  if (!isRecord(properties)) return "";
  return Object.entries(properties)
    .map(([name, value]) => {
      const description = isRecord(value) ? value.description : undefined;
      return `${name} ${typeof description === "string" ? description : ""}`;
    })
    .join(" ");
}

/**
 * The baseline: MiniSearch 7 as a plain user sets it up, with a word-split tokenizer (identifiers split), a stop list,
 * the name counted 3 times and fuzzy and prefix matching off; no stemming, no word vectors.
 */
export function plainMiniSearchIndex(catalog: readonly ToolDefinition[]): Pick<SearchIndex, "search"> {
  const index = new MiniSearch<{ id: number; name: string; description: string; parameters: string }>({
    fields: ["name", "description", "parameters"],
    tokenize: (text) => tokenize(text),
    processTerm: (term) => {
      const lower = term.toLowerCase();
      return isStopWord(lower) ? null : lower;
    },
    searchOptions: { boost: { name: 3 } },
  });
  index.addAll(catalog.map((tool, id) => ({ id, name: tool.name, description: tool.description, parameters: parameterText(tool.parameters) })));
  return {
    search: (query) => index.search(query).map((result) => catalog[Number(result.id)]?.name ?? ""),
  };
}
