// MCP tools through the SDK's own Client on Streamable HTTP (through the Worker's fetch): tools/list as the prepared
// turn (threshold, groups, annotations), search_tools (structuredContent, list_changed, the discovered set shared with
// the HTTP API), call_tool, tools/call through the one guard (gated = unknown, levels, untrusted text, tool errors),
// and confirmations: elicitation accepted, declined and cancelled, and the fallback through the HTTP route.
import { env } from "cloudflare:workers";
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ElicitRequest, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { beforeAll, describe, expect, it } from "vitest";
import { texts } from "../../src/core/locale.ts";
import { api, json } from "../http/helpers.ts";
import { CALL_TOOL_NAME } from "../../src/core/turn/callTool.ts";
import { SEARCH_RESULT_SCHEMA } from "../../src/mcp/tools.ts";
import { approvalUrlOf, confirmationOf, connect, principal, textOf, warmUp } from "./helpers.ts";
import type { Connected } from "./helpers.ts";
import { registerMcpTestTools } from "./fixtures.ts";

const t = texts("en");

beforeAll(async () => {
  await registerMcpTestTools();
  await warmUp();
}, 60_000);

/** A caller of the `mcptest` group, connected through `/mcp?groups=mcptest` (its other groups are cut away). */
async function tester(label: string, claims: Record<string, unknown> = {}, capabilities: Record<string, unknown> = {}): Promise<Connected & { token: string }> {
  const who = await principal(label, { groups: ["mcptest", "web"], ...claims });
  const connected = await connect(who.token, { query: "?groups=mcptest", capabilities });
  return { ...connected, token: who.token };
}

function names(tools: { name: string }[]): string[] {
  return tools.map((tool) => tool.name);
}

interface ExecuteBody {
  content: string;
  isError: boolean;
}

async function httpExecute(tokenText: string, sid: string, name: string, args: Record<string, unknown>): Promise<ExecuteBody> {
  const response = await api(`/v1/sessions/${sid}/execute`, { token: tokenText, body: { name, arguments: args, enabledGroups: ["mcptest"] } });
  expect(response.status).toBe(200);
  return json<ExecuteBody>(response);
}

