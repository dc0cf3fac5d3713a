// An MCP server's tool (a `tools/list` entry) → a toolgate ToolDefinition. Used for upstream servers (PUT
// /v1/upstreams/:id) and by any import of the MCP shape. The annotations map to the guard: `readOnlyHint` → public
// and safe; `destructiveHint` (on a tool that is not read-only) → dangerous, which asks for confirmation; any other
// tool may change its world (MCP's default reading of a tool without hints), so it is sensitive. The owner's settings
// on the upstream replace what the annotations say.
import { DEFINITION_LIMITS, SOURCE_NAME_MAX_LENGTH, utf8Length, validateToolDefinition } from "../tools/definition.ts";
import { canonicalJson, TooDeep } from "../jsonSchema/canonical.ts";
import { isRecord } from "../records.ts";
import { fitToolName, prefixedToolName } from "../tools/toolNames.ts";
import { HASH_DEPTH } from "./pins.ts";
import { cleanSchemaData, hiddenPropertyName } from "./schemaData.ts";
import type { DeclaredConfirm, ExecutorSpec, JsonSchema, Locale, Risk, ToolDefinition, Visibility } from "../types.ts";

/** The fields of an MCP tool that toolgate reads (anything else a server sends is ignored). */
export interface McpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonSchema;
  annotations?: McpToolAnnotations;
}

export interface McpToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** What the owner set on the upstream: each field present replaces what the annotations would give. */
export interface OwnerToolSettings {
  groups?: string[];
  visibility?: Visibility;
  risk?: Risk;
  confirm?: DeclaredConfirm;
}

export interface McpToolOptions extends OwnerToolSettings {
  /** Names become `<prefix>__<name>` (fitted); without a prefix the name is only fitted. */
  prefix?: string;
  executor?: ExecutorSpec;
  locale?: Locale;
}

const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;
const TITLE_MAX = 256;

/** A `tools/list` entry read leniently (unknown fields dropped) or the reason it cannot be used. */
export function readMcpTool(value: unknown): { tool: McpTool } | { problem: string } {
  if (!isRecord(value)) return { problem: "a tool must be an object" };
  const { name, title, description, inputSchema, annotations } = value;
  if (typeof name !== "string" || name.length === 0 || name.length > SOURCE_NAME_MAX_LENGTH) {
    return { problem: `a tool name must be a string of 1 to ${SOURCE_NAME_MAX_LENGTH} characters` };
  }
  const tool: McpTool = { name, inputSchema: {} };
  if (typeof title === "string" && title.length > 0) tool.title = title.slice(0, TITLE_MAX);
  if (description !== undefined && description !== null) {
    if (typeof description !== "string") return { problem: `"${name}": description must be a string` };
    if (description.length > DEFINITION_LIMITS.descriptionChars) {
      return { problem: `"${name}": the description has ${description.length} characters; at most ${DEFINITION_LIMITS.descriptionChars} are allowed` };
    }
    tool.description = description;
  }
  if (!isRecord(inputSchema)) return { problem: `"${name}": inputSchema must be an object schema` };
  const schemaProblem = inputSchemaProblem(inputSchema);
  if (schemaProblem !== undefined) return { problem: `"${name}": ${schemaProblem}` };
  const hidden = hiddenPropertyName(inputSchema);
  if (hidden !== undefined) {
    return { problem: `"${name}": the property name ${hidden} carries hidden, bidi or banner characters; a tool's property names must read as they are` };
  }
  tool.inputSchema = inputSchema;
  if (isRecord(annotations)) {
    const read: McpToolAnnotations = {};
    if (typeof annotations.title === "string" && annotations.title.length > 0) read.title = annotations.title.slice(0, TITLE_MAX);
    for (const hint of HINTS) {
      const given = annotations[hint];
      if (typeof given === "boolean") read[hint] = given;
    }
    if (Object.keys(read).length > 0) tool.annotations = read;
  }
  return { tool };
}

/**
 * Why a schema is refused before the tool is pinned (its pin hashes and stores it), or undefined: too deep to hash, or
 * larger than a registered tool's parameters may be. Registering would refuse it anyway; here it costs no storage.
 */
function inputSchemaProblem(schema: JsonSchema): string | undefined {
  try {
    canonicalJson(schema, HASH_DEPTH);
  } catch (error) {
    if (error instanceof TooDeep) return `inputSchema nests deeper than ${HASH_DEPTH} levels`;
    throw error;
  }
  const bytes = utf8Length(JSON.stringify(schema));
  if (bytes > DEFINITION_LIMITS.parametersBytes) {
    return `inputSchema is ${bytes} bytes of JSON; at most ${DEFINITION_LIMITS.parametersBytes} are allowed`;
  }
  return undefined;
}

/**
 * The guard's reading of the annotations of a tool the owner imports: destructive (even when it also says read-only)
 * → dangerous; read-only → public and safe; else sensitive. An upstream server's tools follow toolGuard.ts instead
 * (restricted unless the owner says otherwise).
 */
export function guardFromAnnotations(annotations: McpToolAnnotations | undefined): { visibility?: Visibility; risk: Risk } {
  if (annotations?.destructiveHint === true) return { risk: "dangerous" };
  if (annotations?.readOnlyHint === true) return { visibility: "public", risk: "safe" };
  return { risk: "sensitive" };
}

/**
 * The definition of an MCP tool, validated as every registered tool is (throws ToolDefinitionError naming the field).
 * A tool without a description is described by its title, or by where it comes from: registered tools need one.
 */
export function definitionFromMcpTool(tool: McpTool, options: McpToolOptions = {}): ToolDefinition {
  const name = options.prefix === undefined ? fitToolName(tool.name) : prefixedToolName(options.prefix, tool.name);
  const title = tool.title ?? tool.annotations?.title;
  const given = tool.description?.trim() ?? "";
  const description = given !== "" ? given : title ?? `The tool "${tool.name}"${options.prefix === undefined ? "" : ` of the MCP server ${options.prefix}`}.`;
  const guard = guardFromAnnotations(tool.annotations);
  const input: Record<string, unknown> = {
    name,
    description,
    // MCP requires an object schema; a server that leaves out `type` still means one.
    // enum, const, default and examples cleaned as descriptions are (the registry cleans the texts).
    parameters: cleanSchemaData(tool.inputSchema.type === undefined ? { ...tool.inputSchema, type: "object" } : tool.inputSchema, options.locale ?? "en"),
  };
  if (options.groups !== undefined && options.groups.length > 0) input.groups = options.groups;
  const visibility = options.visibility ?? guard.visibility;
  if (visibility !== undefined) input.visibility = visibility;
  input.risk = options.risk ?? guard.risk;
  if (options.confirm !== undefined) input.confirm = options.confirm;
  if (options.executor !== undefined) input.executor = options.executor;
  if (name !== tool.name) input.originalName = tool.name;
  return validateToolDefinition(input, { locale: options.locale ?? "en" });
}
