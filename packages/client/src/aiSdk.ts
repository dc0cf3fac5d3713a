// @toolgate/client/ai-sdk: a toolgate session as Vercel AI SDK tools. The turn's tool list comes from the gateway's
// prepare in the SDK's step preparation (`prepareStep` → `activeTools`), and a call the guard holds becomes the SDK's
// own tool approval (`needsApproval`), which `useChat` shows and answers with `addToolApprovalResponse`.
import { dynamicTool, jsonSchema } from "ai";
import type { ModelMessage, PrepareStepFunction, ToolSet } from "ai";
import type { Toolgate } from "./client.js";
import { isObject } from "./records.js";
import type { ConfirmationRequest, ExecuteAnswer, JsonSchema } from "./types.js";

export interface AiSdkOptions {
  client: Toolgate;
  sessionId: string;
  enabledGroups?: readonly string[] | undefined;
}

export interface AiSdkTools {
  /** Every tool the caller may reach (the registry's visible tools and the gateway's meta-tools), as AI SDK tools. */
  tools: ToolSet;
  /** Pass to `generateText` / `streamText`: each step sends only the tools the gateway's prepare answers. */
  prepareStep: PrepareStepFunction<ToolSet>;
  /** The confirmations the guard holds, by the SDK's tool call id, until approved or denied. */
  held: ReadonlyMap<string, ConfirmationRequest>;
}

interface FunctionShape {
  name: string;
  description: string;
  parameters: JsonSchema;
}

/** A `{type: "function", function: {name, description, parameters}}` tool of the OpenAI Chat shape. */
function functionOf(tool: Record<string, unknown>): FunctionShape | undefined {
  const fn = tool["function"];
  if (!isObject(fn) || typeof fn["name"] !== "string") return undefined;
  return {
    name: fn["name"],
    description: typeof fn["description"] === "string" ? fn["description"] : "",
    parameters: isObject(fn["parameters"]) ? fn["parameters"] : { type: "object", properties: {} },
  };
}

/** The conversation as OpenAI Chat messages of text only: what prepare reads (the user's words for auto-discovery). */
function chatText(messages: readonly ModelMessage[]): { role: string; content: string }[] {
  const result: { role: string; content: string }[] = [];
  for (const message of messages) {
    if (message.role !== "user" && message.role !== "assistant" && message.role !== "system") continue;
    const content = typeof message.content === "string"
      ? message.content
      : message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
    if (content !== "") result.push({ role: message.role, content });
  }
  return result;
}

/** The approval ids the user denied in these messages, with the tool call each belongs to. */
function deniedCalls(messages: readonly ModelMessage[]): string[] {
  const callOf = new Map<string, string>();
  const denied: string[] = [];
  for (const message of messages) {
    if (typeof message.content === "string") continue;
    for (const part of message.content) {
      if (part.type === "tool-approval-request") callOf.set(part.approvalId, part.toolCallId);
      if (part.type === "tool-approval-response" && !part.approved) {
        const call = callOf.get(part.approvalId);
        if (call !== undefined) denied.push(call);
      }
    }
  }
  return denied;
}

/**
 * The session's tools for `generateText` / `streamText`. A call runs through the gateway's guard once: when the guard
 * allows it, `needsApproval` answers false and `execute` hands over that result; when the guard holds it, the SDK asks
 * for approval of that tool call (its exact input). Approved, `execute` approves that confirmation at the gateway and
 * runs the same call; denied, the next step's preparation denies it at the gateway, and the model reads the SDK's
 * denial. Approvals name the SDK's approval of one tool call, never a tool.
 */
export async function toolgateTools(options: AiSdkOptions): Promise<AiSdkTools> {
  const { client, sessionId } = options;
  const groups = options.enabledGroups ? { enabledGroups: options.enabledGroups } : {};
  /** The first execute of each tool call (by the SDK's id): what the guard said. */
  const first = new Map<string, Promise<ExecuteAnswer>>();
  const held = new Map<string, ConfirmationRequest>();

  const [listed, prepared] = await Promise.all([
    client.listTools({ format: "openai", ...(options.enabledGroups ? { groups: options.enabledGroups } : {}) }),
    client.prepare(sessionId, { messages: [], format: "openai", ...groups }),
  ]);
  const definitions = new Map<string, FunctionShape>();
  for (const tool of [...prepared.tools, ...listed]) {
    const fn = functionOf(tool);
    if (fn && !definitions.has(fn.name)) definitions.set(fn.name, fn);
  }

  const executeOnce = (name: string, input: unknown, callId: string): Promise<ExecuteAnswer> => {
    let answer = first.get(callId);
    if (!answer) {
      answer = client.execute(sessionId, { name, arguments: isObject(input) ? input : {}, ...groups });
      first.set(callId, answer);
    }
    return answer;
  };

  const tools: ToolSet = {};
  for (const { name, description, parameters } of definitions.values()) {
    tools[name] = dynamicTool({
      description,
      inputSchema: jsonSchema(parameters),
      needsApproval: async (input, { toolCallId }) => {
        const answer = await executeOnce(name, input, toolCallId);
        if (answer.confirmation) held.set(toolCallId, answer.confirmation);
        return answer.confirmation !== undefined;
      },
      execute: async (input, { toolCallId }) => {
        let answer = await executeOnce(name, input, toolCallId);
        first.delete(toolCallId);
        const confirmation = held.get(toolCallId) ?? answer.confirmation;
        if (confirmation) {
          // The SDK runs execute for a held call only once the user approved this tool call: approve its confirmation
          // (bound to these arguments) and send the same call again.
          held.delete(toolCallId);
          await client.confirm(sessionId, confirmation.id, true);
          answer = await client.execute(sessionId, { name, arguments: isObject(input) ? input : {}, ...groups });
        }
        return answer.content;
      },
    });
  }

  const prepareStep: PrepareStepFunction<ToolSet> = async ({ messages }) => {
    for (const callId of deniedCalls(messages)) {
      const confirmation = held.get(callId);
      if (!confirmation) continue;
      held.delete(callId);
      first.delete(callId);
      await client.confirm(sessionId, confirmation.id, false).catch(() => undefined);
    }
    const answer = await client.prepare(sessionId, { messages: chatText(messages), format: "openai", ...groups });
    const names = answer.tools.flatMap((tool) => functionOf(tool)?.name ?? []).filter((name) => name in tools);
    return { activeTools: names };
  };

  return { tools, prepareStep, held };
}
