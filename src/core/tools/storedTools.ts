// Registers a registry version's stored tools (JSON texts), reusing the definitions of the version before: a tool
// whose stored text did not change is registered as the definition it validated to (the same object: toolRegistry.ts
// keeps a definition a registry of the same locale stored), so that what is kept per definition object (token counts,
// compiled schemas, search index slots) carries over. A stored tool that comes without its text (the registry object
// leaves out the text of a tool the reader's previous version already had: `revision` not newer than that version) is
// the previous version's tool, with no text to read or compare at all.
import type { ToolRegistry } from "./toolRegistry.ts";
import type { ToolDefinition } from "../types.ts";

export interface StoredTool {
  name: string;
  /** The tool's stored JSON text; absent when the reader's previous version holds it unchanged (see `revision`). */
  definition?: string;
  context: string;
  /** The registry version that last wrote this tool (0: unknown, written before revisions were kept). */
  revision?: number;
}

/** What a version kept of one stored tool: its text, and the definition it validated to or why it did not. */
export type StoredDefinition =
  | { text: string; revision: number; definition: ToolDefinition }
  | { text: string; revision: number; error: unknown };

/** Per stored tool name, what the next version compares with (a Map, or what registerStoredTools returns). */
export interface StoredDefinitions {
  get(name: string): StoredDefinition | undefined;
  /** How many stored tools the version had. */
  readonly size: number;
}

/**
 * What was stored for a definition when it was first registered from a stored tool (its text, the revision that wrote
 * it), set once: kept with the definition object, which the next version's registry takes over as it is, so that a
 * version's StoredDefinitions is its registry read through this map, plus what differs (StoredVersion). Nothing is
 * copied per unchanged tool from one version to the next.
 */
const firstStored = new WeakMap<ToolDefinition, Extract<StoredDefinition, { definition: ToolDefinition }>>();

/**
 * A version's StoredDefinitions: its own entries (the tools that did not validate, and the rare tool whose text or
 * revision is not what its definition was first stored with: the same text written again), else its registry's
 * definition of the name as first stored. Never changes once made.
 */
class StoredVersion implements StoredDefinitions {
  readonly #registry: ToolRegistry;
  readonly #own: ReadonlyMap<string, StoredDefinition>;
  readonly size: number;

  constructor(registry: ToolRegistry, own: ReadonlyMap<string, StoredDefinition>, size: number) {
    this.#registry = registry;
    this.#own = own;
    this.size = size;
  }

  get(name: string): StoredDefinition | undefined {
    const own = this.#own.get(name);
    if (own !== undefined) return own;
    const definition = this.#registry.get(name)?.definition;
    return definition === undefined ? undefined : firstStored.get(definition);
  }
}

/**
 * The names of `stored` that come without their text and that `previous` does not hold at that revision: a reader
 * must then read the texts in full (its previous version is not the one the registry object took it for).
 */
export function missingTexts(stored: readonly StoredTool[], previous: StoredDefinitions): string[] {
  const missing: string[] = [];
  for (const { name, definition, revision } of stored) {
    if (definition !== undefined) continue;
    if (previous.get(name)?.revision !== (revision ?? 0)) missing.push(name);
  }
  return missing;
}

/**
 * Registers `stored` in `registry` (each tool validated, unless `previous` holds its text, or it came without one); a
 * tool that does not validate is left out and reported to `skipped` (again on every version it is stored in). Returns
 * what the next version compares with, which reads `registry`: register nothing more in it (a version's registry is
 * replaced, never changed). Throws when a tool comes without its text and `previous` does not hold it (missingTexts
 * says so beforehand).
 */
