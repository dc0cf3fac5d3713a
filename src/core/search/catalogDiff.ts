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
 * Matches a new catalog against the tools an index holds, by name: `slotByName` maps each held tool's name (names
 * unique) to its slot, `slots` each slot to its tool; `same` tells whether a held tool stands for a new one (an index
 * that reads fewer fields compares fewer). Undefined when the new catalog repeats a name (then an index is rebuilt,
 * not patched).
 */
export function diffCatalog(
  slotByName: ReadonlyMap<string, number>,
  slots: readonly (ToolDefinition | undefined)[],
  next: readonly ToolDefinition[],
  same: (held: ToolDefinition, tool: ToolDefinition) => boolean = sameIndexedTool,
): CatalogDiff | undefined {
  const slotOfNew = new Int32Array(next.length).fill(-1);
  /** 1 for a slot whose name the new catalog holds, 2 when it holds that tool unchanged. */
  const claimed = new Uint8Array(slots.length);
  const newNames = new Set<string>();
  let added = 0;
  for (let i = 0; i < next.length; i++) {
    const tool = next[i];
    if (tool === undefined) continue;
    const slot = slotByName.get(tool.name);
    if (slot === undefined) {
      if (newNames.has(tool.name)) return undefined;
      newNames.add(tool.name);
      added++;
      continue;
    }
    if (claimed[slot] !== 0) return undefined;
    const held = slots[slot];
    if (held !== undefined && same(held, tool)) {
      claimed[slot] = 2;
      slotOfNew[i] = slot;
    } else {
      claimed[slot] = 1;
      added++;
    }
  }
  const removed: number[] = [];
  for (const slot of slotByName.values()) if (claimed[slot] !== 2) removed.push(slot);
  return { slotOfNew, removed, added };
}
