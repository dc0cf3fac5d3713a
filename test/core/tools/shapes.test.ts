import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  guardFromMcpAnnotations, detectToolShape, detectToolsShape, fromShape, readToolList, ShapeError, TOOL_SHAPES, toShape,
} from "../../../src/core/tools/shapes.ts";
import type { ToolShape } from "../../../src/core/tools/shapes.ts";
import type { ToolDefinition } from "../../../src/core/types.ts";
import { everyTestNeedsEvalData, evalMcpTools } from "../../evalData.ts";

const weatherSchema = {
  type: "object",
  properties: { city: { type: "string", description: "City name" }, days: { type: "integer" } },
  required: ["city"],
  additionalProperties: false,
};

const samples: Record<ToolShape, Record<string, unknown>> = {
  openai: {
    type: "function",
    function: { name: "get_weather", description: "Weather forecast", parameters: weatherSchema, strict: true },
  },
  responses: {
    type: "function", name: "get_weather", description: "Weather forecast", parameters: weatherSchema, strict: true,
  },
  anthropic: { name: "get_weather", description: "Weather forecast", input_schema: weatherSchema },
  mcp: {
    name: "get_weather",
    title: "Weather",
    description: "Weather forecast",
    inputSchema: weatherSchema,
    outputSchema: { type: "object", properties: { temperature: { type: "number" } } },
    annotations: { readOnlyHint: true },
  },
};

const weatherDefinition: ToolDefinition = {
  name: "get_weather",
  description: "Weather forecast",
  parameters: weatherSchema,
};

/** Runs `action` and returns the ShapeError it throws; anything else (or nothing) fails the test. */
function shapeErrorOf(action: () => unknown): ShapeError {
  try {
    action();
  } catch (error) {
    if (error instanceof ShapeError) return error;
    throw error;
  }
  throw new Error("expected a ShapeError, nothing was thrown");
}

describe("detectToolShape", () => {
  it.each(TOOL_SHAPES)("recognises a %s tool", (shape) => {
    expect(detectToolShape(samples[shape])).toBe(shape);
  });

  it("recognises Anthropic custom tools that say their type", () => {
    expect(detectToolShape({ type: "custom", name: "x", input_schema: { type: "object" } })).toBe("anthropic");
  });

  it("detects by structure even when fields are broken, so that reading can name the broken field", () => {
    expect(detectToolShape({ type: "function", function: 42 })).toBe("openai");
    expect(detectToolShape({ type: "function", name: 42 })).toBe("responses");
    expect(detectToolShape({ name: 42, input_schema: null })).toBe("anthropic");
    expect(detectToolShape({ inputSchema: "x" })).toBe("mcp");
  });

  it.each([
    ["null", null],
    ["a string", "get_weather"],
    ["a number", 3],
    ["an array", [samples.openai]],
    ["a function tool without name or function", { type: "function" }],
    ["an Anthropic server tool", { type: "web_search_20250305", name: "web_search" }],
    ["a Responses built-in tool", { type: "web_search" }],
    ["both schema spellings at once", { name: "x", input_schema: {}, inputSchema: {} }],
    ["an MCP tool with a type", { type: "custom", name: "x", inputSchema: {} }],
    ["a name without any schema", { name: "x", description: "y" }],
  ])("answers undefined for %s", (_label, value) => {
    expect(detectToolShape(value)).toBeUndefined();
  });
});

describe("detectToolsShape", () => {
  it("calls an empty list openai", () => {
    expect(detectToolsShape([])).toBe("openai");
  });

  it.each(TOOL_SHAPES)("answers %s for a list of that shape", (shape) => {
    expect(detectToolsShape([samples[shape], samples[shape]])).toBe(shape);
  });

  it("rejects a mixed list at the first tool that differs", () => {
    const error = shapeErrorOf(() => detectToolsShape([samples.openai, samples.openai, samples.anthropic]));
    expect(error.path).toBe("tools[2]");
    expect(error.message).toMatch(/^tools\[2\]: is in Anthropic shape but tools\[0\] is in OpenAI Chat shape/);
  });

  it("rejects a tool of no known shape, naming it", () => {
    const error = shapeErrorOf(() => detectToolsShape([samples.mcp, { type: "web_search" }]));
    expect(error.path).toBe("tools[1]");
    expect(error.message).toContain("MCP");
  });

  it("uses the list path it is given", () => {
    expect(shapeErrorOf(() => detectToolsShape([42], "body.tools")).path).toBe("body.tools[0]");
  });
});

