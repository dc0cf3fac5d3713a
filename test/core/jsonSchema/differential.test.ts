// Differential property: on generated schemas and values, our bounded validator and @cfworker/json-schema (the
// validator it replaced, kept as a devDependency for this test) agree on valid / invalid. The schemas stay within
// what both define the same way: no format (ours checks fewer), patterns both engines read alike, no draft-4
// boolean bounds (normalised before cfworker saw them), no reference loops (cfworker recurses without end), and
// unevaluated* only where a value is entered afresh (cfworker lets a parent's annotations leak into `then`).
import { Validator } from "@cfworker/json-schema";
import type { Schema } from "@cfworker/json-schema";
import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileSchema, SchemaCompileError } from "../../../src/core/jsonSchema/compile.ts";
import { validate } from "../../../src/core/jsonSchema/validate.ts";

const LIMITS = { schemaDepth: 32, valueDepth: 64, chainLength: 64 };

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type SchemaJson = boolean | { [key: string]: Json };

const KEYS = ["a", "b", "c"] as const;
const key = fc.constantFrom(...KEYS);
const scalar: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(null, true, false, 0, 1, -1, 2, 2.5, 0.3, "", "a", "ab", "abc", "A1", "b2", "😀x", "a b", "中"),
  fc.integer({ min: -4, max: 4 }),
);
const { value: jsonValue } = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    scalar,
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(key, tie("value"), { maxKeys: 3 }),
  ),
}));

const PATTERNS = ["^a", "b$", "^[a-z]+$", "\\d", "^.{2}$", "😀", "^\\w*$", "\\s", "^[^b]*$", "^(a|b)+$", "^\\p{L}+$"];

/** One keyword with a value that needs no subschema. */
const plainKeyword: fc.Arbitrary<[string, Json]> = fc.oneof(
  fc.tuple(fc.constant("type"), fc.oneof(
    fc.constantFrom<Json>("string", "number", "integer", "object", "array", "boolean", "null"),
    fc.uniqueArray(fc.constantFrom("string", "number", "integer", "object", "array", "null"), { minLength: 1, maxLength: 3 }),
  )),
  fc.tuple(fc.constant("enum"), fc.array(jsonValue, { maxLength: 3 })),
  fc.tuple(fc.constant("const"), jsonValue),
  fc.tuple(fc.constantFrom("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"), fc.integer({ min: 0, max: 3 })),
  fc.tuple(fc.constant("pattern"), fc.constantFrom(...PATTERNS)),
  fc.tuple(fc.constantFrom("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"), fc.constantFrom<Json>(-1, 0, 1, 2, 0.5)),
  fc.tuple(fc.constant("multipleOf"), fc.constantFrom<Json>(1, 2, 0.5, 0.1)),
  fc.tuple(fc.constant("required"), fc.uniqueArray(key, { maxLength: 2 })),
  fc.tuple(fc.constant("uniqueItems"), fc.boolean()),
  fc.tuple(fc.constant("dependentRequired"), fc.dictionary(key, fc.uniqueArray(key, { maxLength: 2 }), { maxKeys: 2 })),
  fc.tuple(fc.constant("dependencies"), fc.dictionary(key, fc.uniqueArray(key, { maxLength: 2 }), { maxKeys: 1 })),
  fc.tuple(fc.constant("propertyNames"), fc.constantFrom<Json>({ maxLength: 1 }, { pattern: "^[ab]" }, { enum: ["a", "c"] })),
  fc.tuple(fc.constant("$ref"), fc.constantFrom("#/$defs/d0", "#/$defs/d1")),
);

function object(entries: readonly [string, Json][]): { [key: string]: Json } {
  return Object.fromEntries(entries);
}

/**
 * `fresh`: a schema applied to a value entered afresh (the root, a property, an item), where unevaluated* may be;
 * `inPlace`: one applied to the same value by allOf, anyOf, then, …, where it may not (see the top comment).
 */
