import { describe, expect, it } from "vitest";
import { parseToolList, shapeOf, ToolListError, viewOf } from "../../src/playground/toolLists.ts";

const schema = { type: "object", properties: { city: { type: "string" } } };

describe("the page's tool list reader", () => {
  it("reads each of the four shapes to the same view", () => {
    const expected = { name: "weather", description: "Weather now.", parameters: schema };
    const tools = {
      openai: { type: "function", function: { name: "weather", description: "Weather now.", parameters: schema } },
      responses: { type: "function", name: "weather", description: "Weather now.", parameters: schema },
      anthropic: { name: "weather", description: "Weather now.", input_schema: schema },
      mcp: { name: "weather", description: "Weather now.", inputSchema: schema },
    };
    for (const [shape, tool] of Object.entries(tools)) {
      expect(shapeOf(tool)).toBe(shape);
      expect(viewOf(tool)).toEqual(expected);
    }
  });

  it("accepts a bare array, an MCP tools/list answer and a JSON-RPC envelope", () => {
    const tool = { name: "a", inputSchema: schema };
    for (const text of [JSON.stringify([tool]), JSON.stringify({ tools: [tool] }), JSON.stringify({ result: { tools: [tool] } })]) {
      const parsed = parseToolList(text);
      expect(parsed.shape).toBe("mcp");
      expect(parsed.tools).toEqual([tool]);
      expect(parsed.views).toEqual([{ name: "a", description: "", parameters: schema }]);
    }
  });

  it("says what is wrong with a list it cannot use", () => {
    const cases: [string, RegExp][] = [
      ["", /Paste a tool list/],
      ["{not json", /not valid JSON/],
      ['{"name": "x"}', /Expected a JSON array of tools/],
      ["[]", /no tools/],
      ['[{"name": "x", "inputSchema": {}}, {"type": "web_search"}]', /^Tool 2 is not a function tool/],
      ['[{"name": "x", "input_schema": {}}, {"name": "y", "inputSchema": {}}]', /Tool 2 is in MCP shape but tool 1 is in Anthropic shape/],
      ['[{"type": "function", "function": {"description": "no name"}}]', /Tool 1 .*has no name/],
    ];
    for (const [text, message] of cases) {
      expect(() => parseToolList(text)).toThrow(ToolListError);
      expect(() => parseToolList(text)).toThrow(message);
    }
  });

  it("does not take a tool with both schemas or a foreign type for any shape", () => {
    expect(shapeOf({ name: "x", input_schema: {}, inputSchema: {} })).toBeUndefined();
    expect(shapeOf({ type: "custom", name: "x", inputSchema: {} })).toBeUndefined();
    expect(shapeOf({ type: "computer_20250124", name: "computer" })).toBeUndefined();
    expect(shapeOf(["x"])).toBeUndefined();
  });
});
