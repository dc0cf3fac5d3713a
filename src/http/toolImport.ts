// A tool to register, in any shape: toolgate's own, or OpenAI Chat, OpenAI Responses, Anthropic or MCP (the shapes a
// client may send to prepare), with toolgate's guard fields beside the shape's own. The answer says which it read.
import { ID_PATTERN } from "../core/ids.ts";
import { detectToolShape, fromShape, guardFromMcpAnnotations, ShapeError } from "../core/tools/shapes.ts";
import type { ToolShape } from "../core/tools/shapes.ts";
import { fitToolName } from "../core/tools/toolNames.ts";
import { UPSTREAM_CONTEXT_PREFIX } from "../core/upstream/config.ts";
import type { Locale, ToolDefinition } from "../core/types.ts";
import type { StoredTool } from "../durable/registryObject.ts";
import { executorProblems } from "../executors/index.ts";
import { readToolDefinition, SHAPE_FIELDS } from "./definitions.ts";
import { badField, HttpError } from "./errors.ts";
import { expectObject, fieldPath, optionalString, rejectUnknownFields } from "./validate.ts";
import type { JsonObject } from "./validate.ts";

/** The context of a tool registered without one. */
export const DEFAULT_CONTEXT = "runtime";

/** The shapes a registration reads: toolgate's own, and the four a client may send to prepare (shapes.ts). */
export type ImportShape = ToolShape | "toolgate";
/** What toolgate adds to a tool in another shape: its guard and where it runs, beside the shape's own fields. */
const GUARD_FIELDS = ["groups", "visibility", "risk", "confirm", "executor"] as const;
/** Fields that only another shape has: an item with one of them that is none of the four is a mistake, not ours. */
const FOREIGN_MARKERS = ["type", "function", "input_schema", "inputSchema"] as const;

export function itemShape(item: JsonObject, prefix: string): ImportShape {
  const shape = detectToolShape(item);
  if (shape !== undefined) return shape;
  if (FOREIGN_MARKERS.some((field) => Object.hasOwn(item, field))) {
    throw badField(prefix, "is not a tool in toolgate, OpenAI Chat, OpenAI Responses, Anthropic (custom) or MCP shape");
  }
  return "toolgate";
}

function readShape(item: JsonObject, shape: ToolShape, path: string): ToolDefinition {
  try {
    return fromShape(item, shape, path);
  } catch (error) {
    if (error instanceof ShapeError) throw new HttpError(400, "invalid_request", error.message);
    throw error;
  }
}

/**
 * A tool in another shape → the input of toolgate's own validation: the shape's name, description and schema, MCP
 * annotations as guard settings, then `defaults` (the owner's, for the whole list), then the item's own guard fields.
 */
function toolgateInput(item: JsonObject, shape: ToolShape, prefix: string, defaults: JsonObject): JsonObject {
  const read = readShape(item, shape, prefix === "" ? "tool" : prefix);
  const input: JsonObject = { ...read, ...(shape === "mcp" ? guardFromMcpAnnotations(item) : {}), ...defaults };
  for (const field of GUARD_FIELDS) {
    if (Object.hasOwn(item, field)) input[field] = item[field];
  }
  return input;
}

/**
 * The `context` field of a body: an id, never one of the upstreams' own (`upstream:<id>`), which the upstream's next
 * list would replace, taking the tool with it.
 */
export function readContext(body: JsonObject, prefix: string): string | undefined {
  const context = optionalString(body, "context", prefix, { pattern: ID_PATTERN, patternText: ID_PATTERN.source });
  if (context?.startsWith(UPSTREAM_CONTEXT_PREFIX) === true) {
    throw badField(fieldPath(prefix, "context"), `contexts starting with "${UPSTREAM_CONTEXT_PREFIX}" belong to upstream MCP servers (PUT /v1/upstreams/:id)`);
  }
  return context;
}

/** One tool of a request body → its validated definition and context. `prefix` names it in errors. */
export function readTool(
  body: JsonObject,
  shape: ImportShape,
  prefix: string,
  locale: Locale,
  options: { pathName?: string; defaults?: JsonObject } = {},
): StoredTool {
  const context = readContext(body, prefix);
  let input: JsonObject;
  if (shape === "toolgate") {
    input = { ...options.defaults, ...body };
    delete input.context;
    if (options.pathName !== undefined && input.name === undefined && input.originalName === undefined) input.name = options.pathName;
  } else {
    input = toolgateInput(body, shape, prefix, options.defaults ?? {});
  }
  const definition = readToolDefinition(input, prefix, { locale }, shape === "toolgate" ? {} : SHAPE_FIELDS[shape]);
  if (options.pathName !== undefined && definition.name !== fitToolName(options.pathName)) {
    throw badField(fieldPath(prefix, "name"), `must match the name in the path ("${options.pathName}")`);
  }
  if (definition.executor) {
    const problems = executorProblems(definition.executor);
    if (problems.length > 0) throw badField(fieldPath(prefix, "executor"), problems.join("; "));
  }
  return { definition, context: context ?? DEFAULT_CONTEXT };
}

/** The owner's guard settings for every tool of a bulk registration (an item's own fields win). */
export function readDefaults(body: JsonObject): JsonObject {
  if (body.defaults === undefined) return {};
  const defaults = expectObject(body.defaults, "defaults");
  rejectUnknownFields(defaults, GUARD_FIELDS.filter((field) => field !== "executor"), "defaults");
  return defaults;
}

