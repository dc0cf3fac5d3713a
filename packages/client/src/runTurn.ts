// The agent loop (docs/client.md): prepare → the caller's model → each tool call through execute
// (asking the caller's confirm callback when the guard holds one) → the results appended in the model's own shape →
// again, until the model answers without tool calls or the turn limit. No provider SDK: the model is a function.
import type { Toolgate } from "./client.js";
import { ToolgateError } from "./client.js";
import type { ConfirmationRequest, ExecuteAnswer, ShapedTool } from "./types.js";
import { isObject } from "./records.js";

// ---- The three message shapes, as far as the loop reads them ----

/** OpenAI Chat Completions: a message (`choices[0].message` of an answer). */
export interface ChatMessage {
  role: "system" | "developer" | "user" | "assistant" | "tool";
  content?: string | null | readonly unknown[];
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
  [field: string]: unknown;
}
export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** OpenAI Responses: an input or output item (`message`, `function_call`, `function_call_output`, `reasoning`, …). */
export interface ResponsesItem {
  type?: string;
  [field: string]: unknown;
}
export interface ResponsesFunctionCall extends ResponsesItem {
  type: "function_call";
  call_id: string;
  name: string;
  arguments: string;
}

/** Anthropic Messages: a message; `content` a string or blocks (`text`, `tool_use`, `tool_result`, …). */
export interface AnthropicMessage {
  role: "user" | "assistant";
  content: string | AnthropicBlock[];
}
export interface AnthropicBlock {
  type: string;
  [field: string]: unknown;
}

/** What the model function is given: the conversation and this turn's tools, both in its shape. */
export interface ModelRequest<Message> {
  messages: Message[];
  tools: ShapedTool[];
  /** 0 for the first model call of this run. */
  turn: number;
  signal: AbortSignal | undefined;
}

/** The held call itself, as the model wrote it and as it would run (through `call_tool`: the tool it names). */
export interface HeldCall {
  name: string;
  arguments: Record<string, unknown>;
}

interface TurnCommon {
  client: Toolgate;
  sessionId: string;
  /** Client-side tool definitions (any shape); left out, the gateway's registry. */
  tools?: readonly unknown[] | undefined;
  enabledGroups?: readonly string[] | undefined;
  /**
   * Asked when the guard holds a call for the user's approval (tool, first line of its description, arguments).
   * true: the confirmation is approved and the same call sent again; false (or no callback): it is denied and the
   * model reads that the user declined.
   */
  confirm?: ((details: ConfirmationRequest, call: HeldCall) => boolean | Promise<boolean>) | undefined;
  /**
   * Tools the client runs itself (a tool without an executor on the gateway): once the gateway lets the call through,
   * the handler's text is the result. Any other tool's result is the gateway's.
   */
  localTools?: Readonly<Record<string, (args: Record<string, unknown>) => string | Promise<string>>> | undefined;
  /** Most model calls in this run (default 8). */
  maxTurns?: number | undefined;
  signal?: AbortSignal | undefined;
  /** Called after each tool call, for logs and UIs. */
  onToolCall?: ((call: ToolCallRecord) => void) | undefined;
}

export interface ChatTurn extends TurnCommon {
  shape: "openai";
  messages: readonly ChatMessage[];
  /** Returns the assistant message (`choices[0].message`). */
  model: (request: ModelRequest<ChatMessage>) => Promise<ChatMessage>;
}
export interface ResponsesTurn extends TurnCommon {
  shape: "responses";
  messages: readonly ResponsesItem[];
  /** Returns the response's `output` items (or the response, which has them). */
  model: (request: ModelRequest<ResponsesItem>) => Promise<readonly ResponsesItem[] | { output: readonly ResponsesItem[] }>;
}
export interface AnthropicTurn extends TurnCommon {
  shape: "anthropic";
  messages: readonly AnthropicMessage[];
  /** Returns the assistant message (a Messages API answer has `role` and `content`). */
  model: (request: ModelRequest<AnthropicMessage>) => Promise<{ content: AnthropicBlock[] | string }>;
}
export type TurnOptions = ChatTurn | ResponsesTurn | AnthropicTurn;

export interface ToolCallRecord {
  /** The tool that ran (under a "fixed" list, the one `call_tool` named, not `call_tool`). */
  name: string;
  /** Its arguments as the model wrote them (through `call_tool`: the inner `arguments`). */
  arguments: Record<string, unknown> | string;
  /** Set when the model called the tool through the `call_tool` meta-tool of a "fixed" list. */
  via?: "call_tool";
  result: ExecuteAnswer;
  /** Set when the guard asked: whether the user approved. */
  approved?: boolean;
}

export interface TurnResult<Message> {
  /** The whole conversation: the messages given, then every reply and tool result. */
  messages: Message[];
  /** The model's last text. */
  text: string;
  /** `done`: the model answered without tool calls; `max_turns`: the limit stopped it. */
  stop: "done" | "max_turns";
  turns: number;
  toolCalls: ToolCallRecord[];
}

