// Tool definitions: every field checked when a tool is registered or sent by a client (the error names the field), the
// parameters compiled by our own bounded JSON Schema validator (./jsonSchema/) and kept for the calls (arguments.ts).
import { compileSchema, SchemaCompileError } from "../jsonSchema/compile.ts";
import type { CompiledSchema } from "../jsonSchema/compile.ts";
import { childField } from "../jsonSchema/field.ts";
import { VALIDATION_LIMITS } from "../jsonSchema/validate.ts";
import { firstUnknownKey, isRecord } from "../records.ts";
import { cleanToolTexts } from "./toolTexts.ts";
import { fitToolName, PORTABLE_TOOL_NAME } from "./toolNames.ts";
import type {
  DeclaredConfirm, ExecutorSpec, HttpMethod, JsonSchema, Locale, Risk, ToolDefinition, Visibility,
} from "../types.ts";

/** A tool definition is wrong; `field` names the field (e.g. `parameters.type`, `groups[2]`). */
export class ToolDefinitionError extends Error {
  readonly field: string;
  /** What is wrong, without the field in front (for a caller that places the field in its own request). */
  readonly problem: string;
  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.name = "ToolDefinitionError";
    this.field = field;
    this.problem = message;
  }
}

/** A tool's name in the catalog: what every provider accepts (toolNames.ts). Other names are fitted to it. */
export const TOOL_NAME_PATTERN = PORTABLE_TOOL_NAME;
/** The longest name a tool may have at its source (an MCP server's names have no limit; ours do). */
export const SOURCE_NAME_MAX_LENGTH = 256;
/** Control characters, line breaks and other invisible format characters never belong in a name. */
const NAME_UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
/** A group name; `*` is not one (it means "every group" on the enabling side). */
export const GROUP_NAME_PATTERN = /^[a-zA-Z0-9_.:-]{1,64}$/;
/** An upstream MCP server's id (PUT /v1/upstreams/:id): also the default prefix of its tools' names. */
export const UPSTREAM_ID_PATTERN = /^[a-zA-Z0-9_-]{1,32}$/;
/** The name of the Worker secret that holds a header's value. */
export const SECRET_NAME_PATTERN = /^[A-Z][A-Z0-9_]*$/;

export const DEFINITION_LIMITS = Object.freeze({
  descriptionChars: 4_096,
  /** UTF-8 bytes of `JSON.stringify(parameters)`. */
  parametersBytes: 64 * 1024,
  /** Nesting of subschemas inside `parameters`; deeper schemas are abuse, not tools. */
  schemaDepth: 32,
  groups: 32,
  headers: 32,
  urlChars: 2_048,
  servicePathChars: 1_024,
  timeoutMs: 300_000,
});

type Json = Record<string, unknown>;

function fail(field: string, message: string): never {
  throw new ToolDefinitionError(field, message);
}

function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[]): T {
  const found = allowed.find((a) => a === value);
  if (found === undefined) fail(field, `must be one of ${allowed.map((a) => `"${a}"`).join(", ")}`);
  return found;
}

function rejectUnknownFields(input: Json, known: readonly string[], field: string): void {
  const unknown = firstUnknownKey(input, known);
  if (unknown !== undefined) fail(childField(field, unknown), `unknown field (known: ${known.join(", ")})`);
}

/** Own fields only, `undefined` meaning absent: nothing is read through the prototype. */
function own(input: Json, key: string): unknown {
  return Object.hasOwn(input, key) ? input[key] : undefined;
}

export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

// ---------------------------------------------------------------------------------------------------------------
// JSON Schema: compiled by our own bounded validator (src/core/jsonSchema/), which checks every keyword value.

const COMPILE_LIMITS = Object.freeze({
  schemaDepth: DEFINITION_LIMITS.schemaDepth,
  valueDepth: VALIDATION_LIMITS.argumentDepth,
  // A $ref inside an allOf branch is two steps: this lets a chain of references go as deep as the schema nests.
  chainLength: 2 * DEFINITION_LIMITS.schemaDepth,
});

/** Compiled schemas by schema object; null when it cannot be compiled (answered, never thrown, at every call). */
const compiled = new WeakMap<JsonSchema, CompiledSchema | null>();

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function checkParameters(value: unknown): JsonSchema {
  if (!isRecord(value)) fail("parameters", "must be a JSON Schema object with type \"object\"");
  let serialized: string;
  try {
    serialized = JSON.stringify(value);
  } catch (error) {
    fail("parameters", `must be plain JSON (${errorMessage(error)})`);
  }
  const bytes = utf8Length(serialized);
  if (bytes > DEFINITION_LIMITS.parametersBytes) {
    fail("parameters", `is ${bytes} bytes of JSON; at most ${DEFINITION_LIMITS.parametersBytes} are allowed`);
  }
  const parameters: unknown = JSON.parse(serialized);
  if (!isRecord(parameters)) fail("parameters", "must be a JSON Schema object with type \"object\"");
  if (parameters["type"] !== "object") fail("parameters.type", "must be \"object\" (tool parameters are an object schema)");
  // The same compiler as at call time: a schema a call could not use is refused here. The definition keeps this
  // object as its parameters, so its calls reuse the compiled form.
  try {
    compiled.set(parameters, compileSchema(parameters, "parameters", COMPILE_LIMITS));
  } catch (error) {
    if (error instanceof SchemaCompileError) fail(error.field, error.message);
    throw error;
  }
  return parameters;
}

