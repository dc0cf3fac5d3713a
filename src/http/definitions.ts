// A tool definition from a request, validated by the core; its errors become 400s naming the field in the request.
import { ToolDefinitionError, validateToolDefinition } from "../core/definition.ts";
import type { DefinitionOptions } from "../core/definition.ts";
import type { ToolDefinition } from "../core/types.ts";
import { badField } from "./errors.ts";
import { fieldPath } from "./validate.ts";

/** `prefix` places the tool in the request (`tools[3]`), or "" for a body that is the tool itself. */
export function readToolDefinition(input: unknown, prefix: string, options: DefinitionOptions = {}): ToolDefinition {
  try {
    return validateToolDefinition(input, options);
  } catch (error) {
    if (error instanceof ToolDefinitionError) {
      // The error's message starts with its own field: keep the explanation, put the request's path in front.
      const explanation = error.message.startsWith(`${error.field}: `) ? error.message.slice(error.field.length + 2) : error.message;
      throw badField(fieldPath(prefix, error.field), explanation);
    }
    throw error;
  }
}