interface PendingCall {
  id: string;
  name: string;
  arguments: Record<string, unknown> | string;
}

/** How one shape is read and written. */
interface Adapter<Message, Reply> {
  replyMessages(reply: Reply): Message[];
  calls(reply: Reply): PendingCall[];
  text(reply: Reply): string;
  results(results: readonly { call: PendingCall; result: ExecuteAnswer }[]): Message[];
}

const DEFAULT_MAX_TURNS = 8;


const chat: Adapter<ChatMessage, ChatMessage> = {
  replyMessages: (reply) => [reply],
  calls: (reply) => (reply.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments })),
  text: (reply) => (typeof reply.content === "string" ? reply.content : ""),
  results: (results) => results.map(({ call, result }) => ({ role: "tool", tool_call_id: call.id, content: result.content })),
};

function responsesItems(reply: readonly ResponsesItem[] | { output: readonly ResponsesItem[] }): ResponsesItem[] {
  return "output" in reply && !Array.isArray(reply) ? [...reply.output] : [...(reply as readonly ResponsesItem[])];
}

function isFunctionCall(item: ResponsesItem): item is ResponsesFunctionCall {
  return item.type === "function_call" && typeof item["call_id"] === "string" && typeof item["name"] === "string";
}

const responses: Adapter<ResponsesItem, readonly ResponsesItem[] | { output: readonly ResponsesItem[] }> = {
  replyMessages: responsesItems,
  calls: (reply) =>
    responsesItems(reply)
      .filter(isFunctionCall)
      .map((item) => ({ id: item.call_id, name: item.name, arguments: typeof item.arguments === "string" ? item.arguments : "{}" })),
  text: (reply) => {
    const parts: string[] = [];
    for (const item of responsesItems(reply)) {
      if (item.type !== "message" || !Array.isArray(item["content"])) continue;
      for (const part of item["content"] as unknown[]) {
        if (isObject(part) && part["type"] === "output_text" && typeof part["text"] === "string") parts.push(part["text"]);
      }
    }
    return parts.join("");
  },
  results: (results) => results.map(({ call, result }) => ({ type: "function_call_output", call_id: call.id, output: result.content })),
};

function blocks(reply: { content: AnthropicBlock[] | string }): AnthropicBlock[] {
  return typeof reply.content === "string" ? [{ type: "text", text: reply.content }] : reply.content;
}

const anthropic: Adapter<AnthropicMessage, { content: AnthropicBlock[] | string }> = {
  replyMessages: (reply) => [{ role: "assistant", content: reply.content }],
  calls: (reply) =>
    blocks(reply)
      .filter((block) => block.type === "tool_use" && typeof block["id"] === "string" && typeof block["name"] === "string")
      .map((block) => ({
        id: String(block["id"]),
        name: String(block["name"]),
        arguments: isObject(block["input"]) ? block["input"] : {},
      })),
  text: (reply) =>
    blocks(reply)
      .filter((block) => block.type === "text" && typeof block["text"] === "string")
      .map((block) => String(block["text"]))
      .join(""),
  results: (results) => [
    {
      role: "user",
      content: results.map(({ call, result }) => ({
        type: "tool_result",
        tool_use_id: call.id,
        content: result.content,
        ...(result.isError ? { is_error: true } : {}),
      })),
    },
  ],
};

