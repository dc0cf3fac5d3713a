// The service worker: one conversation per open popup (its port), run by toolgate/client's runTurn against the
// gateway and the OpenAI-compatible model the settings name; a guarded call asks the popup's approve / deny dialog.
import { chatCompletions, createToolgate, runTurn } from "@toolgate/client";
import type { ChatMessage } from "@toolgate/client";
import { isToWorker } from "./messages.ts";
import type { ToPopup } from "./messages.ts";
import { loadSettings } from "./settings.ts";

const SYSTEM = "You are a helpful assistant. Most tools are hidden: call search_tools to find the one you need, then call it.";

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
        model: chatCompletions({ url: settings.modelUrl, model: settings.modelName, ...(settings.modelKey ? { apiKey: settings.modelKey } : {}) }),
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
