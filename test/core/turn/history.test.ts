import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DiscoveredSet } from "../../../src/core/turn/discovered.ts";
import { detectMessagesShape, extractDiscovered } from "../../../src/core/turn/history.ts";
import { TOOL_NAME_PATTERN } from "../../../src/core/tools/definition.ts";
import type { SearchToolsResult } from "../../../src/core/turn/searchTools.ts";

/** The JSON text of a search_tools result listing `names` (typed, so it follows SearchToolsResult). */
function searchResult(names: readonly string[]): string {
  const result: SearchToolsResult = {
    found: `${names.length}/${names.length + 3}`,
    tools: names.map((name) => ({ name, description: `does ${name}`, parameters: { type: "object", properties: {} } })),
    pagination: { total: names.length + 3, offset: 0, returned: names.length, nextOffset: names.length },
    related: ["not_discovered_by_relation"],
    hint: "Call a tool by its name.",
  };
  return JSON.stringify(result);
}

// One conversation, abstractly: turns of calls and of results, rendered below in every message shape.
interface Call { id: string; name: string }
/** `listed`: the names the text lists when it is a search result (so that the reference need not parse it). */
interface Result { id: string; text: string; listed?: readonly string[] }
type Turn = { calls: Call[] } | { results: Result[] };

type ShapeName = "openai" | "responses" | "anthropic" | "mcp" | "design";
const SHAPES: readonly ShapeName[] = ["openai", "responses", "anthropic", "mcp", "design"];

function render(turns: readonly Turn[], shape: ShapeName): unknown[] {
  const messages: unknown[] = [{ role: "user", content: "hello" }];
  for (const turn of turns) {
    if ("calls" in turn) {
      const { calls } = turn;
      switch (shape) {
        case "openai":
          messages.push({
            role: "assistant",
            content: null,
            tool_calls: calls.map((call) => ({
              id: call.id, type: "function", function: { name: call.name, arguments: "{}" },
            })),
          });
          break;
        case "responses":
          for (const call of calls) {
            messages.push({ type: "function_call", id: `fc_${call.id}`, call_id: call.id, name: call.name, arguments: "{}" });
          }
          break;
        case "anthropic":
          messages.push({
            role: "assistant",
            content: [
              { type: "text", text: "Let me look." },
              ...calls.map((call) => ({ type: "tool_use", id: call.id, name: call.name, input: {} })),
            ],
          });
          break;
        case "mcp": {
          const blocks = calls.map((call) => ({ type: "tool_use", id: call.id, name: call.name, input: {} }));
          // MCP sampling content is one block or an array of blocks.
          messages.push({ role: "assistant", content: blocks.length === 1 ? blocks[0] : blocks });
          break;
        }
        case "design":
          messages.push({
            role: "assistant",
            content: "",
            toolCalls: calls.map((call) => ({ id: call.id, name: call.name, arguments: {} })),
          });
          break;
      }
    } else {
      const { results } = turn;
      switch (shape) {
        case "openai":
          for (const result of results) messages.push({ role: "tool", tool_call_id: result.id, content: result.text });
          break;
        case "responses":
          for (const result of results) {
            messages.push({ type: "function_call_output", call_id: result.id, output: result.text });
          }
          break;
        case "anthropic":
          messages.push({
            role: "user",
            content: results.map((result) => ({ type: "tool_result", tool_use_id: result.id, content: result.text })),
          });
          break;
        case "mcp":
          messages.push({
            role: "user",
            content: results.map((result) => ({
              type: "tool_result", toolUseId: result.id, content: [{ type: "text", text: result.text }],
            })),
          });
          break;
        case "design":
          for (const result of results) messages.push({ role: "tool", toolCallId: result.id, content: result.text });
          break;
      }
    }
  }
  return messages;
}

