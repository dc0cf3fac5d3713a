import { Agent, run } from "@openai/agents";
import type { Model } from "@openai/agents";
import { createToolgate } from "@toolgate/client";
import { toolgateAgentTools } from "@toolgate/client/openai-agents";

/** One user request through an Agent; `approve` is the user's answer to each interruption (the held call's confirmation). */
export async function ask(options: {
  model: Model;
  url: string;
  token: string;
  sessionId: string;
  question: string;
  approve: (confirmation: { tool: string; arguments: unknown }) => boolean;
}): Promise<string> {
  const client = createToolgate({ url: options.url, token: options.token });
  const { tools, decide, confirmationOf } = await toolgateAgentTools({ client, sessionId: options.sessionId });
  const agent = new Agent({ name: "Assistant", instructions: "Find tools with search_tools.", model: options.model, tools });
  let result = await run(agent, options.question);
  while (result.interruptions.length > 0) {
    for (const item of result.interruptions) {
      // Show the user what the guard holds: the tool, its description and the exact arguments.
      const confirmation = confirmationOf(item);
      await decide(result.state, item, confirmation !== undefined && options.approve(confirmation));
    }
    result = await run(agent, result.state);
  }
  return String(result.finalOutput);
}
