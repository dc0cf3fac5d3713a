// @toolgate/client/langchain: a toolgate session as LangChain.js tools, and the human-in-the-loop middleware's
// `interruptOn` driven by the guard: a call the guard holds interrupts the agent; the user's decisions are posted back
// to the gateway (`decide`) and the agent resumes with them.
import { tool } from "@langchain/core/tools";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { Decision, InterruptOnConfig } from "langchain";
import { isObject } from "./records.js";
import { callSender, sessionTools } from "./sessionTools.js";
import type { SessionToolsOptions } from "./sessionTools.js";
import type { ConfirmationRequest } from "./types.js";

export type LangChainOptions = SessionToolsOptions;

export interface LangChainTools {
  /** The caller's tools and the gateway's meta-tools (pass to `createAgent({tools})`). */
  tools: StructuredToolInterface[];
  /** For `humanInTheLoopMiddleware({interruptOn})`: every tool interrupts exactly when the guard holds its call. */
  interruptOn: Record<string, InterruptOnConfig>;
  /**
   * The user's answers to an interrupt's action requests (its `value`, a `HITLRequest`; `approve` sees each held
   * confirmation): posted to the gateway, and returned as the `{decisions}` to resume with.
   */
  decide: (request: unknown, approve: (confirmation: ConfirmationRequest) => boolean) => Promise<{ decisions: Decision[] }>;
}

interface Held {
  name: string;
  args: string;
  confirmation: ConfirmationRequest;
  answered: boolean;
}

/** JSON with sorted keys: the same arguments give the same text, whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isObject(value)) return `{${Object.keys(value).toSorted().map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(",")}}`;
  return JSON.stringify(value) ?? "null";
}

export async function toolgateLangChainTools(options: LangChainOptions): Promise<LangChainTools> {
  const { client, sessionId } = options;
  const calls = callSender(options);
  const held = new Map<string, Held>();

  const tools: StructuredToolInterface[] = [];
  const interruptOn: Record<string, InterruptOnConfig> = {};
  for (const { name, description, parameters } of await sessionTools(options)) {
    tools.push(
      tool(
        async (input: unknown, config): Promise<string> => {
          const callId = config.toolCall?.id;
          let answer = await calls.once(name, input, callId);
          const entry = callId === undefined ? undefined : held.get(callId);
          if (callId !== undefined) calls.forget(callId);
          if (entry && callId !== undefined) {
            // Only an approved call runs: its confirmation was answered by decide (or the user resumed with an
            // approval directly, which approves it now), and the same call is sent again.
            held.delete(callId);
            if (!entry.answered) await client.confirm(sessionId, entry.confirmation.id, true);
            answer = await calls.send(name, input);
          }
          return answer.content;
        },
        { name, description, schema: parameters },
      ),
    );
    interruptOn[name] = {
      allowedDecisions: ["approve", "reject"],
      when: async ({ toolCall }) => {
        const answer = await calls.once(name, toolCall.args, toolCall.id);
        if (answer.confirmation && toolCall.id !== undefined && !held.has(toolCall.id)) {
          held.set(toolCall.id, { name, args: canonical(toolCall.args), confirmation: answer.confirmation, answered: false });
        }
        return answer.confirmation !== undefined;
      },
      description: (toolCall) => {
        const entry = toolCall.id === undefined ? undefined : held.get(toolCall.id);
        return entry ? `${entry.confirmation.tool}: ${entry.confirmation.description}` : name;
      },
    };
  }

  return {
    tools,
    interruptOn,
    decide: async (request, approve) => {
      if (!isObject(request) || !Array.isArray(request["actionRequests"])) throw new TypeError("decide: not a human-in-the-loop interrupt (no actionRequests)");
      const decisions: Decision[] = [];
      const taken = new Set<string>();
      for (const action of request["actionRequests"] as unknown[]) {
        if (!isObject(action)) continue;
        // The held call this action is: same tool, same arguments (the middleware's request carries no call id).
        const match = [...held.entries()].find(([callId, entry]) => !taken.has(callId) && entry.name === action["name"] && entry.args === canonical(action["args"]));
        if (!match) {
          decisions.push({ type: "reject", message: "This call is not held by the gateway." });
          continue;
        }
        const [callId, entry] = match;
        taken.add(callId);
        const approved = approve(entry.confirmation);
        await client.confirm(sessionId, entry.confirmation.id, approved);
        if (approved) {
          entry.answered = true;
          decisions.push({ type: "approve" });
        } else {
          held.delete(callId);
          calls.forget(callId);
          decisions.push({ type: "reject" });
        }
      }
      return { decisions };
    },
  };
}
