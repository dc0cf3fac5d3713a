import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { texts } from "../../src/core/locale.ts";
import { VALIDATION_LIMITS } from "../../src/core/jsonSchema/validate.ts";
import {
  DEFINITION_LIMITS, TOOL_NAME_PATTERN, ToolDefinitionError, validateArguments, validateToolDefinition,
} from "../../src/core/schema.ts";
import { evalMcpTools, needsEvalData } from "../evalData.ts";

const weatherParameters = {
  type: "object",
  properties: {
    city: { type: "string" },
    days: { type: "integer", minimum: 1 },
    unit: { enum: ["c", "f"] },
    note: { anyOf: [{ type: "string" }, { type: "null" }] },
  },
  required: ["city"],
  additionalProperties: false,
};
const weather = { name: "weather", description: "Get the weather of a city", parameters: weatherParameters };

/** The field a definition error names (fails the test when no ToolDefinitionError is thrown). */
function fieldOf(input: unknown): string {
  let caught: unknown;
  try {
    validateToolDefinition(input);
  } catch (error) {
    caught = error;
  }
  if (!(caught instanceof ToolDefinitionError)) throw new Error(`expected a ToolDefinitionError, got ${String(caught)}`);
  expect(caught.message.startsWith(`${caught.field}: `)).toBe(true);
  return caught.field;
}

function accepts(input: unknown): boolean {
  try {
    validateToolDefinition(input);
    return true;
  } catch {
    return false;
  }
}

function withParameters(extra: Record<string, unknown>): Record<string, unknown> {
  return { ...weather, parameters: { type: "object", ...extra } };
}

function withExecutor(executor: unknown): Record<string, unknown> {
  return { ...weather, executor };
}

describe("validateToolDefinition: the accepted shape", () => {
  it("returns a clean copy with only the given fields, in a fixed order", () => {
    const input = {
      executor: { type: "builtin", name: "weather_v2" },
      confirm: "always",
      risk: "sensitive",
      visibility: "restricted",
      groups: ["travel", "ops.v2"],
      parameters: weatherParameters,
      description: "Get the weather of a city",
      name: "weather",
    };
    const definition = validateToolDefinition(input);
    expect(definition).toStrictEqual({
      name: "weather",
      description: "Get the weather of a city",
      parameters: weatherParameters,
      groups: ["travel", "ops.v2"],
      visibility: "restricted",
      risk: "sensitive",
      confirm: "always",
      executor: { type: "builtin", name: "weather_v2" },
    });
    expect(Object.keys(definition)).toEqual([
      "name", "description", "parameters", "groups", "visibility", "risk", "confirm", "executor",
    ]);
    // A copy: changing the input afterwards does not reach it.
    expect(definition.parameters).not.toBe(weatherParameters);
    expect(definition.groups).not.toBe(input.groups);
  });

  it("keeps optional fields out when absent, and drops an empty groups list (it means ungrouped)", () => {
    expect(validateToolDefinition(weather)).toStrictEqual(weather);
    expect(validateToolDefinition({ ...weather, groups: [] })).toStrictEqual(weather);
    expect(validateToolDefinition({ ...weather, risk: undefined })).toStrictEqual(weather);
  });

  it("accepts every executor form", () => {
    const http = {
      type: "http", url: "https://api.example.com/weather?x=1", method: "POST",
      headers: { Authorization: "WEATHER_TOKEN", "X-Api-Key": "K2" }, timeoutMs: 5_000, untrusted: false,
    };
    expect(validateToolDefinition({ ...weather, executor: http }).executor).toStrictEqual(http);
    expect(validateToolDefinition({ ...weather, executor: { type: "http", url: "http://localhost:8080" } }).executor)
      .toStrictEqual({ type: "http", url: "http://localhost:8080" });
    const service = { type: "service", binding: "WEATHER", path: "/v1/run", untrusted: true };
    expect(validateToolDefinition({ ...weather, executor: service }).executor).toStrictEqual(service);
  });

  it("accepts every real MCP tool schema of the evaluation set (527 tools, 70 servers)", (context) => {
    needsEvalData(context);
    const tools = evalMcpTools;
    expect(tools.length).toBeGreaterThan(500);
    for (const tool of tools) {
      const name = `${tool.server}__${tool.name}`.replace(/[^a-zA-Z0-9_.-]/g, "_").slice(0, 64);
      const definition = validateToolDefinition({ name, description: tool.description || tool.name, parameters: tool.inputSchema });
      expect(definition.parameters).toStrictEqual(tool.inputSchema);
      // And their validators run (an empty call either passes or lists problems, never throws).
      expect(Array.isArray(validateArguments(definition.parameters, {}))).toBe(true);
    }
  });
});

