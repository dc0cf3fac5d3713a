// The tool registry (docs/DESIGN.md, "Flows" and "The guard"): one map name → entry, disposers, group gate, one execution guard.
import { texts } from "../locale.ts";
import type { Texts } from "../locale.ts";
import { isRecord } from "../records.ts";
import { validateArguments } from "./arguments.ts";
import { ToolDefinitionError, validateToolDefinition } from "./definition.ts";
import { toolAsSeen } from "./visibleCatalog.ts";
import { SignInRequiredError } from "../upstream/signIn.ts";
import type {
  ExecutionGuard, ExecutorRunner, GuardDecision, Locale, Logger, RegisteredTool, ToolCallContext, ToolDefinition,
  ToolHandler, ToolOutcome, ToolResult, ToolSummary,
} from "../types.ts";

export interface RegistryOptions {
  logger?: Logger;
  /** Runs tools that have an `executor` and no handler. Without it, such tools answer a tool error. */
  runner?: ExecutorRunner;
  locale?: Locale;
}

export interface GroupFilter {
  /** Enabled groups: ungrouped tools always pass; `'*'` enables every group; absent or empty → ungrouped only. */
  groups?: readonly string[];
}

/** The group gate: may a tool with these groups be seen (and run) when `enabled` groups are on? */
export function isVisible(toolGroups: readonly string[] | undefined, enabled: readonly string[] | undefined): boolean {
  if (!toolGroups || toolGroups.length === 0) return true;
  if (!enabled || enabled.length === 0) return false;
  return enabled.includes("*") || toolGroups.some((group) => enabled.includes(group));
}

/** Group lists whose definitions a registry keeps (getDefinitions); callers' tokens repeat a few lists. */
const DEFINITION_LISTS_KEPT = 32;
/** getDefinitions' key of the list every group sees ({ groups: ["*"] }). */
const EVERY_GROUP_KEY = JSON.stringify(["*"]);

/** At most this many "did you mean" names. */
export const MAX_SUGGESTIONS = 3;
/** The longest name echoed back in an unknown-tool answer (registered names have at most 64 characters). */
const MAX_ECHOED_NAME = 100;
/** The longest handler error message handed to the model. */
const MAX_FAILURE_MESSAGE = 500;

/** Levenshtein distance, or `limit + 1` as soon as it must exceed `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowBest = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      current.push(value);
      rowBest = Math.min(rowBest, value);
    }
    if (rowBest > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length] ?? limit + 1;
}

/**
 * "Did you mean" names for `name`, drawn only from `pool` (the caller passes the names it may show): close by edit
 * distance (case-insensitive, at most a third of the name's length) or containing / contained in it (3+ characters).
 * Best first, then alphabetical; at most `max`.
 */
export function suggestNames(name: string, pool: Iterable<string>, max = MAX_SUGGESTIONS): string[] {
  const query = name.toLowerCase().slice(0, 64);
  if (query === "" || max <= 0) return [];
  const limit = Math.max(1, Math.min(3, Math.floor(query.length / 3)));
  const scored: { name: string; score: number }[] = [];
  for (const candidate of pool) {
    const lower = candidate.toLowerCase();
    const distance = editDistance(query, lower, limit);
    let score: number | undefined;
    if (distance <= limit) score = distance;
    else if (query.length >= 3 && lower.length >= 3 && (lower.includes(query) || query.includes(lower))) {
      // After every close spelling; shorter differences first.
      score = limit + 1 + Math.abs(lower.length - query.length) / 1_000;
    }
    if (score !== undefined) scored.push({ name: candidate, score });
  }
  scored.sort((x, y) => x.score - y.score || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  return scored.slice(0, max).map((s) => s.name);
}

/** A failed call's result, as every failure reads: `{"error": text}` with isError. */
export function errorResult(text: string): ToolResult {
  return { content: JSON.stringify({ error: text }), isError: true };
}

function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > MAX_FAILURE_MESSAGE ? `${message.slice(0, MAX_FAILURE_MESSAGE)}…` : message;
}

function isGuardDecision(value: unknown): value is GuardDecision {
  if (typeof value !== "object" || value === null) return false;
  const decision = value as { kind?: unknown; reason?: unknown; request?: unknown };
  if (decision.kind === "allow") return true;
  if (decision.kind === "deny") return typeof decision.reason === "string";
  return decision.kind === "confirm" && typeof decision.request === "object" && decision.request !== null;
}

