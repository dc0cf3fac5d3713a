// The chatbot Worker example (examples/chatbot-worker/) with the same scripted model: its fetch handler runs here, with
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

/** A Chat Completions endpoint that plays the script: its move is the number of tool results so far. */
function scriptedModel(offered: string[][]): Pick<Fetcher, "fetch"> {
  return {
    fetch: async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      const request = new Request(input, init);
      expect(new URL(request.url).pathname).toBe("/v1/chat/completions");
      const body: unknown = await request.json();
      if (!isObject(body) || !Array.isArray(body["messages"]) || !Array.isArray(body["tools"])) throw new Error("not a chat request");
      offered.push(toolNames(body["tools"].filter(isObject)));
      const move = SCRIPT[body["messages"].filter((message) => isObject(message) && message["role"] === "tool").length];
      const message = move
        ? { role: "assistant", content: null, tool_calls: [{ id: `call_${offered.length}`, type: "function", function: { name: move.name, arguments: JSON.stringify(move.arguments) } }] }
        : { role: "assistant", content: FINAL_TEXT };
      return Response.json({ choices: [{ index: 0, message, finish_reason: "stop" }] });
    },
  };
}

async function envFor(sub: string, offered: string[][]): Promise<Env> {
  return {
    TOOLGATE: { fetch: (input, init) => exports.default.fetch(input, init) },
    TOOLGATE_TOKEN: await token({ sub, level: 2, groups: ["mail", "files"] }),
    MODEL_URL: "https://model.example/v1",
    MODEL_NAME: "scripted",
    MODEL: scriptedModel(offered),
  };
}

function chat(body: unknown): Request {
  return new Request("https://chatbot.example/chat", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

const question = [{ role: "user", content: "What is 17 * 3 + sqrt(81)? Email Bob the answer." }];

describe("the chatbot Worker example", () => {
  it("runs the turn through the service binding; the approved tool sends", async () => {
    const offered: string[][] = [];
    const response = await chatbot.fetch(chat({ sessionId: sessionId("bot"), messages: question, approve: ["send_email"] }), await envFor("chatbot-ok", offered));
    expect(response.status).toBe(200);
    const answer = await response.json();
    expect(answer).toMatchObject({
      text: FINAL_TEXT,
      stop: "done",
      toolCalls: [{ name: "search_tools" }, { name: "calculate", isError: false }, { name: "send_email", isError: false, approved: true }],
      declined: [],
    });
    expect(offered[0]).toEqual(["search_tools"]);
    expect(offered[1]).toContain("calculate");
  });

  it("declines a tool the request did not approve, and says so", async () => {
    const response = await chatbot.fetch(chat({ sessionId: sessionId("bot"), messages: question }), await envFor("chatbot-decline", []));
    const answer = await response.json();
    expect(answer).toMatchObject({ text: FINAL_TEXT, declined: [{ tool: "send_email", mode: "always", arguments: { to: ["bob@example.com"] } }] });
    expect(answer).toHaveProperty(["toolCalls", 2], { name: "send_email", isError: true, approved: false });
  });

  it("passes the gateway's refusal on (a token that does not verify: 401) and refuses bad requests", async () => {
    const env = { ...(await envFor("chatbot-401", [])), TOOLGATE_TOKEN: "not-a-jwt" };
    const refused = await chatbot.fetch(chat({ sessionId: "s1", messages: question }), env);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: { code: "invalid_token" } });
    const bad = await chatbot.fetch(chat({ sessionId: "has space", messages: question }), env);
    expect(bad.status).toBe(400);
  });
});