describe("validateToolDefinition: errors name the wrong field", () => {
  it("rejects a definition that is not an object", () => {
    for (const input of [null, "weather", 3, [weather]]) expect(fieldOf(input)).toBe("tool");
  });

  it("checks the name against ^[a-zA-Z0-9_.-]{1,64}$", () => {
    for (const name of ["", "has space", "a/b", "ü", "x".repeat(65), 42, undefined]) {
      expect(fieldOf({ ...weather, name })).toBe("name");
    }
    for (const name of ["a", "A.b-c_d", "x".repeat(64), "9"]) {
      expect(validateToolDefinition({ ...weather, name }).name).toBe(name);
    }
  });

  it("property: a name is accepted exactly when it matches the pattern", () => {
    fc.assert(fc.property(fc.string({ maxLength: 70 }), (name) => {
      expect(accepts({ ...weather, name })).toBe(TOOL_NAME_PATTERN.test(name));
    }));
  });

  it("needs a non-empty description within its cap", () => {
    expect(fieldOf({ ...weather, description: "" })).toBe("description");
    expect(fieldOf({ ...weather, description: "   \n" })).toBe("description");
    expect(fieldOf({ ...weather, description: 7 })).toBe("description");
    expect(fieldOf({ ...weather, description: "x".repeat(DEFINITION_LIMITS.descriptionChars + 1) })).toBe("description");
    expect(validateToolDefinition({ ...weather, description: "x".repeat(DEFINITION_LIMITS.descriptionChars) }).description)
      .toHaveLength(DEFINITION_LIMITS.descriptionChars);
  });

  it("rejects unknown fields, at every level", () => {
    expect(fieldOf({ ...weather, inputSchema: {} })).toBe("inputSchema");
    expect(fieldOf({ ...weather, executor: { type: "builtin", name: "x", url: "https://a.b" } })).toBe("executor.url");
    expect(fieldOf({ ...weather, executor: { type: "http", url: "https://a.b", secret: "x" } })).toBe("executor.secret");
    expect(fieldOf({ ...weather, executor: { type: "service", binding: "B", method: "GET" } })).toBe("executor.method");
  });

  it("needs parameters to be an object schema", () => {
    expect(fieldOf({ ...weather, parameters: undefined })).toBe("parameters");
    expect(fieldOf({ ...weather, parameters: [] })).toBe("parameters");
    expect(fieldOf({ ...weather, parameters: "object" })).toBe("parameters");
    expect(fieldOf({ ...weather, parameters: {} })).toBe("parameters.type");
    expect(fieldOf({ ...weather, parameters: { type: "string" } })).toBe("parameters.type");
    expect(fieldOf({ ...weather, parameters: { type: ["object", "null"] } })).toBe("parameters.type");
  });

  it("needs parameters to compile as JSON Schema, naming the keyword", () => {
    const p = withParameters;
    expect(fieldOf(p({ properties: "city" }))).toBe("parameters.properties");
    expect(fieldOf(p({ properties: { city: 5 } }))).toBe("parameters.properties.city");
    expect(fieldOf(p({ properties: { city: { type: "text" } } }))).toBe("parameters.properties.city.type");
    expect(fieldOf(p({ properties: { "two words": { pattern: "(" } } }))).toBe('parameters.properties["two words"].pattern');
    expect(fieldOf(p({ required: "city" }))).toBe("parameters.required");
    expect(fieldOf(p({ required: ["a", "a"] }))).toBe("parameters.required");
    expect(fieldOf(p({ properties: { n: { minimum: "1" } } }))).toBe("parameters.properties.n.minimum");
    expect(fieldOf(p({ properties: { s: { maxLength: -1 } } }))).toBe("parameters.properties.s.maxLength");
    expect(fieldOf(p({ properties: { s: { anyOf: [] } } }))).toBe("parameters.properties.s.anyOf");
    expect(fieldOf(p({ properties: { s: { items: { type: 1 } } } }))).toBe("parameters.properties.s.items.type");
    expect(fieldOf(p({ patternProperties: { "[": {} } }))).toBe('parameters.patternProperties["["]');
    expect(fieldOf(p({ additionalProperties: "no" }))).toBe("parameters.additionalProperties");
  });

  it("needs every $ref to resolve inside the schema, and the schema to be evaluable", () => {
    const p = withParameters;
    expect(fieldOf(p({ properties: { a: { $ref: "#/$defs/missing" } } }))).toBe("parameters.properties.a.$ref");
    expect(fieldOf(p({ properties: { a: { $ref: "https://example.com/schema.json" } } }))).toBe("parameters.properties.a.$ref");
    // A reference loop that never reaches the arguments: caught at registration, not at the first call.
    expect(fieldOf(p({ $ref: "#" }))).toBe("parameters");
    // Local references and recursion are fine.
    const tree = p({
      $defs: { node: { type: "object", properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/node" } } } } },
      properties: { root: { $ref: "#/$defs/node" } },
    });
    expect(validateToolDefinition(tree).name).toBe("weather");
  });

  it("caps the size and the nesting of parameters", () => {
    const big = { type: "object", description: "x".repeat(DEFINITION_LIMITS.parametersBytes) };
    expect(fieldOf({ ...weather, parameters: big })).toBe("parameters");
    // The cap is in UTF-8 bytes: 30,000 three-byte characters are over 64 KiB.
    expect(fieldOf({ ...weather, parameters: { type: "object", description: "天".repeat(30_000) } })).toBe("parameters");
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < DEFINITION_LIMITS.schemaDepth + 2; i++) deep = { type: "object", properties: { a: deep } };
    expect(fieldOf({ ...weather, parameters: deep })).toMatch(/^parameters(\.properties\.a)+$/);
    const cyclic: Record<string, unknown> = { type: "object" };
    cyclic["self"] = cyclic;
    expect(fieldOf({ ...weather, parameters: cyclic })).toBe("parameters");
  });

  it("checks groups", () => {
    expect(fieldOf({ ...weather, groups: "travel" })).toBe("groups");
    expect(fieldOf({ ...weather, groups: ["travel", ""] })).toBe("groups[1]");
    expect(fieldOf({ ...weather, groups: ["travel", "*"] })).toBe("groups[1]");
    expect(fieldOf({ ...weather, groups: ["a b"] })).toBe("groups[0]");
    expect(fieldOf({ ...weather, groups: [3] })).toBe("groups[0]");
    expect(fieldOf({ ...weather, groups: ["a", "b", "a"] })).toBe("groups[2]");
    expect(fieldOf({ ...weather, groups: Array.from({ length: DEFINITION_LIMITS.groups + 1 }, (_, i) => `g${i}`) })).toBe("groups");
  });

  it("checks the visibility, risk and confirm enums", () => {
    expect(fieldOf({ ...weather, visibility: "private" })).toBe("visibility");
    expect(fieldOf({ ...weather, risk: "high" })).toBe("risk");
    expect(fieldOf({ ...weather, confirm: "off" })).toBe("confirm");
    expect(fieldOf({ ...weather, confirm: null })).toBe("confirm");
  });

  it("checks executors", () => {
    const e = withExecutor;
    expect(fieldOf(e("http"))).toBe("executor");
    expect(fieldOf(e({ type: "lambda" }))).toBe("executor.type");
    expect(fieldOf(e({ type: "builtin" }))).toBe("executor.name");
    expect(fieldOf(e({ type: "http" }))).toBe("executor.url");
    for (const url of ["ftp://a.b/x", "https://", "https://user:pw@a.b/x", "https://a b.c", "javascript:alert(1)", "//a.b"]) {
      expect(fieldOf(e({ type: "http", url }))).toBe("executor.url");
    }
    expect(fieldOf(e({ type: "http", url: `https://a.b/${"x".repeat(DEFINITION_LIMITS.urlChars)}` }))).toBe("executor.url");
    expect(fieldOf(e({ type: "http", url: "https://a.b", method: "get" }))).toBe("executor.method");
    expect(fieldOf(e({ type: "http", url: "https://a.b", headers: ["A"] }))).toBe("executor.headers");
    // Header values name secrets; a literal credential is refused.
    expect(fieldOf(e({ type: "http", url: "https://a.b", headers: { Authorization: "Bearer sk-123" } }))).toBe("executor.headers.Authorization");
    expect(fieldOf(e({ type: "http", url: "https://a.b", headers: { Authorization: "api_key" } }))).toBe("executor.headers.Authorization");
    expect(fieldOf(e({ type: "http", url: "https://a.b", headers: { "Bad Header": "TOKEN" } }))).toBe('executor.headers["Bad Header"]');
    expect(fieldOf(e({ type: "http", url: "https://a.b", timeoutMs: 0 }))).toBe("executor.timeoutMs");
    expect(fieldOf(e({ type: "http", url: "https://a.b", timeoutMs: 1.5 }))).toBe("executor.timeoutMs");
    expect(fieldOf(e({ type: "http", url: "https://a.b", untrusted: "yes" }))).toBe("executor.untrusted");
    expect(fieldOf(e({ type: "service" }))).toBe("executor.binding");
    expect(fieldOf(e({ type: "service", binding: "MY-BINDING" }))).toBe("executor.binding");
    expect(fieldOf(e({ type: "service", binding: "B", path: "v1/run" }))).toBe("executor.path");
  });

  it("never reads fields through the prototype", () => {
    const input: unknown = Object.create({ description: "inherited", parameters: { type: "object" } }, {
      name: { value: "weather", enumerable: true },
    });
    expect(fieldOf(input)).toBe("description");
  });
});

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