export function registerStoredTools(
  registry: ToolRegistry,
  stored: readonly StoredTool[],
  previous: StoredDefinitions,
  skipped: (name: string, error: unknown) => void,
  /** The registry of the previous version: its entries of unchanged tools are taken over as they are. */
  previousRegistry?: ToolRegistry,
): StoredDefinitions {
  /** This version's own entries (StoredVersion): usually none. */
  const own = new Map<string, StoredDefinition>();
  const tools: { tool: unknown; contextId: string }[] = [];
  /** Per tool registered, its name and what is kept of it once registered. */
  const pending: { name: string; text: string; revision: number; same: StoredDefinition | undefined }[] = [];
  for (const { name, definition: text, context, revision = 0 } of stored) {
    const previously = previous.get(name);
    // Without its text, a tool is the previous version's only at the same revision (missingTexts checks the same).
    const same = text === undefined ? (previously?.revision === revision ? previously : undefined)
      : previously?.text === text ? previously : undefined;
    if (same === undefined && text === undefined) throw new Error(`stored tool "${name}" came without its text, which the previous version does not hold`);
    if (same !== undefined && "error" in same) {
      skipped(name, same.error);
      own.set(name, { ...same, revision });
      continue;
    }
    let tool: unknown;
    if (same) tool = same.definition;
    else {
      // register validates what it is given, so the stored text is parsed into `unknown` and checked there.
      const fresh = text ?? "";
      try {
        tool = JSON.parse(fresh);
      } catch (error) {
        skipped(name, error);
        own.set(name, { text: fresh, revision, error });
        continue;
      }
    }
    pending.push({ name, text: same?.text ?? text ?? "", revision, same });
    tools.push({ tool, contextId: context });
  }
  const failures = new Map<number, unknown>();
  registry.registerEach(tools, (index, error) => {
    failures.set(index, error);
    skipped(pending[index]?.name ?? "", error);
  }, previousRegistry).forEach((definition, index) => {
    const entry = pending[index];
    if (!entry) return;
    const { name, text, revision, same } = entry;
    if (!definition) {
      own.set(name, { text, revision, error: failures.get(index) });
      return;
    }
    const first = firstStored.get(definition);
    if (first === undefined) firstStored.set(definition, { text, revision, definition });
    else if (first.text !== text || first.revision !== revision) own.set(name, same !== undefined && same.revision === revision && same.text === text ? same : { text, revision, definition });
  });
  return new StoredVersion(registry, own, stored.length);
}

/** A snapshot's stored tools by row (registrySnapshot.ts, SnapshotTools): read by name, nothing per tool up front. */
export interface StoredTable {
  readonly definitions: readonly ToolDefinition[];
  rowOf(name: string): number;
  /** The registry version that wrote row's stored tool; -1 for one that is not stored (the demo catalog). */
  revisionOf(row: number): number;
}

/**
 * The StoredDefinitions of a registry read from a snapshot (registrySnapshot.ts): its stored tools by name and the
 * revision that wrote them, with no text (a snapshot holds definitions, not the stored texts), looked up in the
 * snapshot's table when asked for. The next version is then read as after any other: a tool that comes without its
 * text is this version's at the same revision; one that comes with its text (written since) is validated again, as no
 * text equals the empty one kept here.
 */
class SnapshotStoredVersion implements StoredDefinitions {
  readonly #table: StoredTable;
  readonly #skipped: ReadonlyMap<string, StoredDefinition>;
  #size: number | undefined;

  constructor(table: StoredTable, skipped: readonly { name: string; revision: number; error: string }[]) {
    this.#table = table;
    this.#skipped = new Map(skipped.map(({ name, revision, error }) => [name, { text: "", revision, error: new Error(error) }]));
  }

  get size(): number {
    if (this.#size === undefined) {
      let stored = 0;
      for (let row = 0; row < this.#table.definitions.length; row++) if (this.#table.revisionOf(row) >= 0) stored++;
      this.#size = stored + this.#skipped.size;
    }
    return this.#size;
  }

  get(name: string): StoredDefinition | undefined {
    const skipped = this.#skipped.get(name);
    if (skipped !== undefined) return skipped;
    const row = this.#table.rowOf(name);
    const revision = row === -1 ? -1 : this.#table.revisionOf(row);
    const definition = this.#table.definitions[row];
    if (revision < 0 || definition === undefined) return undefined;
    const first = firstStored.get(definition);
    if (first === undefined) {
      const stored = { text: "", revision, definition };
      firstStored.set(definition, stored);
      return stored;
    }
    return first.revision === revision && first.text === "" ? first : { text: "", revision, definition };
  }
}

/** The StoredDefinitions of a registry read from a snapshot's `table` (and the stored tools it skipped). */
export function storedFromSnapshot(table: StoredTable, skipped: readonly { name: string; revision: number; error: string }[]): StoredDefinitions {
  return new SnapshotStoredVersion(table, skipped);
}

/** The tools a version skipped (stored, but not valid any more), with the revision that wrote them and why. */
export function skippedTools(stored: StoredDefinitions, names: Iterable<string>): { name: string; revision: number; error: string }[] {
  const skipped: { name: string; revision: number; error: string }[] = [];
  for (const name of names) {
    const entry = stored.get(name);
    if (entry !== undefined && "error" in entry) {
      skipped.push({ name, revision: entry.revision, error: entry.error instanceof Error ? entry.error.message : String(entry.error) });
    }
  }
  return skipped;
}