describe("fromShape", () => {
  it.each(TOOL_SHAPES)("reads a full %s tool to name, description and parameters only", (shape) => {
    expect(fromShape(samples[shape], shape)).toEqual(weatherDefinition);
  });

  it("reads a tool without description as an empty description (MCP allows it)", () => {
    expect(fromShape({ name: "ping", inputSchema: { type: "object" } }, "mcp")).toEqual({
      name: "ping", description: "", parameters: { type: "object" },
    });
    expect(fromShape({ type: "function", function: { name: "ping", description: null } }, "openai").description)
      .toBe("");
  });

  it.each([
    ["openai", { type: "function", function: { name: "ping" } }],
    ["openai", { type: "function", function: { name: "ping", parameters: null } }],
    ["responses", { type: "function", name: "ping" }],
    ["responses", { type: "function", name: "ping", parameters: null, strict: null }],
  ] as const)("gives a %s tool without parameters the empty object schema", (shape, tool) => {
    expect(fromShape(tool, shape).parameters).toEqual({ type: "object", properties: {} });
  });

  it("marks a schema without `type` as an object schema and keeps the rest", () => {
    const tool = { type: "function", function: { name: "a", parameters: { properties: { q: { type: "string" } } } } };
    expect(fromShape(tool, "openai").parameters).toEqual({ type: "object", properties: { q: { type: "string" } } });
  });

  it("ignores fields it does not know (cache_control, _meta, icons, …)", () => {
    const tool = { ...samples.anthropic, cache_control: { type: "ephemeral" } };
    expect(fromShape(tool, "anthropic")).toEqual(weatherDefinition);
    expect(fromShape({ ...samples.mcp, _meta: { a: 1 }, icons: [], annotations: null }, "mcp"))
      .toEqual(weatherDefinition);
  });

  it("never lets client fields reach the definition", () => {
    const tool = { ...samples.anthropic, groups: ["admin"], visibility: "public", risk: "safe", executor: {} };
    expect(Object.keys(fromShape(tool, "anthropic")).toSorted()).toEqual(["description", "name", "parameters"]);
  });

  const longName = "a".repeat(257);
  it.each([
    ["openai", "not an object", "tool"],
    ["openai", { type: "tool", function: { name: "a" } }, "tool.type"],
    ["openai", { type: "function", function: "a" }, "tool.function"],
    ["openai", { type: "function", function: { name: 7 } }, "tool.function.name"],
    ["openai", { type: "function", function: {} }, "tool.function.name"],
    ["openai", { type: "function", function: { name: longName } }, "tool.function.name"],
    ["openai", { type: "function", function: { name: "bad\nname" } }, "tool.function.name"],
    ["openai", { type: "function", function: { name: "" } }, "tool.function.name"],
    ["openai", { type: "function", function: { name: "a", description: 3 } }, "tool.function.description"],
    ["openai", { type: "function", function: { name: "a", strict: "yes" } }, "tool.function.strict"],
    ["openai", { type: "function", function: { name: "a", parameters: [] } }, "tool.function.parameters"],
    ["openai", { type: "function", function: { name: "a", parameters: "{}" } }, "tool.function.parameters"],
    ["openai", { type: "function", function: { name: "a", parameters: { type: "string" } } },
      "tool.function.parameters.type"],
    ["openai", { type: "function", function: { name: "a", parameters: { properties: [] } } },
      "tool.function.parameters.properties"],
    ["openai", { type: "function", function: { name: "a", parameters: { required: "q" } } },
      "tool.function.parameters.required"],
    ["openai", { type: "function", function: { name: "a", parameters: { required: ["q", 1] } } },
      "tool.function.parameters.required[1]"],
    ["responses", { type: "function", name: ["a"] }, "tool.name"],
    ["responses", { type: "custom", name: "a" }, "tool.type"],
    ["responses", { type: "function", name: "a", strict: 1 }, "tool.strict"],
    ["responses", { type: "function", name: "a", parameters: 5 }, "tool.parameters"],
    ["anthropic", { name: "a" }, "tool.input_schema"],
    ["anthropic", { name: "a", input_schema: null }, "tool.input_schema"],
    ["anthropic", { name: "a", input_schema: { type: "array" } }, "tool.input_schema.type"],
    ["anthropic", { type: "bash_20250124", name: "bash", input_schema: {} }, "tool.type"],
    ["anthropic", { name: "a", description: {}, input_schema: {} }, "tool.description"],
    ["mcp", { name: "a" }, "tool.inputSchema"],
    ["mcp", { name: "a\u0000b", inputSchema: {} }, "tool.name"],
    ["mcp", { name: "a", title: 1, inputSchema: {} }, "tool.title"],
    ["mcp", { name: "a", inputSchema: {}, outputSchema: "x" }, "tool.outputSchema"],
    ["mcp", { name: "a", inputSchema: {}, annotations: [] }, "tool.annotations"],
  ] as const)("rejects a bad %s tool at %#, naming %s", (shape, tool, path) => {
    const error = shapeErrorOf(() => fromShape(tool, shape));
    expect(error.path).toBe(path);
    expect(error.message.startsWith(`${path}: `)).toBe(true);
  });

  it("says what is wrong in words a client can act on", () => {
    const tool = { type: "function", function: { name: 7 } };
    expect(shapeErrorOf(() => fromShape(tool, "openai", "tools[2]")).message)
      .toBe("tools[2].function.name: must be a string of 1 to 256 characters");
    expect(shapeErrorOf(() => fromShape({ name: "a\tb", inputSchema: {} }, "mcp")).message)
      .toBe("tool.name: must not hold control, format or line-break characters");
  });

  it("fits a name that not every provider accepts, keeping the source's spelling", () => {
    for (const [shape, tool] of [
      ["mcp", { name: "github/create.issue", inputSchema: {} }],
      ["openai", { type: "function", function: { name: "github/create.issue" } }],
      ["anthropic", { name: "github/create.issue", input_schema: {} }],
      ["responses", { type: "function", name: "github/create.issue" }],
    ] as const) {
      const definition = fromShape(tool, shape);
      expect(definition.name).toMatch(/^github_create_issue_[0-9a-z]{10}$/);
      expect(definition.originalName).toBe("github/create.issue");
    }
    expect(fromShape({ name: "plain_name", inputSchema: {} }, "mcp")).not.toHaveProperty("originalName");
  });

  it("reads MCP annotations as the guard's settings; a tool that says nothing is sensitive", () => {
    expect(guardFromMcpAnnotations({ name: "a", annotations: { readOnlyHint: true, destructiveHint: true } }))
      .toStrictEqual({ risk: "dangerous" });
    expect(guardFromMcpAnnotations({ name: "a", annotations: { readOnlyHint: true } })).toStrictEqual({ visibility: "public", risk: "safe" });
    expect(guardFromMcpAnnotations({ name: "a", annotations: { destructiveHint: true } })).toStrictEqual({ risk: "dangerous" });
    expect(guardFromMcpAnnotations({ name: "a", annotations: { destructiveHint: false, idempotentHint: true } })).toStrictEqual({ risk: "sensitive" });
    expect(guardFromMcpAnnotations({ name: "a" })).toStrictEqual({ risk: "sensitive" });
    expect(guardFromMcpAnnotations({ name: "a", annotations: { readOnlyHint: "yes" } })).toStrictEqual({ risk: "sensitive" });
  });

  it("refuses a shape name it does not know (a programming error, not a client one)", () => {
    expect(() => Reflect.apply(fromShape, undefined, [samples.openai, "gemini"])).toThrow(TypeError);
    expect(() => Reflect.apply(toShape, undefined, [weatherDefinition, "gemini"])).toThrow(/unknown tool shape "gemini"/);
  });
});

