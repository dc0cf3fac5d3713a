// The popup: the chat, and the approve / deny dialog for calls the gateway holds.
import { isToPopup } from "./messages.ts";
import type { ToWorker } from "./messages.ts";

function element<T extends HTMLElement>(id: string, type: new () => T): T {
  const found = document.getElementById(id);
  if (!(found instanceof type)) throw new Error(`#${id} is missing`);
  return found;
}

const log = element("log", HTMLOListElement);
const form = element("chat", HTMLFormElement);
const input = element("message", HTMLTextAreaElement);
const status = element("status", HTMLParagraphElement);
const dialog = element("confirm", HTMLDialogElement);
const port = chrome.runtime.connect({ name: "chat" });
const send = (message: ToWorker): void => port.postMessage(message);
let pendingId: string | undefined;

function add(kind: string, text: string): void {
  const item = document.createElement("li");
  item.className = kind;
  item.textContent = text;
  log.append(item);
  item.scrollIntoView({ block: "end" });
}

function shorten(text: string, max = 160): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function decide(approve: boolean): void {
  if (pendingId === undefined) return;
  send({ type: "decide", id: pendingId, approve });
  pendingId = undefined;
  dialog.close();
}

element("approve", HTMLButtonElement).addEventListener("click", () => decide(true));
element("deny", HTMLButtonElement).addEventListener("click", () => decide(false));
dialog.addEventListener("cancel", () => decide(false));
element("reset", HTMLButtonElement).addEventListener("click", () => {
  send({ type: "reset" });
  log.replaceChildren();
});

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const text = input.value.trim();
  if (!text) return;
  add("user", text);
  input.value = "";
  send({ type: "send", text });
});

port.onMessage.addListener((message) => {
  if (!isToPopup(message)) return;
  switch (message.type) {
    case "busy":
      status.textContent = message.busy ? "Working…" : "";
      break;
    case "reply":
      add("assistant", message.text);
      break;
    case "error":
      add("error", `Error: ${message.message}`);
      break;
    case "tool": {
      const verdict = message.approved === undefined ? "" : message.approved ? " (approved)" : " (denied)";
      add(message.isError ? "tool error" : "tool", `Tool ${message.name}${verdict}: ${shorten(message.content)}`);
      break;
    }
    case "confirm":
      pendingId = message.details.id;
      element("confirm-tool", HTMLElement).textContent = message.details.tool;
      element("confirm-description", HTMLSpanElement).textContent = message.details.description;
      element("confirm-arguments", HTMLPreElement).textContent = JSON.stringify(message.details.arguments, null, 2);
      element("confirm-mode", HTMLParagraphElement).textContent =
        message.details.mode === "session" ? "Approving allows this tool for the rest of this chat." : "Approving allows this one call.";
      dialog.showModal();
      break;
  }
});
