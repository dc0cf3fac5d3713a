// @toolgate/client/openai-agents: a toolgate session as OpenAI Agents SDK function tools. The guard's answer drives the
// SDK's `needsApproval`; the user's decision on each of `result.interruptions` is posted back to the gateway with
// `decide`, and the run resumes with the same call, which runs once.
import { tool } from "@openai/agents";
import type { RunToolApprovalItem, Tool } from "@openai/agents";
import { isObject } from "./records.js";
import { callSender, sessionTools } from "./sessionTools.js";
import type { SessionToolsOptions } from "./sessionTools.js";
import type { ConfirmationRequest } from "./types.js";

export type AgentToolsOptions = SessionToolsOptions;

/** What `decide` uses of a run's state (`result.state`): its approve and reject. */
export interface ApprovalState {
  approve(item: RunToolApprovalItem): void;
  reject(item: RunToolApprovalItem): void;
}

export interface AgentTools {
  /** The caller's tools and the gateway's meta-tools, as function tools (pass to `new Agent({tools})`). */
  tools: Tool[];
  /**
   * The user's decision on one of `result.interruptions`: answers that call's confirmation at the gateway (bound to
   * its arguments), then approves or rejects the item in the run state; resume with `run(agent, result.state)`.
   */
  decide: (state: ApprovalState, item: RunToolApprovalItem, approve: boolean) => Promise<void>;
  /** The confirmation the guard holds for an interruption (what to show the user), if any. */
  confirmationOf: (item: RunToolApprovalItem) => ConfirmationRequest | undefined;
}

function callIdOf(item: RunToolApprovalItem): string | undefined {
  const raw = item.rawItem;
  return raw.type === "function_call" ? raw.callId : undefined;
}

/**
 * The session's tools for an Agent. Each call goes through the gateway's guard once: `needsApproval` sends it, and
 * answers true only when the guard holds it (the result of an allowed call is kept and handed over by `execute`).
 */
export async function toolgateAgentTools(options: AgentToolsOptions): Promise<AgentTools> {
  const { client, sessionId } = options;
  const calls = callSender(options);
  const held = new Map<string, ConfirmationRequest>();
  const answered = new Set<string>();

  const tools = (await sessionTools(options)).map(({ name, description, parameters }) =>
    tool({
      name,
      description,
      strict: false,
      // The gateway validates the arguments against the tool's own schema; the SDK gets it as a non-strict object.
      parameters: {
        type: "object",
        properties: isObject(parameters["properties"]) ? parameters["properties"] : {},
        required: Array.isArray(parameters["required"]) ? parameters["required"].filter((key) => typeof key === "string") : [],
        additionalProperties: true,
      },
      needsApproval: async (_context, input, callId) => {
        const answer = await calls.once(name, input, callId);
        if (answer.confirmation && callId !== undefined) held.set(callId, answer.confirmation);
        return answer.confirmation !== undefined;
      },
      execute: async (input, _context, details) => {
        const callId = details?.toolCall?.callId;
        let answer = await calls.once(name, input, callId);
        const confirmation = callId === undefined ? undefined : held.get(callId);
        if (callId !== undefined) calls.forget(callId);
        if (confirmation && callId !== undefined) {
          // Only an approved call reaches execute: its confirmation was answered by decide (or is approved now, when
          // the state was approved directly), and the same call is sent again.
          held.delete(callId);
          if (!answered.delete(callId)) await client.confirm(sessionId, confirmation.id, true);
          answer = await calls.send(name, input);
        }
        return answer.content;
      },
    }),
  );

  return {
    tools,
    confirmationOf: (item) => {
      const callId = callIdOf(item);
      return callId === undefined ? undefined : held.get(callId);
    },
    decide: async (state, item, approve) => {
      const callId = callIdOf(item);
      const confirmation = callId === undefined ? undefined : held.get(callId);
      if (confirmation && callId !== undefined) {
        await client.confirm(sessionId, confirmation.id, approve);
        if (approve) answered.add(callId);
        else {
          held.delete(callId);
          calls.forget(callId);
        }
      }
      if (approve) state.approve(item);
      else state.reject(item);
    },
  };
}
