import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validateArguments } from "../../../src/core/tools/arguments.ts";
import {
  DEFINITION_LIMITS, SOURCE_NAME_MAX_LENGTH, TOOL_NAME_PATTERN, ToolDefinitionError, validateToolDefinition,
} from "../../../src/core/tools/definition.ts";
import { fitToolName } from "../../../src/core/tools/toolNames.ts";
import { evalMcpTools, needsEvalData } from "../../evalData.ts";
import { weather, weatherParameters } from "../../support/weatherTool.ts";

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
      const name = `${tool.server}__${tool.name}`;
      const definition = validateToolDefinition({ name, description: tool.description || tool.name, parameters: tool.inputSchema });
      expect(definition.name).toBe(fitToolName(name));
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

  it("keeps a portable name and refuses what is no name at all", () => {
    for (const name of ["", "x".repeat(SOURCE_NAME_MAX_LENGTH + 1), "tab\there", "line\nbreak", "zero\u200bwidth", 42, undefined]) {
      expect(fieldOf({ ...weather, name })).toBe("name");
    }
    for (const name of ["a", "A-b_c-d", "x".repeat(64), "9"]) {
      const definition = validateToolDefinition({ ...weather, name });
      expect(definition.name).toBe(name);
      expect(definition).not.toHaveProperty("originalName");
    }
  });

  it("fits any other name to ^[a-zA-Z0-9_-]{1,64}$ and keeps the source's spelling", () => {
    for (const name of ["A.b-c_d", "has space", "a/b", "ü", "x".repeat(65), "github.create_issue"]) {
      const definition = validateToolDefinition({ ...weather, name });
      expect(definition.name).toBe(fitToolName(name));
      expect(definition.name).toMatch(TOOL_NAME_PATTERN);
      expect(definition.originalName).toBe(name);
    }
  });

  it("reads its own output again: a fitted name with its originalName; a catalog name may differ from its source's", () => {
    const first = validateToolDefinition({ ...weather, name: "fs.read" });
    expect(validateToolDefinition(first)).toStrictEqual(first);
    const { name: _name, ...unnamed } = weather;
    expect(validateToolDefinition({ ...unnamed, originalName: "fs.read" }).name).toBe(first.name);
    // An upstream's tool: the catalog's `<prefix>__<tool>` and the server's own name.
    expect(validateToolDefinition({ ...weather, name: "srv__read", originalName: "read" })).toMatchObject({ name: "srv__read", originalName: "read" });
    expect(validateToolDefinition({ ...weather, name: "same", originalName: "same" })).not.toHaveProperty("originalName");
    expect(fieldOf({ ...weather, name: "x", originalName: 3 })).toBe("originalName");
    expect(fieldOf({ ...weather, name: "x", originalName: "a\nb" })).toBe("originalName");
  });

  it("property: every name of printable characters is accepted, as itself when portable", () => {
    fc.assert(fc.property(fc.string({ minLength: 1, maxLength: 70 }), (name) => {
      const printable = !/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(name);
      expect(accepts({ ...weather, name })).toBe(printable);
      expect(printable ? validateToolDefinition({ ...weather, name }).name : fitToolName(name)).toBe(fitToolName(name));
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