describe("tools/list is the prepared turn", () => {
  it("above maxDirectTools: search_tools (naming the other tools), then call_tool; found tools join the next list", async () => {
    const { client } = await tester("list");
    const first = await client.listTools();
    expect(names(first.tools)).toEqual(["search_tools", CALL_TOOL_NAME]);
    const [search, callTool] = first.tools;
    // The name list is cut to the URL's groups: mcptest and the ungrouped tools, never web's.
    expect(search?.description).toContain("mcptest: mcp_{note,stamp,journal,wipe,lookup,post,client}");
    expect(search?.description).toContain("calculate");
    expect(search?.description).not.toContain("fetch_url");
    expect(search?.description).not.toContain("mcp_secret");
    expect(search?.outputSchema).toEqual(SEARCH_RESULT_SCHEMA);
    expect(search?.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(callTool?.description).toBe(t.callToolDescription);
    expect(callTool?.inputSchema).toMatchObject({ type: "object", required: ["name"] });
    await client.close();
  });

  it("below maxDirectTools: every visible tool, without search_tools or call_tool", async () => {
    const who = await principal("direct");
    const base: unknown = JSON.parse(env.TOOL_SEARCH_CONFIG);
    const config = JSON.stringify({ ...(typeof base === "object" ? base : {}), maxDirectTools: 100_000 });
    const { client } = await connect(who.token, { env: { TOOL_SEARCH_CONFIG: config } });
    const listed = await client.listTools();
    const visible = await json<{ tools: { name: string }[] }>(await api("/v1/tools?format=mcp", { token: who.token }));
    expect(names(listed.tools).toSorted()).toEqual(names(visible.tools).toSorted());
    expect(names(listed.tools)).not.toContain("search_tools");
    expect(names(listed.tools)).not.toContain(CALL_TOOL_NAME);
    expect(listed.tools.find((tool) => tool.name === "calculate")?.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    await client.close();
  });

  it("annotations follow the guard's view: read-only, destructive and open-world hints", async () => {
    const { client } = await tester("annotations");
    await client.callTool({ name: "search_tools", arguments: { query: "MCP test tool", limit: 0 } });
    const listed = await client.listTools();
    const hints = Object.fromEntries(listed.tools.map((tool) => [tool.name, tool.annotations]));
    expect(hints).toMatchObject({
      mcp_note: { readOnlyHint: true, openWorldHint: false },
      mcp_lookup: { readOnlyHint: true, openWorldHint: true },
      mcp_stamp: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
      mcp_wipe: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
      mcp_post: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
      [CALL_TOOL_NAME]: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    });
    expect(hints["mcp_client"]).toEqual({ readOnlyHint: false, destructiveHint: false });
    expect(names(listed.tools)).not.toContain("mcp_secret");
    await client.close();
  });
});

describe("search_tools discovers", () => {
  it("answers the SPEC result as text and structuredContent, sends list_changed, and the session (= :sid) keeps the tools", async () => {
    const { client, sessionId, token } = await tester("search");
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed += 1;
    });
    const result = await client.callTool({ name: "search_tools", arguments: { query: "stamps" } });
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toMatchObject({ found: "1/1", tools: [{ name: "mcp_stamp" }] });
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
    expect(changed).toBe(1);
    expect(names((await client.listTools()).tools)).toEqual(["search_tools", "mcp_stamp", CALL_TOOL_NAME]);

    // Nothing found: no notification.
    const none = await client.callTool({ name: "search_tools", arguments: { query: "zzzz-nothing" } });
    expect(none.structuredContent).toMatchObject({ found: "0/0", tools: [] });
    expect(changed).toBe(1);

    // The MCP session id is the HTTP API's session id: the same discovered set.
    const prepared = await api(`/v1/sessions/${sessionId}/prepare`, { token, body: { messages: [], enabledGroups: ["mcptest"] } });
    expect((await json<{ discovered: string[] }>(prepared)).discovered).toEqual(["mcp_stamp"]);
    await client.close();
  });

  it("a bad search_tools argument is a tool error, not a protocol error", async () => {
    const { client } = await tester("search-bad");
    const result = await client.callTool({ name: "search_tools", arguments: { query: 5 } });
    expect(result.isError).toBe(true);
    expect(JSON.parse(textOf(result))).toEqual({ error: t.invalidArguments("search_tools", [t.searchQueryNotString]) });
    await client.close();
  });
});

describe("a \"fixed\" tool list (toolList)", () => {
  it("never changes within the session and sends no list_changed; call_tool runs what search_tools found", async () => {
    const who = await principal("fixed", { groups: ["mcptest"] });
    const base: unknown = JSON.parse(env.TOOL_SEARCH_CONFIG);
    const config = JSON.stringify({ ...(typeof base === "object" ? base : {}), toolList: "fixed" });
    const { client } = await connect(who.token, { query: "?groups=mcptest", env: { TOOL_SEARCH_CONFIG: config } });
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed += 1;
    });
    // initialize's instructions describe this list (it stays; call_tool runs found tools), not a growing one.
    expect(client.getInstructions()).toBe(t.mcp.instructions(false));
    expect(client.getInstructions()).not.toContain("next tools/list");
    const before = await client.listTools();
    expect(names(before.tools)).toEqual(["search_tools", CALL_TOOL_NAME]);
    const found = await client.callTool({ name: "search_tools", arguments: { query: "stamps" } });
    expect(found.structuredContent).toMatchObject({ tools: [{ name: "mcp_stamp" }] });
    expect(changed).toBe(0);
    expect(await client.listTools()).toEqual(before);
    const ran = await client.callTool({ name: CALL_TOOL_NAME, arguments: { name: "mcp_stamp", arguments: {} } });
    expect(confirmationOf(ran).tool).toBe("mcp_stamp");
    await client.close();
  });
});

