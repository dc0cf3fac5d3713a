// The tools a client sends to prepare: any of the four shapes, read into ungrouped definitions.
import { SEARCH_TOOLS_NAME } from "../core/turn/searchTools.ts";
import { detectToolsShape, fromShape, ShapeError } from "../core/tools/shapes.ts";
import type { ToolShape } from "../core/tools/shapes.ts";
import type { Locale, ToolDefinition } from "../core/types.ts";
import { readToolDefinition, SHAPE_FIELDS } from "./definitions.ts";
import { badField, HttpError } from "./errors.ts";

/** The list's one shape and its tools; `search_tools` itself is left out (prepare makes its own). */
export function readClientTools(items: readonly unknown[], locale: Locale = "en"): { shape: ToolShape; tools: ToolDefinition[] } {
  let shape: ToolShape;
  let tools: ToolDefinition[];
  try {
    shape = detectToolsShape(items);
    tools = items.map((item, index) => fromShape(item, shape, `tools[${index}]`));
  } catch (error) {
    if (error instanceof ShapeError) throw new HttpError(400, "invalid_request", error.message);
    throw error;
  }
  const seen = new Map<string, number>();
  const clean: ToolDefinition[] = [];
  tools.forEach((tool, index) => {
    if (tool.name === SEARCH_TOOLS_NAME) return;
    const first = seen.get(tool.name);
    if (first !== undefined) throw badField(`tools[${index}].name`, `"${tool.name}" is also tools[${first}]`);
    seen.set(tool.name, index);
    // Client tools are ungrouped: the group gate is for the registry's tools, not for what the client owns.
    const { groups: _groups, ...ungrouped } = tool;
    clean.push(readToolDefinition(ungrouped, `tools[${index}]`, { allowEmptyDescription: true, locale }, SHAPE_FIELDS[shape]));
  });
  return { shape, tools: clean };
}
