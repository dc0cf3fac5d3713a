// A call to an OAuth upstream the user has not signed in to, over MCP: a URL-mode elicitation where the client can
// open one (2025-11-25: the URLElicitationRequired error; 2026-07-28: an input_required result whose retry runs the
// call again), else the link in the tool result. The URL is toolgate's own connect page, never the authorization
// server's.
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { SESSION_META_KEY } from "../../src/mcp/stateless.ts";
import { SIGN_IN_INPUT_KEY } from "../../src/mcp/signInElicitation.ts";
import { addUpstream, fixture, signIn, user } from "../support/oauthUpstream.ts";
import { connect, textOf } from "./helpers.ts";
import { modernAnswer, modernMeta, modernRpc, needsSchema } from "./modernHelpers.ts";

const CONNECT_LINK = /^http:\/\/toolgate\.test\/v1\/upstreams\/[A-Za-z0-9_-]+\/oauth\/connect\?ticket=[A-Za-z0-9_.-]+$/;

function record(value: unknown): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(`not an object: ${JSON.stringify(value)}`);
  return { ...value };
}

describe("a sign-in to an upstream over MCP 2025-11-25", () => {
  it("is a URL elicitation (error -32042) for a client that can open URLs; after the sign-in the call runs as the user", async () => {
    const { id, url } = fixture("mcp-url");
    await addUpstream(id, url, { visibility: "public" });
    const alice = await user("alice");
    const { client } = await connect(alice.token, { capabilities: { elicitation: { url: {} } } });
    const failure = await client.callTool({ name: `${id}__whoami`, arguments: {} }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(McpError);
    const error = failure instanceof McpError ? failure : undefined;
    expect(error?.code).toBe(ErrorCode.UrlElicitationRequired);
    const elicitations = record(error?.data)["elicitations"];
    expect(Array.isArray(elicitations)).toBe(true);
    const [asked] = Array.isArray(elicitations) ? elicitations.map(record) : [];
    expect(asked).toMatchObject({ mode: "url", message: expect.stringContaining(`Sign in to ${id}`) });
    expect(String(asked?.["url"])).toMatch(CONNECT_LINK);
    expect(String(asked?.["elicitationId"])).toMatch(/^[0-9a-f-]{36}$/);

    expect((await signIn(String(asked?.["url"]), "alice")).status).toBe(200);
    const result = await client.callTool({ name: `${id}__whoami`, arguments: {} });
    expect(textOf(result)).toContain("user: alice");
    await client.close();
  });

  it("is the link in the tool result for a client without URL elicitation", async () => {
    const { id, url } = fixture("mcp-plain");
    await addUpstream(id, url, { visibility: "public" });
    const bob = await user("bob");
    const { client } = await connect(bob.token, { capabilities: { elicitation: { form: {} } } });
    const result = await client.callTool({ name: `${id}__whoami`, arguments: {} });
    expect(result.isError).toBe(true);
    const link = /http:\/\/toolgate\.test\/v1\/upstreams\/\S+?\/oauth\/connect\?ticket=[A-Za-z0-9_.-]+/.exec(textOf(result))?.[0] ?? "";
    expect(link).toMatch(CONNECT_LINK);
    expect((await signIn(link, "bob")).status).toBe(200);
    expect(textOf(await client.callTool({ name: `${id}__whoami`, arguments: {} }))).toContain("user: bob");
    await client.close();
  });
});

describe("a sign-in to an upstream over MCP 2026-07-28", () => {
  it("is an input_required URL elicitation; its retry runs the call as the user, and no other caller can retry with it", async (context) => {
    needsSchema(context);
    const { id, url } = fixture("mcp-2026");
    await addUpstream(id, url, { visibility: "public" });
    const alice = await user("alice");
    const mallory = await user("mallory");
    const session = `s-${crypto.randomUUID()}`;
    const meta = modernMeta({ [SESSION_META_KEY]: session }, { elicitation: { url: {} } });
    const call = { name: `${id}__whoami`, arguments: {} };
    const first = record((await modernAnswer(await modernRpc(alice.token, "tools/call", { ...call, _meta: meta }), "tools/call"))["result"]);
    expect(first["resultType"]).toBe("input_required");
    const asked = record(record(first["inputRequests"])[SIGN_IN_INPUT_KEY]);
    expect(asked["method"]).toBe("elicitation/create");
    const params = record(asked["params"]);
    expect(params).toMatchObject({ mode: "url" });
    expect(String(params["url"])).toMatch(CONNECT_LINK);
    const requestState = String(first["requestState"]);

    // Another caller cannot use the state.
    const stolen = record(await modernAnswer(await modernRpc(mallory.token, "tools/call", { ...call, requestState, inputResponses: {}, _meta: meta }), "tools/call"));
    expect(record(record(stolen["error"])["data"])["code"]).toBe("request_state_principal");

    expect((await signIn(String(params["url"]), "alice")).status).toBe(200);
    const retried = record((await modernAnswer(await modernRpc(alice.token, "tools/call", {
      ...call,
      requestState,
      inputResponses: { [SIGN_IN_INPUT_KEY]: { action: "accept" } },
      _meta: meta,
    }), "tools/call"))["result"]);
    expect(retried["resultType"]).toBe("complete");
    expect(textOf(retried)).toContain("user: alice");
  });
});
