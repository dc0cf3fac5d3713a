import { describe, expect, it } from "vitest";
import { demoCatalog } from "../../../src/catalog/demo.ts";
import { compileSchema } from "../../../src/core/jsonSchema/compile.ts";
import { validate, VALIDATION_LIMITS } from "../../../src/core/jsonSchema/validate.ts";
import type { Problem, ValidationResult } from "../../../src/core/jsonSchema/validate.ts";
import { evalMcpTools, needsEvalData } from "../../evalData.ts";
import { exampleArguments } from "../../fixtures/exampleArguments.ts";

const LIMITS = { schemaDepth: 32, valueDepth: 64, chainLength: 64 };

function run(schema: unknown, value: unknown, budget?: number): ValidationResult {
  return validate(compileSchema(schema, "", LIMITS), value, budget === undefined ? {} : { budget });
}

function valid(schema: unknown, value: unknown): boolean {
  const result = run(schema, value);
  expect(result.outcome).toBe("checked");
  // A valid result has no problem, an invalid one at least one.
  expect(result.problems.length === 0).toBe(result.valid);
  return result.valid;
}

function problems(schema: unknown, value: unknown): Omit<Problem, "level">[] {
  return run(schema, value).problems.map(({ level: _level, ...rest }) => rest);
}

describe("validate: keywords", () => {
  it("checks types, integer included, and arrays of types", () => {
    expect(valid({ type: "integer" }, 3)).toBe(true);
    expect(valid({ type: "integer" }, 3.0)).toBe(true);
    expect(valid({ type: "integer" }, 3.5)).toBe(false);
    expect(valid({ type: "number" }, 3)).toBe(true);
    expect(valid({ type: ["string", "null"] }, null)).toBe(true);
    expect(valid({ type: ["string", "null"] }, 0)).toBe(false);
    expect(valid({ type: "object" }, [])).toBe(false);
    expect(valid({ type: "array" }, {})).toBe(false);
    expect(problems({ type: ["string", "null"] }, 1)).toEqual([{ kind: "type", path: "", expected: ["string", "null"] }]);
  });

  it("compares enum and const by JSON value: key order ignored, 1 equal to 1.0, types apart", () => {
    expect(valid({ enum: ["a", 1, null, { x: [1, { y: 2 }] }] }, { x: [1.0, { y: 2 }] })).toBe(true);
    expect(valid({ enum: ["1"] }, 1)).toBe(false);
    expect(valid({ enum: [1] }, "1")).toBe(false);
    expect(valid({ enum: [false] }, 0)).toBe(false);
    expect(valid({ enum: [null] }, null)).toBe(true);
    expect(valid({ enum: [] }, null)).toBe(false);
    expect(valid({ const: { a: 1, b: 2 } }, { b: 2, a: 1 })).toBe(true);
    expect(valid({ const: [1, 2] }, [2, 1])).toBe(false);
    expect(valid({ const: 0 }, -0)).toBe(true);
    expect(problems({ enum: ["c", "f"] }, "k")).toEqual([{ kind: "allowed", path: "", values: ["c", "f"] }]);
  });

  it("checks object keywords and names the argument", () => {
    const schema = {
      type: "object",
      properties: { a: { type: "string" }, nested: { type: "object", properties: { z: { type: "integer" } }, required: ["z"] } },
      patternProperties: { "^x_": { type: "number" } },
      additionalProperties: false,
      required: ["a"],
    };
    expect(valid(schema, { a: "", x_1: 1, nested: { z: 1 } })).toBe(true);
    expect(problems(schema, { x_1: "no", other: 1, nested: {} })).toEqual([
      { kind: "missing", path: "a" },
      { kind: "type", path: "x_1", expected: ["number"] },
      { kind: "unknown", path: "other" },
      { kind: "missing", path: "nested.z" },
    ]);
    expect(valid({ minProperties: 1, maxProperties: 2 }, {})).toBe(false);
    expect(valid({ minProperties: 1, maxProperties: 2 }, { a: 1, b: 2, c: 3 })).toBe(false);
    expect(valid({ propertyNames: { maxLength: 3 } }, { abc: 1 })).toBe(true);
    expect(problems({ propertyNames: { pattern: "^[a-z]+$" } }, { ok: 1, "Not OK": 2 })).toEqual([
      { kind: "invalid", path: "Not OK", detail: "is not an allowed name" },
    ]);
    expect(problems({ dependentRequired: { card: ["cvc"] } }, { card: "4111" })).toEqual([
      { kind: "invalid", path: "", detail: '"cvc" is required when "card" is given' },
    ]);
    expect(valid({ dependentSchemas: { card: { required: ["cvc"] } } }, { card: 1 })).toBe(false);
    // Draft 7's dependencies, both forms.
    expect(valid({ dependencies: { card: ["cvc"] } }, { card: 1, cvc: 2 })).toBe(true);
    expect(valid({ dependencies: { card: { properties: { cvc: { type: "string" } } } } }, { card: 1, cvc: 2 })).toBe(false);
    // additionalProperties sees neither declared nor pattern-matched names; a schema there applies to the rest.
    expect(valid({ properties: { a: {} }, patternProperties: { "^b": {} }, additionalProperties: { type: "string" } }, { a: 1, bb: 2, c: "3" })).toBe(true);
  });

  it("checks array keywords: items in both forms, prefixItems, additionalItems, contains, counts, uniqueItems", () => {
    expect(valid({ items: { type: "integer" } }, [1, 2, "3"])).toBe(false);
    expect(problems({ items: { type: "integer" } }, [1, "2"])).toEqual([{ kind: "type", path: "[1]", expected: ["integer"] }]);
    expect(valid({ prefixItems: [{ type: "string" }, { type: "number" }], items: false }, ["a", 1])).toBe(true);
    expect(valid({ prefixItems: [{ type: "string" }, { type: "number" }], items: false }, ["a", 1, 2])).toBe(false);
    expect(valid({ items: [{ type: "string" }], additionalItems: false }, ["a"])).toBe(true);
    expect(valid({ items: [{ type: "string" }], additionalItems: false }, ["a", "b"])).toBe(false);
    expect(valid({ items: [{ type: "string" }] }, ["a", 2])).toBe(true);
    expect(valid({ contains: { type: "integer" } }, ["a", 1])).toBe(true);
    expect(valid({ contains: { type: "integer" } }, [])).toBe(false);
    expect(valid({ contains: { type: "integer" }, minContains: 2 }, [1, "a"])).toBe(false);
    expect(valid({ contains: { type: "integer" }, maxContains: 1 }, [1, 2])).toBe(false);
    expect(valid({ contains: { type: "integer" }, minContains: 0 }, [])).toBe(true);
    expect(valid({ minItems: 1, maxItems: 2 }, [])).toBe(false);
    expect(valid({ minItems: 1, maxItems: 2 }, [1, 2, 3])).toBe(false);
    expect(valid({ uniqueItems: true }, [1, "1", true, "true", null, [1], { a: 1 }, { a: "1" }])).toBe(true);
    expect(valid({ uniqueItems: true }, [{ a: 1, b: 2 }, { b: 2, a: 1.0 }])).toBe(false);
    expect(valid({ uniqueItems: false }, [1, 1])).toBe(true);
  });

  it("checks numbers, draft-4 boolean exclusive bounds included, and multipleOf in decimal", () => {
    expect(valid({ minimum: 1, maximum: 3 }, 3)).toBe(true);
    expect(valid({ exclusiveMinimum: 1 }, 1)).toBe(false);
    expect(valid({ exclusiveMaximum: 3 }, 2.999)).toBe(true);
    expect(valid({ minimum: 1, exclusiveMinimum: true }, 1)).toBe(false);
    expect(valid({ minimum: 1, exclusiveMinimum: false }, 1)).toBe(true);
    expect(valid({ maximum: 3, exclusiveMaximum: true }, 3)).toBe(false);
    expect(valid({ multipleOf: 0.1 }, 0.3)).toBe(true);
    expect(valid({ multipleOf: 0.01 }, 19.99)).toBe(true);
    expect(valid({ multipleOf: 3 }, 10)).toBe(false);
    expect(valid({ multipleOf: 1e-300 }, 1e300)).toBe(true);
    expect(problems({ minimum: 1 }, 0)).toEqual([{ kind: "invalid", path: "", detail: "0 is less than 1" }]);
  });

  it("counts string length in code points, and checks pattern and a few formats", () => {
    expect(valid({ maxLength: 2 }, "😀😀")).toBe(true);
    expect(valid({ minLength: 3 }, "😀😀")).toBe(false);
    expect(valid({ minLength: 2, maxLength: 2 }, "中文")).toBe(true);
    expect(valid({ pattern: "^[a-z]+$" }, "abc")).toBe(true);
    expect(valid({ pattern: "b" }, "abc")).toBe(true);
    expect(problems({ pattern: "^[a-z]+$" }, "ABC")).toEqual([{ kind: "invalid", path: "", detail: 'does not match the pattern "^[a-z]+$"' }]);
    const accepted: [string, string][] = [
      ["date", "2024-02-29"], ["date-time", "2026-03-02T09:00:00+01:00"], ["date-time", "2026-03-02 09:00:00.5Z"], ["time", "23:59:60Z"],
      ["email", "anna@example.com"], ["uri", "https://example.com/a?b#c"], ["uri", "mailto:anna@example.com"],
      ["uuid", "0f8fad5b-d9cb-469f-a165-70867728950e"], ["ipv4", "192.168.0.1"], ["hostname", "not checked: an annotation"],
    ];
    for (const [format, text] of accepted) expect({ format, text, valid: valid({ format }, text) }).toEqual({ format, text, valid: true });
    const refused: [string, string][] = [
      ["date", "2023-02-29"], ["date", "2026-3-2"], ["date-time", "2026-03-02"], ["date-time", "2026-03-02T25:00:00Z"], ["time", "09:00:00"],
      ["email", "anna"], ["email", "anna@localhost"], ["email", "a b@example.com"], ["uri", "example.com/x"], ["uri", "https://a b"],
      ["uuid", "0f8fad5b"], ["ipv4", "256.1.1.1"],
    ];
    for (const [format, text] of refused) expect({ format, text, valid: valid({ format }, text) }).toEqual({ format, text, valid: false });
    // Formats apply to strings only.
    expect(valid({ format: "date" }, 20240229)).toBe(true);
  });

  it("combines: allOf, anyOf, oneOf, not, if/then/else, boolean schemas", () => {
    expect(valid({ allOf: [{ type: "string" }, { minLength: 2 }] }, "a")).toBe(false);
    expect(valid({ anyOf: [{ type: "string" }, { type: "integer" }] }, 1)).toBe(true);
    expect(valid({ oneOf: [{ type: "integer" }, { minimum: 0 }] }, 1)).toBe(false);
    expect(valid({ oneOf: [{ type: "integer" }, { minimum: 0 }] }, -1)).toBe(true);
    expect(valid({ not: { type: "string" } }, "a")).toBe(false);
    // Parsed: an object literal with a `then` key looks like a promise to the linter.
    const conditional: unknown = JSON.parse('{"if": {"properties": {"kind": {"const": "card"}}}, "then": {"required": ["number"]}, "else": {"required": ["iban"]}}');
    expect(valid(conditional, { kind: "card", number: "4111" })).toBe(true);
    expect(valid(conditional, { kind: "card" })).toBe(false);
    expect(valid(conditional, { kind: "sepa", iban: "DE00" })).toBe(true);
    expect(valid(conditional, { kind: "sepa" })).toBe(false);
    expect(valid(true, { anything: [1] })).toBe(true);
    expect(valid(false, null)).toBe(false);
    expect(valid({ properties: { x: false } }, { x: 1 })).toBe(false);
    expect(problems({ properties: { x: false } }, { x: 1 })).toEqual([{ kind: "invalid", path: "x", detail: "is not allowed" }]);
  });

  it("words a failed choice as one line: a type line when only types differ, else no match", () => {
    expect(problems({ anyOf: [{ type: "string" }, { type: "null" }] }, 3)).toEqual([{ kind: "type", path: "", expected: ["string", "null"] }]);
    expect(problems({ anyOf: [{ type: "string", minLength: 5 }, { type: "null" }] }, "abc")).toEqual([{ kind: "noMatch", path: "" }]);
    expect(problems({ oneOf: [{ type: "integer" }, { type: "number" }] }, 1)).toEqual([{ kind: "noMatch", path: "" }]);
  });

  it("applies unevaluatedProperties and unevaluatedItems after everything that evaluates, in place", () => {
    const base = { properties: { a: {} }, allOf: [{ properties: { b: {} } }], unevaluatedProperties: false };
    expect(valid(base, { a: 1, b: 2 })).toBe(true);
    expect(problems(base, { a: 1, b: 2, c: 3 })).toEqual([{ kind: "unknown", path: "c" }]);
    // A failed anyOf branch evaluates nothing; a passed if does; a not never does.
    const choice = { anyOf: [{ properties: { a: { type: "string" } }, required: ["a"] }, { properties: { b: {} } }], unevaluatedProperties: false };
    expect(valid(choice, { a: 1, b: 2 })).toBe(false);
    expect(valid(choice, { a: "x" })).toBe(true);
    expect(valid({ if: { properties: { a: {} } }, unevaluatedProperties: false }, { a: 1 })).toBe(true);
    expect(valid({ not: { properties: { a: { type: "string" } } }, unevaluatedProperties: false }, { a: 1 })).toBe(false);
    expect(valid({ $ref: "#/$defs/a", $defs: { a: { properties: { a: {} } } }, unevaluatedProperties: false }, { a: 1 })).toBe(true);
    expect(valid({ patternProperties: { "^x": {} }, unevaluatedProperties: { type: "integer" } }, { x1: "s", y: 2 })).toBe(true);
    // Items: the tuple, the rest, and what contains matched.
    expect(valid({ prefixItems: [{}], unevaluatedItems: false }, [1])).toBe(true);
    expect(valid({ prefixItems: [{}], unevaluatedItems: false }, [1, 2])).toBe(false);
    expect(valid({ allOf: [{ prefixItems: [{}, {}] }], unevaluatedItems: false }, [1, 2])).toBe(true);
    expect(valid({ contains: { type: "string" }, unevaluatedItems: { type: "integer" } }, ["a", 1, "b"])).toBe(true);
    expect(valid({ contains: { type: "string" }, unevaluatedItems: { type: "integer" } }, ["a", 1.5])).toBe(false);
    expect(valid({ items: {}, unevaluatedItems: false }, [1, 2])).toBe(true);
  });

  it("follows local references, recursive ones included", () => {
    const tree = {
      $defs: { node: { type: "object", properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/node" } } } } },
      $ref: "#/$defs/node",
    };
    expect(valid(tree, { name: "a", children: [{ name: "b", children: [{ name: "c" }] }] })).toBe(true);
    expect(problems(tree, { name: "a", children: [{ name: "b", children: [{ name: 3 }] }] })).toEqual([
      { kind: "type", path: "children[0].children[0].name", expected: ["string"] },
    ]);
  });

  it("tells a non-JSON value (undefined, a function, Infinity) apart instead of throwing", () => {
    expect(problems({ type: "object" }, { a: undefined })).toEqual([]);
    expect(problems({ properties: { a: {} } }, { a: undefined })).toEqual([{ kind: "invalid", path: "a", detail: "is not a JSON value" }]);
    expect(valid({}, Number.POSITIVE_INFINITY)).toBe(false);
  });
});

describe("validate: bounded work", () => {
  it("charges every visit, and stops past the budget with what it found so far", () => {
    const schema = { items: { type: "string" } };
    const small = run(schema, ["a", "b"]);
    expect(small).toMatchObject({ valid: true, outcome: "checked" });
    expect(small.spent).toBeGreaterThanOrEqual(3);
    const stopped = run(schema, [1, ...Array.from({ length: 100 }, () => "x")], 50);
    expect(stopped).toMatchObject({ valid: false, outcome: "tooCostly" });
    expect(stopped.problems).toEqual([{ kind: "type", path: "[0]", level: 1, expected: ["string"] }]);
  });

  it("charges regular expressions by the length of the text times the size of the program", () => {
    const pattern = { pattern: "^[a-z]+$" };
    const short = run(pattern, "abc").spent;
    const long = run(pattern, "a".repeat(100_000)).spent;
    expect(long).toBeGreaterThan(short * 100);
    // Past the budget, a text is refused before RE2 reads it.
    expect(run(pattern, "a".repeat(1_000_000)).outcome).toBe("tooCostly");
  });

  it("charges the canonical JSON of enum, const and uniqueItems, computed once per value", () => {
    const big = Array.from({ length: 2_000 }, (_, i) => ({ id: i, name: `n${i}` }));
    const once = run({ enum: [[]] }, big).spent;
    const twice = run({ allOf: [{ enum: [[]] }, { const: [] }] }, big).spent;
    expect(once).toBeGreaterThan(1_000);
    expect(twice).toBeLessThan(once + 10);
    // An enum of strings only never needs the canonical JSON of an object.
    expect(run({ enum: ["a", "b"] }, big).spent).toBeLessThan(5);
  });

  it("stops nested applications of references at the frame limit, not at a stack overflow", () => {
    // A chain of 32 definitions, each through allOf and $ref (64 steps at one value), then one level deeper.
    const $defs: Record<string, unknown> = {};
    for (let i = 0; i < 31; i++) $defs[`c${i}`] = { allOf: [{ $ref: `#/$defs/c${i + 1}` }] };
    $defs["c31"] = { properties: { a: { $ref: "#/$defs/c0" } } };
    const schema = { $defs, $ref: "#/$defs/c0" };
    let deep: unknown = {};
    for (let i = 0; i < VALIDATION_LIMITS.argumentDepth - 1; i++) deep = { a: deep };
    const result = run(schema, deep, Number.MAX_SAFE_INTEGER);
    expect(result.outcome).toBe("tooCostly");
    expect(run(schema, { a: { a: {} } }).valid).toBe(true);
  });

  it("stops at values nested past the argument depth where it follows them, and ignores depth it never reaches", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(run({ items: true }, deep)).toMatchObject({ valid: true, outcome: "checked" });
    expect(run({ $defs: { a: { items: { $ref: "#/$defs/a" } } }, $ref: "#/$defs/a" }, deep)).toMatchObject({ valid: false, outcome: "tooDeep" });
    // enum, const and uniqueItems compare whole values: within the cap too.
    expect(run({ enum: [[]] }, deep)).toMatchObject({ valid: false, outcome: "tooDeep" });
    expect(run({ items: { uniqueItems: true } }, [deep])).toMatchObject({ valid: false, outcome: "tooDeep" });
    // 64 levels of arrays pass; 65 do not.
    let fits: unknown = 1;
    for (let i = 0; i < VALIDATION_LIMITS.argumentDepth; i++) fits = [fits];
    expect(run({ enum: [fits] }, fits)).toMatchObject({ valid: true, outcome: "checked" });
    expect(run({ $defs: { a: { items: { $ref: "#/$defs/a" } } }, $ref: "#/$defs/a" }, fits).outcome).toBe("checked");
    expect(run({ $defs: { a: { items: { $ref: "#/$defs/a" } } }, $ref: "#/$defs/a" }, [fits]).outcome).toBe("tooDeep");
  });

  it("spends little on realistic arguments: every tool of the 527 real MCP tools and the demo catalog", (context) => {
    needsEvalData(context);
    const schemas = [...evalMcpTools.map((tool) => tool.inputSchema), ...demoCatalog().map((tool) => tool.parameters)];
    let most = 0;
    for (const schema of schemas) {
      const result = run(schema, exampleArguments(schema));
      expect(result.outcome).toBe("checked");
      most = Math.max(most, result.spent);
    }
    expect(schemas.length).toBeGreaterThan(600);
    // Far below: under 5% of the budget, patterns' compiling charged in full.
    expect(most).toBeLessThan(VALIDATION_LIMITS.budget / 20);
  });
});
