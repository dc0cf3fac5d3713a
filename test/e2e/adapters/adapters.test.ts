// The framework adapters of @toolgate/client against the dev server, each through the framework's real package with
// the framework's own mock or fake model (a hosted model cannot be reached from here): a search, a tool, an approved
// and a denied confirmation. The code each test drives (test/e2e/adapters/*.example.ts) is what docs/client.md shows.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MockLanguageModelV4 } from "ai/test";
import type { LanguageModelV4CallOptions, LanguageModelV4GenerateResult } from "@ai-sdk/provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Usage } from "@openai/agents";
import type { AgentInputItem, Model, ModelRequest, ModelResponse } from "@openai/agents";
import { ask } from "./aiSdk.example.ts";
import { ask as askAgent } from "./openaiAgents.example.ts";
import { FakeToolCallingModel } from "langchain";
import { ask as askLangChain } from "./langchain.example.ts";
import { devToken, ROOT, startDevServer } from "../devServer.ts";
import type { DevServer } from "../devServer.ts";

let server: DevServer;
let token = "";

beforeAll(async () => {
  server = await startDevServer();
  token = await devToken("adapters", { level: 2, groups: ["*"] });
});
afterAll(async () => {
  await server?.stop();
});

const QUESTION = "What is 6 * 7? Email the answer to Bob and to Eve.";
/** The moves every fake model makes, one per model call: search, the found tool, then two emails (one approved). */
const MOVES: readonly { name: string; input: Record<string, unknown> }[] = [
  { name: "search_tools", input: { query: "calculate" } },
  { name: "calculate", input: { expression: "6 * 7" } },
  { name: "search_tools", input: { query: "send an email" } },
  { name: "send_email", input: { to: ["bob@example.com"], subject: "The answer", body: "42" } },
  { name: "send_email", input: { to: ["eve@example.com"], subject: "The answer", body: "42" } },
];
const FINAL = "6 * 7 is 42; Bob has it, Eve's email was declined.";
const approveBob = (input: unknown): boolean => JSON.stringify(input).includes("bob@example.com");

function session(name: string): string {
  return `${name}-${Math.random().toString(36).slice(2)}`;
}

/** The code docs/client.md shows for an adapter: the example file itself, character for character. */
function expectDocumented(file: string): void {
  const code = readFileSync(join(ROOT, "test", "e2e", "adapters", file), "utf8").trim();
  expect(readFileSync(join(ROOT, "docs", "client.md"), "utf8")).toContain(code);
}

describe("Vercel AI SDK (ai 7, MockLanguageModelV4)", () => {
  it("searches, runs a tool, and maps held calls to the SDK's tool approval: one approved, one denied", async () => {
    const offered: string[][] = [];
    const toolResults: unknown[] = [];
    let turn = 0;
    const model = new MockLanguageModelV4({
      doGenerate: async (call: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> => {
        offered.push((call.tools ?? []).map((tool) => tool.name));
        for (const message of call.prompt) {
          if (message.role === "tool") for (const part of message.content) if (part.type === "tool-result") toolResults.push(part.output);
        }
        const move = MOVES[turn++];
        const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
        if (!move) return { content: [{ type: "text", text: FINAL }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
        return {
          content: [{ type: "tool-call", toolCallId: `call-${turn}`, toolName: move.name, input: JSON.stringify(move.input) }],
          finishReason: { unified: "tool-calls", raw: "tool_calls" },
          usage,
          warnings: [],
        };
      },
    });
    const asked: unknown[] = [];
    const { text, messages } = await ask({
      model,
      url: server.origin,
      token,
      sessionId: session("ai-sdk"),
      question: QUESTION,
      approve: (call) => (asked.push([call.toolName, call.input]), approveBob(call.input)),
    });
    expect(text).toBe(FINAL);
    // Step preparation: the first step offers only the meta-tool; the found tools join as they are found.
    expect(offered[0]).toEqual(["search_tools"]);
    expect(offered[2]).toContain("calculate");
    expect(offered.at(-1)).toEqual(expect.arrayContaining(["calculate", "send_email"]));
    expect(asked).toEqual([["send_email", MOVES[3]?.input], ["send_email", MOVES[4]?.input]]);
    const results = messages.flatMap((message) => (message.role === "tool" && typeof message.content !== "string" ? message.content : []));
    const outputs = results.flatMap((part) => (part.type === "tool-result" ? [{ name: part.toolName, output: part.output }] : []));
    expect(outputs.find((part) => part.name === "search_tools")?.output).toMatchObject({ value: expect.stringContaining("calculate") });
    expect(JSON.stringify(outputs.find((part) => part.name === "calculate")?.output)).toContain("42");
    const emails = outputs.filter((part) => part.name === "send_email").map((part) => part.output);
    expect(emails).toHaveLength(2);
    expect(emails[0]).toMatchObject({ type: "text", value: expect.stringContaining("client runs it") });
    expect(emails[1]).toMatchObject({ type: "execution-denied" });
    expectDocumented("aiSdk.example.ts");
  });
});

/** The Agents SDK's Model interface, played by the script (the SDK ships no fake model; its own tests write one so). */
class ScriptedAgentsModel implements Model {
  readonly offered: string[][] = [];
  /** Each tool result the model read, by call id (every request carries the whole run so far). */
  readonly outputs = new Map<string, string>();
  private turn = 0;

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.offered.push(request.tools.map((tool) => tool.name));
    const items: readonly AgentInputItem[] = typeof request.input === "string" ? [] : request.input;
    for (const item of items) if (item.type === "function_call_result") this.outputs.set(item.callId, JSON.stringify(item.output));
    const move = MOVES[this.turn++];
    const output: ModelResponse["output"] = move
      ? [{ type: "function_call", callId: `call-${this.turn}`, name: move.name, arguments: JSON.stringify(move.input), status: "completed" }]
      : [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: FINAL }] }];
    return { usage: new Usage(), output };
  }

  // oxlint-disable-next-line require-yield -- the script answers whole responses only
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("the scripted model does not stream");
  }
}

