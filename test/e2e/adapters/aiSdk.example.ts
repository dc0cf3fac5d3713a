import { generateText, stepCountIs } from "ai";
import type { LanguageModel, ModelMessage } from "ai";
import { createToolgate } from "@toolgate/client";
import { toolgateTools } from "@toolgate/client/ai-sdk";

/** One user request through the AI SDK; `approve` is the user's answer to each held tool call (its name and input). */
export async function ask(options: {
  model: LanguageModel;
  url: string;
  token: string;
  sessionId: string;
  question: string;
  approve: (call: { toolName: string; input: unknown }) => boolean;
}): Promise<{ text: string; messages: ModelMessage[] }> {
  const client = createToolgate({ url: options.url, token: options.token });
  const { tools, prepareStep } = await toolgateTools({ client, sessionId: options.sessionId });
  const messages: ModelMessage[] = [{ role: "user", content: options.question }];
  for (;;) {
    const result = await generateText({ model: options.model, tools, prepareStep, messages, stopWhen: stepCountIs(10) });
    messages.push(...result.responseMessages);
    const requests = result.content.filter((part) => part.type === "tool-approval-request");
    if (requests.length === 0) return { text: result.text, messages };
    // useChat shows each request (the tool call's name and exact input) and answers with addToolApprovalResponse.
    messages.push({
      role: "tool",
      content: requests.map((request) => ({ type: "tool-approval-response", approvalId: request.approvalId, approved: options.approve(request.toolCall) })),
    });
  }
}
