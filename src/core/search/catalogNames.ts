// The names of a catalog's tools in order, as a reader already holds them: a registry snapshot's definitions are
// made from a list of their names (definitionTable.ts), which an index over that very array takes as it is rather
// than copying every name out of 10,000 definitions on a cold isolate's first request.
import type { ToolDefinition } from "../types.ts";

const namesByCatalog = new WeakMap<readonly ToolDefinition[], readonly string[]>();

/** Says that `names` are the names of `tools`, in order (neither changes afterwards: both frozen). */
export function rememberCatalogNames(tools: readonly ToolDefinition[], names: readonly string[]): void {
  if (names.length === tools.length && Object.isFrozen(tools) && Object.isFrozen(names)) namesByCatalog.set(tools, names);
}

/** The names of `tools`, in order: the list remembered for that very array, else one made now (never to be changed). */
export function catalogNames(tools: readonly ToolDefinition[]): readonly string[] {
  return namesByCatalog.get(tools) ?? tools.map((tool) => tool.name);
}