const schemas = fc.letrec<{ fresh: SchemaJson; inPlace: SchemaJson; freshKeyword: [string, Json]; inPlaceKeyword: [string, Json] }>((tie) => {
  const fresh = (): fc.Arbitrary<Json> => tie("fresh");
  const inPlace = (): fc.Arbitrary<Json> => tie("inPlace");
  const list = (of: () => fc.Arbitrary<Json>): fc.Arbitrary<Json> => fc.array(of(), { minLength: 1, maxLength: 3 });
  const inPlaceKeyword: fc.Arbitrary<[string, Json]> = fc.oneof(
    { depthSize: "small" },
    plainKeyword,
    fc.tuple(fc.constant("properties"), fc.dictionary(key, fresh(), { maxKeys: 2 })),
    fc.tuple(fc.constant("patternProperties"), fc.dictionary(fc.constantFrom("^a", "b", "^[bc]$"), fresh(), { maxKeys: 2 })),
    fc.tuple(fc.constant("additionalProperties"), fresh()),
    fc.tuple(fc.constant("items"), fc.oneof(fresh(), list(fresh))),
    fc.tuple(fc.constant("prefixItems"), list(fresh)),
    fc.tuple(fc.constant("contains"), fresh()),
    fc.tuple(fc.constantFrom("allOf", "anyOf", "oneOf"), list(inPlace)),
    fc.tuple(fc.constantFrom("not", "if", "then", "else"), inPlace()),
    fc.tuple(fc.constant("dependentSchemas"), fc.dictionary(key, inPlace(), { maxKeys: 1 })),
    fc.tuple(fc.constant("properties"), fc.constant<Json>({ self: { $ref: "#" } })),
  );
  const freshKeyword: fc.Arbitrary<[string, Json]> = fc.oneof(
    { depthSize: "small" },
    inPlaceKeyword,
    fc.tuple(fc.constantFrom("unevaluatedProperties", "unevaluatedItems"), fresh()),
  );
  const build = (keyword: fc.Arbitrary<[string, Json]>): fc.Arbitrary<SchemaJson> =>
    fc.oneof({ depthSize: "small" }, fc.boolean(), fc.array(keyword, { maxLength: 4 }).map(object));
  return { inPlaceKeyword, freshKeyword, inPlace: build(inPlaceKeyword), fresh: build(freshKeyword) };
});

/** A root schema with two definitions that every `$ref` above may name (plain ones: no reference loops). */
const rootSchema: fc.Arbitrary<SchemaJson> = fc.tuple(
  schemas.fresh,
  fc.array(plainKeyword.filter(([name]) => name !== "$ref"), { maxLength: 2 }).map(object),
  fc.array(plainKeyword.filter(([name]) => name !== "$ref"), { maxLength: 2 }).map(object),
).map(([schema, d0, d1]) => (typeof schema === "boolean" ? schema : { ...schema, $defs: { d0, d1 } }));

/** cfworker's answer, as the replaced code called it (draft 2020-12, every error, a private copy of the schema). */
function cfworkerValid(schema: SchemaJson, value: Json): boolean {
  return new Validator(asCfworkerSchema(structuredClone(schema)), "2020-12", false).validate(value).valid;
}

/** cfworker's Schema type lists its keywords; a generated JSON object is one. */
function asCfworkerSchema(schema: SchemaJson): Schema | boolean {
  return schema;
}

function ourValid(schema: SchemaJson, value: Json): boolean | "refused" {
  try {
    const result = validate(compileSchema(schema, "", LIMITS), value);
    expect(result.outcome).toBe("checked");
    return result.valid;
  } catch (error) {
    if (error instanceof SchemaCompileError) return "refused";
    throw error;
  }
}

describe("differential: the bounded validator and @cfworker/json-schema agree", () => {
  it("property: valid / invalid agree on generated schemas and values", { timeout: 120_000 }, () => {
    const seen = { valid: 0, invalid: 0 };
    fc.assert(fc.property(rootSchema, fc.array(jsonValue, { minLength: 1, maxLength: 6 }), (schema, values) => {
      for (const value of values) {
        const ours = ourValid(schema, value);
        // Ours refuses a few schemas at definition (e.g. a chain of references too long); nothing to compare.
        fc.pre(ours !== "refused");
        const theirs = cfworkerValid(schema, value);
        expect({ schema, value, valid: ours }).toEqual({ schema, value, valid: theirs });
        seen[theirs ? "valid" : "invalid"]++;
      }
    }), { numRuns: 1_500 });
    // Both answers were exercised, not only the trivial one.
    expect(seen.valid).toBeGreaterThan(500);
    expect(seen.invalid).toBeGreaterThan(500);
  });
});
