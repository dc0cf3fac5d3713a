// MCP 2026-07-28 on /mcp beside the 2025 revisions: the v2 SDK's client in every era (auto, pinned, legacy) and the
// 1.x client, each with list, search and call_tool across separate connections; approvals as multi-round-trip
// requests; list_changed through subscriptions/listen; every refusal of the headers, the version and the request
// state. Each modern answer is checked against the revision's JSON Schema (modernHelpers.ts).
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { texts } from "../../src/core/locale.ts";
import { META, MODERN_ERROR } from "../../src/core/mcp/modern.ts";
import { CALL_TOOL_NAME } from "../../src/core/turn/callTool.ts";
import { loadSettings } from "../../src/isolate/settings.ts";
import { requestStateKey, sealRequestState } from "../../src/mcp/requestState.ts";
import { CONFIRM_INPUT_KEY, SERVED_PROTOCOL_VERSIONS, SESSION_META_KEY, STATELESS_SESSION_ID } from "../../src/mcp/stateless.ts";
import { api } from "../http/helpers.ts";
import { registerMcpTestTools } from "./fixtures.ts";
import { approvalUrlOf, confirmationOf, connect, principal, textOf, warmUp } from "./helpers.ts";
import { connectV2, expectSchema, modernAnswer, modernMeta, modernRpc, needsSchema } from "./modernHelpers.ts";
import type { Negotiation } from "./modernHelpers.ts";

const t = texts("en");
const QUERY = "?groups=mcptest";

beforeAll(async () => {
  await registerMcpTestTools();
  await warmUp();
}, 60_000);

async function caller(label: string, claims: Record<string, unknown> = {}): Promise<string> {
  return (await principal(label, { groups: ["mcptest"], ...claims })).token;
}

function names(tools: { name: string }[]): string[] {
  return tools.map((tool) => tool.name);
}

function resultOf(message: Record<string, unknown>): Record<string, unknown> {
  const result = message["result"];
  if (typeof result !== "object" || result === null || Array.isArray(result)) throw new Error(`no result: ${JSON.stringify(message)}`);
  return { ...result };
}

function errorOf(message: Record<string, unknown>): { code: number; message: string; data?: Record<string, unknown> } {
  const error = message["error"];
  if (typeof error !== "object" || error === null || !("code" in error) || typeof error.code !== "number" ||
    !("message" in error) || typeof error.message !== "string") {
    throw new Error(`no error: ${JSON.stringify(message)}`);
  }
  const data = "data" in error && typeof error.data === "object" && error.data !== null ? { ...error.data } : undefined;
  return { code: error.code, message: error.message, ...(data ? { data } : {}) };
}

describe("the v2 client in each era, and the 1.x client: search in one connection, call_tool in the next", () => {
  const modes: [string, Negotiation, string][] = [
    ["auto", "auto", "2026-07-28"],
    ["pinned", { pin: "2026-07-28" }, "2026-07-28"],
    ["legacy", "legacy", "2025-11-25"],
  ];
  for (const [label, mode, version] of modes) {
    it(`${label}: negotiates ${version}; list, search, then call_tool from a second connection`, async (context) => {
      if (version === "2026-07-28") needsSchema(context);
      const token = await caller(`v2-${label}`);
      const first = await connectV2(token, mode, { query: QUERY });
      expect(first.client.getNegotiatedProtocolVersion()).toBe(version);
      const listed = await first.client.listTools();
      expect(names(listed.tools)).toEqual(["search_tools", CALL_TOOL_NAME]);
      const found = await first.client.callTool({ name: "search_tools", arguments: { query: "Notes" } });
      expect(found.structuredContent).toMatchObject({ tools: [{ name: "mcp_note" }] });
      await first.client.close();

      const second = await connectV2(token, mode, { query: QUERY });
      const ran = await second.client.callTool({ name: CALL_TOOL_NAME, arguments: { name: "mcp_note", arguments: { text: "hi" } } });
      expect(ran).toMatchObject({ content: [{ type: "text", text: '{"text":"hi"}' }], isError: false });
      await second.client.close();

      const isModern = version === "2026-07-28";
      const modern = [...first.log.answers, ...second.log.answers].filter((answer) => answer.era === "modern");
      const methods = ["server/discover", "tools/list", "tools/call", "server/discover", "tools/call"];
      expect(modern.map((answer) => answer.method)).toEqual(isModern ? methods : []);
      // No session header in the modern revision: the server mints none (a 2025 session keeps its own).
      expect(second.log.headers.some((headers) => headers.has("mcp-session-id"))).toBe(!isModern);
      const serverInfo = { [META.serverInfo]: { name: "toolgate", version: expect.any(String) } };
      expect(modern.map((answer) => resultOf(answer.message)["_meta"])).toEqual(modern.map(() => serverInfo));
      const lists = modern.filter((answer) => answer.method === "tools/list").map((answer) => resultOf(answer.message));
      expect(lists).toMatchObject(isModern ? [{ resultType: "complete", cacheScope: "private", ttlMs: 60_000 }] : []);
    });
  }

  it("the 1.x client (each command its own MCP session, as the Inspector's CLI): search, then call_tool in the next", async () => {
    const token = await caller("v1-inspector");
    const searching = await connect(token, { query: QUERY });
    await searching.client.callTool({ name: "search_tools", arguments: { query: "Notes" } });
    await searching.client.close();
    const calling = await connect(token, { query: QUERY });
    expect(calling.sessionId).not.toBe(searching.sessionId);
    const ran = await calling.client.callTool({ name: CALL_TOOL_NAME, arguments: { name: "mcp_note", arguments: { text: "next" } } });
    expect(ran).toEqual({ content: [{ type: "text", text: '{"text":"next"}' }], isError: false });
    // The guard is still the boundary: a tool of a group the caller may not use reads as unknown.
    const gated = await calling.client.callTool({ name: CALL_TOOL_NAME, arguments: { name: "mcp_secret", arguments: {} } });
    expect(gated.isError).toBe(true);
    expect(JSON.parse(textOf(gated)).error).toMatch(/^Unknown tool "mcp_secret"/);
    await calling.client.close();
  });
});