/** The rules, stated directly: the reference the extraction is compared with. */
function referenceDiscovered(turns: readonly Turn[], searchToolName = "search_tools"): string[] {
  const calls = new Map<string, string>();
  const uses: string[] = [];
  for (const turn of turns) {
    if ("calls" in turn) {
      for (const call of turn.calls) calls.set(call.id, call.name);
      continue;
    }
    for (const result of turn.results) {
      const name = calls.get(result.id);
      if (name === undefined) continue;
      if (name !== searchToolName) uses.push(name);
      else for (const listed of result.listed ?? []) if (listed !== searchToolName) uses.push(listed);
    }
  }
  const latest = new Map<string, number>();
  uses.forEach((name, index) => latest.set(name, index));
  return [...latest.entries()].toSorted((a, b) => a[1] - b[1]).map(([name]) => name);
}

describe.each(SHAPES)("extractDiscovered over %s messages", (shape) => {
  const discovered = (turns: Turn[], searchToolName?: string): string[] =>
    extractDiscovered(render(turns, shape), searchToolName);

  it("counts a called tool once its result is present", () => {
    expect(discovered([{ calls: [{ id: "c1", name: "read_file" }] }, { results: [{ id: "c1", text: "contents" }] }]))
      .toEqual(["read_file"]);
  });

  it("does not count a call that has no result (yet)", () => {
    expect(discovered([{ calls: [{ id: "c1", name: "read_file" }] }])).toEqual([]);
  });

  it("does not count a result whose call is absent or comes later", () => {
    expect(discovered([{ results: [{ id: "c1", text: "orphan" }] }])).toEqual([]);
    expect(discovered([{ results: [{ id: "c1", text: "early" }] }, { calls: [{ id: "c1", name: "read_file" }] }]))
      .toEqual([]);
  });

  it("counts only the calls that were answered among parallel calls", () => {
    expect(discovered([
      { calls: [{ id: "a", name: "read_file" }, { id: "b", name: "write_file" }, { id: "c", name: "list_dir" }] },
      { results: [{ id: "c", text: "[]" }, { id: "a", text: "x" }] },
    ])).toEqual(["list_dir", "read_file"]);
  });

  it("adds the tools a search_tools result lists, and never search_tools itself", () => {
    expect(discovered([
      { calls: [{ id: "s1", name: "search_tools" }] },
      { results: [{ id: "s1", text: searchResult(["web_fetch", "search_tools", "send-mail"]) }] },
    ])).toEqual(["web_fetch", "send-mail"]);
  });

  it("adds nothing for a search_tools result that is not JSON, or is JSON without tools", () => {
    expect(discovered([
      { calls: [{ id: "s1", name: "search_tools" }, { id: "s2", name: "search_tools" }] },
      { results: [{ id: "s1", text: '{"tools": [{"name": "web_fetch"' }, { id: "s2", text: '{"error": "bad query"}' }] },
    ])).toEqual([]);
  });

  it("puts every name at its latest use, oldest first", () => {
    expect(discovered([
      { calls: [{ id: "1", name: "read_file" }] },
      { results: [{ id: "1", text: "x" }] },
      { calls: [{ id: "2", name: "search_tools" }] },
      { results: [{ id: "2", text: searchResult(["write_file", "read_file", "list_dir"]) }] },
      { calls: [{ id: "3", name: "write_file" }] },
      { results: [{ id: "3", text: "ok" }] },
    ])).toEqual(["read_file", "list_dir", "write_file"]);
  });

  it("reads the search tool under the name it is given", () => {
    expect(discovered([
      { calls: [{ id: "1", name: "find_tools" }, { id: "2", name: "search_tools" }] },
      { results: [{ id: "1", text: searchResult(["web_fetch", "find_tools"]) }, { id: "2", text: searchResult(["x"]) }] },
    ], "find_tools")).toEqual(["web_fetch", "search_tools"]);
  });

  it("follows the rules on any conversation (compared with a reference)", () => {
    fc.assert(
      fc.property(conversationArbitrary, (turns) => {
        expect(extractDiscovered(render(turns, shape))).toEqual(referenceDiscovered(turns));
      }),
      { numRuns: 150 },
    );
  });
});

