// The chatbot Worker example (examples/chatbot-worker/, its test: a Worker test needs the gateway Worker beside it, so
// it runs in the gateway's suite) with the same scripted model: its fetch handler runs here, with
// its TOOLGATE service binding played by this Worker's exports.default.fetch (what a service binding reaches) and its
// MODEL binding by a scripted Chat Completions endpoint.
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import chatbot from "../../examples/chatbot-worker/src/index.ts";
import type { Env } from "../../examples/chatbot-worker/src/index.ts";
import { sessionId, token } from "../http/helpers.ts";
import { FINAL_TEXT, SCRIPT, toolNames } from "./support.ts";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A Chat Completions endpoint that plays the script (emailing `to`): its move is the number of tool results so far. */
function scriptedModel(offered: string[][], to = "bob@example.com"): Pick<Fetcher, "fetch"> {
  return {
    fetch: async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      const request = new Request(input, init);
      expect(new URL(request.url).pathname).toBe("/v1/chat/completions");
      const body: unknown = await request.json();
      if (!isObject(body) || !Array.isArray(body["messages"]) || !Array.isArray(body["tools"])) throw new Error("not a chat request");
      offered.push(toolNames(body["tools"].filter(isObject)));
      const scripted = SCRIPT[body["messages"].filter((message) => isObject(message) && message["role"] === "tool").length];
      const move = scripted?.name === "send_email" ? { ...scripted, arguments: { ...scripted.arguments, to: [to] } } : scripted;
      const message = move
        ? { role: "assistant", content: null, tool_calls: [{ id: `call_${offered.length}`, type: "function", function: { name: move.name, arguments: JSON.stringify(move.arguments) } }] }
        : { role: "assistant", content: FINAL_TEXT };
      return Response.json({ choices: [{ index: 0, message, finish_reason: "stop" }] });
    },
  };
}

async function envFor(sub: string, offered: string[][], to?: string): Promise<Env> {
  return {
    TOOLGATE: { fetch: (input, init) => exports.default.fetch(input, init) },
    TOOLGATE_TOKEN: await token({ sub, level: 2, groups: ["mail", "files"] }),
    MODEL_URL: "https://model.example/v1",
    MODEL_NAME: "scripted",
    MODEL: scriptedModel(offered, to),
  };
}

function chat(body: unknown): Request {
  return new Request("https://chatbot.example/chat", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

const question = [{ role: "user", content: "What is 17 * 3 + sqrt(81)? Email Bob the answer." }];

interface ChatAnswer {
  text: string;
  toolCalls: { name: string; isError?: boolean; approved?: boolean }[];
  declined: { tool: string; arguments: unknown; mode: string; approval: string }[];
}

async function send(body: unknown, env: Env): Promise<ChatAnswer> {
  const response = await chatbot.fetch(chat(body), env);
  expect(response.status).toBe(200);
  return response.json<ChatAnswer>();
}

describe("the chatbot Worker example", () => {
  it("declines a held call and hands back its approval; approved, that exact call runs", async () => {
    const offered: string[][] = [];
    const env = await envFor("chatbot-ok", offered);
    const first = await send({ sessionId: sessionId("bot"), messages: question }, env);
    expect(first).toMatchObject({ text: FINAL_TEXT, declined: [{ tool: "send_email", mode: "always", arguments: { to: ["bob@example.com"] } }] });
    expect(first.toolCalls[2]).toEqual({ name: "send_email", isError: true, approved: false });
    expect(offered[0]).toEqual(["search_tools"]);
    expect(offered[1]).toContain("calculate");
    const approval = first.declined[0]?.approval;
    expect(approval).toMatch(/^[0-9a-f]{64}$/);

    const second = await send({ sessionId: sessionId("bot"), messages: question, approve: [approval] }, env);
    expect(second).toMatchObject({
      text: FINAL_TEXT,
      toolCalls: [{ name: "search_tools" }, { name: "calculate", isError: false }, { name: "send_email", isError: false, approved: true }],
      declined: [],
    });
  });

  it("an approval is of one call's arguments, never of the tool: the same tool to another address is declined", async () => {
    const first = await send({ sessionId: sessionId("bot"), messages: question }, await envFor("chatbot-bound", []));
    const approval = first.declined[0]?.approval;
    // The model now emails eve instead: the approval of the call to bob does not cover it.
    const second = await send({ sessionId: sessionId("bot"), messages: question, approve: [approval] }, await envFor("chatbot-bound", [], "eve@example.com"));
    expect(second.toolCalls[2]).toEqual({ name: "send_email", isError: true, approved: false });
    expect(second.declined).toMatchObject([{ tool: "send_email", arguments: { to: ["eve@example.com"] } }]);
    expect(second.declined[0]?.approval).not.toBe(approval);
  });

  it("passes the gateway's refusal on (a token that does not verify: 401) and refuses bad requests", async () => {
    const env = { ...(await envFor("chatbot-401", [])), TOOLGATE_TOKEN: "not-a-jwt" };
    const refused = await chatbot.fetch(chat({ sessionId: "s1", messages: question }), env);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: { code: "invalid_token" } });
    const bad = await chatbot.fetch(chat({ sessionId: "has space", messages: question }), env);
    expect(bad.status).toBe(400);
    // A tool's name is not an approval.
    const byName = await chatbot.fetch(chat({ sessionId: "s1", messages: question, approve: ["send_email"] }), env);
    expect(byName.status).toBe(400);
  });
});
