// The `search_tools` meta-tool (docs/DESIGN.md, "Flows"): its definition and its result.
import type { GatewayConfig } from "../config.ts";
import { texts } from "../locale.ts";
import { isRecord } from "../records.ts";
import { catalogNameLookup, isVisible } from "../tools/toolRegistry.ts";
import { acceptAllBut } from "../search/acceptAllBut.ts";
import { indexAnswersFor } from "../search/exactNames.ts";
import type { SearchIndex, SearchPage } from "../search/types.ts";
import type { JsonSchema, Locale, ToolDefinition } from "../types.ts";

export const SEARCH_TOOLS_NAME = "search_tools";

/** Most names in a result's `related` list. */
export const MAX_RELATED = 20;

export interface SearchToolsParams {
  query: string;
  limit?: number;
  offset?: number;
}

export interface SearchToolsResult {
  /** "returned/total available", e.g. "5/23". */
  found: string;
  tools: { name: string; description: string; parameters: JsonSchema }[];
  /** Only when the result was truncated. */
  pagination?: { total: number; offset: number; returned: number; nextOffset?: number };
  /** Other tools of the returned tools' groups (names only), when any. */
  related?: string[];
  hint: string;
  /** How the ranking was made, where the deployment has an embeddings provider (absent without one). */
  stats?: SearchStats;
}

/**
 * `vectors`: the lexical ranking fused with the provider's embeddings; `fallback`: lexical only, for `reason` (the
 * provider failed or timed out, is skipped after repeated failures, or no tool has a vector yet).
 */
export type SearchStats =
  | { semantic: "vectors" }
  | { semantic: "fallback"; reason: "error" | "timeout" | "circuit_open" | "no_tool_vectors" };

/** Where a name splits into a shared stem and the rest: after its first `__`, else after its first `.`, `_` or `-`. */
function stemLength(name: string): number {
  const namespace = name.indexOf("__");
  if (namespace > 0 && namespace + 2 < name.length) return namespace + 2;
  for (let i = 1; i < name.length - 1; i++) {
    const char = name[i];
    if (char === "." || char === "_" || char === "-") return i + 1;
  }
  return 0;
}

/** Brace-compresses names that share a stem (`web_{search,fetch}`), nesting `depth` levels; first-seen order. */
function compressNames(names: readonly string[], depth: number): string[] {
  if (depth === 0) return [...names];
  // Key: the stem, or for a name without one the name itself behind a prefix no stem has (stems never start with NUL).
  const runs = new Map<string, { stem: string; rests: string[] }>();
  for (const name of names) {
    const length = stemLength(name);
    const stem = name.slice(0, length);
    const key = length > 0 ? stem : `\u0000${name}`;
    const run = runs.get(key);
    if (run) run.rests.push(name.slice(length));
    else runs.set(key, { stem, rests: [name.slice(length)] });
  }
  const parts: string[] = [];
  for (const { stem, rests } of runs.values()) {
    if (stem === "" || rests.length === 1) parts.push(...rests.map((rest) => stem + rest));
    else parts.push(`${stem}{${compressNames(rests, depth - 1).join(",")}}`);
  }
  return parts;
}

/**
 * The compact name list of the `search_tools` description: ungrouped tools first, then each group's tools under
 * their first group (`web: fetch_url,web_search`), names sharing a stem brace-compressed. Names only, never
 * descriptions: the list is a search hint, and sending every description is what the search layer avoids.
 */
export function compactToolNames(tools: readonly ToolDefinition[]): string {
  // A frozen list (prepare's lists per catalog) is remembered as itself, without building a key.
  const same = compactNamesOfList.get(tools);
  if (same !== undefined) return same;
  // Every turn of a session asks again for the same catalog's list: remembered by the names and first groups it is
  // made of (building that key costs a small share of compressing them).
  const key = tools.map((tool) => `${tool.groups?.[0] ?? ""}\u0001${tool.name}`).join("\u0000");
  let list = compactNamesMemo.get(key);
  if (list === undefined) {
    list = compactNamesOf(tools);
    if (compactNamesMemo.size >= COMPACT_NAMES_CAPACITY) compactNamesMemo.clear();
    compactNamesMemo.set(key, list);
  }
  if (Object.isFrozen(tools)) compactNamesOfList.set(tools, list);
  return list;
}

