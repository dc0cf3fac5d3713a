import { describe, expect, it } from "vitest";
import { compileSchema, MAX_SCHEMA_PATTERN_SIZE, SchemaCompileError } from "../../../src/core/jsonSchema/compile.ts";
import { validate } from "../../../src/core/jsonSchema/validate.ts";

const LIMITS = { schemaDepth: 32, valueDepth: 64, chainLength: 64 };

/** `field: message` of the compile error (fails the test when the schema compiles). */
function refusal(schema: unknown): string {
  try {
    compileSchema(schema, "p", LIMITS);
  } catch (error) {
    if (error instanceof SchemaCompileError) return `${error.field}: ${error.message}`;
    throw error;
  }
  throw new Error("compiled");
}

function accepts(schema: unknown, value: unknown): boolean {
  return validate(compileSchema(schema, "p", LIMITS), value).valid;
}

describe("compileSchema: references", () => {
  it("resolves #, $defs, definitions, JSON pointers with escapes, $anchor and the root $id", () => {
    expect(accepts({ properties: { a: { $ref: "#/definitions/s" } }, definitions: { s: { type: "string" } } }, { a: 1 })).toBe(false);
    expect(accepts({ $defs: { "a/b~c d": { type: "string" } }, properties: { a: { $ref: "#/$defs/a~1b~0c%20d" } } }, { a: 1 })).toBe(false);
    expect(accepts({ $defs: { s: { $anchor: "str", type: "string" } }, properties: { a: { $ref: "#str" } } }, { a: 1 })).toBe(false);
    expect(accepts({ $id: "https://example.com/t.json", $defs: { s: { type: "string" } }, properties: { a: { $ref: "https://example.com/t.json#/$defs/s" } } }, { a: 1 })).toBe(false);
    expect(accepts({ prefixItems: [{ type: "string" }], items: { $ref: "#/prefixItems/0" } }, ["a", 1])).toBe(false);
    // A pointer into a part no keyword reaches is compiled when referred to.
    expect(accepts({ components: { s: { type: "string" } }, properties: { a: { $ref: "#/components/s" } } }, { a: "x" })).toBe(true);
  });

  it("refuses remote and dangling references, naming the $ref", () => {
    expect(refusal({ properties: { a: { $ref: "https://example.com/s.json" } } })).toBe("p.properties.a.$ref: does not resolve inside this schema (only local references work)");
    expect(refusal({ properties: { a: { $ref: "#/$defs/missing" } } })).toMatch(/^p\.properties\.a\.\$ref: does not resolve/);
    expect(refusal({ properties: { a: { $ref: "#nowhere" } } })).toMatch(/^p\.properties\.a\.\$ref: does not resolve/);
    expect(refusal({ properties: { a: { $ref: "#/required" } }, required: ["a"] })).toBe("p.properties.a.$ref: refers to something that is not a schema");
  });

  it("refuses loops that never reach into the arguments, and takes recursion through them", () => {
    expect(refusal({ $ref: "#" })).toMatch(/^p: refers back to itself/);
    expect(refusal({ $defs: { a: { $ref: "#/$defs/b" }, b: { anyOf: [{ $ref: "#/$defs/a" }] } }, $ref: "#/$defs/a" })).toMatch(/refers back to itself/);
    expect(refusal({ not: { $ref: "#" } })).toMatch(/refers back to itself/);
    expect(accepts({ properties: { child: { $ref: "#" } }, required: ["v"] }, { v: 1, child: { v: 2, child: { v: 3 } } })).toBe(true);
    expect(accepts({ properties: { child: { $ref: "#" } }, required: ["v"] }, { v: 1, child: { child: {} } })).toBe(false);
  });

  it("refuses chains of references longer than the chain limit", () => {
    const $defs: Record<string, unknown> = { d40: {} };
    for (let i = 0; i < 40; i++) $defs[`d${i}`] = { allOf: [{ $ref: `#/$defs/d${i + 1}` }] };
    expect(refusal({ $defs, $ref: "#/$defs/d0" })).toMatch(/chains more than 64 references/);
  });
});

