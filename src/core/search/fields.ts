// The fields a tool is indexed by, how much each counts, and their text.
import { isRecord } from "../records.ts";
import type { ToolDefinition } from "../types.ts";

export const FIELDS = ["name", "description", "parameterNames", "parameterDescriptions", "groups"] as const;
export type FieldName = (typeof FIELDS)[number];

/** How much a match in each field counts: the name says most about what a tool does. */
export const FIELD_BOOST: Readonly<Record<FieldName, number>> = {
  name: 2.5,
  description: 1,
  parameterNames: 0.4,
  parameterDescriptions: 0.3,
  groups: 1,
};

/** Collects parameter names and texts (descriptions, titles, string enum values), `depth` levels deep. */
function collectParameters(schema: unknown, depth: number, names: string[], texts: string[]): void {
  if (!isRecord(schema)) return;
  const properties = schema.properties;
  if (!isRecord(properties)) return;
  for (const name in properties) {
    if (!Object.hasOwn(properties, name)) continue;
    names.push(name);
    const property = properties[name];
    if (!isRecord(property)) continue;
    if (typeof property.description === "string") texts.push(property.description);
    if (typeof property.title === "string") texts.push(property.title);
    if (Array.isArray(property.enum)) {
      for (const value of property.enum) if (typeof value === "string") texts.push(value);
    }
    if (depth > 1) {
      collectParameters(property, depth - 1, names, texts);
      collectParameters(property.items, depth - 1, names, texts);
    }
  }
}

/**
 * The texts of each indexed field of a tool, by field id (in FIELDS order). A field's text is its texts joined with
 * spaces; the index reads them one by one, which analyzes the same (a space always separates terms).
 */
export function toolFieldParts(tool: ToolDefinition): (readonly string[])[] {
  const names: string[] = [];
  const texts: string[] = [];
  collectParameters(tool.parameters, 2, names, texts);
  return [[tool.name], [tool.description], names, texts, tool.groups ?? []];
}

/** The text of each indexed field of a tool (not yet analyzed). */
export function toolFieldTexts(tool: ToolDefinition): Record<FieldName, string> {
  const [name = [], description = [], parameterNames = [], parameterDescriptions = [], groups = []] = toolFieldParts(tool);
  return {
    name: name.join(" "),
    description: description.join(" "),
    parameterNames: parameterNames.join(" "),
    parameterDescriptions: parameterDescriptions.join(" "),
    groups: groups.join(" "),
  };
}