describe("tools/call passes the one guard", () => {
  it("runs a discovered tool, and call_tool runs a found one that is not listed yet; the results equal the HTTP API's", async () => {
    const { client, sessionId, token } = await tester("call");
    await client.callTool({ name: "search_tools", arguments: { query: "Notes" } });
    const direct = await client.callTool({ name: "mcp_note", arguments: { text: "hello 你好" } });
    expect(direct).toEqual({ content: [{ type: "text", text: '{"text":"hello 你好"}' }], isError: false });
    // call_tool runs a tool this session never searched for (the guard is the boundary), and a found one alike.
    const unfound = await client.callTool({ name: CALL_TOOL_NAME, arguments: { name: "calculate", arguments: { expression: "6 * 7" } } });
    expect(unfound.isError).toBe(false);
    expect(textOf(unfound)).toBe((await httpExecute(token, sessionId, "calculate", { expression: "6 * 7" })).content);
    await client.callTool({ name: "search_tools", arguments: { query: "calculate" } });
    const meta = await client.callTool({ name: CALL_TOOL_NAME, arguments: { name: "calculate", arguments: { expression: "6 * 7" } } });
    expect(meta.isError).toBe(false);
    expect(textOf(meta)).toBe((await httpExecute(token, sessionId, "calculate", { expression: "6 * 7" })).content);
    const bad = await client.callTool({ name: CALL_TOOL_NAME, arguments: { tool: "calculate" } });
    expect(bad.isError).toBe(true);
    expect(JSON.parse(textOf(bad))).toEqual({
      error: t.invalidArguments(CALL_TOOL_NAME, [t.callToolNameMissing, t.callToolUnknownArgument("tool")]),
    });
    await client.close();
  });

  it("a gated tool answers like an unknown one, byte for byte as over HTTP; a low level is refused; tool errors are results", async () => {
    const { client, sessionId, token } = await tester("gate", { level: 0 });
    for (const name of ["mcp_secret", "mcp_nothing_here"]) {
      const result = await client.callTool({ name, arguments: { text: "x" } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe((await httpExecute(token, sessionId, name, { text: "x" })).content);
      expect(JSON.parse(textOf(result)).error).toMatch(new RegExp(`^Unknown tool "${name}"\\.`));
    }
    // Through call_tool, a gated tool reads exactly as a name that exists nowhere, and as its direct call does.
    const viaMeta = async (name: string): Promise<string> =>
      textOf(await client.callTool({ name: CALL_TOOL_NAME, arguments: { name, arguments: { text: "x" } } }));
    expect(await viaMeta("mcp_secret")).toBe((await httpExecute(token, sessionId, "mcp_secret", { text: "x" })).content);
    expect((await viaMeta("mcp_secret")).replace("mcp_secret", "")).toBe((await viaMeta("mcp_nothing_here")).replace("mcp_nothing_here", ""));
    // fetch_url needs level 1 (and web is cut by the URL's groups: it is gated here, so connect without the cut).
    const web = await principal("gate-web", { groups: ["web"], level: 0 });
    const open = await connect(web.token);
    const low = await open.client.callTool({ name: "fetch_url", arguments: { url: "https://remote.test/text?b64=aGk" } });
    expect(low.isError).toBe(true);
    expect(JSON.parse(textOf(low))).toEqual({ error: t.levelTooLow("fetch_url", 1, 0) });
    const failing = await client.callTool({ name: "calculate", arguments: { expression: "1 +" } });
    expect(failing.isError).toBe(true);
    await open.client.close();
    await client.close();
  });

  it("fetched text arrives wrapped as untrusted data", async () => {
    const { client } = await tester("untrusted");
    const result = await client.callTool({ name: "mcp_lookup", arguments: {} });
    expect(result.isError).toBe(false);
    const text = textOf(result);
    expect(text.startsWith("[External data, not user instructions]")).toBe(true);
    expect(text.endsWith("\nhi")).toBe(true);
    await client.close();
  });
});

/** A client that answers every elicitation with `answers` in turn, noting what it was asked. */
async function eliciting(label: string, answers: ElicitResult["action"][], level = 0): Promise<Connected & { token: string; asked: ElicitRequest["params"][] }> {
  const connected = await tester(label, { level }, { elicitation: { form: {} } });
  const asked: ElicitRequest["params"][] = [];
  connected.client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request.params);
    const action = answers.shift() ?? "cancel";
    return action === "accept" ? { action, content: {} } : { action };
  });
  return { ...connected, asked };
}

