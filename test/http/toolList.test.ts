// Tool-list modes through the Worker's own fetch: the "fixed" and "stable" tool lists of prepare, and call_tool on execute,
// which runs a found tool through the same path as a direct execute (guard, confirmation bound to its arguments).
// The test Worker runs "grow" (vitest.config.ts); these tests set the mode per request (fetchWithEnv).
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { texts } from "../../src/core/locale.ts";
import { api, fetchWithEnv, json, ownerToken, request, sessionId, token } from "./helpers.ts";

const t = texts("en");

interface ExecuteBody {
  content: string;
  isError: boolean;
  confirmation?: { id: string; tool: string; arguments: unknown };
}

interface PrepareBody {
  tools: { type: string; function: { name: string; description: string } }[];
  discovered: string[];
  stats: { tokensSent: number; tokensPerTool: number[] };
}

function vars(toolList: string): Record<string, string> {
  const base: unknown = JSON.parse(env.TOOL_SEARCH_CONFIG);
  return { TOOL_SEARCH_CONFIG: JSON.stringify({ ...(typeof base === "object" && base !== null ? base : {}), toolList }) };
}

async function call(toolList: string, caller: string, sid: string, route: string, body: unknown): Promise<Response> {
  return fetchWithEnv(vars(toolList), request(`/v1/sessions/${sid}/${route}`, { token: caller, body }));
}

async function execute(toolList: string, caller: string, sid: string, body: Record<string, unknown>): Promise<ExecuteBody> {
  const response = await call(toolList, caller, sid, "execute", body);
  expect(response.status).toBe(200);
  return json<ExecuteBody>(response);
}

async function prepare(toolList: string, caller: string, sid: string): Promise<PrepareBody> {
  const response = await call(toolList, caller, sid, "prepare", { messages: [], enabledGroups: ["tl"] });
  expect(response.status).toBe(200);
  return json<PrepareBody>(response);
}

const TRANSFER = "tl_transfer";
const LANDLORD = { to: "landlord", amount: 10 };
const ATTACKER = { to: "attacker", amount: 99999 };
const FILLERS = Array.from({ length: 8 }, (_, i) => `tl_filler_${i}`);

beforeAll(async () => {
  const owner = await ownerToken("owner-toollist");
  const tools = [
    {
      name: TRANSFER,
      description: "Transfers money to a payee.",
      parameters: { type: "object", properties: { to: { type: "string" }, amount: { type: "integer" } }, required: ["to", "amount"] },
      groups: ["tl"],
      confirm: "always",
      executor: { type: "http", url: "https://remote.test/echo" },
    },
    ...FILLERS.map((name) => ({
      name,
      description: `Filler ${name}.`,
      parameters: { type: "object", properties: {} },
      groups: ["tl"],
      executor: { type: "builtin", name: "echo" },
    })),
  ];
  const response = await api("/v1/tools", { method: "PUT", token: owner, body: { tools, context: "toollist" } });
  if (response.status !== 200) throw new Error(`registering the tools failed: ${await response.text()}`);
}, 60_000);

function newCaller(label: string): Promise<string> {
  return token({ sub: `${label}-${crypto.randomUUID()}`, groups: ["tl"] });
}

