// runTurn against the real Worker (exports.default.fetch as the client's fetch), with a scripted model playing the
// model's side in each of the three shapes: it searches, calls the tool it found, then send_email, which the guard
// holds until the confirm callback answers.
import { describe, expect, it } from "vitest";
import { chatCompletions, runTurn } from "@toolgate/client";
import type { AnthropicBlock, ChatMessage, ConfirmationRequest, ModelRequest, ResponsesItem, ToolCallRecord } from "@toolgate/client";
import { sessionId } from "../http/helpers.ts";
import { clientFor, FINAL_TEXT, SCRIPT, toolNames } from "./support.ts";

/** What the model was offered at each turn, for the shared check: search_tools only, then the found tool joins. */
function recordTools<M>(offered: string[][], request: ModelRequest<M>): void {
  offered.push(toolNames(request.tools));
}

function expectOffered(offered: readonly string[][]): void {
  expect(offered[0]).toEqual(["search_tools"]);
  expect(offered.slice(1).every((names) => names.includes("calculate"))).toBe(true);
}

function confirmations(): { asked: ConfirmationRequest[]; confirm: (details: ConfirmationRequest) => boolean } {
  const asked: ConfirmationRequest[] = [];
  return { asked, confirm: (details) => (asked.push(details), true) };
}

function expectRun(toolCalls: readonly ToolCallRecord[], asked: readonly ConfirmationRequest[]): void {
  expect(toolCalls.map((call) => call.name)).toEqual(["search_tools", "calculate", "send_email"]);
  const [search, calculate, email] = toolCalls;
  expect(JSON.parse(search?.result.content ?? "{}").tools.map((tool: { name: string }) => tool.name)).toContain("calculate");
  expect(JSON.parse(calculate?.result.content ?? "{}")).toMatchObject({ result: 60 });
  expect(email).toMatchObject({ approved: true, result: { isError: false } });
  expect(email?.result.content).toContain("client runs it");
  expect(email?.result.confirmation).toBeUndefined();
  expect(asked).toHaveLength(1);
  expect(asked[0]).toMatchObject({ tool: "send_email", mode: "always", arguments: { to: ["bob@example.com"] } });
}

