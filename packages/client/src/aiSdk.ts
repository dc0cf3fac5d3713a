// @toolgate/client/ai-sdk: a toolgate session as Vercel AI SDK tools. The turn's tool list comes from the gateway's
// prepare in the SDK's step preparation (`prepareStep` → `activeTools`), and a call the guard holds becomes the SDK's
// own tool approval (`needsApproval`), which `useChat` shows and answers with `addToolApprovalResponse`.
import { dynamicTool, jsonSchema } from "ai";
import type { ModelMessage, PrepareStepFunction, ToolSet } from "ai";
import { isObject } from "./records.js";
import { callSender, sessionTools } from "./sessionTools.js";
import type { SessionToolsOptions } from "./sessionTools.js";
import type { ConfirmationRequest } from "./types.js";

export type AiSdkOptions = SessionToolsOptions;

export interface AiSdkTools {
  /** Every tool the caller may reach (the registry's visible tools and the gateway's meta-tools), as AI SDK tools. */
  tools: ToolSet;
  /** Pass to `generateText` / `streamText`: each step sends only the tools the gateway's prepare answers. */
  prepareStep: PrepareStepFunction<ToolSet>;
  /** The confirmations the guard holds, by the SDK's tool call id, until approved or denied. */
  held: ReadonlyMap<string, ConfirmationRequest>;
}

/** The name of a `{type: "function", function: {name, …}}` tool of the OpenAI Chat shape. */
function nameOf(tool: Record<string, unknown>): string[] {
  const fn = tool["function"];
  return isObject(fn) && typeof fn["name"] === "string" ? [fn["name"]] : [];
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
  const calls = callSender(options);
  const held = new Map<string, ConfirmationRequest>();

  const tools: ToolSet = {};
  for (const { name, description, parameters } of await sessionTools(options)) {
    tools[name] = dynamicTool({
      description,
      inputSchema: jsonSchema(parameters),
      needsApproval: async (input, { toolCallId }) => {
        const answer = await calls.once(name, input, toolCallId);
        if (answer.confirmation) held.set(toolCallId, answer.confirmation);
        return answer.confirmation !== undefined;
      },
      execute: async (input, { toolCallId }) => {
        let answer = await calls.once(name, input, toolCallId);
        calls.forget(toolCallId);
        const confirmation = held.get(toolCallId) ?? answer.confirmation;
        if (confirmation) {
          // The SDK runs execute for a held call only once the user approved this tool call: approve its confirmation
          // (bound to these arguments) and send the same call again.
          held.delete(toolCallId);
          await client.confirm(sessionId, confirmation.id, true);
          answer = await calls.send(name, input);
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
      calls.forget(callId);
      await client.confirm(sessionId, confirmation.id, false).catch(() => undefined);
    }
    const answer = await client.prepare(sessionId, { messages: chatText(messages), format: "openai", ...groups });
    const names = answer.tools.flatMap(nameOf).filter((name) => name in tools);
    return { activeTools: names };
  };

  return { tools, prepareStep, held };
}