/** Freezes `value` and everything it holds (stops at what is frozen already). */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * Definitions a registry validated and froze, with the locale they were cleaned for: registering one of them again
 * (a registry rebuilt for a new version of the same stored tools) keeps the same object, so that what is kept per
 * definition object (token counts, compiled schemas, search index slots) holds for it too. Frozen, so unchanged.
 */
const validatedFor = new WeakMap<object, { locale: Locale; definition: ToolDefinition }>();

/** The definition a registry of `locale` would store for `tool`: `tool` itself when one already validated it. */
function validated(tool: unknown, locale: Locale): ToolDefinition {
  if (typeof tool === "object" && tool !== null) {
    const known = validatedFor.get(tool);
    if (known?.locale === locale) return known.definition;
  }
  return validateToolDefinition(tool, { locale });
}

/**
 * `tool` validated as a registry of `locale` stores it (frozen), and known as such: registering it later in a registry
 * of that locale keeps it as it is, without validating it again. Throws ToolDefinitionError.
 */
export function validateForRegistry(tool: unknown, locale: Locale): ToolDefinition {
  const definition = deepFreeze(validated(tool, locale));
  if (validatedFor.get(definition)?.locale !== locale) validatedFor.set(definition, { locale, definition });
  return definition;
}

/** Per catalog array a registry listed from a table (registerTable): its tools by name, without a map of every name. */
const tableLookups = new WeakMap<readonly ToolDefinition[], (name: string) => ToolDefinition | undefined>();

/**
 * The tool named `name` in `catalog` (its first of that name), when the catalog is a registry's list of every tool
 * read from a table (a cold isolate's snapshot); undefined when it knows no such lookup (the caller maps the names).
 */
export function catalogNameLookup(catalog: readonly ToolDefinition[]): ((name: string) => ToolDefinition | undefined) | undefined {
  return tableLookups.get(catalog);
}

interface Entry {
  tool: RegisteredTool;
  /** Tells this registration from a later one of the same name, so that a stale disposer does nothing. */
  token: number;
}

/**
 * Tools a registry of this locale validated before, as a registry snapshot holds them (registrySnapshot.ts): read by
 * row when first asked for, rather than copied into an entry per tool up front (a cold isolate's first request asks
 * for a page of them, or the one it calls).
 */
export interface ValidatedTable {
  /** Every tool, in registry order, names unique (frozen). */
  readonly definitions: readonly ToolDefinition[];
  contextOf(row: number): string;
  /** The row of the tool named `name`, or -1: found without a pass over every name. */
  rowOf(name: string): number;
}

/** A table registered whole, before any change: its entries made on first use (`entries[row]`). */
interface TableBase {
  table: ValidatedTable;
  entries: (Entry | undefined)[];
  /** The token of row 0's entry (row r's is firstToken + r). */
  firstToken: number;
}

export class ToolRegistry {
  /** Every entry but those of `#base` (all of them once #thaw ran). */
  readonly #entries = new Map<string, Entry>();
  /** A table registered whole (registerTable) and not changed since: its entries are read from it by row. */
  #base: TableBase | undefined;
  /** whenListed's callbacks by getDefinitions key, dropped on every change of the entries. */
  readonly #onListed = new Map<string, (definitions: readonly ToolDefinition[]) => void>();
  /** getDefinitions' answers by groups list, emptied on every change of the entries. */
  readonly #definitionsByGroups = new Map<string, readonly ToolDefinition[]>();
  readonly #logger: Logger;
  readonly #runner: ExecutorRunner | undefined;
  readonly #locale: Locale;
  readonly #texts: Texts;
  #guard: ExecutionGuard | undefined;
  #version = 0;
  #nextToken = 1;

  constructor(options: RegistryOptions = {}) {
    this.#logger = options.logger ?? console;
    this.#runner = options.runner;
    this.#locale = options.locale ?? "en";
    this.#texts = texts(this.#locale);
  }

  /** The locale its definitions are validated for. */
  get locale(): Locale {
    return this.#locale;
  }

  /** Grows by one on every change; search indexes are cached per version. */
  get version(): number {
    return this.#version;
  }

