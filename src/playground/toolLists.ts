// Reading tool lists in the four shapes the gateway accepts, for display only: the gateway does the real checking.
//
//   openai     {type: "function", function: {name, description?, parameters?}}
//   responses  {type: "function", name, description?, parameters?}
//   anthropic  {type?: "custom", name, description?, input_schema}
//   mcp        {name, description?, inputSchema}
import { isRecord } from "../core/records.ts";

export type ToolListShape = "openai" | "responses" | "anthropic" | "mcp";

export const SHAPE_LABELS: Record<ToolListShape, string> = {
  openai: "OpenAI Chat",
  responses: "OpenAI Responses",
  anthropic: "Anthropic",
  mcp: "MCP",
};

/** What the page shows of one tool, whatever its shape. */
export interface ToolView {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ParsedToolList {
  shape: ToolListShape;
  /** The tools exactly as given: the gateway gets these. */
  tools: unknown[];
  views: ToolView[];
}

export class ToolListError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ToolListError";
  }
}

export function shapeOf(tool: unknown): ToolListShape | undefined {
  if (!isRecord(tool)) return undefined;
  if (tool["type"] === "function") {
    if (isRecord(tool["function"])) return "openai";
    return typeof tool["name"] === "string" ? "responses" : undefined;
  }
  if (tool["type"] !== undefined && tool["type"] !== "custom") return undefined;
  const anthropic = "input_schema" in tool;
  const mcp = "inputSchema" in tool;
  if (anthropic && !mcp) return "anthropic";
  if (mcp && !anthropic && tool["type"] === undefined) return "mcp";
  return undefined;
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === "string" ? value : fallback;
}

function schemaOf(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : { type: "object", properties: {} };
}

/** Name, description and parameters of a tool in any of the four shapes; undefined when it is none of them. */
export function viewOf(tool: unknown): ToolView | undefined {
  const shape = shapeOf(tool);
  if (shape === undefined || !isRecord(tool)) return undefined;
  const body = shape === "openai" && isRecord(tool["function"]) ? tool["function"] : tool;
  const name = body["name"];
  if (typeof name !== "string" || name === "") return undefined;
  const schema = shape === "anthropic" ? body["input_schema"] : shape === "mcp" ? body["inputSchema"] : body["parameters"];
  return { name, description: stringOr(body["description"], ""), parameters: schemaOf(schema) };
}

/** The tool array inside what people paste: a bare array, `{tools}` (MCP tools/list) or `{result: {tools}}` (JSON-RPC). */
function toolArray(data: unknown): unknown[] | undefined {
  if (Array.isArray(data)) return data;
  if (!isRecord(data)) return undefined;
  if (Array.isArray(data["tools"])) return data["tools"];
  const result = data["result"];
  if (isRecord(result) && Array.isArray(result["tools"])) return result["tools"];
  return undefined;
}

/** Parses a pasted or uploaded tool list; throws ToolListError with a message meant for the person who pasted it. */
export function parseToolList(text: string): ParsedToolList {
  if (text.trim() === "") throw new ToolListError("Paste a tool list or choose a file first.");
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ToolListError(`This is not valid JSON: ${reason}`, { cause: error });
  }
  const tools = toolArray(data);
  if (tools === undefined) {
    throw new ToolListError('Expected a JSON array of tools, or an object with a "tools" array (as MCP tools/list answers).');
  }
  if (tools.length === 0) throw new ToolListError("The list has no tools.");
  let first: ToolListShape | undefined;
  const views: ToolView[] = [];
  for (const [index, tool] of tools.entries()) {
    const shape = shapeOf(tool);
    const view = viewOf(tool);
    if (shape === undefined || view === undefined) {
      throw new ToolListError(
        `Tool ${index + 1} is not a function tool in OpenAI Chat, OpenAI Responses, Anthropic or MCP shape (or has no name).`,
      );
    }
    if (first === undefined) first = shape;
    else if (shape !== first) {
      throw new ToolListError(
        `Tool ${index + 1} is in ${SHAPE_LABELS[shape]} shape but tool 1 is in ${SHAPE_LABELS[first]} shape: use one shape per list.`,
      );
    }
    views.push(view);
  }
  return { shape: first ?? "openai", tools, views };
}
