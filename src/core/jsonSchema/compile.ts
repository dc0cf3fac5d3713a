// Compiling a JSON Schema into a graph of checked nodes for the validator: every keyword value is checked here (a
// malformed schema fails when it is defined, naming the field, never when an argument meets it), local `$ref`s are
// resolved to nodes, and patterns are checked for RE2. Loops of references that never reach into the arguments are
// refused; other loops are fine, as the validator's budget bounds them.
import { canonicalJson, TooDeep } from "./canonical.ts";
import { childField } from "./field.ts";
import { formatCheck } from "./formats.ts";
import { Pattern, PatternError } from "./regex.ts";
import { isRecord } from "../records.ts";

/** A schema that cannot be compiled; `field` names the part at fault (under the root field given to compile). */
export class SchemaCompileError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.field = field;
  }
}

export interface CompileLimits {
  /** Nesting of subschemas (the root is level 0). */
  schemaDepth: number;
  /** Nesting of `enum` and `const` values. */
  valueDepth: number;
  /** Schemas applied in turn to one value ($ref, allOf, anyOf, …, each a step): the validator's recursion. */
  chainLength: number;
}

/** The values of `enum` or `const`, by type, so that membership is a Set lookup. */
export interface ValueSet {
  readonly values: readonly unknown[];
  readonly strings: ReadonlySet<string>;
  readonly numbers: ReadonlySet<number>;
  readonly booleans: ReadonlySet<boolean>;
  readonly hasNull: boolean;
  /** Canonical JSON of the objects and arrays. */
  readonly structured: ReadonlySet<string>;
}

export const TYPE_BITS = {
  null: 1, boolean: 2, object: 4, array: 8, number: 16, string: 32, integer: 64,
} as const satisfies Record<string, number>;
type TypeName = keyof typeof TYPE_BITS;

/** One compiled schema. Boolean schemas are nodes with `allows` set and nothing else. */
export interface SchemaNode {
  readonly field: string;
  allows?: boolean;
  refs?: SchemaNode[];
  types?: number;
  typeNames?: readonly string[];
  enumValues?: ValueSet;
  constValue?: ValueSet;
  not?: SchemaNode;
  anyOf?: SchemaNode[];
  allOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  ifSchema?: SchemaNode;
  thenSchema?: SchemaNode;
  elseSchema?: SchemaNode;
  // Objects
  required?: readonly string[];
  minProperties?: number;
  maxProperties?: number;
  propertyNames?: SchemaNode;
  dependentRequired?: [string, readonly string[]][];
  dependentSchemas?: [string, SchemaNode][];
  properties?: Map<string, SchemaNode>;
  patternProperties?: [Pattern, SchemaNode][];
  additionalProperties?: SchemaNode;
  unevaluatedProperties?: SchemaNode;
  // Arrays
  minItems?: number;
  maxItems?: number;
  /** `prefixItems`, or the draft-7 array form of `items`. */
  tupleItems?: SchemaNode[];
  /** Items after the tuple: `items` as a schema, else `additionalItems` when `items` is an array. */
  restItems?: SchemaNode;
  contains?: SchemaNode;
  minContains?: number;
  maxContains?: number;
  uniqueItems?: boolean;
  unevaluatedItems?: SchemaNode;
  // Numbers
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  // Strings
  minLength?: number;
  maxLength?: number;
  pattern?: Pattern;
  format?: { name: string; check: (text: string) => boolean };
}

/**
 * The one shape of every node: all fields set in one order (to undefined when absent), so that the validator reads
 * them from a single hidden class. Nodes built as object literals, each with its own keywords, made every read
 * megamorphic and the validator several times slower.
 */
