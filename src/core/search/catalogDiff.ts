// What changed between two versions of a catalog, for an index that updates in place instead of rebuilding.
import { isRecord } from "../records.ts";
import type { ToolDefinition } from "../types.ts";

/** Whether two JSON-like values are equal (objects by their own keys, arrays in order); allocates nothing. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b) || !isRecord(a) || !isRecord(b)) return false;
  let keys = 0;
  for (const key in a) {
    if (!Object.hasOwn(a, key)) continue;
    if (!Object.hasOwn(b, key) || !sameJson(a[key], b[key])) return false;
    keys++;
  }
  for (const key in b) if (Object.hasOwn(b, key)) keys--;
  return keys === 0;
}

/** Whether an index built on `a` can stand for `b`: the same object, or the same indexed content. */
export function sameIndexedTool(a: ToolDefinition, b: ToolDefinition): boolean {
  return (
    a === b ||
    (a.name === b.name && a.description === b.description && sameJson(a.groups ?? [], b.groups ?? []) && sameJson(a.parameters, b.parameters))
  );
}

export interface CatalogDiff {
  /** Per tool of the new catalog: the slot that holds it already, or -1 (to be added). */
  slotOfNew: Int32Array;
  /** Slots whose tools the new catalog no longer holds (removed, or replaced by another version). */
  removed: number[];
  added: number;
}

/**
 * Matches a new catalog against the tools an index holds (`slots`: slot → tool, undefined for a free slot), by name.
 * Undefined when names repeat in either (then an index is rebuilt, not patched).
 */
export function diffCatalog(slots: readonly (ToolDefinition | undefined)[], next: readonly ToolDefinition[]): CatalogDiff | undefined {
  const slotByName = new Map<string, number>();
  for (let slot = 0; slot < slots.length; slot++) {
    const tool = slots[slot];
    if (tool === undefined) continue;
    if (slotByName.has(tool.name)) return undefined;
    slotByName.set(tool.name, slot);
  }
  const slotOfNew = new Int32Array(next.length).fill(-1);
  const kept = new Set<number>();
  const names = new Set<string>();
  let added = 0;
  next.forEach((tool, i) => {
    names.add(tool.name);
    const slot = slotByName.get(tool.name);
    const held = slot === undefined ? undefined : slots[slot];
    if (slot !== undefined && held !== undefined && sameIndexedTool(held, tool)) {
      slotOfNew[i] = slot;
      kept.add(slot);
    } else added++;
  });
  if (names.size !== next.length) return undefined;
  const removed: number[] = [];
  for (const slot of slotByName.values()) if (!kept.has(slot)) removed.push(slot);
  return { slotOfNew, removed, added };
}