const callIdArbitrary = fc.constantFrom("c1", "c2", "c3", "c4", "c5", "c6");
const toolNameArbitrary = fc.constantFrom("search_tools", "read_file", "web_fetch", "send-mail", "a", "Z9");
const resultPayloadArbitrary: fc.Arbitrary<{ text: string; listed: readonly string[] }> = fc.oneof(
  fc.constant({ text: "done", listed: [] }),
  fc.constant({ text: '{"tools": [{"name": "read_file"}', listed: [] }),
  fc.constant({ text: '{"error": "no such tool"}', listed: [] }),
  fc.array(toolNameArbitrary, { maxLength: 4 }).map((names) => ({ text: searchResult(names), listed: names })),
);
const resultTextArbitrary = resultPayloadArbitrary.map((payload) => payload.text);
const conversationArbitrary: fc.Arbitrary<Turn[]> = fc.array(
  fc.oneof(
    fc.record({ calls: fc.array(fc.record({ id: callIdArbitrary, name: toolNameArbitrary }), { maxLength: 3 }) }),
    fc.record({
      results: fc.array(
        fc.tuple(callIdArbitrary, resultPayloadArbitrary).map(([id, payload]) => ({ id, ...payload })),
        { maxLength: 3 },
      ),
    }),
  ),
  { maxLength: 12 },
);