describe("tools/list of the modern revision", () => {
  it("is deterministic, cacheable per caller, and follows the session the request names", async (context) => {
    needsSchema(context);
    const token = await caller("list");
    const session = `conv-${crypto.randomUUID()}`;
    const list = async (meta: Record<string, unknown>): Promise<Record<string, unknown>> =>
      resultOf(await modernAnswer(await modernRpc(token, "tools/list", { _meta: modernMeta(meta) }), "tools/list"));
    const base = await list({});
    expect(await list({})).toEqual(base);
    expect(base).toMatchObject({ resultType: "complete", cacheScope: "private", ttlMs: 60_000 });
    // A search in a named session: that session's list grows; the base list does not.
    const search = await modernRpc(token, "tools/call", { name: "search_tools", arguments: { query: "Notes" }, _meta: modernMeta({ [SESSION_META_KEY]: session }) });
    expect(resultOf(await modernAnswer(search, "tools/call"))["isError"]).toBe(false);
    const named = await list({ [SESSION_META_KEY]: session });
    expect(named["ttlMs"]).toBe(0);
    expect(JSON.stringify(named["tools"])).toContain('"mcp_note"');
    expect(await list({})).toEqual(base);
    // The same session over /v1 (its :sid): one session object, one discovered set.
    const prepared = await api(`/v1/sessions/${session}/prepare`, { token, body: { messages: [], enabledGroups: ["mcptest"] } });
    expect(await prepared.json()).toMatchObject({ discovered: ["mcp_note"] });
  });
});

/** A v2 client pinned to 2026-07-28 that answers every elicitation with `answers` in turn, noting what it was asked. */
async function eliciting(label: string, answers: ("accept" | "decline" | "cancel")[]): Promise<{ client: Awaited<ReturnType<typeof connectV2>>["client"]; asked: string[] }> {
  const token = await caller(label);
  const { client } = await connectV2(token, { pin: "2026-07-28" }, { query: QUERY, capabilities: { elicitation: { form: {} } } });
  const asked: string[] = [];
  client.setRequestHandler("elicitation/create", (request) => {
    asked.push("message" in request.params ? request.params.message : "");
    return { action: answers.shift() ?? "cancel" };
  });
  return { client, asked };
}

