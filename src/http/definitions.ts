// A tool definition from a request, validated by the core; its errors become 400s naming the field in the request.
import { ToolDefinitionError, validateToolDefinition } from "../core/tools/definition.ts";
import type { DefinitionOptions } from "../core/tools/definition.ts";
import type { ToolShape } from "../core/tools/shapes.ts";
import type { ToolDefinition } from "../core/types.ts";
import { badField } from "./errors.ts";
import { fieldPath } from "./validate.ts";

/** Where each shape holds the fields toolgate validates (its errors name the client's field). */
export const SHAPE_FIELDS: Readonly<Record<ToolShape, Readonly<Record<string, string>>>> = {
  openai: { name: "function.name", description: "function.description", parameters: "function.parameters" },
  responses: {},
  anthropic: { parameters: "input_schema" },
  mcp: { parameters: "inputSchema" },
};

/**
 * `prefix` places the tool in the request (`tools[3]`), or "" for a body that is the tool itself. `fieldNames` maps
 * a definition field to where the request holds it, for a tool read from another shape (`parameters` →
 * `function.parameters`): the error then names the client's own field.
 */
export function readToolDefinition(
  input: unknown,
  prefix: string,
  options: DefinitionOptions = {},
  fieldNames: Readonly<Record<string, string>> = {},
): ToolDefinition {
  try {
    return validateToolDefinition(input, options);
  } catch (error) {
    if (error instanceof ToolDefinitionError) {
      // Keep the explanation, put the request's path in front.
      throw badField(fieldPath(prefix, requestField(error.field, fieldNames)), error.problem);
    }
    throw error;
  }
}

/** `parameters.properties.x` → `input_schema.properties.x` when `parameters` is `input_schema` in the request. */
function requestField(field: string, fieldNames: Readonly<Record<string, string>>): string {
  const match = /^([A-Za-z]+)(.*)$/.exec(field);
  const head = match?.[1];
  if (head === undefined || !Object.hasOwn(fieldNames, head)) return field;
  return `${fieldNames[head] ?? head}${match?.[2] ?? ""}`;
}
