// The tool registry (SPEC §1, seed plugin-tools): one map name → entry, disposers, group gate, one execution guard.
import type {
  ExecutionGuard, ExecutorRunner, Locale, Logger, RegisteredTool, ToolCallContext, ToolDefinition, ToolHandler,
  ToolResult, ToolSummary,
} from "./types.ts";

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
export function isVisible(_toolGroups: readonly string[] | undefined, _enabled: readonly string[] | undefined): boolean {
  throw new Error("not implemented");
}

export class ToolRegistry {
  constructor(_options: RegistryOptions = {}) {}
  /** Grows by one on every change; search indexes are cached per version. */
  get version(): number { throw new Error("not implemented"); }
  get size(): number { throw new Error("not implemented"); }
  /** Validates and registers; returns a disposer that removes this registration only. Throws ToolDefinitionError. */
  register(_tool: unknown, _contextId: string, _handler?: ToolHandler): () => void { throw new Error("not implemented"); }
  /** All or nothing: validates every tool first. Returns one disposer for all of them. */
  registerMany(_tools: readonly unknown[], _contextId: string): () => void { throw new Error("not implemented"); }
  unregister(_name: string): boolean { throw new Error("not implemented"); }
  /** Removes every tool the context registered; returns how many. */
  dispose(_contextId: string): number { throw new Error("not implemented"); }
  get(_name: string): RegisteredTool | undefined { throw new Error("not implemented"); }
  /** Every entry, in registry order. */
  list(): RegisteredTool[] { throw new Error("not implemented"); }
  getDefinitions(_filter: GroupFilter = {}): ToolDefinition[] { throw new Error("not implemented"); }
  getSummaries(_filter: GroupFilter = {}): ToolSummary[] { throw new Error("not implemented"); }
  setExecutionGuard(_guard: ExecutionGuard | undefined): void { throw new Error("not implemented"); }
  /** Never throws: unknown, gated, invalid, denied and failing calls all come back as `{ isError: true }`. */
  execute(_name: string, _args: unknown, _context: ToolCallContext = {}): Promise<ToolResult> { throw new Error("not implemented"); }
}
