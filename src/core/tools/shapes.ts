// Tool-shape conversion: OpenAI Chat, OpenAI Responses, Anthropic Messages and MCP tool lists ⇄ ToolDefinition.
//
//   openai     {type: "function", function: {name, description?, parameters?, strict?}}
//   responses  {type: "function", name, description?, parameters?, strict?}
//   anthropic  {type?: "custom", name, description?, input_schema}
//   mcp        {name, title?, description?, inputSchema, outputSchema?, annotations?}
//
// Reading is lenient where real clients differ (unknown fields ignored, `null` for an optional field means absent,
// a missing description is "", missing parameters are the empty object schema) and strict on what we rely on (the
// name pattern, field types, an object schema). Writing emits only the fields of the target shape.
import { isRecord } from "../records.ts";
import { readName as readSourceName, ToolDefinitionError } from "./definition.ts";
import type { JsonSchema, Risk, ToolDefinition, Visibility } from "../types.ts";
import { guardFromAnnotations } from "../upstream/mcpTool.ts";

export type ToolShape = "openai" | "responses" | "anthropic" | "mcp";

export const TOOL_SHAPES: readonly ToolShape[] = ["openai", "responses", "anthropic", "mcp"];

/** A client tool list is malformed; `path` names the place (e.g. `tools[3].function.name`). */
export class ShapeError extends Error {
  readonly path: string;
  constructor(path: string, message: string) {
    super(`${path}: ${message}`);
    this.name = "ShapeError";
    this.path = path;
  }
}

const SHAPE_LABELS: Record<ToolShape, string> = {
  openai: "OpenAI Chat",
  responses: "OpenAI Responses",
  anthropic: "Anthropic",
  mcp: "MCP",
};

/** The shape of one tool, or undefined when it is none of the four (or could be two of them). */
export function detectToolShape(tool: unknown): ToolShape | undefined {
  if (!isRecord(tool)) return undefined;
  if (tool["type"] === "function") {
    if ("function" in tool) return "openai";
    return "name" in tool ? "responses" : undefined;
  }
  // Anthropic's custom tools may say `type: "custom"`; any other type is a server or built-in tool we cannot carry.
  if (tool["type"] !== undefined && tool["type"] !== "custom") return undefined;
  const hasAnthropicSchema = "input_schema" in tool;
  const hasMcpSchema = "inputSchema" in tool;
  if (hasAnthropicSchema && !hasMcpSchema) return "anthropic";
  if (hasMcpSchema && !hasAnthropicSchema && tool["type"] === undefined) return "mcp";
  return undefined;
}

/**
 * The one shape of a whole list; throws ShapeError on an unknown or mixed list. An empty list is `openai`.
 * `path` names the list in error paths (default `tools`).
 */
export function detectToolsShape(tools: readonly unknown[], path = "tools"): ToolShape {
  let first: ToolShape | undefined;
  for (const [index, tool] of tools.entries()) {
    const shape = detectToolShape(tool);
    if (shape === undefined) {
      throw new ShapeError(
        `${path}[${index}]`,
        "is not a function tool in OpenAI Chat, OpenAI Responses, Anthropic or MCP shape",
      );
    }
    if (first === undefined) first = shape;
    else if (shape !== first) {
      throw new ShapeError(
        `${path}[${index}]`,
        `is in ${SHAPE_LABELS[shape]} shape but ${path}[0] is in ${SHAPE_LABELS[first]} shape; one list takes one shape`,
      );
    }
  }
  return first ?? "openai";
}

/** For callers outside TypeScript's reach (a shape read from a request without checking it). */
function unknownShape(shape: never): Error {
  return new TypeError(`unknown tool shape ${JSON.stringify(shape)}; expected one of ${TOOL_SHAPES.join(", ")}`);
}

/** Where the name sits in a tool of this shape, relative to the tool. */
function namePath(shape: ToolShape): string {
  return shape === "openai" ? "function.name" : "name";
}

/** The name and, when it had to be fitted to what every provider accepts, the source's spelling (toolNames.ts). */
function readName(value: unknown, path: string): { name: string; originalName?: string } {
  try {
    return readSourceName(value, undefined);
  } catch (error) {
    if (error instanceof ToolDefinitionError) throw new ShapeError(path, error.problem);
    throw error;
  }
}

function readDescription(value: unknown, path: string): string {
  if (value === undefined || value === null) return "";
  if (typeof value !== "string") throw new ShapeError(path, "must be a string");
  return value;
}

function checkOptional(value: unknown, path: string, kind: "boolean" | "string" | "object"): void {
  if (value === undefined || value === null) return;
  const ok = kind === "object" ? isRecord(value) : typeof value === kind;
  if (!ok) throw new ShapeError(path, `must be ${kind === "object" ? "an object" : `a ${kind}`}`);
}