describe("readToolList", () => {
  it("reads a list in its shape", () => {
    const other = { name: "ping", input_schema: { type: "object" } };
    expect(readToolList([samples.anthropic, other])).toEqual({
      shape: "anthropic",
      tools: [weatherDefinition, { name: "ping", description: "", parameters: { type: "object" } }],
    });
    expect(readToolList([])).toEqual({ shape: "openai", tools: [] });
  });

  it("rejects what is not an array", () => {
    expect(shapeErrorOf(() => readToolList({ tools: [] })).message).toBe("tools: must be an array of tools");
  });

  it("names the field of the tool that is wrong", () => {
    const bad = { type: "function", function: { name: "ok", parameters: { type: "string" } } };
    expect(shapeErrorOf(() => readToolList([samples.openai, bad], "body.tools")).path)
      .toBe("body.tools[1].function.parameters.type");
  });

  it("rejects a repeated name, at the name of the repeat", () => {
    const error = shapeErrorOf(() => readToolList([samples.openai, samples.openai]));
    expect(error.path).toBe("tools[1].function.name");
    expect(error.message).toContain("tools[0]");
    expect(shapeErrorOf(() => readToolList([samples.mcp, samples.mcp])).path).toBe("tools[1].name");
  });

  it("rejects a mixed list", () => {
    expect(shapeErrorOf(() => readToolList([samples.mcp, samples.responses])).path).toBe("tools[1]");
  });
});