describe("runTurn", () => {
  it("OpenAI Chat: string arguments, tool role messages, approval then the same call again", async () => {
    const client = await clientFor("client-chat");
    const { asked, confirm } = confirmations();
    const offered: string[][] = [];
    const result = await runTurn({
      client,
      sessionId: sessionId("chat"),
      shape: "openai",
      messages: [{ role: "user", content: "What is 17 * 3 + sqrt(81)? Email Bob the answer." }],
      confirm,
      model: async (request): Promise<ChatMessage> => {
        recordTools(offered, request);
        const move = SCRIPT[request.turn];
        if (!move) return { role: "assistant", content: FINAL_TEXT };
        // OpenAI sends arguments as JSON text: passed on as is.
        return {
          role: "assistant",
          content: null,
          tool_calls: [{ id: `call_${request.turn}`, type: "function", function: { name: move.name, arguments: JSON.stringify(move.arguments) } }],
        };
      },
    });
    expect(result).toMatchObject({ stop: "done", turns: 4, text: FINAL_TEXT });
    expectRun(result.toolCalls, asked);
    expectOffered(offered);
    const toolMessages = result.messages.filter((message) => message.role === "tool");
    expect(toolMessages.map((message) => message.tool_call_id)).toEqual(["call_0", "call_1", "call_2"]);
    expect(result.messages.at(-1)).toEqual({ role: "assistant", content: FINAL_TEXT });
  });

  it("OpenAI Responses: function_call items answered by function_call_output items", async () => {
    const client = await clientFor("client-responses");
    const { asked, confirm } = confirmations();
    const offered: string[][] = [];
    const result = await runTurn({
      client,
      sessionId: sessionId("responses"),
      shape: "responses",
      messages: [{ role: "user", content: [{ type: "input_text", text: "What is 17 * 3 + sqrt(81)? Email Bob." }] }],
      confirm,
      model: async (request) => {
        recordTools(offered, request);
        const move = SCRIPT[request.turn];
        if (!move) return { output: [{ type: "message", role: "assistant", content: [{ type: "output_text", text: FINAL_TEXT }] }] };
        const items: ResponsesItem[] = [
          { type: "function_call", id: `fc_${request.turn}`, call_id: `call_${request.turn}`, name: move.name, arguments: JSON.stringify(move.arguments) },
        ];
        return items;
      },
    });
    expect(result).toMatchObject({ stop: "done", turns: 4, text: FINAL_TEXT });
    expectRun(result.toolCalls, asked);
    expectOffered(offered);
    const outputs = result.messages.filter((item) => item.type === "function_call_output");
    expect(outputs.map((item) => item["call_id"])).toEqual(["call_0", "call_1", "call_2"]);
  });

  it("Anthropic Messages: tool_use blocks answered by one user message of tool_result blocks", async () => {
    const client = await clientFor("client-anthropic");
    const { asked, confirm } = confirmations();
    const offered: string[][] = [];
    const result = await runTurn({
      client,
      sessionId: sessionId("anthropic"),
      shape: "anthropic",
      messages: [{ role: "user", content: "What is 17 * 3 + sqrt(81)? Email Bob." }],
      confirm,
      model: async (request) => {
        recordTools(offered, request);
        const move = SCRIPT[request.turn];
        if (!move) return { role: "assistant", content: [{ type: "text", text: FINAL_TEXT }] };
        const content: AnthropicBlock[] = [
          { type: "text", text: "Let me check." },
          { type: "tool_use", id: `toolu_${request.turn}`, name: move.name, input: move.arguments },
        ];
        return { role: "assistant", content };
      },
    });
    expect(result).toMatchObject({ stop: "done", turns: 4, text: FINAL_TEXT });
    expectRun(result.toolCalls, asked);
    expectOffered(offered);
    const results = result.messages.flatMap((message) => (message.role === "user" && typeof message.content !== "string" ? message.content : []));
    expect(results).toHaveLength(3);
    expect(results[1]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_1" });
  });

  it("a denied confirmation: the model reads that the user declined, nothing is granted, the next call asks again", async () => {
    const client = await clientFor("client-deny");
    const sid = sessionId("deny");
    const write = { name: "write_file", arguments: { path: "notes/todo.md", content: "- call Bob" } };
    const asked: string[] = [];
    const result = await runTurn({
      client,
      sessionId: sid,
      shape: "openai",
      messages: [{ role: "user", content: "Write my todo." }],
      confirm: async (details) => (asked.push(details.id), false),
      model: async (request) =>
        request.turn === 0
          ? { role: "assistant", tool_calls: [{ id: "c1", type: "function", function: { name: write.name, arguments: JSON.stringify(write.arguments) } }] }
          : { role: "assistant", content: "OK, I did not write it." },
    });
    expect(result.toolCalls[0]).toMatchObject({ name: "write_file", approved: false, result: { isError: true } });
    expect(result.toolCalls[0]?.result.content).toContain("declined");
    expect(result.messages[2]).toMatchObject({ role: "tool", tool_call_id: "c1" });
    // The denial removed the pending confirmation: the same call is held again with a new id.
    const again = await client.execute(sid, write);
    expect(again.confirmation?.id).toBeDefined();
    expect(again.confirmation?.id).not.toBe(asked[0]);
  });

  it("without a confirm callback a held call is declined; local tools run once the gateway lets them through", async () => {
    const client = await clientFor("client-local");
    const ran: unknown[] = [];
    const result = await runTurn({
      client,
      sessionId: sessionId("local"),
      shape: "anthropic",
      messages: [{ role: "user", content: "Read a.txt, then email it." }],
      localTools: { read_file: (args) => (ran.push(args), "hello from a.txt") },
      model: async (request) =>
        request.turn === 0
          ? {
              content: [
                { type: "tool_use", id: "t1", name: "read_file", input: { path: "a.txt" } },
                { type: "tool_use", id: "t2", name: "send_email", input: { to: ["bob@example.com"], subject: "a", body: "b" } },
              ],
            }
          : { content: "Done." },
    });
    expect(ran).toEqual([{ path: "a.txt" }]);
    expect(result.toolCalls.map((call) => [call.name, call.result.content.includes("declined") ? "declined" : call.result.content])).toEqual([
      ["read_file", "hello from a.txt"],
      ["send_email", "declined"],
    ]);
    expect(result.messages[2]).toMatchObject({ role: "user", content: [{ tool_use_id: "t1", content: "hello from a.txt" }, { tool_use_id: "t2", is_error: true }] });
  });

  it("stops at the turn limit when the model keeps calling tools", async () => {
    const client = await clientFor("client-limit");
    const result = await runTurn({
      client,
      sessionId: sessionId("limit"),
      shape: "openai",
      messages: [{ role: "user", content: "loop" }],
      maxTurns: 2,
      model: async (request) => ({
        role: "assistant",
        tool_calls: [{ id: `c${request.turn}`, type: "function", function: { name: "search_tools", arguments: '{"query":"file"}' } }],
      }),
    });
    expect(result).toMatchObject({ stop: "max_turns", turns: 2 });
    expect(result.toolCalls).toHaveLength(2);
  });
});

describe("chatCompletions", () => {
  it("posts the conversation and tools to …/chat/completions and hands back the assistant message", async () => {
    const sent: { url: string; body: unknown; auth: string | null }[] = [];
    const model = chatCompletions({
      url: "https://models.example/v1/",
      model: "m",
      apiKey: "k",
      body: { temperature: 0 },
      fetch: async (input, init) => {
        sent.push({ url: input, body: typeof init.body === "string" ? JSON.parse(init.body) : undefined, auth: new Headers(init.headers).get("authorization") });
        return Response.json({ choices: [{ message: { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "calculate", arguments: '{"expression":"1"}' } }] } }] });
      },
    });
    const message = await model({ messages: [{ role: "user", content: "hi" }], tools: [{ type: "function" }], turn: 0, signal: undefined });
    expect(message).toEqual({ role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "calculate", arguments: '{"expression":"1"}' } }] });
    expect(sent).toEqual([
      { url: "https://models.example/v1/chat/completions", auth: "Bearer k", body: { temperature: 0, model: "m", messages: [{ role: "user", content: "hi" }], tools: [{ type: "function" }] } },
    ]);
  });

  it("an error answer or an answer without a message is an error naming it", async () => {
    const failing = chatCompletions({ url: "https://models.example/v1", model: "m", fetch: async () => new Response("quota exceeded", { status: 429 }) });
    await expect(failing({ messages: [], tools: [], turn: 0, signal: undefined })).rejects.toThrow("the model answered HTTP 429: quota exceeded");
    const empty = chatCompletions({ url: "https://models.example/v1", model: "m", fetch: async () => Response.json({ choices: [] }) });
    await expect(empty({ messages: [], tools: [], turn: 0, signal: undefined })).rejects.toThrow("no choices[0].message");
  });
});
