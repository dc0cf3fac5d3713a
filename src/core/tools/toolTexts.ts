// What the model reads of a tool definition, cleaned when the definition is accepted (docs/DESIGN.md, "The boundary"): its description and
// the `title` and `description` of every schema in its parameters go through the untrusted boundary's cleaning
// (smuggling characters stripped, forged banner markers neutralised), so that what is stored and shown is clean.
// Names are validated by pattern already; data the tool expects (`enum`, `const`, `default`, `examples`, property
// names) is never touched.
import { isRecord } from "../records.ts";
import type { JsonSchema, Locale, ToolDefinition } from "../types.ts";
import { cleanUntrustedText } from "../boundary/untrusted.ts";

/** The human texts of a schema node. */
const TEXT_KEYWORDS = ["title", "description"];
/** Keywords whose value is one schema. */
const SCHEMA_KEYWORDS = [
  "additionalProperties", "unevaluatedProperties", "propertyNames", "contains", "not", "if", "then", "else",
  "additionalItems", "unevaluatedItems", "contentSchema",
];
/** Keywords whose value is a schema or a list of schemas. */
const SCHEMA_LIST_KEYWORDS = ["items", "prefixItems", "allOf", "anyOf", "oneOf"];
/** Keywords whose value maps names (never cleaned) to schemas (`dependencies` may map to a list of names instead). */
const SCHEMA_MAP_KEYWORDS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"];

/**
 * Calls `visit` with every schema node of `schema` (a copy is the caller's business), however deep: the walk is
 * iterative. Nodes that are not objects (`true` / `false` schemas, a list of names under `dependencies`) are skipped.
 */
export function forEachSchemaNode(schema: unknown, visit: (node: Record<string, unknown>) => void): void {
  const stack: unknown[] = [schema];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (!isRecord(node)) continue;
    visit(node);
    for (const [key, value] of Object.entries(node)) {
      if (SCHEMA_KEYWORDS.includes(key)) {
        stack.push(value);
      } else if (SCHEMA_LIST_KEYWORDS.includes(key)) {
        if (Array.isArray(value)) for (const item of value) stack.push(item);
        else stack.push(value);
      } else if (SCHEMA_MAP_KEYWORDS.includes(key) && isRecord(value)) {
        for (const item of Object.values(value)) stack.push(item);
      }
    }
  }
}

/** A copy of `schema` whose every title and description (at schema positions) is cleaned. Everything else as it is. */
export function cleanSchemaTexts(schema: JsonSchema, locale: Locale = "en"): JsonSchema {
  const copy: unknown = JSON.parse(JSON.stringify(schema));
  if (!isRecord(copy)) return schema;
  forEachSchemaNode(copy, (node) => {
    for (const key of TEXT_KEYWORDS) {
      const value = node[key];
      if (typeof value === "string") node[key] = cleanUntrustedText(value, locale);
    }
  });
  return copy;
}

/** The definition with its description and parameter texts cleaned (a copy; names and everything else as given). */
export function cleanToolTexts(definition: ToolDefinition, locale: Locale = "en"): ToolDefinition {
  return {
    ...definition,
    description: cleanUntrustedText(definition.description, locale),
    parameters: cleanSchemaTexts(definition.parameters, locale),
  };
}
