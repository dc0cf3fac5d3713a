// What the framework adapters share: the tools a session may reach, and each tool call sent to the gateway once.
import type { Toolgate } from "./client.js";
import { isObject } from "./records.js";
import type { ExecuteAnswer, JsonSchema } from "./types.js";

export interface SessionToolsOptions {
  client: Toolgate;
  sessionId: string;
  enabledGroups?: readonly string[] | undefined;
}

export interface ToolDefinitionText {
  name: string;
  description: string;
  parameters: JsonSchema;
}

/** The caller's tools and the gateway's meta-tools (`search_tools`, and `call_tool` under a "fixed" list), by name. */
export async function sessionTools(options: SessionToolsOptions): Promise<ToolDefinitionText[]> {
  const { client, sessionId, enabledGroups } = options;
  const [listed, prepared] = await Promise.all([
    client.listTools({ format: "openai", ...(enabledGroups ? { groups: enabledGroups } : {}) }),
    client.prepare(sessionId, { messages: [], format: "openai", ...(enabledGroups ? { enabledGroups } : {}) }),
  ]);
  const definitions = new Map<string, ToolDefinitionText>();
  for (const shaped of [...prepared.tools, ...listed]) {
    const fn = shaped["function"];
    if (!isObject(fn) || typeof fn["name"] !== "string" || definitions.has(fn["name"])) continue;
    definitions.set(fn["name"], {
      name: fn["name"],
      description: typeof fn["description"] === "string" ? fn["description"] : "",
      parameters: isObject(fn["parameters"]) ? fn["parameters"] : { type: "object", properties: {} },
    });
  }
  return [...definitions.values()];
}

/**
 * Sends tool calls to the gateway: `send` always sends; `once` sends a framework's tool call (by its id) the first
 * time and hands the same answer to every later ask until `forget` (the framework asks whether to approve, then runs).
 */
export function callSender(options: SessionToolsOptions): {
  send: (name: string, input: unknown) => Promise<ExecuteAnswer>;
  once: (name: string, input: unknown, callId: string | undefined) => Promise<ExecuteAnswer>;
  forget: (callId: string) => void;
} {
  const { client, sessionId, enabledGroups } = options;
  const first = new Map<string, Promise<ExecuteAnswer>>();
  const send = (name: string, input: unknown): Promise<ExecuteAnswer> =>
    client.execute(sessionId, { name, arguments: isObject(input) ? input : {}, ...(enabledGroups ? { enabledGroups } : {}) });
  return {
    send,
    once: (name, input, callId) => {
      if (callId === undefined) return send(name, input);
      let answer = first.get(callId);
      if (!answer) {
        answer = send(name, input);
        first.set(callId, answer);
      }
      return answer;
    },
    forget: (callId) => {
      first.delete(callId);
    },
  };
}