const compactNamesOfList = new WeakMap<readonly ToolDefinition[], string>();

/** Takes the compact name list of a frozen list worked out elsewhere (a registry snapshot's, for the same tools). */
export function rememberCompactToolNames(tools: readonly ToolDefinition[], list: string): void {
  if (Object.isFrozen(tools)) compactNamesOfList.set(tools, list);
}

const COMPACT_NAMES_CAPACITY = 32;
const compactNamesMemo = new Map<string, string>();

function compactNamesOf(tools: readonly ToolDefinition[]): string {
  const ungrouped: string[] = [];
  const byGroup = new Map<string, string[]>();
  for (const tool of tools) {
    const group = tool.groups?.[0];
    if (group === undefined) {
      ungrouped.push(tool.name);
      continue;
    }
    const names = byGroup.get(group);
    if (names) names.push(tool.name);
    else byGroup.set(group, [tool.name]);
  }
  const sections: string[] = [];
  if (ungrouped.length > 0) sections.push(compressNames(ungrouped, 2).join(","));
  for (const [group, names] of byGroup) sections.push(`${group}: ${compressNames(names, 2).join(",")}`);
  return sections.join("; ");
}

/**
 * The `search_tools` definition. With `config.showToolNames`, its description lists `otherTools` (names only,
 * compact: grouped by group where tools have groups) as search hints.
 */
export function searchToolsDefinition(config: GatewayConfig, otherTools: readonly ToolDefinition[]): ToolDefinition {
  let names: string | null = null;
  if (config.showToolNames && otherTools.length > 0) {
    const list = compactToolNames(otherTools);
    names = list.includes("{") ? `${texts(config.locale).toolNamesNotation} ${list}` : list;
  }
  return searchToolsDefinitionNaming(config, names);
}

/**
 * What search_tools' definition is made of besides the names of the tools it names: a text that changes whenever
 * anything of it other than those names does (this code's texts, the configuration it reads). With the tools named, it
 * identifies the definition's text without making it (prepare.ts: a registry snapshot's carried count of that text).
 */
export function searchToolsTemplate(config: GatewayConfig, shapeText: (definition: ToolDefinition) => string): string {
  return JSON.stringify([config.showToolNames, texts(config.locale).toolNamesNotation, shapeText(searchToolsDefinitionNaming(config, "\u0000"))]);
}

function searchToolsDefinitionNaming(config: GatewayConfig, names: string | null): ToolDefinition {
  const t = texts(config.locale);
  const fixed = config.toolList === "fixed";
  return {
    name: SEARCH_TOOLS_NAME,
    // A "fixed" list runs found tools through call_tool (src/core/turn/callTool.ts), and says so.
    description: fixed ? t.searchToolsDescriptionFixed(names) : t.searchToolsDescription(names),
    parameters: {
      type: "object",
      properties: {
        query: { type: "string", description: t.searchToolsQuery },
        // A "fixed" description says how to page in a few words, which keeps its first turn within a "grow" one's.
        limit: fixed ? { type: "integer", minimum: 0 } : { type: "integer", minimum: 0, description: t.searchToolsLimit },
        offset: fixed ? { type: "integer", minimum: 0 } : { type: "integer", minimum: 0, description: t.searchToolsOffset },
      },
      required: ["query"],
      additionalProperties: false,
    },
  };
}

function isNonNegativeInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/**
 * Reads `search_tools` arguments; returns the problems (for a tool error) or the params.
 * A missing (or null) `query` reads as "" (list everything, the original design's empty-query rule): models often call
 * `search_tools({})` to see what exists. Null `limit` / `offset` read as absent. Problems are in `locale`.
 */