describe("compileSchema: keyword values", () => {
  it("names the field of a malformed keyword", () => {
    expect(refusal({ type: "text" })).toMatch(/^p\.type: must be one of/);
    expect(refusal({ type: ["string", "string"] })).toMatch(/^p\.type: /);
    expect(refusal({ properties: { a: { minLength: 1.5 } } })).toBe("p.properties.a.minLength: must be a non-negative integer");
    expect(refusal({ items: [] })).toMatch(/^p\.items: /);
    expect(refusal({ dependentRequired: { a: ["b", "b"] } })).toBe("p.dependentRequired.a: must be an array of distinct strings");
    expect(refusal({ dependencies: { a: [1] } })).toMatch(/^p\.dependencies\.a: /);
    expect(refusal({ multipleOf: 0 })).toBe("p.multipleOf: must be a number above 0");
    expect(refusal({ exclusiveMinimum: "1" })).toBe("p.exclusiveMinimum: must be a number");
    expect(refusal({ uniqueItems: "yes" })).toBe("p.uniqueItems: must be true or false");
    expect(refusal({ $ref: 5 })).toBe("p.$ref: must be a string");
  });

  it("refuses patterns RE2 cannot run where they are, in pattern, patternProperties keys and propertyNames", () => {
    expect(refusal({ properties: { s: { pattern: "(a)\\1" } } })).toMatch(/^p\.properties\.s\.pattern: uses a backreference/);
    expect(refusal({ patternProperties: { "^(?=x)": {} } })).toMatch(/^p\.patternProperties\["\^\(\?=x\)"\]: uses a lookahead/);
    expect(refusal({ propertyNames: { pattern: "(?<!a)b" } })).toMatch(/^p\.propertyNames\.pattern: uses a lookahead/);
    expect(refusal({ pattern: "[" })).toMatch(/^p\.pattern: is not a valid regular expression/);
  });

  it("caps the patterns of one schema together (distinct ones: a repeated pattern counts once)", () => {
    const repeated = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`p${i}`, { pattern: "^[a-z0-9_]{1,64}$" }]));
    expect(accepts({ properties: repeated }, { p0: "ok" })).toBe(true);
    const distinct = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`p${i}`, { pattern: `^[a-z]{${i + 1}}$` }]));
    expect(refusal({ properties: distinct })).toMatch(new RegExp(`^p\\.properties\\.p\\d+\\.pattern: makes this schema's patterns too complex together .*at most ${MAX_SCHEMA_PATTERN_SIZE}\\)$`));
  });

  it("caps the nesting of subschemas and of enum and const values", () => {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 40; i++) deep = { items: deep };
    expect(refusal(deep)).toMatch(/^p(\.items){33}: nests too deeply \(more than 32 levels\)$/);
    let value: unknown = 1;
    for (let i = 0; i < 100; i++) value = [value];
    expect(refusal({ const: value })).toBe("p.const: nests too deeply (more than 64 levels)");
    expect(refusal({ enum: [1, value] })).toBe("p.enum: nests too deeply (more than 64 levels)");
  });

  it("compiles a JavaScript object graph with shared and cyclic parts without looping", () => {
    const shared = { type: "string" };
    const cyclic: Record<string, unknown> = { type: "object" };
    cyclic["properties"] = { self: cyclic, a: shared, b: shared };
    expect(accepts(cyclic, { a: "x", self: { b: "y", self: {} } })).toBe(true);
    expect(accepts(cyclic, { self: { self: { a: 1 } } })).toBe(false);
  });

  it("ignores annotations and keywords it does not know, as JSON Schema says", () => {
    expect(accepts({ title: "t", default: { deep: [1] }, examples: [1], readOnly: true, $dynamicRef: "#x", "x-custom": 1 }, 3)).toBe(true);
  });
});