describe("toShape", () => {
  const full: ToolDefinition = {
    ...weatherDefinition,
    groups: ["web"],
    visibility: "restricted",
    risk: "dangerous",
    confirm: "always",
    executor: { type: "builtin", name: "weather" },
  };

  it("writes exactly the fields of each shape, never our own", () => {
    expect(toShape(full, "openai")).toEqual({
      type: "function",
      function: { name: "get_weather", description: "Weather forecast", parameters: weatherSchema },
    });
    expect(toShape(full, "responses")).toEqual({
      type: "function", name: "get_weather", description: "Weather forecast", parameters: weatherSchema, strict: false,
    });
    expect(toShape(full, "anthropic")).toEqual({
      name: "get_weather", description: "Weather forecast", input_schema: weatherSchema,
    });
    expect(toShape(full, "mcp")).toEqual({ name: "get_weather", description: "Weather forecast", inputSchema: weatherSchema });
  });

  it("leaves an empty description out", () => {
    const bare: ToolDefinition = { name: "ping", description: "", parameters: { type: "object" } };
    expect(toShape(bare, "mcp")).toEqual({ name: "ping", inputSchema: { type: "object" } });
    expect(toShape(bare, "openai")).toEqual({ type: "function", function: { name: "ping", parameters: { type: "object" } } });
  });

  it.each(TOOL_SHAPES)("writes a %s tool that is detected as %s", (shape) => {
    expect(detectToolShape(toShape(full, shape))).toBe(shape);
  });
});

// Definitions as the gateway holds them: valid names, any description, object schemas with any JSON inside.
const definitionArbitrary: fc.Arbitrary<ToolDefinition> = fc.record({
  name: fc.stringMatching(/^[a-zA-Z0-9_-]{1,64}$/),
  description: fc.string({ unit: "grapheme", maxLength: 200 }),
  parameters: fc.record(
    {
      type: fc.constant("object"),
      properties: fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }),
      required: fc.array(fc.string({ maxLength: 12 }), { maxLength: 3 }),
      additionalProperties: fc.boolean(),
      description: fc.string({ maxLength: 40 }),
    },
    { requiredKeys: ["type"] },
  ),
});

describe("round trips", () => {
  it.each(TOOL_SHAPES)("toShape then fromShape is the identity in %s shape", (shape) => {
    fc.assert(
      fc.property(definitionArbitrary, (definition) => {
        const written = toShape(definition, shape);
        expect(detectToolShape(written)).toBe(shape);
        expect(fromShape(written, shape)).toEqual(definition);
      }),
    );
  });

  it.each(TOOL_SHAPES)("the %s shape survives JSON on the wire, as a whole list", (shape) => {
    fc.assert(
      fc.property(fc.uniqueArray(definitionArbitrary, { selector: (tool) => tool.name, maxLength: 6 }), (tools) => {
        const wire: unknown = JSON.parse(JSON.stringify(tools.map((tool) => toShape(tool, shape))));
        const read = readToolList(wire);
        expect(read.shape).toBe(tools.length === 0 ? "openai" : shape);
        // What JSON itself cannot carry (-0 becomes 0) is not the shape's loss: compare with the JSON image.
        expect(read.tools).toEqual(JSON.parse(JSON.stringify(tools)));
      }),
      { numRuns: 50 },
    );
  });

  it("converts between any two shapes without loss", () => {
    const shapeArbitrary = fc.constantFrom(...TOOL_SHAPES);
    fc.assert(
      fc.property(definitionArbitrary, shapeArbitrary, shapeArbitrary, (definition, from, to) => {
        const converted = toShape(fromShape(toShape(definition, from), from), to);
        expect(fromShape(converted, to)).toEqual(definition);
      }),
    );
  });
});

describe("real MCP tools (eval data: 527 tools from 70 public servers)", () => {
  everyTestNeedsEvalData();
  const evalTools = evalMcpTools;

  it("reads every one as MCP and carries it through every shape unchanged", () => {
    expect(evalTools.length).toBeGreaterThan(500);
    for (const [index, tool] of evalTools.entries()) {
      expect(detectToolShape(tool)).toBe("mcp");
      const definition = fromShape(tool, "mcp", `tools[${index}]`);
      expect(definition.name).toBe(tool.name);
      expect(definition.description).toBe(tool.description ?? "");
      expect(definition.parameters).toEqual(tool.inputSchema);
      for (const shape of TOOL_SHAPES) {
        expect(fromShape(toShape(definition, shape), shape)).toEqual(definition);
      }
    }
  });

  it("reads the tools without a description (MCP allows it) with an empty one", () => {
    const undescribed = evalTools.filter((tool) => !tool.description);
    expect(undescribed.length).toBeGreaterThan(0);
    for (const tool of undescribed) expect(fromShape(tool, "mcp").description).toBe("");
  });

  it("reads a whole server's list at once", () => {
    const firstServer = evalTools[0]?.server;
    const serverTools = evalTools.filter((tool) => tool.server === firstServer);
    const read = readToolList(serverTools);
    expect(read.shape).toBe("mcp");
    expect(read.tools.map((tool) => tool.name)).toEqual(serverTools.map((tool) => tool.name));
  });
});