class CompiledNode implements SchemaNode {
  readonly field: string;
  allows: boolean | undefined = undefined;
  refs: SchemaNode[] | undefined = undefined;
  types: number | undefined = undefined;
  typeNames: readonly string[] | undefined = undefined;
  enumValues: ValueSet | undefined = undefined;
  constValue: ValueSet | undefined = undefined;
  not: SchemaNode | undefined = undefined;
  anyOf: SchemaNode[] | undefined = undefined;
  allOf: SchemaNode[] | undefined = undefined;
  oneOf: SchemaNode[] | undefined = undefined;
  ifSchema: SchemaNode | undefined = undefined;
  thenSchema: SchemaNode | undefined = undefined;
  elseSchema: SchemaNode | undefined = undefined;
  required: readonly string[] | undefined = undefined;
  minProperties: number | undefined = undefined;
  maxProperties: number | undefined = undefined;
  propertyNames: SchemaNode | undefined = undefined;
  dependentRequired: [string, readonly string[]][] | undefined = undefined;
  dependentSchemas: [string, SchemaNode][] | undefined = undefined;
  properties: Map<string, SchemaNode> | undefined = undefined;
  patternProperties: [Pattern, SchemaNode][] | undefined = undefined;
  additionalProperties: SchemaNode | undefined = undefined;
  unevaluatedProperties: SchemaNode | undefined = undefined;
  minItems: number | undefined = undefined;
  maxItems: number | undefined = undefined;
  tupleItems: SchemaNode[] | undefined = undefined;
  restItems: SchemaNode | undefined = undefined;
  contains: SchemaNode | undefined = undefined;
  minContains: number | undefined = undefined;
  maxContains: number | undefined = undefined;
  uniqueItems: boolean | undefined = undefined;
  unevaluatedItems: SchemaNode | undefined = undefined;
  minimum: number | undefined = undefined;
  maximum: number | undefined = undefined;
  exclusiveMinimum: number | undefined = undefined;
  exclusiveMaximum: number | undefined = undefined;
  multipleOf: number | undefined = undefined;
  minLength: number | undefined = undefined;
  maxLength: number | undefined = undefined;
  pattern: Pattern | undefined = undefined;
  format: { name: string; check: (text: string) => boolean } | undefined = undefined;

  constructor(field: string, allows?: boolean) {
    this.field = field;
    this.allows = allows;
  }
}

/** A compiled schema: its root node, and whether any node uses `unevaluated*` (then annotations are collected). */
export interface CompiledSchema {
  readonly root: SchemaNode;
  readonly usesUnevaluated: boolean;
  /** Every pattern of the schema, so that a caller can compile them all ahead of a call. */
  readonly patterns: readonly Pattern[];
}

/**
 * The most RE2 instructions a schema's distinct patterns may compile to together: a call that meets all of them
 * spends at most a fixed part of its budget on compiling them (~25 ms at most, once per schema and isolate).
 */
export const MAX_SCHEMA_PATTERN_SIZE = 5_000;

type Json = Record<string, unknown>;

const SIMPLE_TYPES: readonly TypeName[] = ["array", "boolean", "integer", "null", "number", "object", "string"];
const COUNT_KEYWORDS = new Set([
  "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains",
]);
const STRING_KEYWORDS = new Set(["$id", "$anchor", "$comment", "$schema", "$ref", "$recursiveRef", "format", "title", "description"]);
const SINGLE_SUBSCHEMA = new Set([
  "additionalProperties", "unevaluatedProperties", "propertyNames", "contains", "not", "if", "then", "else",
  "additionalItems", "unevaluatedItems",
]);
const SUBSCHEMA_ARRAYS = new Set(["prefixItems", "allOf", "anyOf", "oneOf"]);
const SUBSCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

function isUniqueStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === "string") && new Set(value).size === value.length;
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

function setCount(node: SchemaNode, key: string, value: number): void {
  switch (key) {
    case "minLength": node.minLength = value; break;
    case "maxLength": node.maxLength = value; break;
    case "minItems": node.minItems = value; break;
    case "maxItems": node.maxItems = value; break;
    case "minProperties": node.minProperties = value; break;
    case "maxProperties": node.maxProperties = value; break;
    case "minContains": node.minContains = value; break;
    default: node.maxContains = value;
  }
}

interface PendingRef {
  node: SchemaNode;
  ref: string;
  field: string;
}