// ---------------------------------------------------------------------------------------------------------------
// The definition's other fields.

const HTTP_METHODS: readonly HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/;
/** Scheme http(s), a host without credentials or white space, then anything but white space. */
const HTTP_URL = /^https?:\/\/[^\s/?#@]+(?:[/?#]\S*)?$/i;
const BINDING_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

function checkExecutor(value: unknown): ExecutorSpec {
  if (!isRecord(value)) fail("executor", "must be an object with a \"type\" field");
  const type = oneOf(own(value, "type"), "executor.type", ["builtin", "http", "service", "mcp"] as const);
  if (type === "mcp") return checkMcpExecutor(value);
  if (type === "builtin") {
    rejectUnknownFields(value, ["type", "name"], "executor");
    const name = own(value, "name");
    if (typeof name !== "string" || !TOOL_NAME_PATTERN.test(name)) fail("executor.name", `must match ${TOOL_NAME_PATTERN.source}`);
    return { type, name };
  }
  if (type === "service") {
    rejectUnknownFields(value, ["type", "binding", "path", "untrusted"], "executor");
    const binding = own(value, "binding");
    if (typeof binding !== "string" || !BINDING_NAME.test(binding)) fail("executor.binding", `must match ${BINDING_NAME.source}`);
    const spec: ExecutorSpec = { type, binding };
    const path = own(value, "path");
    if (path !== undefined) {
      if (typeof path !== "string" || !path.startsWith("/") || /\s/.test(path) || path.length > DEFINITION_LIMITS.servicePathChars) {
        fail("executor.path", `must start with "/", have no white space and at most ${DEFINITION_LIMITS.servicePathChars} characters`);
      }
      spec.path = path;
    }
    return withUntrusted(value, spec);
  }
  rejectUnknownFields(value, ["type", "url", "method", "headers", "timeoutMs", "untrusted"], "executor");
  const url = own(value, "url");
  if (typeof url !== "string" || url.length > DEFINITION_LIMITS.urlChars || !HTTP_URL.test(url)) {
    fail("executor.url", `must be an http:// or https:// URL without credentials, at most ${DEFINITION_LIMITS.urlChars} characters`);
  }
  const spec: ExecutorSpec = { type, url };
  const method = own(value, "method");
  if (method !== undefined) spec.method = oneOf(method, "executor.method", HTTP_METHODS);
  const headers = own(value, "headers");
  if (headers !== undefined) {
    if (!isRecord(headers)) fail("executor.headers", "must be an object: header name → secret name");
    const entries = Object.entries(headers);
    if (entries.length > DEFINITION_LIMITS.headers) fail("executor.headers", `has more than ${DEFINITION_LIMITS.headers} headers`);
    const copy: Record<string, string> = {};
    for (const [header, secret] of entries) {
      const at = childField("executor.headers", header);
      if (!HEADER_NAME.test(header)) fail(at, "is not a valid HTTP header name");
      // The value names a Worker secret; a literal credential in a definition would leak through GET /v1/tools.
      if (typeof secret !== "string" || !SECRET_NAME_PATTERN.test(secret)) {
        fail(at, `must name a Worker secret (${SECRET_NAME_PATTERN.source}), never hold the value itself`);
      }
      copy[header] = secret;
    }
    spec.headers = copy;
  }
  const timeoutMs = own(value, "timeoutMs");
  if (timeoutMs !== undefined) {
    if (typeof timeoutMs !== "number" || !Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > DEFINITION_LIMITS.timeoutMs) {
      fail("executor.timeoutMs", `must be an integer from 1 to ${DEFINITION_LIMITS.timeoutMs}`);
    }
    spec.timeoutMs = timeoutMs;
  }
  return withUntrusted(value, spec);
}

/** The `untrusted` flag that http and service executors share (whether their answer is wrapped). */
function withUntrusted(value: Json, spec: Extract<ExecutorSpec, { type: "http" | "service" }>): ExecutorSpec {
  const untrusted = own(value, "untrusted");
  if (untrusted !== undefined) {
    if (typeof untrusted !== "boolean") fail("executor.untrusted", "must be true or false");
    spec.untrusted = untrusted;
  }
  return spec;
}

/** An upstream MCP server's tool (core/upstream/): the upstream's id and the tool's own name there. */
function checkMcpExecutor(value: Json): ExecutorSpec {
  rejectUnknownFields(value, ["type", "upstream", "tool"], "executor");
  const upstream = own(value, "upstream");
  if (typeof upstream !== "string" || !UPSTREAM_ID_PATTERN.test(upstream)) fail("executor.upstream", `must match ${UPSTREAM_ID_PATTERN.source}`);
  const tool = own(value, "tool");
  if (typeof tool !== "string" || tool.length === 0 || tool.length > SOURCE_NAME_MAX_LENGTH) {
    fail("executor.tool", `must be the upstream's tool name, 1 to ${SOURCE_NAME_MAX_LENGTH} characters`);
  }
  return { type: "mcp", upstream, tool };
}

function checkGroups(value: unknown): string[] {
  if (!Array.isArray(value)) fail("groups", "must be an array of group names");
  if (value.length > DEFINITION_LIMITS.groups) fail("groups", `has more than ${DEFINITION_LIMITS.groups} groups`);
  const groups: string[] = [];
  value.forEach((group: unknown, index) => {
    const at = childField("groups", index);
    if (typeof group !== "string" || !GROUP_NAME_PATTERN.test(group)) fail(at, `must match ${GROUP_NAME_PATTERN.source}`);
    if (groups.includes(group)) fail(at, `repeats group "${group}"`);
    groups.push(group);
  });
  return groups;
}

const DEFINITION_FIELDS = ["name", "originalName", "description", "parameters", "groups", "visibility", "risk", "confirm", "executor"];

/**
 * Checks an untrusted tool definition and returns a clean copy (unknown fields rejected). Throws ToolDefinitionError.
 * The copy holds only the fields given (an empty `groups` is dropped: it means ungrouped), in a fixed order.
 */
export interface DefinitionOptions {
  /** Client-supplied tools (MCP, Anthropic) may leave the description out; registered tools may not. */
  allowEmptyDescription?: boolean;
  /** The language of the note that stands in for a forged banner marker in a description (default "en"). */
  locale?: Locale;
}

export function validateToolDefinition(input: unknown, options: DefinitionOptions = {}): ToolDefinition {
  if (!isRecord(input)) fail("tool", "must be a JSON object");
  rejectUnknownFields(input, DEFINITION_FIELDS, "");
  const { name, originalName } = readName(own(input, "name"), own(input, "originalName"));
  const description = own(input, "description");
  if (typeof description !== "string") fail("description", "must be a string");
  if (description.length > DEFINITION_LIMITS.descriptionChars) {
    fail("description", `has ${description.length} characters; at most ${DEFINITION_LIMITS.descriptionChars} are allowed`);
  }
  // What the model reads (the description, every title and description in the parameters) is cleaned as untrusted
  // content is; a description of invisible characters only is empty.
  const definition = cleanToolTexts({
    name,
    ...(originalName === undefined ? {} : { originalName }),
    description,
    parameters: checkParameters(own(input, "parameters")),
  }, options.locale);
  if (definition.description.trim() === "" && !options.allowEmptyDescription) fail("description", "must be a non-empty string");
  const groups = own(input, "groups");
  if (groups !== undefined) {
    const checked = checkGroups(groups);
    if (checked.length > 0) definition.groups = checked;
  }
  const visibility = own(input, "visibility");
  if (visibility !== undefined) definition.visibility = oneOf<Visibility>(visibility, "visibility", ["public", "restricted"]);
  const risk = own(input, "risk");
  if (risk !== undefined) definition.risk = oneOf<Risk>(risk, "risk", ["safe", "sensitive", "dangerous"]);
  const confirm = own(input, "confirm");
  if (confirm !== undefined) definition.confirm = oneOf<DeclaredConfirm>(confirm, "confirm", ["session", "always"]);
  const executor = own(input, "executor");
  if (executor !== undefined) definition.executor = checkExecutor(executor);
  return definition;
}

/**
 * A name as the source spelled it: kept when every provider accepts it, else fitted (fitToolName) with the source's
 * spelling kept as `originalName`. Given both (a definition read back from GET /v1/tools, an upstream's tool whose
 * catalog name is `<prefix>__<name>`), the name is the catalog's and `originalName` says what the source calls it;
 * given only `originalName`, the name is fitted from it.
 */
export function readName(name: unknown, originalName: unknown): { name: string; originalName?: string } {
  if (originalName !== undefined) checkSourceName(originalName, "originalName");
  if (name === undefined && typeof originalName === "string") return readName(originalName, undefined);
  checkSourceName(name, "name");
  const fitted = fitToolName(name);
  const source = typeof originalName === "string" ? originalName : name;
  return fitted === source ? { name: fitted } : { name: fitted, originalName: source };
}

function checkSourceName(value: unknown, field: string): asserts value is string {
  if (typeof value !== "string" || value.length === 0 || value.length > SOURCE_NAME_MAX_LENGTH) {
    fail(field, `must be a string of 1 to ${SOURCE_NAME_MAX_LENGTH} characters`);
  }
  if (NAME_UNPRINTABLE.test(value)) fail(field, "must not hold control, format or line-break characters");
}

/** The compiled form of a tool's stored `parameters` (compiled once, at definition or first use); null when it cannot be. */
export function compiledParameters(schema: JsonSchema): CompiledSchema | null {
  let entry = compiled.get(schema);
  if (entry === undefined) {
    try {
      entry = compileSchema(schema, "", COMPILE_LIMITS);
    } catch {
      entry = null;
    }
    compiled.set(schema, entry);
  }
  return entry;
}
