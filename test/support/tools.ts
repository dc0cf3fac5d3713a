// Tool definitions for tests: one maker, which each test file may give its own defaults (a parameter schema that its
// assertions rely on, say) in one line.
import type { RegisteredTool, ToolDefinition } from "../../src/core/types.ts";

export type ToolFields = Partial<Omit<ToolDefinition, "name">>;

/** `tool(name)`, `tool(name, fields)` or `tool(name, description, fields)`. */
export type ToolMaker = (name: string, described?: string | ToolFields, fields?: ToolFields) => ToolDefinition;

/**
 * A maker of definitions: `The <name> tool` with an empty object schema, then the maker's `defaults` (fixed, or per
 * name), then what the call gives.
 */
export function toolMaker(defaults: ToolFields | ((name: string) => ToolFields) = {}): ToolMaker {
  return (name, described = {}, fields = {}) => {
    const given = typeof described === "string" ? { ...fields, description: described } : described;
    const base = typeof defaults === "function" ? defaults(name) : defaults;
    return { name, description: `The ${name} tool`, parameters: { type: "object", properties: {} }, ...base, ...given };
  };
}

/** A definition with the plain defaults. */
export const tool: ToolMaker = toolMaker();

/** A definition as the registry holds it (what the execution guard is handed). */
export function registered(definition: ToolDefinition, contextId = "test"): RegisteredTool {
  return { definition, contextId };
}
