// Tool-shape conversion: OpenAI Chat, OpenAI Responses, Anthropic Messages and MCP tool lists ⇄ ToolDefinition.
import type { ToolDefinition } from "./types.ts";

export type ToolShape = "openai" | "responses" | "anthropic" | "mcp";

/** A client tool list is malformed; `path` names the place (e.g. `tools[3].function.name`). */
export class ShapeError extends Error {
  readonly path: string;
  constructor(path: string, message: string) {
    super(`${path}: ${message}`);
    this.name = "ShapeError";
    this.path = path;
  }
}

/** The shape of one tool, or undefined when it is none of the four. */
export function detectToolShape(_tool: unknown): ToolShape | undefined { throw new Error("not implemented"); }

/** The one shape of a whole list; throws ShapeError on an unknown or mixed list. An empty list is `openai`. */
export function detectToolsShape(_tools: readonly unknown[]): ToolShape { throw new Error("not implemented"); }

/** Reads one tool of the given shape; throws ShapeError naming the field. `path` prefixes error paths. */
export function fromShape(_tool: unknown, _shape: ToolShape, _path?: string): ToolDefinition { throw new Error("not implemented"); }

/** Writes one tool in the given shape (only the fields that shape has). */
export function toShape(_tool: ToolDefinition, _shape: ToolShape): Record<string, unknown> { throw new Error("not implemented"); }
