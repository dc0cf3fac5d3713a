// The service worker: one conversation per open popup (its port), run by toolgate/client's runTurn against the
// gateway and the OpenAI-compatible model the settings name; a guarded call asks the popup's approve / deny dialog.
import { createToolgate, runTurn } from "toolgate/client";
import type { ChatMessage, ModelRequest } from "toolgate/client";
import { isToWorker } from "./messages.ts";
import type { ToPopup } from "./messages.ts";
import { loadSettings } from "./settings.ts";
import type { Settings } from "./settings.ts";

const SYSTEM = "You are a helpful assistant. Most tools are hidden: call search_tools to find the one you need, then call it.";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** One Chat Completions call; the answer's first choice's message. */
async function callModel(settings: Settings, request: ModelRequest<ChatMessage>): Promise<ChatMessage> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (settings.modelKey) headers["authorization"] = `Bearer ${settings.modelKey}`;
  const init: RequestInit = {
    method: "POST",
    headers,
    body: JSON.stringify({ model: settings.modelName, messages: request.messages, tools: request.tools }),
  };
  if (request.signal) init.signal = request.signal;
  const response = await fetch(`${settings.modelUrl.replace(/\/+$/, "")}/chat/completions`, init);
  if (!response.ok) throw new Error(`the model answered HTTP ${response.status}`);
  const data: unknown = await response.json();
  const choices = isObject(data) ? data["choices"] : undefined;
  const first: unknown = Array.isArray(choices) ? choices[0] : undefined;
  const message = isObject(first) ? first["message"] : undefined;
  if (!isObject(message) || message["role"] !== "assistant") throw new Error("the model's answer has no assistant message");
  const toolCalls = Array.isArray(message["tool_calls"]) ? message["tool_calls"].filter(isObject) : [];
  const calls = toolCalls.flatMap((call) => {
    const fn = call["function"];
    if (typeof call["id"] !== "string" || !isObject(fn) || typeof fn["name"] !== "string") return [];
    return [{ id: call["id"], type: "function" as const, function: { name: fn["name"], arguments: typeof fn["arguments"] === "string" ? fn["arguments"] : "{}" } }];
  });
  const content = typeof message["content"] === "string" ? message["content"] : null;
  return calls.length > 0 ? { role: "assistant", content, tool_calls: calls } : { role: "assistant", content };
}

chrome.runtime.onConnect.addListener((port) => {
  const post = (message: ToPopup): void => port.postMessage(message);
  let messages: ChatMessage[] = [{ role: "system", content: SYSTEM }];
  let sessionId = crypto.randomUUID();
  const decisions = new Map<string, (approve: boolean) => void>();
  const controller = new AbortController();
  let busy = false;

  port.onDisconnect.addListener(() => {
    controller.abort();
    for (const decide of decisions.values()) decide(false);
  });

  async function send(text: string): Promise<void> {
    busy = true;
    post({ type: "busy", busy });
    try {
      const settings = await loadSettings();
      if (!settings.gatewayUrl || !settings.modelUrl) throw new Error("Set the gateway and model URLs in Settings first.");
      const client = createToolgate({ url: settings.gatewayUrl, ...(settings.token ? { token: settings.token } : {}) });
      const result = await runTurn({
        client,
        sessionId,
        shape: "openai",
        messages: [...messages, { role: "user", content: text }],
        signal: controller.signal,
        model: (request) => callModel(settings, request),
        confirm: (details) =>
          new Promise<boolean>((resolve) => {
            decisions.set(details.id, resolve);
            post({ type: "confirm", details });
          }),
        onToolCall: (call) =>
          post({ type: "tool", name: call.name, content: call.result.content, isError: call.result.isError, ...(call.approved === undefined ? {} : { approved: call.approved }) }),
      });
      messages = result.messages;
      post({ type: "reply", text: result.stop === "done" ? result.text : `${result.text}\n(stopped: too many tool rounds)` });
    } catch (error) {
      if (!controller.signal.aborted) post({ type: "error", message: error instanceof Error ? error.message : String(error) });
    } finally {
      busy = false;
      if (!controller.signal.aborted) post({ type: "busy", busy });
    }
  }

  port.onMessage.addListener((message) => {
    if (!isToWorker(message)) return;
    if (message.type === "send" && !busy) void send(message.text);
    if (message.type === "decide") {
      decisions.get(message.id)?.(message.approve);
      decisions.delete(message.id);
    }
    if (message.type === "reset" && !busy) {
      messages = [{ role: "system", content: SYSTEM }];
      sessionId = crypto.randomUUID();
    }
  });
});