  get size(): number {
    return this.#base === undefined ? this.#entries.size : this.#base.table.definitions.length;
  }

  /**
   * Validates and registers; returns a disposer that removes this registration only. Throws ToolDefinitionError.
   * The stored definition is a frozen clean copy (a definition this or another registry of the same locale stored is
   * that copy already, and is kept as it is). Re-registering a name replaces the entry in place (same position in
   * `list()`), logs a warning, and moves the name to the new context.
   */
  register(tool: unknown, contextId: string, handler?: ToolHandler): () => void {
    if (handler !== undefined && typeof handler !== "function") throw new ToolDefinitionError("handler", "must be a function");
    const definition = validated(tool, this.#locale);
    const replaced = this.#put(definition, contextId, handler);
    if (replaced) this.#warnReplaced([replaced], contextId);
    this.#version++;
    return this.#disposerFor([definition.name]);
  }

  /**
   * Registers each tool on its own: one that does not validate is left out and reported to `skipped` (with its
   * index), the others stay. No disposers (the bulk path of a registry built from stored tools, whose tools are
   * only ever replaced by a new registry). Returns each tool's stored definition, undefined for a skipped one.
   */
  registerEach(
    tools: readonly { tool: unknown; contextId: string }[],
    skipped: (index: number, error: unknown) => void,
    from?: ToolRegistry,
  ): (ToolDefinition | undefined)[] {
    // A tool that `from` (a registry of the same locale) holds as this very definition, in the same context and with
    // no handler, is taken over with its entry as it is: no validation, no copy (the registry of a new version of the
    // same stored tools registers thousands of unchanged ones). Tokens stay unique: this registry's next ones follow
    // from's, and a name this registry already holds goes the usual way.
    let adoptable: ToolRegistry | undefined;
    if (from !== undefined && from !== this && from.#locale === this.#locale) {
      adoptable = from;
      this.#nextToken = Math.max(this.#nextToken, from.#nextToken);
    }
    this.#thaw();
    const stored = tools.map(({ tool, contextId }, index) => {
      if (adoptable !== undefined && typeof tool === "object" && tool !== null && "name" in tool && typeof tool.name === "string") {
        const held = adoptable.#entryOf(tool.name);
        if (held !== undefined && held.tool.definition === tool && held.tool.contextId === contextId && held.tool.handler === undefined && !this.#entries.has(tool.name)) {
          this.#store(held);
          return held.tool.definition;
        }
      }
      let definition: ToolDefinition;
      try {
        definition = validated(tool, this.#locale);
      } catch (error) {
        skipped(index, error);
        return undefined;
      }
      const replaced = this.#put(definition, contextId, undefined);
      if (replaced) this.#warnReplaced([replaced], contextId);
      return definition;
    });
    if (tools.length > 0) this.#version++;
    return stored;
  }

  /**
   * Registers a table of definitions a registry of this locale validated before (a registry snapshot's) into an empty
   * registry, as registerEach would, without a pass over them: each tool's entry is made when first asked for
   * (get, execute), and every entry on the first change or listing of entries (list, dispose, a registration).
   */
  registerTable(table: ValidatedTable): void {
    if (this.#entries.size > 0 || this.#base !== undefined) throw new Error("registerTable needs an empty registry");
    const count = table.definitions.length;
    if (count === 0) return;
    this.#base = { table, entries: [], firstToken: this.#nextToken };
    this.#nextToken += count;
    this.#version++;
    this.#definitionsByGroups.clear();
    this.#definitionsByGroups.set(EVERY_GROUP_KEY, table.definitions);
    const { definitions } = table;
    tableLookups.set(definitions, (name) => {
      const row = table.rowOf(name);
      return row === -1 ? undefined : definitions[row];
    });
  }

  /** The entry of `name`, made from the base table on first use. */
  #entryOf(name: string): Entry | undefined {
    const base = this.#base;
    if (base === undefined) return this.#entries.get(name);
    const row = base.table.rowOf(name);
    return row === -1 ? undefined : this.#baseEntry(base, row);
  }

  #baseEntry(base: TableBase, row: number): Entry {
    let entry = base.entries[row];
    if (entry === undefined) {
      const definition = base.table.definitions[row];
      if (definition === undefined) throw new Error(`no row ${row} in the registry's table`);
      if (validatedFor.get(definition)?.locale !== this.#locale) validatedFor.set(definition, { locale: this.#locale, definition });
      entry = { tool: Object.freeze({ definition, contextId: base.table.contextOf(row) }), token: base.firstToken + row };
      base.entries[row] = entry;
    }
    return entry;
  }

  /** Makes every entry of the base table, in order (before the first change or listing of entries). */
  #thaw(): void {
    const base = this.#base;
    if (base === undefined) return;
    this.#base = undefined;
    for (let row = 0; row < base.table.definitions.length; row++) {
      const entry = this.#baseEntry(base, row);
      this.#entries.set(entry.tool.definition.name, entry);
    }
  }

  /** Calls `each` with every definition, in registry order (the base table's without making its entries). */
  #forEachDefinition(each: (definition: ToolDefinition) => void): void {
    if (this.#base !== undefined) for (const definition of this.#base.table.definitions) each(definition);
    else for (const { tool } of this.#entries.values()) each(tool.definition);
  }

  /** All or nothing: validates every tool first. Returns one disposer for all of them. */
  registerMany(tools: readonly unknown[], contextId: string): () => void {
    const definitions: ToolDefinition[] = [];
    const seen = new Set<string>();
    tools.forEach((tool, index) => {
      let definition: ToolDefinition;
      try {
        definition = validated(tool, this.#locale);
      } catch (error) {
        if (error instanceof ToolDefinitionError) {
          const field = error.field === "tool" ? `tools[${index}]`
            : `tools[${index}]${error.field.startsWith("[") ? "" : "."}${error.field}`;
          throw new ToolDefinitionError(field, error.problem);
        }
        throw error;
      }
      if (seen.has(definition.name)) throw new ToolDefinitionError(`tools[${index}].name`, `"${definition.name}" appears twice in this batch`);
      seen.add(definition.name);
      definitions.push(definition);
    });
    const replaced: RegisteredTool[] = [];
    for (const definition of definitions) {
      const previous = this.#put(definition, contextId, undefined);
      if (previous) replaced.push(previous);
    }
    if (replaced.length > 0) this.#warnReplaced(replaced, contextId);
    if (definitions.length > 0) this.#version++;
    return this.#disposerFor(definitions.map((d) => d.name));
  }

  unregister(name: string): boolean {
    this.#thaw();
    if (!this.#entries.has(name)) return false;
    this.#remove(name);
    this.#version++;
    return true;
  }

  /**
   * Removes every tool the context registered; returns how many. One pass over the entries: disposing is rare, and an
   * index of names per context cost every registration (10,000 per registry version built from stored tools).
   */
  dispose(contextId: string): number {
    this.#thaw();
    let removed = 0;
    // Deleting from a Map while iterating it is well defined: every remaining entry is still visited.
    for (const [name, entry] of this.#entries) {
      if (entry.tool.contextId !== contextId) continue;
      this.#remove(name);
      removed++;
    }
    if (removed > 0) this.#version++;
    return removed;
  }

  get(name: string): RegisteredTool | undefined {
    return this.#entryOf(name)?.tool;
  }

  /** Every entry, in registry order. */
  list(): RegisteredTool[] {
    this.#thaw();
    return [...this.#entries.values()].map((entry) => entry.tool);
  }

  /**
   * The definitions a caller with these groups sees, in registration order, each naming only the groups the caller
   * holds (visibleCatalog.ts). The same (frozen) array for the same groups until the registry changes, so that what
   * is kept per catalog array (name maps, token sums, name lists) is found again on the next request.
   */
  getDefinitions(filter: GroupFilter = {}): readonly ToolDefinition[] {
    const key = filter.groups === undefined ? "" : JSON.stringify(filter.groups);
    const kept = this.#definitionsByGroups.get(key);
    if (kept) return kept;
    const definitions: ToolDefinition[] = [];
    this.#forEachDefinition((definition) => {
      // No groups enable nothing: ungrouped tools only (toolAsSeen reads undefined as no gate).
      const seen = toolAsSeen(definition, filter.groups ?? []);
      if (seen !== undefined) definitions.push(seen);
    });
    if (this.#definitionsByGroups.size >= DEFINITION_LISTS_KEPT) {
      // The list every group sees is kept on: made again, a table's list (registerTable) would be a new array that
      // catalogNameLookup does not know (every later request would map every name again).
      const every = this.#definitionsByGroups.get(EVERY_GROUP_KEY);
      this.#definitionsByGroups.clear();
      if (every !== undefined) this.#definitionsByGroups.set(EVERY_GROUP_KEY, every);
    }
    const frozen = Object.freeze(definitions);
    this.#definitionsByGroups.set(key, frozen);
    const listed = this.#onListed.get(key);
    if (listed !== undefined) {
      this.#onListed.delete(key);
      listed(frozen);
    }
    return frozen;
  }

  /**
   * Calls `listed` with getDefinitions({ groups }) when that list is first made (now, if it is kept already), unless
   * the registry changes before: what a snapshot carries about a view (its figures) is given to the list when a
   * request needs it, without making the list up front.
   */
  whenListed(groups: readonly string[] | undefined, listed: (definitions: readonly ToolDefinition[]) => void): void {
    const key = groups === undefined ? "" : JSON.stringify(groups);
    const kept = this.#definitionsByGroups.get(key);
    if (kept !== undefined) listed(kept);
    else this.#onListed.set(key, listed);
  }

  getSummaries(filter: GroupFilter = {}): ToolSummary[] {
    return this.getDefinitions(filter).map(({ name, originalName, description, groups }) => ({
      name,
      ...(originalName === undefined ? {} : { originalName }),
      description,
      ...(groups ? { groups: [...groups] } : {}),
    }));
  }

  setExecutionGuard(guard: ExecutionGuard | undefined): void {
    this.#guard = guard;
  }

  /**
   * Never throws: unknown, gated, invalid, denied and failing calls all come back as `{ isError: true }`.
   *
   * Order: lookup and group gate (a gated tool answers byte for byte like an absent one) → arguments (`undefined`
   * counts as `{}`) → the execution guard → the handler, else the runner for tools with an executor. A tool with
   * neither handler nor executor is run by the client: the answer says so, with `isError: false` (nothing failed;
   * the gateway does not run client tools: docs/DESIGN.md, "Goals and non-goals").
   */
  async execute(name: string, args: unknown, context: ToolCallContext = {}): Promise<ToolResult> {
    return (await this.executeWithDecision(name, args, context)).result;
  }

  /** `execute`, with the guard's decision beside the result when the guard ran (for the audit line). */
  async executeWithDecision(name: string, args: unknown, context: ToolCallContext = {}): Promise<ToolOutcome> {
    try {
      return await this.#execute(name, args, context);
    } catch (error) {
      // Unreachable by design; the last line of the "never throws" promise.
      return { result: errorResult(this.#texts.toolFailed(typeof name === "string" ? name.slice(0, MAX_ECHOED_NAME) : "", messageOf(error))) };
    }
  }

  async #execute(name: string, args: unknown, context: ToolCallContext): Promise<ToolOutcome> {
    const t = this.#texts;
    // A caller that says which groups are on gets the gate; a malformed list enables nothing (fail closed).
    const gated = context.enabledGroups !== undefined;
    const enabled = Array.isArray(context.enabledGroups) ? context.enabledGroups : [];
    const entry = typeof name === "string" ? this.#entryOf(name) : undefined;
    if (!entry || (gated && !isVisible(entry.tool.definition.groups, enabled))) {
      return { result: this.#unknown(typeof name === "string" ? name : "", gated ? enabled : undefined) };
    }
    const tool = entry.tool;
    const toolName = tool.definition.name;
    const validArgs: unknown = args === undefined ? {} : args;
    if (!isRecord(validArgs)) return { result: errorResult(t.invalidArguments(toolName, [t.argument.notObject])) };
    const problems = validateArguments(tool.definition.parameters, validArgs, this.#locale);
    if (problems.length > 0) return { result: errorResult(t.invalidArguments(toolName, problems)) };

    const guard = this.#guard;
    if (!guard) return { result: await this.#run(tool, validArgs, context) };
    let decision: unknown;
    try {
      decision = await guard({ tool, arguments: validArgs, context });
    } catch (error) {
      return { result: errorResult(t.toolFailed(toolName, messageOf(error))) };
    }
    // Anything but a well-formed decision stops the call: the guard fails closed.
    if (!isGuardDecision(decision)) return { result: errorResult(t.toolFailed(toolName, "the execution guard gave no valid decision")) };
    if (decision.kind === "deny") return { result: errorResult(decision.reason), decision };
    if (decision.kind === "confirm") {
      const { request } = decision;
      return {
        result: { isError: false, content: t.needsConfirmation(toolName, request.capability, request.mode), confirmation: request },
        decision,
      };
    }
    return { result: await this.#run(tool, validArgs, context), decision };
  }

  /** The handler, else the runner for a tool with an executor, else the answer that the client runs the tool. */
  async #run(tool: RegisteredTool, args: Record<string, unknown>, context: ToolCallContext): Promise<ToolResult> {
    const t = this.#texts;
    const toolName = tool.definition.name;
    try {
      if (tool.handler) return this.#answer(toolName, await tool.handler(args, context));
      if (tool.definition.executor) {
        if (!this.#runner) return errorResult(t.toolFailed(toolName, "no executor runner is configured"));
        return this.#answer(toolName, await this.#runner(tool, args, context));
      }
    } catch (error) {
      if (error instanceof SignInRequiredError) return { ...errorResult(t.toolFailed(toolName, error.message)), signIn: error.signIn };
      return errorResult(t.toolFailed(toolName, messageOf(error)));
    }
    return { isError: false, content: t.clientRuns(toolName) };
  }

  #answer(toolName: string, output: unknown): ToolResult {
    if (typeof output !== "string") return errorResult(this.#texts.toolFailed(toolName, "the tool returned no text"));
    return { isError: false, content: output };
  }

  /** Absent and gated tools both land here, with the same pool of names: the answers cannot differ. */
  #unknown(name: string, enabled: readonly string[] | undefined): ToolResult {
    const pool: string[] = [];
    this.#forEachDefinition((definition) => {
      if (enabled === undefined || isVisible(definition.groups, enabled)) pool.push(definition.name);
    });
    const shown = name.length > MAX_ECHOED_NAME ? `${name.slice(0, MAX_ECHOED_NAME)}…` : name;
    return errorResult(this.#texts.unknownTool(shown, suggestNames(name, pool)));
  }

  /** Stores one definition; returns the registration it replaced, if any. */
  #put(definition: ToolDefinition, contextId: string, handler: ToolHandler | undefined): RegisteredTool | undefined {
    const tool: RegisteredTool = handler
      ? { definition: deepFreeze(definition), contextId, handler }
      : { definition: deepFreeze(definition), contextId };
    if (validatedFor.get(definition)?.locale !== this.#locale) validatedFor.set(definition, { locale: this.#locale, definition });
    return this.#store({ tool: Object.freeze(tool), token: this.#nextToken++ });
  }

  /** Stores an entry under its tool's name (a new one, or another registry's taken over); returns the one replaced. */
  #store(entry: Entry): RegisteredTool | undefined {
    this.#thaw();
    const { name } = entry.tool.definition;
    const previous = this.#entries.get(name);
    if (this.#definitionsByGroups.size > 0) this.#definitionsByGroups.clear();
    if (this.#onListed.size > 0) this.#onListed.clear();
    this.#entries.set(name, entry);
    return previous?.tool;
  }

  #remove(name: string): void {
    this.#thaw();
    this.#entries.delete(name);
    this.#definitionsByGroups.clear();
    this.#onListed.clear();
  }

  /** A disposer bound to the registrations current now: later ones of the same names are not its to remove. */
  #disposerFor(names: readonly string[]): () => void {
    const owned = names.flatMap((name) => {
      const entry = this.#entryOf(name);
      return entry ? [{ name, token: entry.token }] : [];
    });
    return () => {
      let removed = 0;
      for (const { name, token } of owned) {
        const entry = this.#entryOf(name);
        if (entry && entry.token === token) {
          this.#remove(name);
          removed++;
        }
      }
      owned.length = 0;
      if (removed > 0) this.#version++;
    };
  }

  #warnReplaced(replaced: readonly RegisteredTool[], contextId: string): void {
    const shown = replaced.slice(0, 5).map((r) => `"${r.definition.name}" (from context "${r.contextId}")`).join(", ");
    const more = replaced.length > 5 ? ` and ${replaced.length - 5} more` : "";
    this.#logger.warn(`toolgate: context "${contextId}" re-registered ${shown}${more}; the new registration replaces the old one`);
  }
}
