import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validateArguments } from "../../../src/core/tools/arguments.ts";
import { validateToolDefinition } from "../../../src/core/tools/definition.ts";
import { VALIDATION_LIMITS } from "../../../src/core/jsonSchema/validate.ts";
import { texts } from "../../../src/core/locale.ts";
import { weather } from "../../support/weatherTool.ts";

/** `count` distinct rows of 25 string fields. */
function records(count: number): Record<string, string>[] {
  return Array.from({ length: count }, (_, i) => Object.fromEntries(Array.from({ length: 25 }, (_field, k) => [`field_${k}`, `${i}-${k}`])));
}

describe("validateArguments", () => {
  const parameters = validateToolDefinition(weather).parameters;

  it("accepts valid arguments", () => {
    expect(validateArguments(parameters, { city: "Paris" })).toEqual([]);
    expect(validateArguments(parameters, { city: "Paris", days: 3, unit: "c", note: null })).toEqual([]);
  });

  it("reports a missing required argument", () => {
    expect(validateArguments(parameters, {})).toEqual(['missing required argument "city"']);
  });

  it("reports an unknown argument when additionalProperties is false", () => {
    expect(validateArguments(parameters, { city: "Paris", foo: 1 })).toEqual(['unknown argument "foo"']);
    // Without additionalProperties: false, extra arguments are allowed (JSON Schema's default).
    expect(validateArguments({ type: "object", properties: { a: { type: "string" } } }, { b: 1 })).toEqual([]);
  });

  it("reports wrong types, naming the argument", () => {
    expect(validateArguments(parameters, { city: "Paris", days: 1.5 })).toEqual(['argument "days" must be integer']);
    expect(validateArguments(parameters, { city: 7 })).toEqual(['argument "city" must be string']);
    expect(validateArguments(parameters, { city: "Paris", note: 3 })).toEqual(['argument "note" must be string or null']);
    expect(validateArguments(parameters, { city: "Paris", unit: "k" })).toEqual(['argument "unit" must be one of "c", "f"']);
  });

  it("reports every problem at once, not only the first", () => {
    expect(validateArguments(parameters, { days: "3", foo: true })).toEqual([
      'missing required argument "city"',
      'argument "days" must be integer',
      'unknown argument "foo"',
    ]);
  });

  it("names nested arguments by their path", () => {
    const schema = {
      type: "object",
      properties: {
        address: { type: "object", properties: { zip: { type: "string" } }, required: ["zip"], additionalProperties: false },
        ids: { type: "array", items: { type: "integer" } },
      },
    };
    expect(validateArguments(schema, { address: { extra: 1 }, ids: [1, "two"] })).toEqual([
      'missing required argument "address.zip"',
      'unknown argument "address.extra"',
      'argument "ids[1]" must be integer',
    ]);
  });

  it("answers non-object arguments with one problem", () => {
    for (const args of [null, undefined, "city=Paris", 3, ["Paris"]]) {
      expect(validateArguments(parameters, args)).toEqual(["arguments must be a JSON object"]);
    }
  });

  it("reports other keywords with the validator's detail", () => {
    const [problem] = validateArguments(parameters, { city: "Paris", days: 0 });
    expect(problem).toMatch(/^argument "days" invalid: .*less than 1/);
  });

  it("understands the draft-4 boolean exclusiveMinimum real tools still use", () => {
    const schema = validateToolDefinition({
      ...weather,
      parameters: { type: "object", properties: { page: { type: "integer", minimum: 0, exclusiveMinimum: true } } },
    }).parameters;
    expect(validateArguments(schema, { page: 1 })).toEqual([]);
    expect(validateArguments(schema, { page: 0 })).toHaveLength(1);
  });

  it("never throws, even when the schema cannot be applied", () => {
    expect(validateArguments({ type: "object", $ref: "#" }, {})).toEqual([
      "the arguments could not be checked against the tool's parameter schema",
    ]);
    expect(validateArguments({ type: "object", properties: { a: { pattern: "(" } } }, { a: "x" })).toHaveLength(1);
  });

  it("describes a choice per failing item, in linear time over many items", () => {
    const schema = { type: "object", properties: { tags: { type: "array", items: { anyOf: [{ type: "string" }, { type: "null" }] } } } };
    // Each item gets its own type line (the branches of other items used to turn it into "does not fit").
    expect(validateArguments(schema, { tags: [1, "ok", 2] })).toEqual([
      'argument "tags[0]" must be string or null',
      'argument "tags[2]" must be string or null',
    ]);
    // 20,000 failing items took minutes (past the test's timeout) when each choice looked through every other
    // item's errors; now a fraction of a second.
    const problems = validateArguments(schema, { tags: Array.from({ length: 20_000 }, () => 1) });
    expect(problems).toHaveLength(11);
    expect(problems[0]).toBe('argument "tags[0]" must be string or null');
  });

  it("checks uniqueItems by hashing, linear in the items: long arrays validate, duplicates are found", () => {
    const schema = { type: "object", properties: { ids: { type: "array", items: { type: "integer" }, uniqueItems: true } } };
    expect(validateArguments(schema, { ids: [1, 2, 2] })).toEqual(['argument "ids" invalid: has the same item twice (at 1 and 2)']);
    expect(validateArguments(schema, { ids: Array.from({ length: 5_000 }, (_, i) => i) })).toEqual([]);
    const objects = { type: "object", properties: { rows: { type: "array", uniqueItems: true } } };
    const thousand = records(1_000);
    expect(validateArguments(objects, { rows: thousand })).toEqual([]);
    expect(validateArguments(objects, { rows: [...thousand.slice(0, 999), { ...thousand[10] }] })).toEqual([
      'argument "rows" invalid: has the same item twice (at 10 and 999)',
    ]);
    // 5,000 objects of 25 keys (the testers' 964 KB; 60 s of pairwise comparison before) are more than one call may
    // hash: a clear answer at once.
    expect(validateArguments(objects, { rows: records(5_000) })).toEqual([texts("en").argument.tooCostly]);
    // Equal by JSON Schema, not by spelling: key order does not matter, 1 and 1.0 are one number.
    expect(validateArguments(objects, { rows: [{ a: 1, b: [2, { c: 3 }] }, { b: [2, { c: 3.0 }], a: 1.0 }] })).toHaveLength(1);
    expect(validateArguments(objects, { rows: [{ a: 1 }, { a: "1" }, [1], ["1"], 1, "1", null, "null", true, "true"] })).toEqual([]);
  });

  it("answers past its budget with the problems found so far and a clear line, not by running on", () => {
    const tooCostly = texts("en").argument.tooCostly;
    // A $ref fan-out: each level applies the next twice, 2^20 visits of one argument (5.7 s in the old validator).
    const $defs: Record<string, unknown> = { l20: { type: "string" } };
    for (let level = 0; level < 20; level++) $defs[`l${level}`] = { allOf: [{ $ref: `#/$defs/l${level + 1}` }, { $ref: `#/$defs/l${level + 1}` }] };
    const fanOut = { type: "object", $defs, properties: { x: { $ref: "#/$defs/l0" } } };
    expect(validateArguments(fanOut, { x: "a" })).toEqual([tooCostly]);
    expect(validateArguments(fanOut, {})).toEqual([]);
    expect(validateArguments(fanOut, { x: "a" }, "zh")).toEqual([texts("zh").argument.tooCostly]);
    // 200,000 items are more than one call may check; the problems found before the budget ran out come first.
    const tags = { type: "object", properties: { tags: { type: "array", items: { type: "string" } } } };
    const problems = validateArguments(tags, { tags: [1, ...Array.from({ length: 200_000 }, () => "x")] });
    expect(problems).toEqual(['argument "tags[0]" must be string', tooCostly]);
    expect(VALIDATION_LIMITS.budget).toBeLessThan(200_000);
  });

  it("refuses arguments nested deeper than it follows, with one line; depth it never reaches costs nothing", () => {
    const tree = { type: "object", properties: { tree: { $ref: "#/$defs/node" } }, $defs: { node: { type: "object", additionalProperties: { $ref: "#/$defs/node" } } } };
    let deep: unknown = {};
    for (let i = 0; i < 2_500; i++) deep = { a: deep };
    expect(validateArguments(tree, { tree: deep })).toEqual([texts("en").argument.tooDeep(VALIDATION_LIMITS.argumentDepth)]);
    expect(validateArguments(tree, { tree: deep }, "zh")).toEqual([texts("zh").argument.tooDeep(VALIDATION_LIMITS.argumentDepth)]);
    let fits: unknown = {};
    for (let i = 0; i < VALIDATION_LIMITS.argumentDepth - 2; i++) fits = { a: fits };
    expect(validateArguments(tree, { tree: fits })).toEqual([]);
    expect(validateArguments(tree, { tree: { a: fits } })).toEqual([texts("en").argument.tooDeep(VALIDATION_LIMITS.argumentDepth)]);
    // A schema that does not look inside a value does not walk it.
    expect(validateArguments({ type: "object" }, { deep })).toEqual([]);
  });

  it("caps the number of problems", () => {
    const properties = Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`p${i}`, { type: "string" }]));
    const schema = { type: "object", properties, required: Object.keys(properties) };
    const problems = validateArguments(schema, {});
    expect(problems).toHaveLength(11);
    expect(problems[10]).toBe("and 5 more problem(s)");
  });

  it("speaks Chinese with the zh locale", () => {
    expect(validateArguments(parameters, { days: "x", foo: 1 }, "zh")).toEqual([
      "缺少必填参数「city」",
      "参数「days」必须是 integer",
      "未知参数「foo」",
    ]);
    expect(validateArguments(parameters, [], "zh")).toEqual(["参数必须是 JSON 对象"]);
  });

  it("caches the compiled validator per schema object and still answers per call", () => {
    const schema = { type: "object", properties: { n: { type: "number" } } };
    expect(validateArguments(schema, { n: 1 })).toEqual([]);
    expect(validateArguments(schema, { n: "1" })).toEqual(['argument "n" must be number']);
    expect(validateArguments(schema, { n: 2 })).toEqual([]);
  });

  it("property: arguments that fit a simple schema pass; a wrong-typed one is named", () => {
    const schema = {
      type: "object",
      properties: { s: { type: "string" }, n: { type: "integer" }, b: { type: "boolean" } },
      required: ["s"],
      additionalProperties: false,
    };
    fc.assert(fc.property(fc.string(), fc.integer(), fc.boolean(), (s, n, b) => {
      expect(validateArguments(schema, { s, n, b })).toEqual([]);
      expect(validateArguments(schema, { s: n, n, b })).toEqual(['argument "s" must be string']);
    }));
  });
});