describe("approvals as multi-round-trip requests (v2 client, 2026-07-28)", () => {

  it("accept runs exactly that call once; the next call asks again, and decline refuses", async (context) => {
    needsSchema(context);
    const { client, asked } = await eliciting("mrtr-accept", ["accept", "decline"]);
    const ran = await client.callTool({ name: "mcp_stamp", arguments: { text: "contract" } });
    expect(ran).toMatchObject({ content: [{ type: "text", text: '{"text":"contract"}' }], isError: false });
    expect(asked).toEqual([t.mcp.elicitation("mcp_stamp", "Stamps a document once per approval (MCP test tool).", '{"text":"contract"}', "always")]);
    const declined = await client.callTool({ name: "mcp_stamp", arguments: { text: "contract" } });
    expect(declined).toMatchObject({ content: [{ type: "text", text: t.mcp.declined("mcp_stamp") }], isError: true });
    expect(asked).toHaveLength(2);
    await client.close();
  });

  it("cancel holds the call for an approval over HTTP, as for a client without elicitation", async () => {
    const { client } = await eliciting("mrtr-cancel", ["cancel"]);
    const held = await client.callTool({ name: "mcp_stamp", arguments: { text: "later" } });
    expect(held.isError).toBe(true);
    const confirmation = confirmationOf(held);
    expect(textOf(held)).toBe(t.mcp.approveOverHttp("mcp_stamp", confirmation.id, STATELESS_SESSION_ID, "always", approvalUrlOf(held)));
    await client.close();
  });

  it("a client without elicitation gets the held result at once (no input_required)", async () => {
    const token = await caller("mrtr-none");
    const { client, log } = await connectV2(token, { pin: "2026-07-28" }, { query: QUERY });
    const held = await client.callTool({ name: "mcp_stamp", arguments: { text: "x" } });
    expect(confirmationOf(held).tool).toBe("mcp_stamp");
    expect(log.answers.some((answer) => JSON.stringify(answer.message).includes("input_required"))).toBe(false);
    await client.close();
  });
});

/** A held call's first round: the input_required answer, its elicitation and state. */
async function firstRound(token: string, args: Record<string, unknown>, session?: string): Promise<{ state: string; message: string }> {
  const meta = modernMeta(session ? { [SESSION_META_KEY]: session } : {}, { elicitation: { form: {} } });
  const answer = resultOf(await modernAnswer(await modernRpc(token, "tools/call", { name: "mcp_stamp", arguments: args, _meta: meta }), "tools/call"));
  expect(answer["resultType"]).toBe("input_required");
  const requests = answer["inputRequests"];
  const state = answer["requestState"];
  if (typeof state !== "string" || typeof requests !== "object" || requests === null || !(CONFIRM_INPUT_KEY in requests)) {
    throw new Error(`not an approval: ${JSON.stringify(answer)}`);
  }
  return { state, message: JSON.stringify(requests) };
}

function retry(token: string, args: Record<string, unknown>, state: string, action: string, session?: string): Promise<Response> {
  return modernRpc(token, "tools/call", {
    name: "mcp_stamp",
    arguments: args,
    requestState: state,
    inputResponses: { [CONFIRM_INPUT_KEY]: { action } },
    _meta: modernMeta(session ? { [SESSION_META_KEY]: session } : {}, { elicitation: { form: {} } }),
  });
}

async function refusal(response: Response): Promise<string | undefined> {
  const message = await modernAnswer(response, "tools/call");
  const error = errorOf(message);
  expect(error.code).toBe(MODERN_ERROR.invalidParams);
  const code = error.data?.["code"];
  return typeof code === "string" ? code : undefined;
}

