// Elicitation on /mcp as an attacker sees it. The answers a session takes are the ones it asked for: a JSON-RPC
// response whose id no pending request has is refused (400), whatever its size, and is never kept; an answer over
// MAX_ANSWER_BYTES is refused (413) while its request still waits for a proper one. And what the user is asked shows
// hidden characters as markers, names the arguments that hold them, and the accepted call runs them as they came.
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import { beforeAll, describe, expect, it } from "vitest";
import { texts } from "../../src/core/locale.ts";
import { MAX_ANSWER_BYTES } from "../../src/durable/pendingAnswers.ts";
import { json } from "../http/helpers.ts";
import { connect, initializeBody, principal, rpc, textOf, warmUp } from "./helpers.ts";
import { registerMcpTestTools } from "./fixtures.ts";

const t = texts("en");

beforeAll(async () => {
  await registerMcpTestTools();
  await warmUp();
}, 60_000);

interface RpcError {
  error: { code: number; message: string; data: { code: string } };
  id: null;
}

async function rawSession(label: string): Promise<{ headers: Record<string, string> }> {
  const who = await principal(label, { groups: ["mcptest"] });
  const init = await rpc(initializeBody("2025-11-25", { elicitation: { form: {} } }), { authorization: `Bearer ${who.token}` });
  expect(init.status).toBe(200);
  await init.arrayBuffer();
  const sid = init.headers.get("mcp-session-id") ?? "";
  return { headers: { authorization: `Bearer ${who.token}`, "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25" } };
}

function answer(id: string, filler = ""): Record<string, unknown> {
  return { jsonrpc: "2.0", id, result: { action: "accept", content: filler === "" ? {} : { filler } } };
}

describe("answers nobody asked for", () => {
  it("refuses a response whose id no pending request has, small or large, alone or in a batch", async () => {
    const { headers } = await rawSession("unasked");
    for (const body of [
      answer("toolgate-elicit-00000000-0000-4000-8000-000000000000"),
      answer("made-up", "x".repeat(500_000)),
      [answer("one"), { jsonrpc: "2.0", id: "two", error: { code: -1, message: "no" } }],
    ]) {
      const response = await rpc(body, headers);
      expect(response.status).toBe(400);
      const refused = await json<RpcError>(response);
      expect(refused.error.code).toBe(-32600);
      expect(refused.error.data.code).toBe("invalid_request");
      expect(refused.error.message).toMatch(/no pending request of this session$/);
      expect(refused.id).toBeNull();
    }
  });

  it("takes the answer to its own request once: a replay of it, and an answer too large, are refused", async () => {
    const who = await principal("replay", { groups: ["mcptest"] });
    const { client, sessionId } = await connect(who.token, { query: "?groups=mcptest", capabilities: { elicitation: { form: {} } } });
    const headers = { authorization: `Bearer ${who.token}`, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" };
    const ids: string[] = [];
    const tooLarge: number[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (_request, extra) => {
      const id = String(extra.requestId);
      ids.push(id);
      // An oversized answer first: refused, and the request still waits for the client's real one.
      const large = await rpc(answer(id, "x".repeat(MAX_ANSWER_BYTES)), headers);
      tooLarge.push(large.status);
      expect(await json<RpcError>(large)).toMatchObject({ error: { code: -32000, data: { code: "payload_too_large" } } });
      return { action: "accept", content: {} };
    });
    const ran = await client.callTool({ name: "mcp_stamp", arguments: { text: "once" } });
    expect(ran).toEqual({ content: [{ type: "text", text: '{"text":"once"}' }], isError: false });
    expect(tooLarge).toEqual([413]);
    expect(ids).toHaveLength(1);
    // The request is answered: the same answer again has nobody waiting for it.
    const replay = await rpc(answer(ids[0] ?? ""), headers);
    expect(replay.status).toBe(400);
    await client.close();
  });
});

describe("what the user is asked shows hidden characters", () => {
  it("marks a bidi override in the elicitation, names the argument, and runs the exact text once accepted", async () => {
    const who = await principal("hidden", { groups: ["mcptest"] });
    const { client } = await connect(who.token, { query: "?groups=mcptest", capabilities: { elicitation: { form: {} } } });
    const asked: ElicitRequest["params"][] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params);
      return { action: "accept", content: {} };
    });
    const disguised = "Q3 report\u202Egpj.exe";
    const ran = await client.callTool({ name: "mcp_stamp", arguments: { text: disguised } });
    expect(asked).toHaveLength(1);
    const message = asked[0]?.message ?? "";
    expect(message).toBe(t.mcp.elicitation(
      "mcp_stamp", "Stamps a document once per approval (MCP test tool).", '{"text":"Q3 report⟦U+202E⟧gpj.exe"}', "always", ["text"],
    ));
    expect(message).toContain("Warning: hidden characters (shown as ⟦U+…⟧) in text.");
    expect(message).not.toContain("\u202E");
    expect(textOf(ran)).toBe(JSON.stringify({ text: disguised }));
    await client.close();
  });
});