describe("OpenAI Agents SDK (@openai/agents 0.20, a scripted Model)", () => {
  it("searches, runs a tool, and drives needsApproval by the guard: one interruption approved, one rejected, each run once", async () => {
    const model = new ScriptedAgentsModel();
    const asked: unknown[] = [];
    const text = await askAgent({
      model,
      url: server.origin,
      token,
      sessionId: session("agents"),
      question: QUESTION,
      approve: (confirmation) => (asked.push([confirmation.tool, confirmation.arguments]), approveBob(confirmation.arguments)),
    });
    expect(text).toBe(FINAL);
    expect(asked).toEqual([["send_email", MOVES[3]?.input], ["send_email", MOVES[4]?.input]]);
    expect(model.offered[0]).toContain("search_tools");
    expect(model.outputs.get("call-1")).toContain("calculate");
    expect(model.outputs.get("call-2")).toContain("42");
    expect(model.outputs.get("call-4")).toContain("client runs it");
    // The rejected call: the model reads the SDK's rejection, and nothing ran.
    expect(model.outputs.get("call-5")).not.toContain("client runs it");
    expect(model.outputs.get("call-5")).toMatch(/reject|denied|not approved/i);
    expectDocumented("openaiAgents.example.ts");
  });
});

describe("LangChain.js (langchain 1.x, FakeToolCallingModel, the human-in-the-loop middleware)", () => {
  it("searches, runs a tool, and interrupts exactly the held calls: one resumed approved, one rejected", async () => {
    const model = new FakeToolCallingModel({
      toolCalls: [...MOVES.map((move, index) => [{ name: move.name, args: move.input, id: `call-${index + 1}` }]), []],
    });
    const asked: unknown[] = [];
    const { messages } = await askLangChain({
      model,
      url: server.origin,
      token,
      sessionId: session("langchain"),
      question: QUESTION,
      approve: (confirmation) => (asked.push([confirmation.tool, confirmation.arguments]), approveBob(confirmation.arguments)),
    });
    expect(asked).toEqual([["send_email", MOVES[3]?.input], ["send_email", MOVES[4]?.input]]);
    const tools = messages.filter((message) => message.type === "tool").map((message) => message.text);
    expect(tools).toHaveLength(5);
    expect(tools[0]).toContain("calculate");
    expect(tools[1]).toContain("42");
    expect(tools[3]).toContain("client runs it");
    // The rejected call: the middleware's rejection, and nothing ran.
    expect(tools[4]).not.toContain("client runs it");
    expect(tools[4]).toMatch(/reject/i);
    expectDocumented("langchain.example.ts");
  });
});