export function parseSearchToolsParams(
  args: unknown,
  maxQueryLength: number,
  locale: Locale = "en",
): { ok: true; params: SearchToolsParams } | { ok: false; problems: string[] } {
  const t = texts(locale);
  const record: unknown = args ?? {};
  if (!isRecord(record)) return { ok: false, problems: [t.searchArgumentsNotObject] };
  const problems: string[] = [];
  const params: SearchToolsParams = { query: "" };

  const query = record.query ?? "";
  if (typeof query !== "string") problems.push(t.searchQueryNotString);
  else if (query.length > maxQueryLength) problems.push(t.searchQueryTooLong(maxQueryLength));
  else params.query = query;

  for (const field of ["limit", "offset"] as const) {
    const value = record[field] ?? undefined;
    if (value === undefined) continue;
    if (isNonNegativeInteger(value)) params[field] = value;
    else problems.push(t.searchNotNonNegativeInteger(field));
  }
  for (const key of Object.keys(record)) {
    if (key !== "query" && key !== "limit" && key !== "offset") problems.push(t.searchUnknownArgument(key));
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, params };
}

// Name → tool per catalog, built once per catalog array (catalogs are reused across calls, and rebuilt on change).
const catalogMaps = new WeakMap<readonly ToolDefinition[], Map<string, ToolDefinition>>();

function toolsByName(catalog: readonly ToolDefinition[]): Map<string, ToolDefinition> {
  let map = catalogMaps.get(catalog);
  if (!map) {
    map = new Map();
    for (const tool of catalog) if (!map.has(tool.name)) map.set(tool.name, tool);
    catalogMaps.set(catalog, map);
  }
  return map;
}

/**
 * The tool named `name` in `catalog` (its first of that name): a registry's lookup where it has one (a list of every
 * tool read from a snapshot: a cold isolate's first search makes no map of every name), else toolsByName's map.
 */
function toolNamed(catalog: readonly ToolDefinition[]): (name: string) => ToolDefinition | undefined {
  const lookup = catalogNameLookup(catalog);
  if (lookup !== undefined) return lookup;
  const byName = toolsByName(catalog);
  return (name) => byName.get(name);
}

/** Visibility kept per catalog for this many `enabledGroups` lists (callers' tokens repeat a few lists). */
const VISIBILITY_PER_CATALOG = 8;

/** What a caller with some groups may see of a catalog: its tools, and the names a search may return. */
interface Visibility {
  shown: (tool: ToolDefinition) => boolean;
  /** Each visible name whose first tool (the one a search returns) is visible; never search_tools. */
  findable: (name: string) => boolean;
  /** No gate: every tool is visible. */
  everyTool: boolean;
}

const isNotSearchTools = acceptAllBut([SEARCH_TOOLS_NAME]);

const visibilities = new WeakMap<readonly ToolDefinition[], Map<string, Visibility>>();

/**
 * Built once per catalog and groups list (undefined: no gate): a search asks it of every matching tool, which per
 * request cost more than the search itself.
 */
function visibilityOf(catalog: readonly ToolDefinition[], enabledGroups: readonly string[] | undefined): Visibility {
  let byGroups = visibilities.get(catalog);
  if (!byGroups) {
    byGroups = new Map();
    visibilities.set(catalog, byGroups);
  }
  // A group name is a JSON string here, so no two lists share a key.
  const key = enabledGroups === undefined ? "" : JSON.stringify(enabledGroups);
  const kept = byGroups.get(key);
  if (kept) return kept;
  if (enabledGroups === undefined || enabledGroups.includes("*")) {
    // No gate (or "*", which every group passes: isVisible): every tool shows, and every name but search_tools is found (no set of them made: a cold isolate's
    // first search would pay two passes over every tool for it).
    const named = toolNamed(catalog);
    const ungated: Visibility = { shown: () => true, findable: (name) => name !== SEARCH_TOOLS_NAME && named(name) !== undefined, everyTool: true };
    byGroups.set(key, ungated);
    return ungated;
  }
  const tools = new Set<ToolDefinition>();
  for (const tool of catalog) if (isVisible(tool.groups, enabledGroups)) tools.add(tool);
  const findable = new Set<string>();
  for (const [name, tool] of toolsByName(catalog)) if (name !== SEARCH_TOOLS_NAME && tools.has(tool)) findable.add(name);
  if (byGroups.size >= VISIBILITY_PER_CATALOG) {
    const oldest = byGroups.keys().next();
    if (oldest.done !== true) byGroups.delete(oldest.value);
  }
  const visibility: Visibility = { shown: (tool) => tools.has(tool), findable: (name) => findable.has(name), everyTool: false };
  byGroups.set(key, visibility);
  return visibility;
}

