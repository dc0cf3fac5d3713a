import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { demoCatalog } from "../../../src/catalog/demo.ts";
import { TOOL_SHAPES, toShape } from "../../../src/core/tools/shapes.ts";
import type { ToolShape } from "../../../src/core/tools/shapes.ts";
import { countTokens } from "../../../src/core/tools/tokens.ts";
import { toolListTokens, toolTokens } from "../../../src/core/tools/toolTokens.ts";
import type { ToolDefinition } from "../../../src/core/types.ts";
import { evalMcpTools, needsEvalData } from "../../evalData.ts";

/** What toolListTokens must equal: the list's JSON text counted whole. */
function wholeText(tools: readonly ToolDefinition[], shape: ToolShape): number {
  return countTokens(JSON.stringify(tools.map((tool) => toShape(tool, shape))));
}

const tool = (name: string, description: string, parameters: ToolDefinition["parameters"] = { type: "object" }): ToolDefinition =>
  ({ name, description, parameters });

describe("toolListTokens", () => {
  it("equals the whole list's count in every shape: the demo catalog, its parts, one tool, none", () => {
    const catalog = demoCatalog();
    for (const shape of TOOL_SHAPES) {
      for (const list of [catalog, catalog.slice(0, 1), catalog.filter((_, i) => i % 3 === 0), []]) {
        expect(toolListTokens(list, shape)).toBe(wholeText(list, shape));
      }
    }
  });

  it("equals the whole list's count on the 527 real MCP tools", (context) => {
    needsEvalData(context);
    const catalog = evalMcpTools.map((t) => tool(t.name.replaceAll(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64), t.description, { type: "object", properties: {} }));
    for (const shape of TOOL_SHAPES) expect(toolListTokens(catalog, shape)).toBe(wholeText(catalog, shape));
  });

  it("equals the whole list's count for any texts at the seams (spaces, digits, punctuation, CJK, emoji)", () => {
    const piece = fc.constantFrom("a", " ", "  ", "1", "42", ".", "!)", "\"", "'s", "}", "{", "]", "中文", "😀", "\u00a0", "<|endoftext|>", "\\", "/");
    const text = fc.array(piece, { maxLength: 12 }).map((parts) => parts.join(""));
    const definition = fc.record({ description: text, property: text });
    fc.assert(
      fc.property(fc.array(definition, { minLength: 1, maxLength: 6 }), fc.constantFrom(...TOOL_SHAPES), (drawn, shape) => {
        const tools = drawn.map(({ description, property }, i) =>
          tool(`t${i}`, description, { type: "object", properties: { [property || "p"]: { type: "string", description } } }));
        return toolListTokens(tools, shape) === wholeText(tools, shape);
      }),
      { numRuns: 300 },
    );
  });
});

describe("toolTokens", () => {
  it("is the tool's JSON count in the shape, and a changed definition gets its own count", () => {
    const before = tool("weather", "Forecast for a city.");
    const after = { ...before, description: "Forecast for a city, hour by hour, with wind, rain and the UV index." };
    for (const shape of TOOL_SHAPES) {
      expect(toolTokens(before, shape)).toBe(countTokens(JSON.stringify(toShape(before, shape))));
      expect(toolTokens(after, shape)).toBe(countTokens(JSON.stringify(toShape(after, shape))));
      expect(toolTokens(after, shape)).toBeGreaterThan(toolTokens(before, shape));
      // Asked again (now from the cache): the same answers.
      expect(toolTokens(before, shape)).toBe(countTokens(JSON.stringify(toShape(before, shape))));
    }
    expect(toolListTokens([before], "openai")).not.toBe(toolListTokens([after], "openai"));
  });
});