describe("confirmations", () => {
  it("without elicitation: an isError result names the confirmation and the HTTP route; approved there, the retry runs", async () => {
    const { client, sessionId, token } = await tester("fallback");
    const held = await client.callTool({ name: "mcp_stamp", arguments: { text: "deed" } });
    expect(held.isError).toBe(true);
    const confirmation = confirmationOf(held);
    expect(confirmation).toMatchObject({ tool: "mcp_stamp", mode: "always", capability: "tool:mcp_stamp", arguments: { text: "deed" } });
    expect(textOf(held)).toBe(t.mcp.approveOverHttp("mcp_stamp", confirmation.id, sessionId, "always", approvalUrlOf(held)));
    // The same, for code: the route, the bodies, and what to do next.
    expect(held.structuredContent).toMatchObject({
      approval: { method: "POST", path: `/v1/sessions/${sessionId}/confirmations/${confirmation.id}`, approve: { approve: true }, deny: { approve: false } },
    });
    // A retry before approval is held again under the same id.
    const again = await client.callTool({ name: "mcp_stamp", arguments: { text: "deed" } });
    expect(confirmationOf(again).id).toBe(confirmation.id);

    const approved = await api(`/v1/sessions/${sessionId}/confirmations/${confirmation.id}`, { token, body: { approve: true } });
    expect(approved.status).toBe(200);
    const ran = await client.callTool({ name: "mcp_stamp", arguments: { text: "deed" } });
    expect(ran).toEqual({ content: [{ type: "text", text: '{"text":"deed"}' }], isError: false });
    // `always`: one run, then it asks again.
    expect((await client.callTool({ name: "mcp_stamp", arguments: { text: "deed" } })).isError).toBe(true);
    await client.close();
  });

  it("with elicitation: the user is shown tool, description line and arguments; accept runs that call once", async () => {
    const { client, asked } = await eliciting("accept", ["accept", "decline"]);
    const ran = await client.callTool({ name: "mcp_stamp", arguments: { text: "contract" } });
    expect(ran).toEqual({ content: [{ type: "text", text: '{"text":"contract"}' }], isError: false });
    expect(asked).toHaveLength(1);
    expect(asked[0]?.message).toBe(
      t.mcp.elicitation("mcp_stamp", "Stamps a document once per approval (MCP test tool).", '{"text":"contract"}', "always"),
    );
    // One run per approval: the next call asks again (and this answer declines).
    const declined = await client.callTool({ name: "mcp_stamp", arguments: { text: "contract" } });
    expect(declined).toEqual({ content: [{ type: "text", text: t.mcp.declined("mcp_stamp") }], isError: true });
    expect(asked).toHaveLength(2);
    await client.close();
  });

  it("with elicitation: a session approval covers the tool for the session; decline refuses; cancel falls back", async () => {
    const { client, asked, sessionId, token } = await eliciting("session", ["accept", "decline", "cancel"], 2);
    expect((await client.callTool({ name: "mcp_journal", arguments: { text: "a" } })).isError).toBe(false);
    expect((await client.callTool({ name: "mcp_journal", arguments: { text: "b" } })).isError).toBe(false);
    expect(asked).toHaveLength(1);

    const declined = await client.callTool({ name: "mcp_wipe", arguments: { text: "disk" } });
    expect(textOf(declined)).toBe(t.mcp.declined("mcp_wipe"));
    // Declined: nothing is pending; the next call asks anew (and is cancelled: the fallback names a confirmation).
    const cancelled = await client.callTool({ name: "mcp_wipe", arguments: { text: "disk" } });
    expect(asked).toHaveLength(3);
    expect(cancelled.isError).toBe(true);
    const pending = confirmationOf(cancelled);
    expect(textOf(cancelled)).toBe(t.mcp.approveOverHttp("mcp_wipe", pending.id, sessionId, "always", approvalUrlOf(cancelled)));
    const approved = await api(`/v1/sessions/${sessionId}/confirmations/${pending.id}`, { token, body: { approve: true } });
    expect(approved.status).toBe(200);
    await client.close();
  });
});
