import { MemorySaver } from "@langchain/langgraph";
import { createAgent, humanInTheLoopMiddleware } from "langchain";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { Command } from "@langchain/langgraph";
import { createToolgate } from "@toolgate/client";
import type { ConfirmationRequest } from "@toolgate/client";
import { toolgateLangChainTools } from "@toolgate/client/langchain";

/** One user request through a LangChain agent; `approve` is the user's answer to each held call's confirmation. */
export async function ask(options: {
  model: BaseChatModel;
  url: string;
  token: string;
  sessionId: string;
  question: string;
  approve: (confirmation: ConfirmationRequest) => boolean;
}): Promise<{ messages: { type: string; text: string }[] }> {
  const client = createToolgate({ url: options.url, token: options.token });
  const { tools, interruptOn, decide } = await toolgateLangChainTools({ client, sessionId: options.sessionId });
  const agent = createAgent({
    model: options.model,
    tools,
    middleware: [humanInTheLoopMiddleware({ interruptOn })],
    checkpointer: new MemorySaver(),
  });
  const config = { configurable: { thread_id: options.sessionId } };
  let state = await agent.invoke({ messages: [{ role: "user", content: options.question }] }, config);
  for (let interrupt = state["__interrupt__"]?.[0]; interrupt !== undefined; interrupt = state["__interrupt__"]?.[0]) {
    // The held calls' confirmations (tool, description, exact arguments) go to the user; the answers resume the agent.
    const resume = await decide(interrupt.value, options.approve);
    state = await agent.invoke(new Command({ resume }), config);
  }
  return { messages: state.messages.map((message) => ({ type: message.type, text: message.text })) };
}
