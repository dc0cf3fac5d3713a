// Registers a registry version's stored tools (JSON texts), reusing the definitions of the version before: a tool
// whose revision (the registry version that last wrote its text) did not change is registered as the definition it
// validated to (the same object: toolRegistry.ts keeps a definition a registry of the same locale stored), so that
// what is kept per definition object (token counts, compiled schemas, search index slots) carries over. No text is
// kept to compare with the next version's: within one registry epoch a revision names one text (the registry object
// gives a tool a new revision whenever its text changes, and keeps it when the same text is written again). A stored
// tool that comes without its text (the registry object leaves out the text of a tool the reader's previous version
// already had) is the previous version's tool. A version is read page by page (StoredToolsReader): each page's texts
// are validated into definitions and dropped before the next page is read, so that the texts are never held whole.
import { PagedRegistrySnapshot, type SnapshotTool } from "./registrySnapshot.ts";
import { validateForRegistry } from "./toolRegistry.ts";
import type { ToolRegistry } from "./toolRegistry.ts";
import type { Locale, ToolDefinition } from "../types.ts";

export interface StoredTool {
  name: string;
  /** The tool's stored JSON text; absent when the reader's previous version holds it unchanged (see `revision`). */
  definition?: string;
  context: string;
  /** The registry version that last wrote this tool (0: unknown, written before revisions were kept). */
  revision?: number;
}

/** What a version kept of one stored tool: the revision that wrote it, and the definition it validated to or why not. */
export type StoredDefinition =
  | { revision: number; definition: ToolDefinition }
  | { revision: number; error: unknown };

/**
 * Per stored tool name, what the next version compares with (a Map, or what registerStoredTools returns). Compare
 * only within the registry epoch it was read at: revisions start again in another one.
 */
export interface StoredDefinitions {
  get(name: string): StoredDefinition | undefined;
  /** How many stored tools the version had. */
  readonly size: number;
}

/**
 * The revision a definition was first registered from a stored tool at, set once: kept with the definition object,
 * which the next version's registry takes over as it is, so that a version's StoredDefinitions is its registry read
 * through this map, plus what differs (StoredVersion). Nothing is copied per unchanged tool from one version to the next.
 */
const firstStored = new WeakMap<ToolDefinition, Extract<StoredDefinition, { definition: ToolDefinition }>>();

/**
 * A version's StoredDefinitions: its own entries (the tools that did not validate, and the rare tool whose revision is
 * not what its definition was first stored with), else its registry's definition of the name as first stored. Never
 * changes once made.
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

/** One stored tool read: its definition (validated, or the previous version's) or why it did not validate. */
export type ReadStoredTool =
  | { name: string; context: string; revision: number; definition: ToolDefinition }
  | { name: string; context: string; revision: number; error: unknown };

/**
 * One page of stored tools read: each tool whose revision `previous` (of the same registry epoch) does not hold is
 * parsed and validated as a registry of `locale` stores it. Throws when a tool comes without its text and `previous`
 * does not hold it at that revision (missingTexts says so beforehand).
 */
export function readStoredPage(page: readonly StoredTool[], previous: StoredDefinitions, locale: Locale): ReadStoredTool[] {
  const read: ReadStoredTool[] = [];
  for (const { name, definition: text, context, revision = 0 } of page) {
    const previously = previous.get(name);
    // Within an epoch a revision names one text: the previous version's definition of it is this one's.
    if (previously?.revision === revision) {
      read.push({ name, context, ...previously });
      continue;
    }
    if (text === undefined) throw new Error(`stored tool "${name}" came without its text, which the previous version does not hold`);
    try {
      // The stored text is parsed into `unknown` and validated as register would (the definition it registers).
      read.push({ name, context, revision, definition: validateForRegistry(JSON.parse(text), locale) });
    } catch (error) {
      read.push({ name, context, revision, error });
    }
  }
  return read;
}

/**
 * A registry version's stored tools, read a page at a time (`add`): each tool whose revision `previous` does not hold
 * is parsed and validated as its page comes, and only its definition is kept; then registered whole, in the order
 * read (`register`). Memory: the definitions, and one page of texts while it is added.
 */
export class StoredToolsReader {
  readonly #previous: StoredDefinitions;
  readonly #locale: Locale;
  readonly #tools: ReadStoredTool[] = [];

  /** `previous`: what the version before kept, of the same registry epoch (an empty Map for none). */
  constructor(previous: StoredDefinitions, locale: Locale) {
    this.#previous = previous;
    this.#locale = locale;
  }

