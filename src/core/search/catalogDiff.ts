// What changed between two versions of a catalog, for an index that updates in place instead of rebuilding.
import type { ToolDefinition } from "../types.ts";
import { sameFieldTexts } from "./fields.ts";

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
  same: (held: ToolDefinition, tool: ToolDefinition) => boolean = sameFieldTexts,
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
