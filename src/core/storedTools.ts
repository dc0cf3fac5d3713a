// Registers a registry version's stored tools (JSON texts), reusing the definitions of the version before: a tool
// whose stored text did not change is registered as the definition it validated to (the same object: toolRegistry.ts
// keeps a definition a registry of the same locale stored), so a new version costs a text compare per unchanged
// tool, and what is kept per definition object (token counts, compiled schemas, search index slots) carries over.
import type { ToolRegistry } from "./toolRegistry.ts";
import type { ToolDefinition } from "./types.ts";

export interface StoredTool {
  name: string;
  /** The tool's stored JSON text. */
  definition: string;
  context: string;
}

/** Per stored tool name, its text and the definition the registry made of it. */
export type StoredDefinitions = ReadonlyMap<string, { text: string; definition: ToolDefinition }>;

/**
 * Registers `stored` in `registry` (each tool validated, unless its text equals the one in `previous`); a tool that
 * does not validate is left out and reported to `skipped`. Returns what the next version compares with.
 */
export function registerStoredTools(
  registry: ToolRegistry,
  stored: readonly StoredTool[],
  previous: StoredDefinitions,
  skipped: (name: string, error: unknown) => void,
): StoredDefinitions {
  const kept = new Map<string, { text: string; definition: ToolDefinition }>();
  for (const { name, definition: text, context } of stored) {
    try {
      const same = previous.get(name);
      // register() validates what it is given, so the stored text is parsed into `unknown` and checked there.
      const parsed: unknown = same?.text === text ? same.definition : JSON.parse(text);
      registry.register(parsed, context);
      const definition = registry.get(name)?.definition;
      if (definition) kept.set(name, { text, definition });
    } catch (error) {
      skipped(name, error);
    }
  }
  return kept;
}
