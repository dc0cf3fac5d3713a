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
  const texts: string[] = [];
  const tools: { tool: unknown; contextId: string }[] = [];
  const names: string[] = [];
  /** Per tool, what the previous version kept of it when its text is unchanged (kept again as it is). */
  const unchanged: ({ text: string; definition: ToolDefinition } | undefined)[] = [];
  for (const { name, definition: text, context } of stored) {
    const previously = previous.get(name);
    const same = previously?.text === text ? previously : undefined;
    let tool: unknown;
    if (same) tool = same.definition;
    else {
      // register validates what it is given, so the stored text is parsed into `unknown` and checked there.
      try {
        tool = JSON.parse(text);
      } catch (error) {
        skipped(name, error);
        continue;
      }
    }
    texts.push(text);
    names.push(name);
    unchanged.push(same);
    tools.push({ tool, contextId: context });
  }
  const kept = new Map<string, { text: string; definition: ToolDefinition }>();
  registry.registerEach(tools, (index, error) => skipped(names[index] ?? "", error)).forEach((definition, index) => {
    const name = names[index];
    const text = texts[index];
    // Kept under the name stored (its text names it too; a text naming another tool is not kept).
    if (!definition || name !== definition.name || text === undefined) return;
    const same = unchanged[index];
    kept.set(name, same?.definition === definition ? same : { text, definition });
  });
  return kept;
}