describe("the request state of an approval is refused unless it is exactly the retry it was issued for", () => {
  it("runs the accepted retry once; a replay of the same state is refused", async (context) => {
    needsSchema(context);
    const token = await caller("state-replay");
    const args = { text: "once" };
    const { state, message } = await firstRound(token, args);
    expect(message).toContain("mcp_stamp");
    expect(message).toContain("Stamps a document once per approval");
    const ran = resultOf(await modernAnswer(await retry(token, args, state, "accept"), "tools/call"));
    expect(ran).toMatchObject({ resultType: "complete", isError: false, content: [{ type: "text", text: '{"text":"once"}' }] });
    expect(await refusal(await retry(token, args, state, "accept"))).toBe("request_state_used");
  });

  it("refuses another principal's state", async () => {
    const owner = await caller("state-owner");
    const thief = await caller("state-thief");
    const args = { text: "mine" };
    const { state } = await firstRound(owner, args);
    expect(await refusal(await retry(thief, args, state, "accept"))).toBe("request_state_principal");
    // The owner's approval is still open and works.
    expect(resultOf(await modernAnswer(await retry(owner, args, state, "accept"), "tools/call"))["isError"]).toBe(false);
  });

  it("refuses changed arguments, and a state from another session", async () => {
    const token = await caller("state-args");
    const { state } = await firstRound(token, { text: "approved" });
    expect(await refusal(await retry(token, { text: "swapped" }, state, "accept"))).toBe("request_state_arguments");
    expect(await refusal(await retry(token, { text: "approved" }, state, "accept", `other-${crypto.randomUUID()}`))).toBe("request_state_session");
  });

  it("refuses a forged or altered state", async () => {
    const token = await caller("state-forged");
    const args = { text: "x" };
    const { state } = await firstRound(token, args);
    const [payload, mac] = state.split(".");
    const flipped = `${payload ?? ""}.${(mac ?? "").startsWith("A") ? "B" : "A"}${(mac ?? "").slice(1)}`;
    expect(await refusal(await retry(token, args, flipped, "accept"))).toBe("request_state_forged");
    expect(await refusal(await retry(token, args, "not-a-state", "accept"))).toBe("request_state_forged");
    const otherKey = await crypto.subtle.importKey("raw", new TextEncoder().encode("another-secret-of-at-least-32-characters"), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    const forged = await sealRequestState(otherKey, JSON.parse(new TextDecoder().decode(Uint8Array.from(atob((payload ?? "").replaceAll("-", "+").replaceAll("_", "/")), (c) => c.charCodeAt(0)))));
    expect(await refusal(await retry(token, args, forged, "accept"))).toBe("request_state_forged");
  });

  it("refuses an expired state (sealed here, with an expiry in the past)", async () => {
    const token = await caller("state-expired");
    const args = { text: "late" };
    const { state } = await firstRound(token, args);
    const payload = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob((state.split(".")[0] ?? "").replaceAll("-", "+").replaceAll("_", "/")), (c) => c.charCodeAt(0))));
    const loaded = loadSettings(env);
    if (!loaded.ok) throw loaded.error;
    const key = requestStateKey(loaded.settings);
    if (!key) throw new Error("the test Worker has no request-state key");
    const expired = await sealRequestState(await key, { ...payload, expiresAt: Date.now() - 1 });
    expect(await refusal(await retry(token, args, expired, "accept"))).toBe("request_state_expired");
  });

  it("decline answers as today, and an answer left out asks again", async () => {
    const token = await caller("state-decline");
    const args = { text: "no" };
    const { state } = await firstRound(token, args);
    const again = resultOf(await modernAnswer(await modernRpc(token, "tools/call", {
      name: "mcp_stamp", arguments: args, requestState: state, inputResponses: {}, _meta: modernMeta({}, { elicitation: { form: {} } }),
    }), "tools/call"));
    expect(again["resultType"]).toBe("input_required");
    const declined = resultOf(await modernAnswer(await retry(token, args, state, "decline"), "tools/call"));
    expect(declined).toMatchObject({ isError: true, content: [{ type: "text", text: t.mcp.declined("mcp_stamp") }] });
  });
});

describe("headers, versions and methods of the modern revision", () => {
  it("server/discover names every revision served", async (context) => {
    needsSchema(context);
    const token = await caller("discover");
    const answer = resultOf(await modernAnswer(await modernRpc(token, "server/discover", {}), "server/discover"));
    expect(answer).toMatchObject({ resultType: "complete", supportedVersions: [...SERVED_PROTOCOL_VERSIONS], capabilities: { tools: { listChanged: true } } });
    // The instructions are text (they once were the function that makes them, which JSON drops).
    expect(answer["instructions"]).toBe(t.mcp.instructions(false));
    expect(SERVED_PROTOCOL_VERSIONS.slice(0, 2)).toEqual(["2026-07-28", "2025-11-25"]);
  });

  it("refuses a revision neither side shares with UnsupportedProtocolVersionError (400)", async () => {
    const token = await caller("version");
    const meta = { ...modernMeta(), [META.protocolVersion]: "2099-01-01" };
    const response = await modernRpc(token, "tools/list", { _meta: meta }, { "mcp-protocol-version": "2099-01-01" });
    expect(response.status).toBe(400);
    const message = await modernAnswer(response, "tools/list");
    expectSchema("UnsupportedProtocolVersionError", message);
    expect(errorOf(message).data).toEqual({ supported: [...SERVED_PROTOCOL_VERSIONS], requested: "2099-01-01" });
  });

  it("refuses headers that are missing or do not match the body with HeaderMismatch (400)", async () => {
    const token = await caller("headers");
    const cases: Record<string, string | null>[] = [
      { "mcp-method": null },
      { "mcp-method": "tools/list" },
      { "mcp-name": null },
      { "mcp-name": "mcp_stamp" },
      { "mcp-name": "=?base64?not base64?=" },
      { "mcp-protocol-version": null },
    ];
    for (const headers of cases) {
      const response = await modernRpc(token, "tools/call", { name: "mcp_note", arguments: { text: "x" } }, headers);
      expect({ headers, status: response.status }).toEqual({ headers, status: 400 });
      const message = await modernAnswer(response, "tools/call");
      expectSchema("HeaderMismatchError", message);
    }
    // The Base64 sentinel is decoded before the comparison.
    const encoded = await modernRpc(token, "tools/call", { name: "mcp_note", arguments: { text: "x" } }, { "mcp-name": `=?base64?${btoa("mcp_note")}?=` });
    expect(resultOf(await modernAnswer(encoded, "tools/call"))["isError"]).toBe(false);
  });

  it("answers an unknown method 404 -32601, and a request without _meta as invalid params", async () => {
    const token = await caller("methods");
    const unknown = await modernRpc(token, "ping", {});
    expect(unknown.status).toBe(404);
    expect(errorOf(await modernAnswer(unknown, "ping")).code).toBe(MODERN_ERROR.methodNotFound);
    const bad = await modernRpc(token, "tools/list", { _meta: { [META.protocolVersion]: "2026-07-28" } });
    expect(bad.status).toBe(400);
    expect(errorOf(await modernAnswer(bad, "tools/list")).code).toBe(MODERN_ERROR.invalidParams);
  });

  it("the v2 client pinned to 2026-07-28 surfaces a refusal (a session id of the wrong shape) as an error", async () => {
    const token = await caller("v2-refusal");
    const { client } = await connectV2(token, { pin: "2026-07-28" }, { query: QUERY });
    await expect(client.callTool({ name: "mcp_note", arguments: { text: "x" }, _meta: { [SESSION_META_KEY]: "no/slashes" } })).rejects.toThrow(/toolgate\/session/);
    await client.close();
  });
});