/** Reads a parameter schema; `optional` lets it be absent (the empty object schema). */
function readParameters(value: unknown, path: string, optional: boolean): JsonSchema {
  if (value === undefined || value === null) {
    if (!optional) throw new ShapeError(path, "is required (an object JSON Schema)");
    return { type: "object", properties: {} };
  }
  if (!isRecord(value)) throw new ShapeError(path, "must be an object (a JSON Schema)");
  if (value["type"] !== undefined && value["type"] !== "object") {
    throw new ShapeError(`${path}.type`, 'must be "object" (tool arguments are an object)');
  }
  if (value["properties"] !== undefined && !isRecord(value["properties"])) {
    throw new ShapeError(`${path}.properties`, "must be an object");
  }
  const required = value["required"];
  if (required !== undefined) {
    if (!Array.isArray(required)) throw new ShapeError(`${path}.required`, "must be an array of strings");
    for (const [index, item] of required.entries()) {
      if (typeof item !== "string") throw new ShapeError(`${path}.required[${index}]`, "must be a string");
    }
  }
  // A schema without `type` (some clients send `{}` for no arguments) is an object schema: say so, since the
  // Anthropic and MCP shapes require it.
  return value["type"] === undefined ? { type: "object", ...value } : value;
}

/** Reads one tool of the given shape; throws ShapeError naming the field. `path` prefixes error paths. */
export function fromShape(tool: unknown, shape: ToolShape, path = "tool"): ToolDefinition {
  if (!isRecord(tool)) throw new ShapeError(path, "must be an object");
  switch (shape) {
    case "openai": {
      if (tool["type"] !== "function") throw new ShapeError(`${path}.type`, 'must be "function"');
      const fn = tool["function"];
      if (!isRecord(fn)) throw new ShapeError(`${path}.function`, "must be an object");
      checkOptional(fn["strict"], `${path}.function.strict`, "boolean");
      return {
        ...readName(fn["name"], `${path}.function.name`),
        description: readDescription(fn["description"], `${path}.function.description`),
        parameters: readParameters(fn["parameters"], `${path}.function.parameters`, true),
      };
    }
    case "responses": {
      if (tool["type"] !== "function") throw new ShapeError(`${path}.type`, 'must be "function"');
      checkOptional(tool["strict"], `${path}.strict`, "boolean");
      return {
        ...readName(tool["name"], `${path}.name`),
        description: readDescription(tool["description"], `${path}.description`),
        parameters: readParameters(tool["parameters"], `${path}.parameters`, true),
      };
    }
    case "anthropic": {
      if (tool["type"] !== undefined && tool["type"] !== "custom") {
        throw new ShapeError(`${path}.type`, 'must be "custom" or absent (server tools cannot be carried)');
      }
      return {
        ...readName(tool["name"], `${path}.name`),
        description: readDescription(tool["description"], `${path}.description`),
        parameters: readParameters(tool["input_schema"], `${path}.input_schema`, false),
      };
    }
    case "mcp": {
      checkOptional(tool["title"], `${path}.title`, "string");
      checkOptional(tool["outputSchema"], `${path}.outputSchema`, "object");
      checkOptional(tool["annotations"], `${path}.annotations`, "object");
      return {
        ...readName(tool["name"], `${path}.name`),
        description: readDescription(tool["description"], `${path}.description`),
        parameters: readParameters(tool["inputSchema"], `${path}.inputSchema`, false),
      };
    }
    default:
      throw unknownShape(shape);
  }
}

/**
 * What an MCP tool the owner imports tells the guard through its annotations (upstream/mcpTool.ts
 * `guardFromAnnotations`): destructive → dangerous; read-only → public and safe; else sensitive (MCP presumes an
 * unannotated tool may change things). The owner's settings override what this returns. An upstream server's tools
 * follow upstream/toolGuard.ts instead (restricted unless the owner says otherwise).
 */
export function guardFromMcpAnnotations(tool: unknown): { visibility?: Visibility; risk: Risk } {
  const annotations = isRecord(tool) && isRecord(tool["annotations"]) ? tool["annotations"] : {};
  return guardFromAnnotations({
    readOnlyHint: annotations["readOnlyHint"] === true,
    destructiveHint: annotations["destructiveHint"] === true,
  });
}

/**
 * Reads a whole client tool list: checks that it is an array of one shape, reads every tool and rejects duplicate
 * names. Throws ShapeError with the path of the first problem.
 */
export function readToolList(value: unknown, path = "tools"): { shape: ToolShape; tools: ToolDefinition[] } {
  if (!Array.isArray(value)) throw new ShapeError(path, "must be an array of tools");
  const items: readonly unknown[] = value;
  const shape = detectToolsShape(items, path);
  const firstIndex = new Map<string, number>();
  const tools = items.map((item, index) => {
    const tool = fromShape(item, shape, `${path}[${index}]`);
    const earlier = firstIndex.get(tool.name);
    if (earlier !== undefined) {
      throw new ShapeError(`${path}[${index}].${namePath(shape)}`, `duplicates the name of ${path}[${earlier}]`);
    }
    firstIndex.set(tool.name, index);
    return tool;
  });
  return { shape, tools };
}

/**
 * Writes one tool in the given shape (only the fields that shape has: never groups, visibility, risk, confirm or
 * executor). An empty description is left out. Responses tools say `strict: false`, since that API defaults to
 * strict mode, which most schemas do not meet.
 */
export function toShape(tool: ToolDefinition, shape: ToolShape): Record<string, unknown> {
  const description = tool.description === "" ? {} : { description: tool.description };
  switch (shape) {
    case "openai":
      return { type: "function", function: { name: tool.name, ...description, parameters: tool.parameters } };
    case "responses":
      return { type: "function", name: tool.name, ...description, parameters: tool.parameters, strict: false };
    case "anthropic":
      return { name: tool.name, ...description, input_schema: tool.parameters };
    case "mcp":
      return { name: tool.name, ...description, inputSchema: tool.parameters };
    default:
      throw unknownShape(shape);
  }
}