/** Per catalog: each group's tools, in catalog order, with their places (built once per catalog). */
const groupMembers = new WeakMap<readonly ToolDefinition[], Map<string, { tool: ToolDefinition; at: number }[]>>();

function membersByGroup(catalog: readonly ToolDefinition[]): Map<string, { tool: ToolDefinition; at: number }[]> {
  let members = groupMembers.get(catalog);
  if (members === undefined) {
    members = new Map();
    catalog.forEach((tool, at) => {
      for (const group of new Set(tool.groups ?? [])) {
        let list = members?.get(group);
        if (list === undefined) {
          list = [];
          members?.set(group, list);
        }
        list.push({ tool, at });
      }
    });
    groupMembers.set(catalog, members);
  }
  return members;
}

/**
 * A catalog's first searches find related tools by walking it in order until each group has given MAX_RELATED (no
 * map of every group: a cold isolate's first search would make one over every tool); later ones group it once.
 */
const SCANS_BEFORE_GROUPING = 4;
const relatedScans = new WeakMap<readonly ToolDefinition[], number>();

/** relatedNames' answer found by walking `catalog` in order (stopping once every group has given MAX_RELATED). */
function relatedByScan(
  catalog: readonly ToolDefinition[],
  groups: ReadonlySet<string>,
  returnedNames: ReadonlySet<string>,
  visible: (tool: ToolDefinition) => boolean,
): string[] {
  const taken = new Map<string, number>();
  let full = 0;
  const names: string[] = [];
  const seen = new Set<string>();
  for (let at = 0; at < catalog.length && full < groups.size; at++) {
    const tool = catalog[at];
    const toolGroups = tool?.groups;
    if (tool === undefined || toolGroups === undefined) continue;
    let passed = false;
    toolGroups.forEach((group, i) => {
      // A group named twice counts once; a group that gave MAX_RELATED takes no more.
      if (!groups.has(group) || toolGroups.indexOf(group) !== i || (taken.get(group) ?? 0) >= MAX_RELATED) return;
      if (returnedNames.has(tool.name) || !visible(tool)) return;
      const count = (taken.get(group) ?? 0) + 1;
      taken.set(group, count);
      if (count === MAX_RELATED) full++;
      passed = true;
    });
    // In catalog order: a name's first place is its smallest.
    if (passed && !seen.has(tool.name)) {
      seen.add(tool.name);
      names.push(tool.name);
    }
  }
  return names.slice(0, MAX_RELATED);
}

/**
 * Other visible tools sharing a group with the returned ones, catalog order, at most MAX_RELATED. Only the returned
 * tools' groups are walked (not the catalog): the first MAX_RELATED of their union in catalog order are each among
 * the first MAX_RELATED of their own group.
 */