  /** The names of the stored tools added so far, in order. */
  get names(): string[] {
    return this.#tools.map((tool) => tool.name);
  }

  /**
   * Reads one page. Throws when a tool comes without its text and `previous` does not hold it at that revision
   * (missingTexts says so beforehand).
   */
  add(page: readonly StoredTool[]): void {
    for (const tool of readStoredPage(page, this.#previous, this.#locale)) this.#tools.push(tool);
  }

  /**
   * Registers every tool read, in order; a tool that does not validate is left out and reported to `skipped` (again on
   * every version it is stored in). Returns what the next version compares with, which reads `registry`: register
   * nothing more in it (a version's registry is replaced, never changed).
   */
  register(
    registry: ToolRegistry,
    skipped: (name: string, error: unknown) => void,
    /** The registry of the previous version: its entries of unchanged tools are taken over as they are. */
    previousRegistry?: ToolRegistry,
  ): StoredDefinitions {
    /** This version's own entries (StoredVersion): usually none. */
    const own = new Map<string, StoredDefinition>();
    const valid: Extract<ReadStoredTool, { definition: ToolDefinition }>[] = [];
    for (const tool of this.#tools) {
      if ("error" in tool) {
        skipped(tool.name, tool.error);
        own.set(tool.name, { revision: tool.revision, error: tool.error });
      } else valid.push(tool);
    }
    const tools = valid.map(({ definition, context }) => ({ tool: definition, contextId: context }));
    registry.registerEach(tools, (index, error) => {
      const tool = valid[index];
      if (tool === undefined) return;
      skipped(tool.name, error);
      own.set(tool.name, { revision: tool.revision, error });
    }, previousRegistry).forEach((definition, index) => {
      const tool = valid[index];
      if (!definition || !tool) return;
      const first = firstStored.get(definition);
      if (first === undefined) firstStored.set(definition, { revision: tool.revision, definition });
      else if (first.revision !== tool.revision) own.set(tool.name, { revision: tool.revision, definition });
    });
    return new StoredVersion(registry, own, this.#tools.length);
  }
}

/**
 * A registry version's stored tools read a page at a time straight into its snapshot (PagedRegistrySnapshot, which a
 * registry is then read from): each page validated, its definitions written into the snapshot's bytes and let go;
 * what did not validate kept for the snapshot's skipped tools. For a reader that holds no version yet (every text comes).
 */
export class StoredToolsSnapshot {
  readonly snapshot = new PagedRegistrySnapshot();
  readonly skipped: { name: string; revision: number; error: unknown }[] = [];
  readonly #locale: Locale;

  constructor(locale: Locale) {
    this.#locale = locale;
  }

  add(page: readonly StoredTool[]): void {
    const valid: SnapshotTool[] = [];
    for (const tool of readStoredPage(page, new Map(), this.#locale)) {
      if ("error" in tool) this.skipped.push({ name: tool.name, revision: tool.revision, error: tool.error });
      else valid.push({ definition: tool.definition, context: tool.context, revision: tool.revision });
    }
    this.snapshot.add(valid);
  }
}

/**
 * Registers `stored` in `registry` (each tool validated, unless `previous` holds it at its revision, or it came
 * without its text): StoredToolsReader with one page. Throws when a tool comes without its text and `previous` does
 * not hold it.
 */
export function registerStoredTools(
  registry: ToolRegistry,
  stored: readonly StoredTool[],
  previous: StoredDefinitions,
  skipped: (name: string, error: unknown) => void,
  previousRegistry?: ToolRegistry,
): StoredDefinitions {
  const reader = new StoredToolsReader(previous, registry.locale);
  reader.add(stored);
  return reader.register(registry, skipped, previousRegistry);
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
 * revision that wrote them, looked up in the snapshot's table when asked for. The next version is then read as after
 * any other: a tool at the same revision is this version's; one written since is validated again.
 */
class SnapshotStoredVersion implements StoredDefinitions {
  readonly #table: StoredTable;
  readonly #skipped: ReadonlyMap<string, StoredDefinition>;
  #size: number | undefined;

  constructor(table: StoredTable, skipped: readonly { name: string; revision: number; error: string }[]) {
    this.#table = table;
    this.#skipped = new Map(skipped.map(({ name, revision, error }) => [name, { revision, error: new Error(error) }]));
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
      const stored = { revision, definition };
      firstStored.set(definition, stored);
      return stored;
    }
    return first.revision === revision ? first : { revision, definition };
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