describe("subscriptions/listen", () => {
  it("the v2 client's listen() gets list_changed after a search in its session", async (context) => {
    needsSchema(context);
    const token = await caller("listen-v2");
    const { client } = await connectV2(token, { pin: "2026-07-28" }, { query: QUERY, session: `v2-${crypto.randomUUID()}` });
    let changed = 0;
    const seen = new Promise<void>((resolve) => {
      client.setNotificationHandler("notifications/tools/list_changed", () => {
        changed += 1;
        resolve();
      });
    });
    const subscription = await client.listen({ toolsListChanged: true });
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });
    expect(names((await client.listTools()).tools)).toEqual(["search_tools", CALL_TOOL_NAME]);
    await client.callTool({ name: "search_tools", arguments: { query: "Notes" } });
    await seen;
    expect(changed).toBe(1);
    expect(names((await client.listTools()).tools)).toContain("mcp_note");
    await subscription.close();
    await client.close();
  });

  it("acknowledges toolsListChanged and carries list_changed when the named session's list grows", async () => {
    const token = await caller("listen");
    const session = `listen-${crypto.randomUUID()}`;
    const meta = modernMeta({ [SESSION_META_KEY]: session });
    const response = await modernRpc(token, "subscriptions/listen", { notifications: { toolsListChanged: true, promptsListChanged: true }, _meta: meta });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
    if (!reader) throw new Error("no stream");
    let buffered = "";
    const nextEvent = async (): Promise<Record<string, unknown>> => {
      for (;;) {
        const end = buffered.indexOf("\n\n");
        if (end >= 0) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const data = block.split("\n").find((line) => line.startsWith("data: "));
          if (data !== undefined) return JSON.parse(data.slice(6));
          continue;
        }
        const chunk = await reader.read();
        if (chunk.done) throw new Error("the stream ended");
        buffered += chunk.value;
      }
    };
    const ack = await nextEvent();
    expectSchema("SubscriptionsAcknowledgedNotification", ack);
    expect(ack).toMatchObject({ method: "notifications/subscriptions/acknowledged", params: { notifications: { toolsListChanged: true } } });
    const subscriptionId: unknown = JSON.parse(JSON.stringify(ack))?.params?.["_meta"]?.[META.subscriptionId];
    expect(typeof subscriptionId).toBe("number");
    await modernRpc(token, "tools/call", { name: "search_tools", arguments: { query: "Notes" }, _meta: meta });
    const changed = await nextEvent();
    expectSchema("ToolListChangedNotification", changed);
    expect(changed).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: { [META.subscriptionId]: subscriptionId } } });
    await reader.cancel();
  });

  it("honours nothing for a request that names no session (its base list changes with the registry alone)", async (context) => {
    needsSchema(context);
    const token = await caller("listen-base");
    const response = await modernRpc(token, "subscriptions/listen", { notifications: { toolsListChanged: true } });
    const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
    if (!reader) throw new Error("no stream");
    const first = await reader.read();
    const data = (first.value ?? "").split("\n").find((line) => line.startsWith("data: ")) ?? "data: null";
    const ack: unknown = JSON.parse(data.slice(6));
    expectSchema("SubscriptionsAcknowledgedNotification", ack);
    expect(ack).toMatchObject({ params: { notifications: {} } });
    await reader.cancel();
  });
});
