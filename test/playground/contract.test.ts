import { describe, expect, it } from "vitest";
import { readExecute, readPrepare, readSearch, UnexpectedAnswer } from "../../src/playground/contract.ts";
import { exampleArguments } from "../../src/playground/exampleArguments.ts";

describe("the page's reading of the gateway's answers", () => {
  it("reads prepare, search and execute answers", () => {
    const prepare = { tools: [], applied: true, discovered: ["a"], stats: { total: 9, sent: 2, tokensAll: 900, tokensSent: 120 } };
    expect(readPrepare(prepare)).toEqual(prepare);
    const auto = { ...prepare, stats: { ...prepare.stats, tokensPerTool: [60, 60], autoDiscovered: ["b"] } };
    expect(readPrepare(auto)).toEqual(auto);
    const search = {
      found: "1/7",
      tools: [{ name: "a", description: "A.", parameters: { type: "object" } }],
      pagination: { total: 7, offset: 0, returned: 1, nextOffset: 1 },
      related: ["b"],
      hint: "Found 7 tool(s), showing 1.",
    };
    expect(readSearch(search)).toEqual(search);
    const confirmation = {
      id: "c1", capability: "tool:send_email", mode: "always", expiresAt: 1,
      tool: "send_email", description: "Sends an email.", arguments: { to: ["ann@example.com"] },
    };
    expect(readExecute({ content: "held", isError: true, confirmation })).toEqual({ content: "held", isError: true, confirmation });
    expect(readExecute({ content: "ok", isError: false })).toEqual({ content: "ok", isError: false });
    const flagged = { ...confirmation, arguments: { path: "a⟦U+202E⟧b" }, hiddenCharacters: ["path"] };
    expect(readExecute({ content: "held", isError: false, confirmation: flagged })).toEqual({ content: "held", isError: false, confirmation: flagged });
  });

  it("names the field of an answer it cannot read", () => {
    expect(() => readPrepare({ tools: [], discovered: [], stats: { total: "9" } })).toThrow(UnexpectedAnswer);
    expect(() => readPrepare({ tools: [], discovered: [], stats: { total: "9" } })).toThrow(/stats\.total/);
    const stats = { total: 9, sent: 2, tokensAll: 900, tokensSent: 120, autoDiscovered: [1] };
    expect(() => readPrepare({ tools: [], discovered: [], stats })).toThrow(/stats\.autoDiscovered/);
    expect(() => readSearch({ found: "0/0", tools: [{}], hint: "" })).toThrow(/search\.tools\[0\]\.name/);
    expect(() => readExecute({ content: "x", isError: true, confirmation: { id: "c", capability: "k", mode: "never", expiresAt: 1 } })).toThrow(
      /confirmation\.mode/,
    );
    expect(() => readExecute(null)).toThrow(/execute is not an object/);
    // Without what it approves, the approver would approve blind: such an answer is not read.
    const blind = { id: "c", capability: "tool:t", mode: "always", expiresAt: 1, tool: "t", description: "" };
    expect(() => readExecute({ content: "x", isError: false, confirmation: blind })).toThrow(/confirmation\.arguments is missing/);
    expect(() => readExecute({ content: "x", isError: false, confirmation: { ...blind, arguments: {}, tool: 1 } })).toThrow(/confirmation\.tool/);
    expect(() => readExecute({ content: "x", isError: false, confirmation: { ...blind, arguments: {}, hiddenCharacters: "path" } })).toThrow(
      /confirmation\.hiddenCharacters is not a list/,
    );
  });
});

describe("example arguments from a schema", () => {
  it("fills required properties with values that make the demo tools do something", () => {
    const schema = {
      type: "object",
      properties: {
        url: { type: "string" },
        expression: { type: "string" },
        count: { type: "integer" },
        unit: { type: "string", enum: ["c", "f"] },
        to: { type: "array", items: { type: "string", format: "email" }, minItems: 1 },
        days: { type: "integer", minimum: 3, maximum: 7 },
        optional: { type: "string" },
      },
      required: ["url", "expression", "count", "unit", "to", "days"],
    };
    expect(exampleArguments(schema)).toEqual({
      url: "https://example.com/",
      expression: "6 * 7",
      count: 2,
      unit: "c",
      to: ["ann@example.com"],
      days: 3,
    });
  });

  it("offers every property when none is required, and nothing for a schema without properties", () => {
    expect(exampleArguments({ type: "object", properties: { text: { type: "string", default: "hi" } } })).toEqual({ text: "hi" });
    expect(exampleArguments({ type: "object" })).toEqual({});
  });
});
