// What a caller may learn of a catalog is what its groups show, and nothing else: the tools it sees, each naming only
// the groups the caller holds. Everything a caller receives (search pages and their order, auto-discovered tools,
// related names, suggestions, tool lists) is computed over this view, so that it is the same whether or not tools
// and groups outside the caller's exist: a search index built over the whole catalog would let hidden tools move the
// ranking (a rare word shared by two hidden tools weighs less), and a multi-group tool would name groups the caller
// does not hold.
import type { ToolDefinition } from "../types.ts";

/** Group lists whose view a catalog keeps; callers' tokens repeat a few lists. */
const VIEWS_PER_CATALOG = 32;

/** The groups of a catalog's tools, once per catalog array. */
const catalogGroups = new WeakMap<readonly ToolDefinition[], ReadonlySet<string>>();
/** Each catalog's views, by viewKey. */
const views = new WeakMap<readonly ToolDefinition[], Map<string, readonly ToolDefinition[]>>();
/** A tool's copies naming fewer groups, by the groups they name: the same copy for every view that cuts it alike. */
const cutCopies = new WeakMap<ToolDefinition, Map<string, ToolDefinition>>();

function groupsOf(catalog: readonly ToolDefinition[]): ReadonlySet<string> {
  let groups = catalogGroups.get(catalog);
  if (groups === undefined) {
    const found = new Set<string>();
    for (const tool of catalog) for (const group of tool.groups ?? []) found.add(group);
    groups = found;
    catalogGroups.set(catalog, groups);
  }
  return groups;
}

/**
 * The view's identity within `catalog`: "" without a gate (undefined: every tool as it is), "*" for every group,
 * else the enabled groups the catalog has, sorted. Two group lists with the same key see the same view (a group no
 * tool has changes nothing), so caches keyed by it (the search indexes) are shared between them.
 */
export function viewKey(catalog: readonly ToolDefinition[], enabled: readonly string[] | undefined): string {
  if (enabled === undefined) return "";
  if (enabled.includes("*")) return "*";
  const present = groupsOf(catalog);
  // JSON: no two lists of names share a key, whatever characters the names hold.
  return JSON.stringify([...new Set(enabled.filter((group) => present.has(group)))].toSorted());
}

/** `tool` as a caller holding `enabled` sees it (undefined when it may not): only the groups the caller holds. */
export function toolAsSeen(tool: ToolDefinition, enabled: readonly string[] | undefined): ToolDefinition | undefined {
  const groups = tool.groups;
  if (groups === undefined || groups.length === 0 || enabled === undefined || enabled.includes("*")) return tool;
  const held = groups.filter((group) => enabled.includes(group));
  if (held.length === 0) return undefined;
  if (held.length === groups.length) return tool;
  let copies = cutCopies.get(tool);
  if (copies === undefined) {
    copies = new Map();
    cutCopies.set(tool, copies);
  }
  const key = JSON.stringify(held);
  let copy = copies.get(key);
  if (copy === undefined) {
    Object.freeze(held);
    copy = Object.freeze({ ...tool, groups: held });
    copies.set(key, copy);
  }
  return copy;
}

/**
 * The tools of `catalog` a caller holding `enabled` sees (undefined: no gate, the catalog itself), in catalog order,
 * each as toolAsSeen gives it. The same frozen array for the same view of the same catalog array.
 */
export function visibleCatalog(catalog: readonly ToolDefinition[], enabled: readonly string[] | undefined): readonly ToolDefinition[] {
  const key = viewKey(catalog, enabled);
  if (key === "" || key === "*") return catalog;
  let byKey = views.get(catalog);
  if (byKey === undefined) {
    byKey = new Map();
    views.set(catalog, byKey);
  }
  const kept = byKey.get(key);
  if (kept !== undefined) return kept;
  const seen: ToolDefinition[] = [];
  for (const tool of catalog) {
    const shown = toolAsSeen(tool, enabled);
    if (shown !== undefined) seen.push(shown);
  }
  if (byKey.size >= VIEWS_PER_CATALOG) byKey.clear();
  const view = Object.freeze(seen);
  byKey.set(key, view);
  return view;
}