function parseArguments(value: Record<string, unknown> | string): Record<string, unknown> {
  if (typeof value !== "string") return value;
  try {
    const parsed: unknown = JSON.parse(value);
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/**
 * The client's handler for a called name: keyed by the name itself, or by the name as the client spelled it when the
 * gateway had to fit it (`fs.read` is called `fs_read_<hash>`; prepare's `names` says which).
 */
function localTool(
  tools: TurnCommon["localTools"],
  name: string,
  names: Readonly<Record<string, string>> | undefined,
): ((args: Record<string, unknown>) => string | Promise<string>) | undefined {
  if (tools === undefined) return undefined;
  if (Object.hasOwn(tools, name)) return tools[name];
  const original = names !== undefined && Object.hasOwn(names, name) ? names[name] : undefined;
  return original !== undefined && Object.hasOwn(tools, original) ? tools[original] : undefined;
}

/** The `call_tool` meta-tool of a "fixed" tool list: `call_tool {name, arguments}` runs the tool it names. */
const CALL_TOOL = "call_tool";

/** The tool a call runs: the call itself, or for `call_tool` the tool it names and that tool's arguments. */
function targetOf(call: PendingCall): { name: string; arguments: Record<string, unknown> | string; via?: "call_tool" } {
  if (call.name !== CALL_TOOL) return { name: call.name, arguments: call.arguments };
  const outer = parseArguments(call.arguments);
  const name = outer["name"];
  // A malformed call_tool is the gateway's to refuse (its answer says what is wrong); it stays a call_tool call here.
  if (typeof name !== "string" || name === "") return { name: call.name, arguments: call.arguments };
  const inner = outer["arguments"];
  return { name, arguments: isObject(inner) || typeof inner === "string" ? inner : {}, via: "call_tool" };
}

/** What the model reads when the user declined: names the tool and its arguments, so other tools stay open. */
function declinedText(name: string): string {
  return JSON.stringify({
    error: `The user declined this call of "${name}"; it has not run. Do not repeat this call with these arguments unless the user asks; other tools and calls are not affected.`,
  });
}

/** Runs one call: execute, the confirmation if the guard asks, the local handler if the client runs the tool. */
async function runCall(
  options: TurnCommon,
  call: PendingCall,
  names: Readonly<Record<string, string>> | undefined,
): Promise<ToolCallRecord> {
  const { client, sessionId, signal } = options;
  const target = targetOf(call);
  const request = { name: call.name, arguments: call.arguments, ...(options.enabledGroups ? { enabledGroups: options.enabledGroups } : {}) };
  let result = await client.execute(sessionId, request, { signal });
  let approved: boolean | undefined;
  if (result.confirmation) {
    const details = result.confirmation;
    approved = options.confirm ? await options.confirm(details, { name: target.name, arguments: parseArguments(target.arguments) }) : false;
    signal?.throwIfAborted();
    if (approved) {
      // The approval is of this confirmation (its id, bound to these arguments); the same call is sent again.
      await client.confirm(sessionId, details.id, true, { signal });
      result = await client.execute(sessionId, request, { signal });
    } else {
      try {
        await client.confirm(sessionId, details.id, false, { signal });
      } catch (error) {
        // Already gone (expired, answered elsewhere): declined either way.
        if (!(error instanceof ToolgateError) || (error.status !== 404 && error.status !== 410)) throw error;
      }
      result = { content: declinedText(target.name), isError: true };
    }
  }
  const local = localTool(options.localTools, target.name, names);
  if (local && !result.isError && !result.confirmation) {
    try {
      result = { content: await local(parseArguments(target.arguments)), isError: false };
    } catch (error) {
      result = { content: JSON.stringify({ error: `Tool "${target.name}" failed: ${error instanceof Error ? error.message : String(error)}` }), isError: true };
    }
  }
  const record: ToolCallRecord = { ...target, result, ...(approved === undefined ? {} : { approved }) };
  options.onToolCall?.(record);
  return record;
}

async function loop<Message, Reply>(
  options: TurnCommon & { shape: "openai" | "responses" | "anthropic"; messages: readonly Message[] },
  model: (request: ModelRequest<Message>) => Promise<Reply>,
  adapter: Adapter<Message, Reply>,
): Promise<TurnResult<Message>> {
  const { client, sessionId, signal } = options;
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  const messages = [...options.messages];
  const toolCalls: ToolCallRecord[] = [];
  let text = "";
  for (let turn = 0; turn < maxTurns; turn++) {
    const prepared = await client.prepare(
      sessionId,
      {
        messages,
        format: options.shape,
        ...(options.tools ? { tools: options.tools } : {}),
        ...(options.enabledGroups ? { enabledGroups: options.enabledGroups } : {}),
      },
      { signal },
    );
    const reply = await model({ messages: [...messages], tools: prepared.tools, turn, signal });
    signal?.throwIfAborted();
    messages.push(...adapter.replyMessages(reply));
    text = adapter.text(reply);
    const calls = adapter.calls(reply);
    if (calls.length === 0) return { messages, text, stop: "done", turns: turn + 1, toolCalls };
    const results: { call: PendingCall; result: ExecuteAnswer }[] = [];
    // One at a time: a confirmation dialog at a time, and the calls run in the order the model gave them.
    for (const call of calls) {
      const record = await runCall(options, call, prepared.names);
      toolCalls.push(record);
      results.push({ call, result: record.result });
    }
    messages.push(...adapter.results(results));
  }
  return { messages, text, stop: "max_turns", turns: maxTurns, toolCalls };
}

/** Runs the agent loop for one user request, in OpenAI Chat, OpenAI Responses or Anthropic Messages shape. */
export function runTurn(options: ChatTurn): Promise<TurnResult<ChatMessage>>;
export function runTurn(options: ResponsesTurn): Promise<TurnResult<ResponsesItem>>;
export function runTurn(options: AnthropicTurn): Promise<TurnResult<AnthropicMessage>>;
export function runTurn(options: TurnOptions): Promise<TurnResult<ChatMessage> | TurnResult<ResponsesItem> | TurnResult<AnthropicMessage>> {
  if (options.shape === "openai") return loop(options, options.model, chat);
  if (options.shape === "responses") return loop(options, options.model, responses);
  return loop(options, options.model, anthropic);
}
