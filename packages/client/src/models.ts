// A ready model function for runTurn: any OpenAI-compatible Chat Completions endpoint, called with fetch (no SDK).
import type { FetchLike } from "./client.js";
import type { ChatMessage, ChatToolCall, ModelRequest } from "./runTurn.js";
import { isObject } from "./records.js";

export interface ChatCompletionsOptions {
  /** The API's base URL, e.g. `https://api.openai.com/v1`; `/chat/completions` is appended. */
  url: string;
  model: string;
  /** Sent as `Authorization: Bearer …` when given. */
  apiKey?: string | undefined;
  /** Default: the global `fetch`; a service binding's `fetch` works too. */
  fetch?: FetchLike | undefined;
  /** More request fields (`temperature`, `max_tokens`, …). */
  body?: Readonly<Record<string, unknown>> | undefined;
}


function toolCallOf(value: unknown): ChatToolCall[] {
  if (!isObject(value)) return [];
  const fn = value["function"];
  if (typeof value["id"] !== "string" || !isObject(fn) || typeof fn["name"] !== "string") return [];
  return [{ id: value["id"], type: "function", function: { name: fn["name"], arguments: typeof fn["arguments"] === "string" ? fn["arguments"] : "{}" } }];
}

/** A `model` for `runTurn({shape: "openai"})`: posts the conversation and the turn's tools, returns the first choice's message. */
export function chatCompletions(options: ChatCompletionsOptions): (request: ModelRequest<ChatMessage>) => Promise<ChatMessage> {
  const fetchImpl: FetchLike = options.fetch ?? ((input, init) => fetch(input, init));
  const endpoint = `${options.url.replace(/\/+$/, "")}/chat/completions`;
  return async ({ messages, tools, signal }) => {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (options.apiKey) headers["authorization"] = `Bearer ${options.apiKey}`;
    const init: RequestInit = {
      method: "POST",
      headers,
      body: JSON.stringify({ ...options.body, model: options.model, messages, ...(tools.length > 0 ? { tools } : {}) }),
    };
    if (signal) init.signal = signal;
    const response = await fetchImpl(endpoint, init);
    if (!response.ok) {
      const text = await response.text().catch(() => "");
      throw new Error(`the model answered HTTP ${response.status}${text ? `: ${text.slice(0, 300)}` : ""}`);
    }
    const data: unknown = await response.json();
    const choices = isObject(data) ? data["choices"] : undefined;
    const first: unknown = Array.isArray(choices) ? choices[0] : undefined;
    const message = isObject(first) ? first["message"] : undefined;
    if (!isObject(message)) throw new Error("the model's answer has no choices[0].message");
    const calls = Array.isArray(message["tool_calls"]) ? message["tool_calls"].flatMap(toolCallOf) : [];
    const content = typeof message["content"] === "string" ? message["content"] : null;
    return calls.length > 0 ? { role: "assistant", content, tool_calls: calls } : { role: "assistant", content };
  };
}
