// Tool-definition and argument validation (SPEC §1), with @cfworker/json-schema (no eval, made for Workers).
import type { JsonSchema, ToolDefinition } from "./types.ts";

/** A tool definition is wrong; `field` names the field (e.g. `parameters.type`, `groups[2]`). */
export class ToolDefinitionError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.name = "ToolDefinitionError";
    this.field = field;
  }
}

export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_.-]{1,64}$/;

/** Checks an untrusted tool definition and returns a clean copy (unknown fields rejected). Throws ToolDefinitionError. */
export function validateToolDefinition(_input: unknown): ToolDefinition {
  throw new Error("not implemented");
}

/** Problems of `args` against the tool's parameter schema, as short human-readable lines; [] when valid. */
export function validateArguments(_schema: JsonSchema, _args: unknown): string[] {
  throw new Error("not implemented");
}