describe("one history in every shape", () => {
  it("gives the same answer whatever the shape", () => {
    fc.assert(
      fc.property(conversationArbitrary, (turns) => {
        const [first, ...others] = SHAPES.map((shape) => extractDiscovered(render(turns, shape)));
        for (const other of others) expect(other).toEqual(first);
      }),
      { numRuns: 100 },
    );
  });

  it("reads a history that mixes shapes (a client that switched providers)", () => {
    const messages = [
      { role: "assistant", tool_calls: [{ id: "a", type: "function", function: { name: "read_file", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "a", content: "x" },
      { type: "function_call", call_id: "b", name: "write_file", arguments: "{}" },
      { type: "function_call_output", call_id: "b", output: "ok" },
      { role: "assistant", content: [{ type: "tool_use", id: "c", name: "list_dir", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "c", content: "[]" }] },
      { role: "assistant", content: { type: "tool_use", id: "d", name: "web_fetch", input: {} } },
      { role: "user", content: { type: "tool_result", toolUseId: "d", content: [{ type: "text", text: "<html>" }] } },
      { role: "assistant", content: "", toolCalls: [{ id: "e", name: "send-mail", arguments: {} }] },
      { role: "tool", toolCallId: "e", name: "send-mail", content: "sent" },
    ];
    expect(extractDiscovered(messages)).toEqual(["read_file", "write_file", "list_dir", "web_fetch", "send-mail"]);
  });

  it("orders so that touching a DiscoveredSet leaves the latest used in front", () => {
    const messages = render([
      { calls: [{ id: "1", name: "search_tools" }] },
      { results: [{ id: "1", text: searchResult(["a", "b", "c"]) }] },
      { calls: [{ id: "2", name: "a" }] },
      { results: [{ id: "2", text: "ok" }] },
    ], "openai");
    const set = new DiscoveredSet(2, ["old"]);
    set.touch(extractDiscovered(messages));
    expect(set.toArray()).toEqual(["a", "c"]);
  });
});

describe("search_tools result content forms", () => {
  const callSearch = { role: "assistant", tool_calls: [{ id: "s", type: "function", function: { name: "search_tools" } }] };
  const withContent = (content: unknown): string[] =>
    extractDiscovered([callSearch, { role: "tool", tool_call_id: "s", content }]);

  it("reads the JSON as a string, as one text block, or split over several text blocks", () => {
    const text = searchResult(["web_fetch", "send-mail"]);
    expect(withContent(text)).toEqual(["web_fetch", "send-mail"]);
    expect(withContent([{ type: "text", text }])).toEqual(["web_fetch", "send-mail"]);
    expect(withContent([{ type: "text", text: text.slice(0, 20) }, { type: "text", text: text.slice(20) }]))
      .toEqual(["web_fetch", "send-mail"]);
  });

  it("reads several text blocks that each hold a result", () => {
    expect(withContent([{ type: "text", text: searchResult(["a"]) }, { type: "image" }, { type: "text", text: searchResult(["b"]) }]))
      .toEqual(["a", "b"]);
  });

  it("reads the result object itself, and Responses input_text parts", () => {
    expect(withContent({ tools: [{ name: "a" }, { name: "b" }] })).toEqual(["a", "b"]);
    expect(extractDiscovered([
      { type: "function_call", call_id: "s", name: "search_tools", arguments: "{}" },
      { type: "function_call_output", call_id: "s", output: [{ type: "input_text", text: searchResult(["x"]) }] },
    ])).toEqual(["x"]);
  });

  it("reads MCP structuredContent when the text is not JSON", () => {
    expect(extractDiscovered([
      { role: "assistant", content: [{ type: "tool_use", id: "s", name: "search_tools", input: { query: "" } }] },
      {
        role: "user",
        content: [{
          type: "tool_result",
          toolUseId: "s",
          content: [{ type: "text", text: "Found 2 tools." }],
          structuredContent: { found: "2/2", tools: [{ name: "a" }, { name: "b" }], hint: "" },
        }],
      },
    ])).toEqual(["a", "b"]);
  });

  it("skips the listed tools that are malformed, keeping the rest", () => {
    const text = JSON.stringify({
      tools: [null, 3, { name: 5 }, { name: "" }, { name: "x".repeat(65) }, { name: "bad name" }, { name: "good" }, {}],
    });
    expect(withContent(text)).toEqual(["good"]);
  });

  it("adds nothing for results of other forms", () => {
    expect(withContent(42)).toEqual([]);
    expect(withContent(null)).toEqual([]);
    expect(withContent([{ type: "text", text: "no" }, { type: "text", text: "json" }])).toEqual([]);
    expect(withContent({ tools: "a,b" })).toEqual([]);
    expect(withContent(JSON.stringify({ tools: { name: "a" } }))).toEqual([]);
    expect(withContent(JSON.stringify([{ name: "a" }]))).toEqual([]);
  });
});

/** Usually the right value, sometimes anything at all: the malformations clients really send. */
function field<T>(valid: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof({ arbitrary: valid, weight: 4 }, { arbitrary: fc.anything(), weight: 1 });
}

describe("malformed history", () => {
  it("skips what it cannot read, keeps the rest", () => {
    const messages: unknown[] = [
      null,
      42,
      "text",
      [],
      { role: "assistant", tool_calls: "none" },
      { role: "assistant", tool_calls: [null, { id: 5, function: { name: "bad_id" } }, { id: "x1", function: "f" }] },
      { role: "assistant", tool_calls: [{ id: "", type: "function", function: { name: "empty_id" } }] },
      { role: "tool", tool_call_id: "", content: "x" },
      { role: "assistant", tool_calls: [{ id: "n1", type: "function", function: { name: 7 } }] },
      { role: "tool", tool_call_id: "n1", content: "x" },
      { role: "assistant", tool_calls: [{ id: "n2", type: "function", function: { name: "has space" } }] },
      { role: "tool", tool_call_id: "n2", content: "x" },
      { role: "assistant", content: [{ type: "tool_use", name: "no_id", input: {} }] },
      { role: "user", content: [{ type: "tool_result", content: "x" }, "block", null] },
      { role: "assistant", tool_calls: [{ id: "ok", type: "function", function: { name: "good_tool" } }] },
      { role: "tool", tool_call_id: "ok", content: [{ type: "text", text: 3 }] },
    ];
    expect(extractDiscovered(messages)).toEqual(["good_tool"]);
  });

  it("answers [] for a history that is not an array (a JavaScript caller's mistake)", () => {
    expect(Reflect.apply(extractDiscovered, undefined, [{ messages: [] }])).toEqual([]);
    expect(Reflect.apply(extractDiscovered, undefined, [null])).toEqual([]);
  });

  it("counts an error result as a result (the model knows the tool and needs its definition to retry)", () => {
    expect(extractDiscovered([
      { role: "assistant", content: [{ type: "tool_use", id: "t", name: "send-mail", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t", is_error: true, content: "missing 'to'" }] },
    ])).toEqual(["send-mail"]);
  });

  it("matches a result to the latest call that used its id", () => {
    expect(extractDiscovered([
      { type: "function_call", call_id: "dup", name: "first_tool" },
      { type: "function_call", call_id: "dup", name: "second_tool" },
      { type: "function_call_output", call_id: "dup", output: "ok" },
    ])).toEqual(["second_tool"]);
  });

  it("survives deep nesting, in messages and in result JSON", () => {
    let nested: unknown = "leaf";
    for (let depth = 0; depth < 100_000; depth++) nested = { content: [nested], tools: [nested] };
    const deepJson = `${'{"tools":['.repeat(200_000)}${"]}".repeat(200_000)}`;
    const messages = [
      nested,
      { role: "assistant", content: nested, tool_calls: [{ id: "s", function: { name: "search_tools" } }] },
      { role: "tool", tool_call_id: "s", content: deepJson },
      { role: "assistant", tool_calls: [{ id: "t", function: { name: "kept" } }] },
      { role: "tool", tool_call_id: "t", content: nested },
    ];
    expect(extractDiscovered(messages)).toEqual(["kept"]);
  });

  it("never throws on arbitrary JSON, and answers distinct valid tool names", () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue()), (messages) => {
        const names = extractDiscovered(messages);
        expect(new Set(names).size).toBe(names.length);
        for (const name of names) expect(name).toMatch(TOOL_NAME_PATTERN);
      }),
      { numRuns: 300 },
    );
  });

  it("never throws on arbitrary JavaScript values", () => {
    fc.assert(
      fc.property(fc.array(fc.anything({ withMap: true, withSet: true, withNullPrototype: true, withBoxedValues: true })), (messages) => {
        expect(() => extractDiscovered(messages)).not.toThrow();
      }),
      { numRuns: 200 },
    );
  });

  it("never throws on near-valid messages with any field replaced by any value", () => {
    const id = field(callIdArbitrary);
    const name = field(toolNameArbitrary);
    const text = field(resultTextArbitrary);
    const block = fc.oneof(
      fc.record({ type: field(fc.constant("tool_use")), id, name, input: field(fc.object()) }),
      fc.record({ type: field(fc.constant("tool_result")), tool_use_id: id, content: field(fc.oneof(text, fc.array(fc.record({ type: field(fc.constant("text")), text })))) }),
      fc.record({ type: field(fc.constant("tool_result")), toolUseId: id, content: field(fc.array(fc.record({ type: field(fc.constant("text")), text }))), structuredContent: fc.anything() }),
    );
    const message = fc.oneof(
      fc.record({ role: field(fc.constant("assistant")), tool_calls: field(fc.array(fc.record({ id, type: field(fc.constant("function")), function: field(fc.record({ name, arguments: field(fc.string()) })) }))) }),
      fc.record({ role: field(fc.constant("tool")), tool_call_id: id, content: field(fc.oneof(text, fc.array(fc.record({ type: field(fc.constant("text")), text })))) }),
      fc.record({ type: field(fc.constant("function_call")), call_id: id, name, arguments: field(fc.string()) }),
      fc.record({ type: field(fc.constant("function_call_output")), call_id: id, output: text }),
      fc.record({ role: field(fc.constantFrom("user", "assistant")), content: field(fc.oneof(block, fc.array(block))) }),
      fc.record({ role: field(fc.constant("assistant")), toolCalls: field(fc.array(fc.record({ id, name, arguments: fc.anything() }))) }),
      fc.record({ role: field(fc.constant("tool")), toolCallId: id, name: field(toolNameArbitrary), content: text }),
    );
    fc.assert(
      fc.property(fc.array(message, { maxLength: 20 }), (messages) => {
        const names = extractDiscovered(messages);
        expect(new Set(names).size).toBe(names.length);
        for (const found of names) expect(found).toMatch(TOOL_NAME_PATTERN);
        expect(names).not.toContain("search_tools");
      }),
      { numRuns: 300 },
    );
  });
});

describe("cost", () => {
  // Time does not advance inside workerd while code runs, so the bound is the test's timeout: a linear scan takes
  // about 100 ms per shape on the development machine (measured under Node), a quadratic one would take minutes.
  it("stays linear on a long history (100,000 calls and results, a 20,000-tool search result)", () => {
    const turns: Turn[] = [];
    for (let index = 0; index < 50_000; index++) {
      turns.push({ calls: [{ id: `c${index}`, name: `tool_${index % 500}` }] }, { results: [{ id: `c${index}`, text: "ok" }] });
    }
    const bigSearch = Array.from({ length: 20_000 }, (_, index) => `found_${index}`);
    turns.push({ calls: [{ id: "s", name: "search_tools" }] }, { results: [{ id: "s", text: searchResult(bigSearch) }] });
    for (const shape of SHAPES) {
      const names = extractDiscovered(render(turns, shape));
      expect(names).toHaveLength(20_500);
      expect(names[0]).toBe("tool_0");
      expect(names.at(-1)).toBe("found_19999");
    }
  }, 10_000);
});

describe("detectMessagesShape", () => {
  const conversation: Turn[] = [
    { calls: [{ id: "c1", name: "search_tools" }] },
    { results: [{ id: "c1", text: searchResult(["get_weather"]) }] },
    { calls: [{ id: "c2", name: "get_weather" }] },
    { results: [{ id: "c2", text: "sunny" }] },
  ];

  it("names the shape of a conversation with tool calls in every client shape; the design documents' tells nothing", () => {
    for (const shape of SHAPES) {
      expect(detectMessagesShape(render(conversation, shape))).toBe(shape === "design" ? undefined : shape);
    }
  });

  it("tells nothing from plain text turns, which fit every shape", () => {
    expect(detectMessagesShape([])).toBeUndefined();
    expect(detectMessagesShape([{ role: "system", content: "Be brief." }, { role: "user", content: "hi" }])).toBeUndefined();
    expect(detectMessagesShape([{ role: "user", content: [{ type: "text", text: "hi" }] }])).toBeUndefined();
    expect(detectMessagesShape([null, 3, "x", [], { role: "user" }])).toBeUndefined();
  });

  it.each([
    ["a Responses message item", [{ type: "message", role: "user", content: "hi" }], "responses"],
    ["a Responses reasoning item", [{ type: "reasoning", id: "r", summary: [] }], "responses"],
    ["a Responses tool call item", [{ type: "web_search_call", id: "w" }], "responses"],
    ["Responses input_text parts", [{ role: "user", content: [{ type: "input_text", text: "hi" }] }], "responses"],
    ["Responses output_text parts", [{ role: "assistant", content: [{ type: "output_text", text: "hi" }] }], "responses"],
    ["OpenAI Chat image_url parts", [{ role: "user", content: [{ type: "text", text: "see" }, { type: "image_url", image_url: { url: "u" } }] }], "openai"],
    ["an OpenAI Chat tool result", [{ role: "tool", tool_call_id: "c", content: "ok" }], "openai"],
    ["a legacy OpenAI function call", [{ role: "assistant", content: null, function_call: { name: "f", arguments: "{}" } }], "openai"],
    ["an Anthropic thinking block", [{ role: "assistant", content: [{ type: "thinking", thinking: "t", signature: "s" }] }], "anthropic"],
    ["an Anthropic image", [{ role: "user", content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: "" } }] }], "anthropic"],
    ["a lone Anthropic tool_use block", [{ role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: {} }] }], "anthropic"],
    ["an MCP content object", [{ role: "user", content: { type: "text", text: "hi" } }], "mcp"],
    ["an MCP image", [{ role: "user", content: [{ type: "image", data: "", mimeType: "image/png" }] }], "mcp"],
  ])("reads %s", (_label, messages, shape) => {
    expect(detectMessagesShape(messages)).toBe(shape);
  });

  it("lets a sure sign later in the history outrank a bare tool_use block", () => {
    const mcp = [
      { role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: {} }] },
      { role: "user", content: [{ type: "tool_result", toolUseId: "t", content: [] }] },
    ];
    expect(detectMessagesShape(mcp)).toBe("mcp");
  });

  it("goes by the first message that tells, in a mixed history", () => {
    const chat = { role: "tool", tool_call_id: "c", content: "ok" };
    const responses = { type: "function_call_output", call_id: "c", output: "ok" };
    expect(detectMessagesShape([{ role: "user", content: "hi" }, chat, responses])).toBe("openai");
    expect(detectMessagesShape([responses, chat])).toBe("responses");
  });
});
