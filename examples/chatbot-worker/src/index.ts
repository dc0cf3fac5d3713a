// A chatbot Worker that calls toolgate through a service binding with @toolgate/client (its README). POST /chat
// {sessionId, messages, approve?} runs one agent turn: prepare → the model (OpenAI-compatible Chat Completions) → each
// tool call through the gateway's guard → … until the model answers.
//
// A chatbot has no dialog of its own in the middle of a request, so approvals come with the request. A held call is
// declined (the model reads that the user declined) and reported in `declined` with what the user must see (tool,
// arguments) and its `approval`: a digest of that tool and those exact arguments. The chat UI shows it; when the user
// approves, it sends the message again with `approve: [approval]`, and only a held call of that tool with exactly
// those arguments is approved. Approving never names a tool alone: another call of the same tool (another address,
// another body) is held and declined again.
import { chatCompletions, createToolgate, runTurn, ToolgateError } from "@toolgate/client";
import type { ChatMessage, ConfirmationRequest, HeldCall } from "@toolgate/client";

export interface Env {
  /** The toolgate Worker (a service binding; only its `fetch` is used). */
  TOOLGATE: Pick<Fetcher, "fetch">;
  /** The gateway token of this chatbot (a secret). */
  TOOLGATE_TOKEN: string;
  MODEL_URL: string;
  MODEL_NAME: string;
  MODEL_KEY?: string;
  /** Optional: a binding that answers the model's requests instead of MODEL_URL's host (tests, a model gateway Worker). */
  MODEL?: Pick<Fetcher, "fetch">;
}

const SYSTEM = "You are a helpful assistant. Most tools are hidden: call search_tools to find the one you need, then call it.";
const SESSION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isChatMessage(value: unknown): value is ChatMessage {
  return isObject(value) && typeof value["role"] === "string" && ["system", "developer", "user", "assistant", "tool"].includes(value["role"]);
}

const APPROVAL = /^[0-9a-f]{64}$/;
const MAX_APPROVALS = 16;

/** JSON with every object's keys sorted: the same arguments always give the same text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isObject(value)) return `{${Object.keys(value).toSorted().map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(",")}}`;
  return JSON.stringify(value) ?? "null";
}

/** What the user approves: a SHA-256 digest of the held call's tool and the exact arguments it runs with, as hex. */
async function approvalOf(call: HeldCall): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonical({ tool: call.name, arguments: call.arguments })));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

function bad(message: string, status = 400): Response {
  return Response.json({ error: { code: "invalid_request", message } }, { status });
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname !== "/chat") return bad("not found: POST /chat", 404);
    if (request.method !== "POST") return bad("method not allowed: POST /chat", 405);
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      return bad("the body must be JSON");
    }
    if (!isObject(body)) return bad("the body must be a JSON object");
    const { sessionId, messages, approve } = body;
    if (typeof sessionId !== "string" || !SESSION_ID.test(sessionId)) return bad(`sessionId must match ${SESSION_ID.source}`);
    if (!Array.isArray(messages) || !messages.every(isChatMessage)) return bad("messages must be OpenAI Chat messages");
    if (approve !== undefined && !(Array.isArray(approve) && approve.length <= MAX_APPROVALS && approve.every((value) => typeof value === "string" && APPROVAL.test(value)))) {
      return bad(`approve must be a list of at most ${MAX_APPROVALS} approval digests (the \`approval\` of a declined call)`);
    }
    const allowed = new Set<string>(approve ?? []);

    // The service binding is the transport: the URL's host is never resolved, only its path matters.
    const client = createToolgate({ url: "https://toolgate.internal", token: env.TOOLGATE_TOKEN, fetch: (input, init) => env.TOOLGATE.fetch(input, init) });
    const declined: (ConfirmationRequest & { approval: string })[] = [];
    const modelBinding = env.MODEL;
    try {
      const result = await runTurn({
        client,
        sessionId,
        shape: "openai",
        messages: messages[0]?.role === "system" ? messages : [{ role: "system", content: SYSTEM }, ...messages],
        signal: request.signal,
        model: chatCompletions({
          url: env.MODEL_URL,
          model: env.MODEL_NAME,
          ...(env.MODEL_KEY ? { apiKey: env.MODEL_KEY } : {}),
          ...(modelBinding ? { fetch: (input: string, init: RequestInit) => modelBinding.fetch(input, init) } : {}),
        }),
        confirm: async (details, call) => {
          const approval = await approvalOf(call);
          if (allowed.has(approval)) return true;
          declined.push({ ...details, approval });
          return false;
        },
      });
      return Response.json({
        text: result.text,
        stop: result.stop,
        messages: result.messages,
        toolCalls: result.toolCalls.map((call) => ({ name: call.name, isError: call.result.isError, ...(call.approved === undefined ? {} : { approved: call.approved }) })),
        declined: declined.map(({ tool, description, arguments: args, mode, approval }) => ({ tool, description, arguments: args, mode, approval })),
      });
    } catch (error) {
      if (error instanceof ToolgateError) {
        // The gateway's refusal, passed on (401 bad token, 429 with Retry-After, …).
        const headers = error.retryAfter === undefined ? undefined : { "retry-after": String(Math.ceil(error.retryAfter)) };
        return Response.json({ error: { code: error.code, message: error.message } }, { status: error.status === 0 ? 502 : error.status, headers });
      }
      return Response.json({ error: { code: "model_error", message: error instanceof Error ? error.message : String(error) } }, { status: 502 });
    }
  },
} satisfies ExportedHandler<Env>;