class Compiler {
  readonly #rootValue: unknown;
  readonly #rootField: string;
  readonly #limits: CompileLimits;
  readonly #nodes = new Map<object, SchemaNode>();
  readonly #anchors = new Map<string, SchemaNode>();
  readonly #ids = new Map<string, SchemaNode>();
  readonly #pending: PendingRef[] = [];
  readonly patterns: Pattern[] = [];
  readonly #patternsBySource = new Map<string, Pattern>();
  #patternSize = 0;
  usesUnevaluated = false;
  readonly #allowAll: SchemaNode;
  readonly #allowNone: SchemaNode;

  constructor(root: unknown, rootField: string, limits: CompileLimits) {
    this.#rootValue = root;
    this.#rootField = rootField;
    this.#limits = limits;
    this.#allowAll = new CompiledNode(rootField, true);
    this.#allowNone = new CompiledNode(rootField, false);
  }

  compileRoot(): SchemaNode {
    const root = this.node(this.#rootValue, this.#rootField, 0);
    const rootId = isRecord(this.#rootValue) ? this.#rootValue["$id"] : undefined;
    // Resolving may compile more nodes (a pointer into a part no keyword reaches), which may add references.
    for (let i = 0; i < this.#pending.length; i++) {
      const pending = this.#pending[i];
      if (pending === undefined) continue;
      const target = this.#resolve(pending, typeof rootId === "string" ? rootId : undefined, root);
      (pending.node.refs ??= []).push(target);
    }
    return root;
  }

  /** Compiles the schema at `value` (memoised by object, so shared and cyclic objects compile once). */
  node(value: unknown, field: string, depth: number): SchemaNode {
    if (depth > this.#limits.schemaDepth) {
      throw new SchemaCompileError(field, `nests too deeply (more than ${this.#limits.schemaDepth} levels)`);
    }
    if (value === true) return this.#allowAll;
    if (value === false) return this.#allowNone;
    if (!isRecord(value)) throw new SchemaCompileError(field, "must be a JSON Schema (an object, or true/false)");
    const known = this.#nodes.get(value);
    if (known) return known;
    const node: SchemaNode = new CompiledNode(field);
    this.#nodes.set(value, node);
    for (const key of Object.keys(value)) this.#keyword(node, value, key, field, depth);
    this.#finish(node, value);
    return node;
  }

  #sub(value: unknown, field: string, depth: number): SchemaNode {
    return this.node(value, field, depth + 1);
  }

  #keyword(node: SchemaNode, schema: Json, key: string, field: string, depth: number): void {
    const value = schema[key];
    // A key set to undefined is absent (as in the JSON text the schema came from).
    if (value === undefined) return;
    const at = childField(field, key);
    const wrong = (message: string): SchemaCompileError => new SchemaCompileError(at, message);
    if (key === "type") {
      const types: unknown[] = Array.isArray(value) ? value : [value];
      const names = types.filter((t): t is TypeName => typeof t === "string" && Object.hasOwn(TYPE_BITS, t));
      if (types.length === 0 || names.length !== types.length || new Set(types).size !== types.length) {
        throw wrong(`must be one of ${SIMPLE_TYPES.map((t) => `"${t}"`).join(", ")}, or an array of distinct ones`);
      }
      node.typeNames = names;
      node.types = names.reduce((bits, name) => bits | TYPE_BITS[name], 0);
    } else if (SUBSCHEMA_ARRAYS.has(key)) {
      if (!Array.isArray(value) || value.length === 0) throw wrong("must be a non-empty array of schemas");
      const list = value.map((v: unknown, i) => this.#sub(v, childField(at, i), depth));
      if (key === "prefixItems") node.tupleItems = [...list, ...(node.tupleItems ?? [])];
      else if (key === "allOf") node.allOf = list;
      else if (key === "anyOf") node.anyOf = list;
      else node.oneOf = list;
    } else if (key === "items") {
      if (Array.isArray(value)) {
        if (value.length === 0) throw wrong("must be a schema or a non-empty array of schemas");
        // Draft-7 tuple form; with prefixItems too, it continues the tuple after prefixItems' positions.
        const list = value.map((v: unknown, i) => this.#sub(v, childField(at, i), depth));
        const prefix = schema["prefixItems"];
        node.tupleItems = [...(node.tupleItems ?? []), ...list.slice(Array.isArray(prefix) ? prefix.length : 0)];
      } else node.restItems = this.#sub(value, at, depth);
    } else if (SUBSCHEMA_MAPS.has(key)) {
      if (!isRecord(value)) throw wrong("must be an object whose values are schemas");
      const entries = Object.entries(value);
      if (key === "properties") {
        node.properties = new Map(entries.map(([name, sub]) => [name, this.#sub(sub, childField(at, name), depth)]));
      } else if (key === "patternProperties") {
        node.patternProperties = entries.map(([source, sub]) => {
          const pattern = this.#pattern(source, childField(at, source));
          return [pattern, this.#sub(sub, childField(at, source), depth)];
        });
      } else if (key === "dependentSchemas") {
        const list = entries.map(([name, sub]): [string, SchemaNode] => [name, this.#sub(sub, childField(at, name), depth)]);
        node.dependentSchemas = [...(node.dependentSchemas ?? []), ...list];
      } else {
        // $defs and definitions: checked now, reached through $ref.
        for (const [name, sub] of entries) this.#sub(sub, childField(at, name), depth);
      }
    } else if (SINGLE_SUBSCHEMA.has(key)) {
      const sub = this.#sub(value, at, depth);
      if (key === "additionalProperties") node.additionalProperties = sub;
      else if (key === "unevaluatedProperties") {
        node.unevaluatedProperties = sub;
        this.usesUnevaluated = true;
      } else if (key === "propertyNames") node.propertyNames = sub;
      else if (key === "contains") node.contains = sub;
      else if (key === "not") node.not = sub;
      else if (key === "if") node.ifSchema = sub;
      else if (key === "then") node.thenSchema = sub;
      else if (key === "else") node.elseSchema = sub;
      else if (key === "additionalItems") {
        // Only meaningful after the array form of items (draft 7), as in the validator this one replaces.
        if (Array.isArray(schema["items"])) node.restItems = sub;
      } else {
        node.unevaluatedItems = sub;
        this.usesUnevaluated = true;
      }
    } else if (key === "required") {
      if (!isUniqueStringArray(value)) throw wrong("must be an array of distinct strings");
      node.required = value;
    } else if (key === "dependentRequired") {
      if (!isRecord(value)) throw wrong("must be an object of string arrays");
      for (const [name, list] of Object.entries(value)) {
        if (!isUniqueStringArray(list)) throw new SchemaCompileError(childField(at, name), "must be an array of distinct strings");
        (node.dependentRequired ??= []).push([name, list]);
      }
    } else if (key === "dependencies") {
      if (!isRecord(value)) throw wrong("must be an object");
      for (const [name, dependency] of Object.entries(value)) {
        if (Array.isArray(dependency)) {
          if (!isUniqueStringArray(dependency)) {
            throw new SchemaCompileError(childField(at, name), "must be a schema or an array of distinct strings");
          }
          (node.dependentRequired ??= []).push([name, dependency]);
        } else (node.dependentSchemas ??= []).push([name, this.#sub(dependency, childField(at, name), depth)]);
      }
    } else if (key === "enum") {
      if (!Array.isArray(value)) throw wrong("must be an array");
      node.enumValues = this.#valueSet(value, at);
    } else if (key === "const") {
      node.constValue = this.#valueSet([value], at);
    } else if (COUNT_KEYWORDS.has(key)) {
      if (typeof value !== "number" || !Number.isInteger(value) || value < 0) throw wrong("must be a non-negative integer");
      setCount(node, key, value);
    } else if (key === "minimum" || key === "maximum") {
      if (!isFiniteNumber(value)) throw wrong("must be a number");
      node[key] = value;
    } else if (key === "exclusiveMinimum" || key === "exclusiveMaximum") {
      // A boolean is the draft-4 form (applied in #finish); real tools still use it.
      if (typeof value !== "boolean" && !isFiniteNumber(value)) throw wrong("must be a number");
      if (typeof value === "number") node[key] = value;
    } else if (key === "multipleOf") {
      if (!isFiniteNumber(value) || value <= 0) throw wrong("must be a number above 0");
      node.multipleOf = value;
    } else if (key === "pattern") {
      if (typeof value !== "string") throw wrong("must be a valid regular expression");
      node.pattern = this.#pattern(value, at);
    } else if (key === "uniqueItems") {
      if (typeof value !== "boolean") throw wrong("must be true or false");
      node.uniqueItems = value;
    } else if (STRING_KEYWORDS.has(key)) {
      if (typeof value !== "string") throw wrong("must be a string");
      if (key === "$ref" || key === "$recursiveRef") this.#pending.push({ node, ref: value, field: at });
      else if (key === "$anchor") this.#anchors.set(value, node);
      else if (key === "$id" && depth > 0) this.#ids.set(value, node);
      else if (key === "format") {
        const check = formatCheck(value);
        if (check) node.format = { name: value, check };
      }
    }
    // Any other keyword is an annotation (title, default, examples, $dynamicRef, …): ignored, as JSON Schema says.
  }

  /** Draft-4 bounds: `exclusiveMinimum: true` with `minimum: n` means `exclusiveMinimum: n`. */
  #finish(node: SchemaNode, schema: Json): void {
    for (const [exclusive, inclusive] of [["exclusiveMinimum", "minimum"], ["exclusiveMaximum", "maximum"]] as const) {
      if (schema[exclusive] === true && node[inclusive] !== undefined) {
        node[exclusive] = node[inclusive];
        node[inclusive] = undefined;
      }
    }
    if (node.contains === undefined) {
      node.minContains = undefined;
      node.maxContains = undefined;
    }
  }

  #pattern(source: string, field: string): Pattern {
    const known = this.#patternsBySource.get(source);
    if (known) return known;
    let pattern: Pattern;
    try {
      pattern = new Pattern(source);
    } catch (error) {
      if (error instanceof PatternError) throw new SchemaCompileError(field, error.message);
      throw error;
    }
    this.#patternSize += pattern.estimatedSize;
    if (this.#patternSize > MAX_SCHEMA_PATTERN_SIZE) {
      throw new SchemaCompileError(field, `makes this schema's patterns too complex together (about ${this.#patternSize} RE2 steps; at most ${MAX_SCHEMA_PATTERN_SIZE})`);
    }
    this.#patternsBySource.set(source, pattern);
    this.patterns.push(pattern);
    return pattern;
  }

  #valueSet(values: readonly unknown[], field: string): ValueSet {
    const strings = new Set<string>();
    const numbers = new Set<number>();
    const booleans = new Set<boolean>();
    const structured = new Set<string>();
    let hasNull = false;
    for (const value of values) {
      if (typeof value === "string") strings.add(value);
      else if (typeof value === "number") numbers.add(value);
      else if (typeof value === "boolean") booleans.add(value);
      else if (value === null) hasNull = true;
      else {
        try {
          structured.add(canonicalJson(value, this.#limits.valueDepth));
        } catch (error) {
          if (error instanceof TooDeep) throw new SchemaCompileError(field, `nests too deeply (more than ${this.#limits.valueDepth} levels)`);
          throw error;
        }
      }
    }
    return { values, strings, numbers, booleans, hasNull, structured };
  }

  #resolve(pending: PendingRef, rootId: string | undefined, root: SchemaNode): SchemaNode {
    const { ref, field } = pending;
    const unresolved = (): never => {
      throw new SchemaCompileError(field, "does not resolve inside this schema (only local references work)");
    };
    const byId = this.#ids.get(ref);
    if (byId) return byId;
    let fragment: string;
    if (ref.startsWith("#")) fragment = ref.slice(1);
    else if (rootId !== undefined && (ref === rootId || ref.startsWith(`${rootId.replace(/#$/, "")}#`))) {
      const hash = ref.indexOf("#");
      fragment = hash < 0 ? "" : ref.slice(hash + 1);
    } else return unresolved();
    if (fragment === "") return root;
    if (!fragment.startsWith("/")) return this.#anchors.get(fragment) ?? unresolved();
    let target: unknown = this.#rootValue;
    const segments = fragment.slice(1).split("/");
    for (const raw of segments) {
      let segment: string;
      try {
        segment = decodeURIComponent(raw);
      } catch {
        return unresolved();
      }
      segment = segment.replace(/~1/g, "/").replace(/~0/g, "~");
      if (Array.isArray(target) && /^(0|[1-9]\d*)$/.test(segment)) target = target[Number(segment)];
      else if (isRecord(target) && Object.hasOwn(target, segment)) target = target[segment];
      else return unresolved();
    }
    if (target !== true && target !== false && !isRecord(target)) {
      throw new SchemaCompileError(field, "refers to something that is not a schema");
    }
    return this.node(target, `${this.#rootField}#${fragment}`, Math.min(segments.length, this.#limits.schemaDepth));
  }
}

/** The nodes a node applies to the same instance (no step into a property or item). */
function inPlace(node: SchemaNode): SchemaNode[] {
  const next: SchemaNode[] = [];
  if (node.refs) next.push(...node.refs);
  if (node.allOf) next.push(...node.allOf);
  if (node.anyOf) next.push(...node.anyOf);
  if (node.oneOf) next.push(...node.oneOf);
  for (const sub of [node.not, node.ifSchema, node.thenSchema, node.elseSchema]) if (sub) next.push(sub);
  if (node.dependentSchemas) for (const [, sub] of node.dependentSchemas) next.push(sub);
  return next;
}

/**
 * Refuses loops of in-place references (`{"$ref": "#"}`: no argument would ever end them) and chains of them longer
 * than `maxChain`, which would nest the validator's recursion without bound. Depth first, each node once.
 */
function checkChains(root: SchemaNode, extra: readonly SchemaNode[], maxChain: number): void {
  const longest = new Map<SchemaNode, number>();
  const onPath = new Set<SchemaNode>();
  const visit = (node: SchemaNode): number => {
    const known = longest.get(node);
    if (known !== undefined) return known;
    if (onPath.has(node)) throw new SchemaCompileError(node.field, "refers back to itself (through $ref, allOf, …) without applying to any argument");
    if (onPath.size > maxChain) {
      throw new SchemaCompileError(node.field, `chains more than ${maxChain} references or combinations at one argument`);
    }
    onPath.add(node);
    let chain = 0;
    for (const next of inPlace(node)) chain = Math.max(chain, visit(next) + 1);
    onPath.delete(node);
    longest.set(node, chain);
    return chain;
  };
  visit(root);
  for (const node of extra) visit(node);
}

/** Every node reachable from `root` (to run the chain check on subschemas under properties, items, …). */
function allNodes(root: SchemaNode): SchemaNode[] {
  const seen = new Set<SchemaNode>([root]);
  const queue = [root];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i];
    if (node === undefined) continue;
    const children: (SchemaNode | undefined)[] = [
      ...inPlace(node), node.propertyNames, node.additionalProperties, node.unevaluatedProperties, node.restItems,
      node.contains, node.unevaluatedItems, ...(node.properties?.values() ?? []), ...(node.tupleItems ?? []),
      ...(node.patternProperties?.map(([, sub]) => sub) ?? []),
    ];
    for (const child of children) {
      if (child && !seen.has(child)) {
        seen.add(child);
        queue.push(child);
      }
    }
  }
  return queue;
}

/** Compiles `schema` (the root field names it in errors). Throws SchemaCompileError. */
export function compileSchema(schema: unknown, rootField: string, limits: CompileLimits): CompiledSchema {
  const compiler = new Compiler(schema, rootField, limits);
  const root = compiler.compileRoot();
  checkChains(root, allNodes(root), limits.chainLength);
  return { root, usesUnevaluated: compiler.usesUnevaluated, patterns: compiler.patterns };
}