function relatedNames(
  catalog: readonly ToolDefinition[],
  returned: readonly ToolDefinition[],
  visible: (tool: ToolDefinition) => boolean,
): string[] {
  const groups = new Set<string>();
  for (const tool of returned) for (const group of tool.groups ?? []) groups.add(group);
  if (groups.size === 0) return [];
  const returnedNames = new Set(returned.map((tool) => tool.name));
  const scans = relatedScans.get(catalog) ?? 0;
  if (scans < SCANS_BEFORE_GROUPING) {
    relatedScans.set(catalog, scans + 1);
    return relatedByScan(catalog, groups, returnedNames, visible);
  }
  const members = membersByGroup(catalog);
  const candidates = new Map<string, number>();
  for (const group of groups) {
    let taken = 0;
    for (const { tool, at } of members.get(group) ?? []) {
      if (taken >= MAX_RELATED) break;
      if (returnedNames.has(tool.name) || !visible(tool)) continue;
      taken += 1;
      const seen = candidates.get(tool.name);
      if (seen === undefined || at < seen) candidates.set(tool.name, at);
    }
  }
  return [...candidates].toSorted((a, b) => a[1] - b[1]).slice(0, MAX_RELATED).map(([name]) => name);
}

/**
 * Runs a search over `catalog` (the whole catalog the index was built on), filtered by `enabledGroups` at call time
 * (undefined = no gate). `limit` defaults to `config.maxSearchResults` (0 = unlimited).
 */
export function runSearchTools(
  params: SearchToolsParams,
  options: {
    catalog: readonly ToolDefinition[];
    index: SearchIndex;
    enabledGroups: readonly string[] | undefined;
    config: GatewayConfig;
  },
): SearchToolsResult {
  const { catalog, index, enabledGroups, config } = options;
  const { findable, everyTool } = visibilityOf(catalog, enabledGroups);
  // The index ranks only the first `offset + limit` (and counts the rest): a page never costs a full ranking.
  // A name the catalog lacks (index and catalog out of step) is skipped rather than invented; an index over this very
  // list ranks none (a common word's thousands of matches are not each looked up by name).
  const accept = everyTool && indexAnswersFor(index, catalog) ? isNotSearchTools : findable;
  const ranked = index.searchPage(params.query, searchPageLength(params, config), accept);
  return searchToolsAnswer(params, ranked, options);
}

/** How many names of the ranking a search's page needs: its offset and limit (Infinity: unlimited). */
export function searchPageLength(params: SearchToolsParams, config: GatewayConfig): number {
  const limit = params.limit ?? config.maxSearchResults;
  return limit === 0 ? Infinity : (params.offset ?? 0) + limit;
}

/**
 * The search_tools answer for a ranking's first names (`ranked`: searchPageLength of them, of the tools findable in
 * `catalog` as runSearchTools filters them), as runSearchTools gives it: a sharded search ranks elsewhere.
 */
export function searchToolsAnswer(
  params: SearchToolsParams,
  ranked: SearchPage,
  options: { catalog: readonly ToolDefinition[]; enabledGroups: readonly string[] | undefined; config: GatewayConfig },
): SearchToolsResult {
  const { catalog, enabledGroups, config } = options;
  const t = texts(config.locale);
  const named = toolNamed(catalog);
  const visible = visibilityOf(catalog, enabledGroups).shown;
  const offset = params.offset ?? 0;
  const total = ranked.total;
  const page: ToolDefinition[] = [];
  for (const name of ranked.names.slice(offset)) {
    const tool = named(name);
    if (tool) page.push(tool);
  }
  const returned = page.length;
  const nextOffset = offset + returned < total && returned > 0 ? offset + returned : undefined;

  let hint: string;
  if (total === 0) hint = t.hintNone(params.query);
  else if (returned === 0) hint = t.hintOffsetPastEnd(offset, total);
  else hint = t.hintFound(returned, total, nextOffset) + (config.enabled && config.toolList === "fixed" ? t.hintCallTool : "");

  const truncated = returned < total;
  const related = relatedNames(catalog, page, visible);
  // Spread in this order so that the JSON reads as documented: found, tools, pagination, related, hint.
  return {
    found: `${returned}/${total}`,
    tools: page.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })),
    ...(truncated ? { pagination: { total, offset, returned, ...(nextOffset === undefined ? {} : { nextOffset }) } } : {}),
    ...(related.length > 0 ? { related } : {}),
    hint,
  };
}
