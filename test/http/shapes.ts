// Tool lists and message histories in the four client shapes, written out by hand (not with the code under test).
import { isRecord } from "../../src/core/records.ts";
import type { ToolShape } from "../../src/core/tools/shapes.ts";

export interface PlainTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export function plainTools(prefix: string, count: number): PlainTool[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `${prefix}_${i}`,
    description: `Tool number ${i} of ${prefix}: does thing${i}x`,
    parameters: { type: "object", properties: { value: { type: "string" } } },
  }));
}

export function inShape(tool: PlainTool, shape: ToolShape): Record<string, unknown> {
  const { name, description, parameters } = tool;
  if (shape === "openai") return { type: "function", function: { name, description, parameters } };
  if (shape === "responses") return { type: "function", name, description, parameters };
  if (shape === "anthropic") return { name, description, input_schema: parameters };
  return { name, description, inputSchema: parameters };
}

/** The name of a tool written in a shape (undefined when it is not in that shape). */
export function nameInShape(tool: unknown, shape: ToolShape): string | undefined {
  if (!isRecord(tool)) return undefined;
  let name: unknown;
  if (shape === "openai") {
    const fn = tool.function;
    name = tool.type === "function" && isRecord(fn) && isRecord(fn.parameters) ? fn.name : undefined;
  } else if (shape === "responses") {
    name = tool.type === "function" && isRecord(tool.parameters) ? tool.name : undefined;
  } else if (shape === "anthropic") {
    name = isRecord(tool.input_schema) && !("type" in tool) ? tool.name : undefined;
  } else {
    name = isRecord(tool.inputSchema) && !("type" in tool) ? tool.name : undefined;
  }
  return typeof name === "string" ? name : undefined;
}

/** A search_tools result naming `found`, as the model would have received it. */
export function searchResultText(found: PlainTool[]): string {
  return JSON.stringify({
    found: `${found.length}/${found.length}`,
    tools: found.map(({ name, description, parameters }) => ({ name, description, parameters })),
    hint: "These tools can now be called.",
  });
}

/**
 * A history in a shape: the model searched (the result lists `searched`), then called `called` and got a result.
 */
export function historyInShape(shape: ToolShape, searched: PlainTool[], called: string): unknown[] {
  const result = searchResultText(searched);
  if (shape === "openai") {
    return [
      { role: "user", content: "please help" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "search_tools", arguments: '{"query":"x"}' } }] },
      { role: "tool", tool_call_id: "c1", content: result },
      { role: "assistant", content: null, tool_calls: [{ id: "c2", type: "function", function: { name: called, arguments: "{}" } }] },
      { role: "tool", tool_call_id: "c2", content: "done" },
    ];
  }
  if (shape === "responses") {
    return [
      { role: "user", content: "please help" },
      { type: "function_call", call_id: "c1", name: "search_tools", arguments: '{"query":"x"}' },
      { type: "function_call_output", call_id: "c1", output: result },
      { type: "function_call", call_id: "c2", name: called, arguments: "{}" },
      { type: "function_call_output", call_id: "c2", output: "done" },
    ];
  }
  if (shape === "anthropic") {
    return [
      { role: "user", content: "please help" },
      { role: "assistant", content: [{ type: "tool_use", id: "c1", name: "search_tools", input: { query: "x" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "c1", content: result }] },
      { role: "assistant", content: [{ type: "tool_use", id: "c2", name: called, input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "c2", content: "done" }] },
    ];
  }
  return [
    { role: "user", content: { type: "text", text: "please help" } },
    { role: "assistant", content: { type: "tool_use", id: "c1", name: "search_tools", input: { query: "x" } } },
    { role: "user", content: { type: "tool_result", toolUseId: "c1", content: [{ type: "text", text: result }] } },
    { role: "assistant", content: { type: "tool_use", id: "c2", name: called, input: {} } },
    { role: "user", content: { type: "tool_result", toolUseId: "c2", content: [{ type: "text", text: "done" }] } },
  ];
}