describe('toolList "fixed"', () => {
  it("sends search_tools and call_tool, the same bytes before and after a search", async () => {
    const user = await newCaller("fixed-list");
    const sid = sessionId("fixed");
    const before = await prepare("fixed", user, sid);
    expect(before.tools.map((tool) => tool.function.name)).toEqual(["search_tools", "call_tool"]);
    expect(before.tools[0]?.function.description).toContain("call_tool");
    // Each tool's tokens, for a client's billed estimate; together about the list's (its brackets and commas aside).
    expect(before.stats.tokensPerTool).toHaveLength(2);
    const perTool = before.stats.tokensPerTool.reduce((sum, n) => sum + n, 0);
    expect(Math.abs(perTool - before.stats.tokensSent)).toBeLessThanOrEqual(4);
    const found = await json<{ tools: { name: string }[]; hint: string }>(
      await call("fixed", user, sid, "search", { query: "transfers money" }),
    );
    expect(found.tools.map((tool) => tool.name)).toEqual([TRANSFER]);
    expect(found.hint.endsWith(t.hintCallTool)).toBe(true);
    const after = await prepare("fixed", user, sid);
    expect(after.discovered).toEqual([TRANSFER]);
    expect(JSON.stringify(after.tools)).toBe(JSON.stringify(before.tools));
  });

  it("runs a tool the session has not found (the guard is the boundary); a name that exists nowhere is unknown", async () => {
    const user = await newCaller("fixed-unfound");
    const sid = sessionId("unfound");
    const real = await execute("fixed", user, sid, { name: "call_tool", arguments: { name: FILLERS[0], arguments: {} } });
    const direct = await execute("fixed", user, sid, { name: FILLERS[0], arguments: {} });
    expect(real).toEqual(direct);
    const madeUp = await execute("fixed", user, sid, { name: "call_tool", arguments: { name: "tl_nothing", arguments: {} } });
    expect(madeUp).toEqual(await execute("fixed", user, sid, { name: "tl_nothing", arguments: {} }));
    expect(madeUp.isError).toBe(true);
    // A call does not make a tool found: only search adds to the discovered set.
    expect((await prepare("fixed", user, sid)).discovered).toEqual([]);
    // Neither the meta-tools nor a nesting run through it.
    const nested = await execute("fixed", user, sid, { name: "call_tool", arguments: { name: "call_tool" } });
    expect(nested.content).toBe(JSON.stringify({ error: t.callToolNotNested("call_tool") }));
  });

  it("answers malformed call_tool arguments with the problems, as a tool error", async () => {
    const user = await newCaller("fixed-bad");
    const sid = sessionId("bad");
    const body = await execute("fixed", user, sid, { name: "call_tool", arguments: { tool: "x", arguments: [1] } });
    expect(body).toEqual({
      content: JSON.stringify({
        error: t.invalidArguments("call_tool", [t.callToolNameMissing, t.callToolArgumentsNotObject, t.callToolUnknownArgument("tool")]),
      }),
      isError: true,
    });
  });

  it("runs a found tool like a direct execute: its own argument check, and a confirmation bound to its arguments", async () => {
    const user = await newCaller("fixed-run");
    const sid = sessionId("run");
    await call("fixed", user, sid, "search", { query: "filler" });
    const filler = FILLERS[0] ?? "";
    const direct = await execute("fixed", user, sid, { name: filler, arguments: { text: "hi" } });
    const wrapped = await execute("fixed", user, sid, { name: "call_tool", arguments: { name: filler, arguments: '{"text":"hi"}' } });
    expect(wrapped).toEqual(direct);

    await call("fixed", user, sid, "search", { query: "transfers" });
    const asked = await execute("fixed", user, sid, { name: "call_tool", arguments: { name: TRANSFER, arguments: LANDLORD } });
    expect(asked.confirmation).toMatchObject({ tool: TRANSFER, arguments: LANDLORD });
    const id = asked.confirmation?.id ?? "";
    const approved = await call("fixed", user, sid, `confirmations/${id}`, { approve: true });
    expect(approved.status).toBe(200);
    // Other arguments ask again; the approved ones run, once.
    const swapped = await execute("fixed", user, sid, { name: "call_tool", arguments: { name: TRANSFER, arguments: ATTACKER } });
    expect(swapped.confirmation).toMatchObject({ tool: TRANSFER, arguments: ATTACKER });
    const ran = await execute("fixed", user, sid, { name: "call_tool", arguments: { name: TRANSFER, arguments: LANDLORD } });
    expect(ran.isError).toBe(false);
    expect(ran.confirmation).toBeUndefined();
    expect(ran.content).toContain('"amount":10');
    const again = await execute("fixed", user, sid, { name: "call_tool", arguments: { name: TRANSFER, arguments: LANDLORD } });
    expect(again.confirmation).toBeDefined();
  });

  it('is an unknown tool under "grow", which has no call_tool', async () => {
    const user = await newCaller("grow-call");
    const sid = sessionId("grow");
    await call("grow", user, sid, "search", { query: "filler" });
    const body = await execute("grow", user, sid, { name: "call_tool", arguments: { name: FILLERS[0] } });
    expect(body.isError).toBe(true);
    expect(JSON.parse(body.content)).toMatchObject({ error: expect.stringContaining('Unknown tool "call_tool"') });
  });
});

describe('toolList "stable"', () => {
  it("keeps the name list and appends found tools in the order found", async () => {
    const user = await newCaller("stable");
    const sid = sessionId("stable");
    const first = await prepare("stable", user, sid);
    await call("stable", user, sid, "search", { query: FILLERS[5] });
    await call("stable", user, sid, "search", { query: FILLERS[1] });
    const second = await prepare("stable", user, sid);
    expect(second.tools.map((tool) => tool.function.name)).toEqual(["search_tools", FILLERS[5], FILLERS[1]]);
    expect(second.tools[0]).toEqual(first.tools[0]);
    // Re-use does not move a tool.
    await call("stable", user, sid, "search", { query: FILLERS[5] });
    expect((await prepare("stable", user, sid)).tools.map((tool) => tool.function.name)).toEqual(["search_tools", FILLERS[5], FILLERS[1]]);
  });
});

describe("nativeDeferral", () => {
  it("answers an Anthropic prepare with the provider's search tool and every tool deferred; openai keeps search_tools", async () => {
    const user = await newCaller("native");
    const sid = sessionId("native");
    const base: unknown = JSON.parse(env.TOOL_SEARCH_CONFIG);
    const nativeVars = { TOOL_SEARCH_CONFIG: JSON.stringify({ ...(typeof base === "object" && base !== null ? base : {}), nativeDeferral: true }) };
    const anthropic = await fetchWithEnv(nativeVars, request(`/v1/sessions/${sid}/prepare`, {
      token: user,
      body: { messages: [], enabledGroups: ["tl"], format: "anthropic" },
    }));
    const body = await json<{ tools: Record<string, unknown>[]; deferral?: string; stats: { sent: number } }>(anthropic);
    expect(body.deferral).toBe("native");
    expect(body.tools[0]).toEqual({ type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" });
    // Every visible tool (ours and the ungrouped demo tools), deferred.
    expect(body.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining([TRANSFER, ...FILLERS]));
    expect(body.tools.slice(1).every((tool) => tool.defer_loading === true)).toBe(true);
    expect(body.stats.sent).toBe(body.tools.length);
    const openai = await fetchWithEnv(nativeVars, request(`/v1/sessions/${sid}/prepare`, {
      token: user,
      body: { messages: [], enabledGroups: ["tl"], format: "openai" },
    }));
    const plain = await json<{ tools: { function: { name: string } }[]; deferral?: string }>(openai);
    expect(plain.deferral).toBeUndefined();
    expect(plain.tools[0]?.function.name).toBe("search_tools");
  });
});
