// Tool-definition and argument validation (SPEC §1), with @cfworker/json-schema (no eval, made for Workers).
import { dereference, Validator } from "@cfworker/json-schema";
import type { OutputUnit } from "@cfworker/json-schema";
import { texts } from "./locale.ts";
import type { ArgumentTexts } from "./locale.ts";
import { cleanToolTexts } from "./toolTexts.ts";
import type {
  DeclaredConfirm, ExecutorSpec, HttpMethod, JsonSchema, Locale, Risk, ToolDefinition, Visibility,
} from "./types.ts";

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
/** A group name; `*` is not one (it means "every group" on the enabling side). */
export const GROUP_NAME_PATTERN = /^[a-zA-Z0-9_.:-]{1,64}$/;
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

type Json = { [key: string]: unknown };

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `a.b`, `a["x y"]`, `a[3]`: a readable path for error fields. */
function childField(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent}[${key}]`;
  const plain = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key);
  if (parent === "") return plain ? key : `[${JSON.stringify(key)}]`;
  return plain ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

function fail(field: string, message: string): never {
  throw new ToolDefinitionError(field, message);
}

function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[]): T {
  const found = allowed.find((a) => a === value);
  if (found === undefined) fail(field, `must be one of ${allowed.map((a) => `"${a}"`).join(", ")}`);
  return found;
}

function rejectUnknownFields(input: Json, field: string, known: readonly string[]): void {
  for (const key of Object.keys(input)) {
    if (!known.includes(key)) fail(childField(field, key), `unknown field (known: ${known.join(", ")})`);
  }
}

/** Own fields only, `undefined` meaning absent: nothing is read through the prototype. */
function own(input: Json, key: string): unknown {
  return Object.hasOwn(input, key) ? input[key] : undefined;
}

function utf8Length(text: string): number {
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
// JSON Schema structure. @cfworker/json-schema compiles without checking keyword values (a string `properties`
// only fails, or throws, when an argument meets it), so the keywords it applies are checked here first.

const SIMPLE_TYPES = ["array", "boolean", "integer", "null", "number", "object", "string"] as const;
const SUBSCHEMA_KEYWORDS = [
  "additionalProperties", "unevaluatedProperties", "propertyNames", "contains", "not", "if", "then", "else",
  "additionalItems", "unevaluatedItems",
];
const SUBSCHEMA_ARRAY_KEYWORDS = ["prefixItems", "allOf", "anyOf", "oneOf"];
const SUBSCHEMA_MAP_KEYWORDS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
const COUNT_KEYWORDS = [
  "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains",
];
const STRING_KEYWORDS = ["$id", "$anchor", "$comment", "$schema", "$ref", "$recursiveRef", "format", "title", "description"];

function isRegex(pattern: string): boolean {
  try {
    return RegExp(pattern, "u") instanceof RegExp;
  } catch {
    return false;
  }
}

function isUniqueStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === "string") && new Set(value).size === value.length;
}

/** Calls `visit` for every subschema (the positions the validator applies as schemas), depth first. */
function forEachSubschema(node: unknown, field: string, depth: number, visit: (node: unknown, field: string, depth: number) => void): void {
  visit(node, field, depth);
  if (!isObject(node)) return;
  for (const [key, value] of Object.entries(node)) {
    const at = childField(field, key);
    if (SUBSCHEMA_KEYWORDS.includes(key)) forEachSubschema(value, at, depth + 1, visit);
    else if (key === "items" || SUBSCHEMA_ARRAY_KEYWORDS.includes(key)) {
      if (Array.isArray(value)) value.forEach((v, i) => forEachSubschema(v, childField(at, i), depth + 1, visit));
      else if (key === "items") forEachSubschema(value, at, depth + 1, visit);
    } else if (SUBSCHEMA_MAP_KEYWORDS.includes(key) && isObject(value)) {
      for (const [name, sub] of Object.entries(value)) forEachSubschema(sub, childField(at, name), depth + 1, visit);
    } else if (key === "dependencies" && isObject(value)) {
      for (const [name, sub] of Object.entries(value)) {
        if (!Array.isArray(sub)) forEachSubschema(sub, childField(at, name), depth + 1, visit);
      }
    }
  }
}

/** The value checks of one schema node (its subschemas are visited separately). */
function checkSchemaNode(node: unknown, field: string, depth: number): void {
  if (depth > DEFINITION_LIMITS.schemaDepth) fail(field, `nests too deeply (more than ${DEFINITION_LIMITS.schemaDepth} levels)`);
  if (typeof node === "boolean") return;
  if (!isObject(node)) fail(field, "must be a JSON Schema (an object, or true/false)");
  for (const [key, value] of Object.entries(node)) {
    const at = childField(field, key);
    if (key === "type") {
      const types = Array.isArray(value) ? value : [value];
      const known = types.every((t) => typeof t === "string" && (SIMPLE_TYPES as readonly string[]).includes(t));
      if (types.length === 0 || !known || new Set(types).size !== types.length) {
        fail(at, `must be one of ${SIMPLE_TYPES.map((t) => `"${t}"`).join(", ")}, or an array of distinct ones`);
      }
    } else if (SUBSCHEMA_ARRAY_KEYWORDS.includes(key)) {
      if (!Array.isArray(value) || value.length === 0) fail(at, "must be a non-empty array of schemas");
    } else if (key === "items") {
      if (Array.isArray(value) && value.length === 0) fail(at, "must be a schema or a non-empty array of schemas");
    } else if (SUBSCHEMA_MAP_KEYWORDS.includes(key)) {
      if (!isObject(value)) fail(at, "must be an object whose values are schemas");
      if (key === "patternProperties") {
        for (const pattern of Object.keys(value)) {
          if (!isRegex(pattern)) fail(childField(at, pattern), "is not a valid regular expression");
        }
      }
    } else if (key === "required") {
      if (!isUniqueStringArray(value)) fail(at, "must be an array of distinct strings");
    } else if (key === "dependentRequired") {
      if (!isObject(value)) fail(at, "must be an object of string arrays");
      for (const [name, list] of Object.entries(value)) {
        if (!isUniqueStringArray(list)) fail(childField(at, name), "must be an array of distinct strings");
      }
    } else if (key === "dependencies") {
      if (!isObject(value)) fail(at, "must be an object");
      for (const [name, dependency] of Object.entries(value)) {
        if (Array.isArray(dependency) && !isUniqueStringArray(dependency)) {
          fail(childField(at, name), "must be a schema or an array of distinct strings");
        }
      }
    } else if (key === "enum") {
      if (!Array.isArray(value)) fail(at, "must be an array");
    } else if (COUNT_KEYWORDS.includes(key)) {
      if (typeof value !== "number" || !Number.isInteger(value) || value < 0) fail(at, "must be a non-negative integer");
    } else if (key === "minimum" || key === "maximum") {
      if (typeof value !== "number" || !Number.isFinite(value)) fail(at, "must be a number");
    } else if (key === "exclusiveMinimum" || key === "exclusiveMaximum") {
      // A boolean is the draft-4 form; it is understood (see normalizeDraft4) because real tools still use it.
      if (typeof value !== "boolean" && (typeof value !== "number" || !Number.isFinite(value))) fail(at, "must be a number");
    } else if (key === "multipleOf") {
      if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) fail(at, "must be a number above 0");
    } else if (key === "pattern") {
      if (typeof value !== "string" || !isRegex(value)) fail(at, "must be a valid regular expression");
    } else if (key === "uniqueItems") {
      if (typeof value !== "boolean") fail(at, "must be true or false");
    } else if (STRING_KEYWORDS.includes(key)) {
      if (typeof value !== "string") fail(at, "must be a string");
    }
  }
}

/** Draft-4 `exclusiveMinimum: true` + `minimum: n` means `exclusiveMinimum: n` in 2020-12, which the validator runs. */
function normalizeDraft4(schema: Json): void {
  forEachSubschema(schema, "", 0, (node) => {
    if (!isObject(node)) return;
    for (const [exclusive, inclusive] of [["exclusiveMinimum", "minimum"], ["exclusiveMaximum", "maximum"]] as const) {
      if (typeof node[exclusive] !== "boolean") continue;
      if (node[exclusive] && typeof node[inclusive] === "number") {
        node[exclusive] = node[inclusive];
        delete node[inclusive];
      } else delete node[exclusive];
    }
  });
}

/** Thrown by `compile` with the field (under the root it was given) and what is wrong. */
class SchemaCompileError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.field = field;
  }
}

/**
 * Compiles a schema for @cfworker/json-schema: a private copy (the library annotates the schema it compiles, and the
 * stored definitions stay frozen), draft-4 bounds normalised, every `$ref` resolved inside the schema, and one probe
 * run, so that a schema that cannot work fails here rather than at the first call.
 */
function compile(schema: JsonSchema, root: string): Validator {
  let copy: unknown;
  try {
    copy = JSON.parse(JSON.stringify(schema));
  } catch (error) {
    throw new SchemaCompileError(root, `must be plain JSON (${errorMessage(error)})`);
  }
  if (!isObject(copy)) throw new SchemaCompileError(root, "must be a JSON object");
  normalizeDraft4(copy);
  let lookup: Record<string, unknown>;
  try {
    lookup = dereference(copy);
  } catch (error) {
    throw new SchemaCompileError(root, `cannot be compiled (${errorMessage(error)})`);
  }
  const references = [["$ref", "__absolute_ref__"], ["$recursiveRef", "__absolute_recursive_ref__"]] as const;
  forEachSubschema(copy, root, 0, (node, field) => {
    if (!isObject(node)) return;
    for (const [keyword, absolute] of references) {
      if (node[keyword] === undefined) continue;
      // dereference() stored the absolute URI of the reference on the node, as a hidden property.
      const target = node[absolute];
      if (typeof target !== "string" || lookup[target] === undefined) {
        throw new SchemaCompileError(childField(field, keyword), "does not resolve inside this schema (only local references work)");
      }
    }
  });
  const validator = new Validator(copy, "2020-12", false);
  try {
    validator.validate({});
  } catch (error) {
    throw new SchemaCompileError(root, `cannot be evaluated (${errorMessage(error)})`);
  }
  return validator;
}

/**
 * The validator's `uniqueItems` compares every item with every other one: past this many items an array is refused
 * before validation (64,000 numbers would take seconds of CPU), for tools whose schema asks for unique items.
 */
export const MAX_UNIQUE_CHECKED_ITEMS = 5_000;

interface CompiledSchema {
  validator: Validator;
  checksUniqueItems: boolean;
}

const compiled = new WeakMap<JsonSchema, CompiledSchema>();

function compiledFor(schema: JsonSchema): CompiledSchema {
  let entry = compiled.get(schema);
  if (!entry) {
    let checksUniqueItems = false;
    forEachSubschema(schema, "", 0, (node) => {
      if (isObject(node) && node.uniqueItems === true) checksUniqueItems = true;
    });
    entry = { validator: compile(schema, ""), checksUniqueItems };
    compiled.set(schema, entry);
  }
  return entry;
}

/** The longest array anywhere in a JSON value (iterative: arguments may nest deeply). */
function longestArray(value: unknown): number {
  let longest = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      longest = Math.max(longest, node.length);
      for (const item of node) if (typeof item === "object" && item !== null) stack.push(item);
    } else if (isObject(node)) {
      for (const item of Object.values(node)) if (typeof item === "object" && item !== null) stack.push(item);
    }
  }
  return longest;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function checkParameters(value: unknown): JsonSchema {
  if (!isObject(value)) fail("parameters", "must be a JSON Schema object with type \"object\"");
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
  if (!isObject(parameters)) fail("parameters", "must be a JSON Schema object with type \"object\"");
  if (parameters["type"] !== "object") fail("parameters.type", "must be \"object\" (tool parameters are an object schema)");
  forEachSubschema(parameters, "parameters", 0, checkSchemaNode);
  try {
    compile(parameters, "parameters");
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
  if (!isObject(value)) fail("executor", "must be an object with a \"type\" field");
  const type = oneOf(own(value, "type"), "executor.type", ["builtin", "http", "service"] as const);
  if (type === "builtin") {
    rejectUnknownFields(value, "executor", ["type", "name"]);
    const name = own(value, "name");
    if (typeof name !== "string" || !TOOL_NAME_PATTERN.test(name)) fail("executor.name", `must match ${TOOL_NAME_PATTERN.source}`);
    return { type, name };
  }
  if (type === "service") {
    rejectUnknownFields(value, "executor", ["type", "binding", "path", "untrusted"]);
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
    const untrusted = own(value, "untrusted");
    if (untrusted !== undefined) {
      if (typeof untrusted !== "boolean") fail("executor.untrusted", "must be true or false");
      spec.untrusted = untrusted;
    }
    return spec;
  }
  rejectUnknownFields(value, "executor", ["type", "url", "method", "headers", "timeoutMs", "untrusted"]);
  const url = own(value, "url");
  if (typeof url !== "string" || url.length > DEFINITION_LIMITS.urlChars || !HTTP_URL.test(url)) {
    fail("executor.url", `must be an http:// or https:// URL without credentials, at most ${DEFINITION_LIMITS.urlChars} characters`);
  }
  const spec: ExecutorSpec = { type, url };
  const method = own(value, "method");
  if (method !== undefined) spec.method = oneOf(method, "executor.method", HTTP_METHODS);
  const headers = own(value, "headers");
  if (headers !== undefined) {
    if (!isObject(headers)) fail("executor.headers", "must be an object: header name → secret name");
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
  const untrusted = own(value, "untrusted");
  if (untrusted !== undefined) {
    if (typeof untrusted !== "boolean") fail("executor.untrusted", "must be true or false");
    spec.untrusted = untrusted;
  }
  return spec;
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

const DEFINITION_FIELDS = ["name", "description", "parameters", "groups", "visibility", "risk", "confirm", "executor"];

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
  if (!isObject(input)) fail("tool", "must be a JSON object");
  rejectUnknownFields(input, "", DEFINITION_FIELDS);
  const name = own(input, "name");
  if (typeof name !== "string" || !TOOL_NAME_PATTERN.test(name)) {
    fail("name", `must match ${TOOL_NAME_PATTERN.source} (letters, digits, "_", ".", "-"; 1 to 64 characters)`);
  }
  const description = own(input, "description");
  if (typeof description !== "string") fail("description", "must be a string");
  if (description.length > DEFINITION_LIMITS.descriptionChars) {
    fail("description", `has ${description.length} characters; at most ${DEFINITION_LIMITS.descriptionChars} are allowed`);
  }
  // What the model reads (the description, every title and description in the parameters) is cleaned as untrusted
  // content is; a description of invisible characters only is empty.
  const definition = cleanToolTexts({ name, description, parameters: checkParameters(own(input, "parameters")) }, options.locale);
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

// ---------------------------------------------------------------------------------------------------------------
// Arguments.

const MAX_PROBLEMS = 10;
const MAX_LISTED_VALUES = 10;

/** `#/address/lines/0` → `address.lines[0]`, looking at `args` to tell array indexes from keys. */
function argumentPath(instanceLocation: string, args: unknown): string {
  const segments = instanceLocation.replace(/^#\/?/, "").split("/").filter((s) => s !== "");
  let path = "";
  let node = args;
  for (const raw of segments) {
    let key: string;
    try {
      key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    } catch {
      key = raw;
    }
    if (Array.isArray(node)) {
      path += `[${key}]`;
      node = node[Number(key)];
    } else {
      path = path === "" ? key : `${path}.${key}`;
      node = isObject(node) ? node[key] : undefined;
    }
  }
  return path;
}

function joinPath(parent: string, key: string): string {
  return parent === "" ? key : `${parent}.${key}`;
}

/** The quoted part of a validator message, e.g. the property of `…required property "city".`. */
function quoted(message: string, before: string, after: string): string | undefined {
  const start = message.indexOf(before);
  const end = message.lastIndexOf(after);
  return start < 0 || end < start + before.length ? undefined : message.slice(start + before.length, end);
}

function listedValues(values: readonly unknown[]): string[] {
  const shown = values.slice(0, MAX_LISTED_VALUES).map((v) => JSON.stringify(v) ?? String(v));
  return values.length > MAX_LISTED_VALUES ? [...shown, "…"] : shown;
}

/** Whether `error` comes from a branch of the anyOf / oneOf `choice` (same or deeper instance location). */
function isBranchOf(choice: OutputUnit, error: OutputUnit | undefined): error is OutputUnit {
  return (
    error !== undefined &&
    error.keywordLocation.startsWith(`${choice.keywordLocation}/`) &&
    (error.instanceLocation === choice.instanceLocation || error.instanceLocation.startsWith(`${choice.instanceLocation}/`))
  );
}

/** Turns the validator's output units into one short line per problem. */
function describe(errors: readonly OutputUnit[], args: unknown, t: ArgumentTexts): string[] {
  const problems: string[] = [];
  // anyOf / oneOf: one line for the whole choice; the branches' own errors would only confuse. The validator puts a
  // choice's errors right after it, so they are found (and skipped) by looking ahead: linear, whatever the number of
  // array items that fail the same choice.
  let skipUntil = 0;
  errors.forEach((error, index) => {
    if (index < skipUntil) return;
    const path = argumentPath(error.instanceLocation, args);
    switch (error.keyword) {
      case "required": {
        const key = quoted(error.error, 'required property "', '".');
        problems.push(key === undefined ? t.invalid(path, error.error) : t.missing(joinPath(path, key)));
        return;
      }
      case "false": {
        const previous = errors[index - 1];
        const unknown = previous?.keyword === "additionalProperties" || previous?.keyword === "unevaluatedProperties";
        problems.push(unknown ? t.unknown(path) : t.invalid(path, "is not allowed"));
        return;
      }
      case "type": {
        const expected = quoted(error.error, 'Expected "', '".');
        problems.push(expected === undefined ? t.invalid(path, error.error) : t.type(path, expected.split('", "')));
        return;
      }
      case "enum":
      case "const": {
        const text = quoted(error.error, error.keyword === "enum" ? "any of " : "match ", ".") ?? "";
        let values: unknown[] | undefined;
        try {
          const parsed: unknown = JSON.parse(text);
          values = error.keyword === "enum" ? (Array.isArray(parsed) ? parsed : undefined) : [parsed];
        } catch {
          values = undefined;
        }
        problems.push(values === undefined ? t.invalid(path, error.error) : t.allowed(path, listedValues(values)));
        return;
      }
      case "anyOf":
      case "oneOf": {
        let end = index + 1;
        while (isBranchOf(error, errors[end])) end++;
        skipUntil = end;
        const branches = errors.slice(index + 1, end);
        // `anyOf: [{type: "string"}, {type: "null"}]` reads better as one type problem.
        const typeOnly = branches.length > 0 && branches.every((e) => e.keyword === "type" && e.instanceLocation === error.instanceLocation);
        if (typeOnly) {
          const expected = branches.flatMap((e) => (quoted(e.error, 'Expected "', '".') ?? "").split('", "')).filter((x) => x);
          problems.push(t.type(path, [...new Set(expected)]));
        } else problems.push(t.noMatch(path));
        return;
      }
      // These wrap the errors that follow them, which say what is wrong.
      case "$ref":
      case "$recursiveRef":
      case "properties":
      case "patternProperties":
      case "additionalProperties":
      case "unevaluatedProperties":
      case "items":
      case "prefixItems":
      case "additionalItems":
      case "unevaluatedItems":
      case "allOf":
      case "if":
      case "dependentSchemas":
        return;
      default:
        problems.push(t.invalid(path, error.error));
    }
  });
  const unique = [...new Set(problems)];
  if (unique.length <= MAX_PROBLEMS) return unique;
  return [...unique.slice(0, MAX_PROBLEMS), t.more(unique.length - MAX_PROBLEMS)];
}

/**
 * Problems of `args` against the tool's parameter schema, as short human-readable lines; [] when valid.
 * Compiled validators are cached per schema object (a WeakMap), so pass the stored `parameters` itself.
 */
export function validateArguments(schema: JsonSchema, args: unknown, locale: Locale = "en"): string[] {
  const t = texts(locale).argument;
  if (!isObject(args)) return [t.notObject];
  try {
    const { validator, checksUniqueItems } = compiledFor(schema);
    if (checksUniqueItems && longestArray(args) > MAX_UNIQUE_CHECKED_ITEMS) return [t.uniqueTooLong(MAX_UNIQUE_CHECKED_ITEMS)];
    const result = validator.validate(args);
    return result.valid ? [] : describe(result.errors, args, t);
  } catch {
    // An uncompilable schema, a $ref loop, a value that is not JSON: a problem to report, never a crash.
    return [t.schemaFailed];
  }
}
