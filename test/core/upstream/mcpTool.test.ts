import { describe, expect, it } from "vitest";
import { ToolDefinitionError } from "../../../src/core/tools/definition.ts";
import { definitionFromMcpTool, guardFromAnnotations, readMcpTool } from "../../../src/core/upstream/mcpTool.ts";
import type { McpTool } from "../../../src/core/upstream/mcpTool.ts";

const SCHEMA = { type: "object", properties: { q: { type: "string" } } };

function read(value: unknown): McpTool {
  const result = readMcpTool(value);
  if ("problem" in result) throw new Error(result.problem);
  return result.tool;
}

describe("readMcpTool", () => {
  it("keeps what toolgate reads and drops the rest", () => {
    expect(read({ name: "a", description: "d", inputSchema: SCHEMA, outputSchema: {}, _meta: { x: 1 }, annotations: { readOnlyHint: true, openWorldHint: "yes", other: 1 } }))
      .toEqual({ name: "a", description: "d", inputSchema: SCHEMA, annotations: { readOnlyHint: true } });
  });

  it.each([
    [{ description: "x", inputSchema: SCHEMA }, /name/],
    [{ name: "", inputSchema: SCHEMA }, /name/],
    [{ name: "x".repeat(257), inputSchema: SCHEMA }, /name/],
    [{ name: "a", description: 5, inputSchema: SCHEMA }, /description must be a string/],
    [{ name: "a", description: "d".repeat(4_097), inputSchema: SCHEMA }, /4096/],
    [{ name: "a", description: "d" }, /inputSchema/],
    ["a tool", /object/],
  ])("refuses %j", (value, problem) => {
    const result = readMcpTool(value);
    expect("problem" in result && result.problem).toMatch(problem);
  });
});

describe("guardFromAnnotations", () => {
  it("maps readOnlyHint to public and safe, destructiveHint to dangerous, nothing to sensitive", () => {
    expect(guardFromAnnotations({ readOnlyHint: true })).toEqual({ visibility: "public", risk: "safe" });
    // Destructive wins: a tool that says both is not trusted to be harmless.
    expect(guardFromAnnotations({ readOnlyHint: true, destructiveHint: true })).toEqual({ risk: "dangerous" });
    expect(guardFromAnnotations({ destructiveHint: true })).toEqual({ risk: "dangerous" });
    expect(guardFromAnnotations({ destructiveHint: false })).toEqual({ risk: "sensitive" });
    expect(guardFromAnnotations(undefined)).toEqual({ risk: "sensitive" });
  });
});

describe("definitionFromMcpTool", () => {
  it("prefixes, fits the name and keeps the upstream's own as originalName", () => {
    const definition = definitionFromMcpTool(read({ name: "files/read.text", description: "Reads.", inputSchema: SCHEMA }), {
      prefix: "fs",
      executor: { type: "mcp", upstream: "fs", tool: "files/read.text" },
    });
    expect(definition.name).toMatch(/^fs__files_read_text_[0-9a-z]{10}$/);
    expect(definition).toMatchObject({ originalName: "files/read.text", risk: "sensitive", executor: { type: "mcp", upstream: "fs", tool: "files/read.text" } });
  });

  it("keeps a name that fits as it is, without originalName", () => {
    const definition = definitionFromMcpTool(read({ name: "search", description: "Searches.", inputSchema: SCHEMA, annotations: { readOnlyHint: true } }));
    expect(definition).toEqual({ name: "search", description: "Searches.", parameters: SCHEMA, visibility: "public", risk: "safe" });
  });

  it("lets the owner's settings replace the annotations", () => {
    const tool = read({ name: "rm", description: "Removes.", inputSchema: SCHEMA, annotations: { destructiveHint: true } });
    expect(definitionFromMcpTool(tool, { prefix: "x", risk: "safe", visibility: "restricted", confirm: "always", groups: ["ops"] }))
      .toMatchObject({ risk: "safe", visibility: "restricted", confirm: "always", groups: ["ops"] });
  });

  it("describes a tool without a description by its title, else by its source; adds a missing object type", () => {
    expect(definitionFromMcpTool(read({ name: "t", title: "The title", inputSchema: { properties: {} } })))
      .toMatchObject({ description: "The title", parameters: { type: "object", properties: {} } });
    expect(definitionFromMcpTool(read({ name: "t", inputSchema: SCHEMA }), { prefix: "srv" }).description).toBe('The tool "t" of the MCP server srv.');
  });

  it("refuses what a registered tool may not have", () => {
    expect(() => definitionFromMcpTool(read({ name: "t", description: "d", inputSchema: { type: "array" } }))).toThrow(ToolDefinitionError);
    expect(() => definitionFromMcpTool(read({ name: "t", description: "d", inputSchema: { type: "object", properties: { a: { type: "nope" } } } }))).toThrow(ToolDefinitionError);
  });
});
