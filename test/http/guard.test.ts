// The execution guard over HTTP (docs/DESIGN.md, "The guard"), through the Worker's own fetch with real tokens: every decision path of
// POST /v1/sessions/:sid/execute and the confirmation flow, the group gate (gated = absent, byte for byte), the rate
// limit, each executor's success and failure (a real second Worker is the remote end), and the audit line.
//
// The configured rules come from TOOL_SEARCH_CONFIG as vitest.config.ts sets it for the suite: `tool:guard_denied_*`
// is denied, `tool:guard_raised` needs level 3, `tool:guard_lowered` level 0, `tool:guard_forced_once` always asks,
// `tool:guard_lifted` never asks. The tools of those names are registered here by the owner.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { DEFAULT_LIMITS } from "../../src/core/config.ts";
import { texts } from "../../src/core/locale.ts";
import type { ConfirmationRequest, ToolResult } from "../../src/core/types.ts";
import { sanitizeSource } from "../../src/core/boundary/untrusted.ts";
import { sessionStub } from "../../src/durable/stubs.ts";
import { anError, api, errorOf, fetchWithEnv, json, ownerToken, request, sessionId, token } from "./helpers.ts";

const t = texts("en");
/** The value of the secret the http tool names (a binding of vitest.config.ts). */
const REMOTE_SECRET = env.TOOL_SECRET_REMOTE_TOKEN;
/** The suite's config leaves confirmationTtlSeconds at its default. */
const CONFIRMATION_TTL_MS = DEFAULT_LIMITS.confirmationTtlSeconds * 1000;

/** The execute answer: the core's tool result as the route sends it. */
type ExecuteBody = Pick<ToolResult, "content" | "isError" | "confirmation">;
type Confirmation = ConfirmationRequest;

/** A principal with a fresh id, so that no other test shares its sessions or its rate-limit counter. */
async function principal(label: string, claims: Record<string, unknown> = {}): Promise<{ id: string; token: string }> {
  const id = `${label}-${crypto.randomUUID()}`;
  return { id, token: await token({ sub: id, ...claims }) };
}

function executeRequest(tokenText: string, sid: string, name: string, args: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return request(`/v1/sessions/${sid}/execute`, { token: tokenText, body: { name, arguments: args, ...extra } });
}

async function execute(
  tokenText: string,
  sid: string,
  name: string,
  args: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): Promise<ExecuteBody> {
  const response = await api(`/v1/sessions/${sid}/execute`, { token: tokenText, body: { name, arguments: args, ...extra } });
  expect(response.status).toBe(200);
  const body = await json<ExecuteBody>(response);
  expect(Object.keys(body).toSorted()).toEqual(body.confirmation ? ["confirmation", "content", "isError"] : ["content", "isError"]);
  return body;
}

function executeResponse(tokenText: string, sid: string, name: string, args: Record<string, unknown> = {}): Promise<Response> {
  return api(`/v1/sessions/${sid}/execute`, { token: tokenText, body: { name, arguments: args } });
}

function isExecuteBody(value: unknown): value is ExecuteBody {
  return typeof value === "object" && value !== null && "content" in value && typeof value.content === "string" &&
    "isError" in value && typeof value.isError === "boolean";
}

/** The `error` text of a tool error's content. */
function errorText(body: ExecuteBody): string {
  expect(body.isError).toBe(true);
  expect(body.confirmation).toBeUndefined();
  const parsed: unknown = JSON.parse(body.content);
  if (typeof parsed !== "object" || parsed === null || !("error" in parsed) || typeof parsed.error !== "string") {
    throw new Error(`not a tool error: ${body.content}`);
  }
  expect(Object.keys(parsed)).toEqual(["error"]);
  return parsed.error;
}

/** The pending confirmation of an answer that waits for the user (and checks the text the model reads). */
function pendingOf(body: ExecuteBody, name: string, mode: "session" | "always"): Confirmation {
  expect(body.isError).toBe(false);
  const confirmation = body.confirmation;
  if (!confirmation) throw new Error(`no confirmation in ${JSON.stringify(body)}`);
  expect(Object.keys(confirmation).toSorted()).toEqual(["approvalUrl", "arguments", "capability", "description", "expiresAt", "id", "mode", "tool"]);
  expect(confirmation).toMatchObject({ capability: `tool:${name}`, mode, tool: name });
  expect(body.content).toBe(t.needsConfirmation(name, `tool:${name}`, mode));
  return confirmation;
}

function resolve(tokenText: string, sid: string, id: string, approve: boolean): Promise<Response> {
  return api(`/v1/sessions/${sid}/confirmations/${id}`, { token: tokenText, body: { approve } });
}

/** The suite's configuration with another rate limit, for fetchWithEnv (the limit is read per request). */
function withRateLimit(rateLimitPerMinute: number): Record<string, string> {
  const base: unknown = JSON.parse(env.TOOL_SEARCH_CONFIG);
  if (typeof base !== "object" || base === null) throw new Error("TOOL_SEARCH_CONFIG is not an object");
  return { TOOL_SEARCH_CONFIG: JSON.stringify({ ...base, limits: { rateLimitPerMinute } }) };
}

/** Moves a session's pending confirmations or grants past their expiry, as if the clock had run on. */
async function expire(principalId: string, sid: string, which: "pending" | "grants"): Promise<void> {
  const stub = sessionStub(env, principalId, sid);
  await runInDurableObject(stub, (_instance, state) => {
    const stored = state.storage.kv.get<Record<"pending" | "grants", { expiresAt: number }[]>>("grants");
    if (!stored) throw new Error("the session holds no confirmations");
    expect(stored[which].length).toBeGreaterThan(0);
    const past = Date.now() - 1;
    state.storage.kv.put("grants", { ...stored, [which]: stored[which].map((entry) => ({ ...entry, expiresAt: past })) });
  });
}

const TEXT_PARAMETERS = { type: "object", properties: { text: { type: "string" } } };
const echoTool = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  name,
  description: `Guard test tool ${name}.`,
  parameters: TEXT_PARAMETERS,
  executor: { type: "builtin", name: "echo" },
  ...extra,
});
const httpTool = (url: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  description: "Guard test tool on the remote worker.",
  parameters: TEXT_PARAMETERS,
  executor: { type: "http", url, ...extra },
});

let owner = "";
beforeAll(async () => {
  owner = await ownerToken("owner-guard");
  const tools = [
    echoTool("guard_plain"),
    echoTool("guard_denied_wipe"),
    echoTool("guard_raised"),
    echoTool("guard_lowered", { visibility: "restricted" }),
    echoTool("guard_restricted", { visibility: "restricted" }),
    echoTool("guard_forced_once"),
    echoTool("guard_lifted", { risk: "dangerous", confirm: "session" }),
    echoTool("guard_journal", { confirm: "session" }),
    echoTool("guard_stamp", { confirm: "always" }),
    { ...httpTool("https://remote.test/status/503"), name: "guard_remote_down" },
    { ...httpTool("https://remote.test/slow?ms=2000", { timeoutMs: 100 }), name: "guard_remote_slow" },
    { ...httpTool(`https://remote.test/big?bytes=${2 * 1024 * 1024 + 1}`), name: "guard_remote_big" },
    { ...httpTool("https://remote.test/echo", { headers: { "x-key": "TOOL_SECRET_NOT_SET" } }), name: "guard_remote_nosecret" },
    { name: "guard_service_echo", description: "Guard test tool behind a service binding.", parameters: TEXT_PARAMETERS, executor: { type: "service", binding: "TOOL_REMOTE", path: "/echo" } },
    { name: "guard_service_missing", description: "Guard test tool behind no binding.", parameters: TEXT_PARAMETERS, executor: { type: "service", binding: "NO_SUCH_BINDING" } },
  ];
  const response = await api("/v1/tools", { method: "PUT", token: owner, body: { tools, context: "guard" } });
  if (response.status !== 200) throw new Error(`registering the guard's tools failed: ${await response.text()}`);
}, 60_000);

afterEach(() => {
  vi.restoreAllMocks();
});

// ---- decisions ------------------------------------------------------------------------------------------------

describe("the guard's decisions on POST /v1/sessions/:sid/execute", () => {
  it("allows a public, safe tool at level 0 and runs it", async () => {
    const alice = await principal("allowed");
    const body = await execute(alice.token, sessionId(), "guard_plain", { text: "hello" });
    expect(body).toEqual({ content: JSON.stringify({ text: "hello" }), isError: false });
  });

  it("refuses a caller whose level is too low, and runs the tool at the required level", async () => {
    const low = await principal("low", { level: 0, groups: ["web"] });
    const denied = await execute(low.token, sessionId(), "fetch_url", { url: "https://remote.test/text?b64=aGk" });
    expect(errorText(denied)).toBe(t.levelTooLow("fetch_url", 1, 0));
    const enough = await principal("enough", { level: 1, groups: ["web"] });
    const ran = await execute(enough.token, sessionId(), "fetch_url", { url: "https://remote.test/text?b64=aGk" });
    expect(ran.isError).toBe(false);
    expect(ran.content.endsWith("\nhi")).toBe(true);
  });

  it("applies authorityOverrides: a raised tool needs level 3 (the owner passes), a lowered restricted tool runs at 0", async () => {
    const two = await principal("two", { level: 2 });
    expect(errorText(await execute(two.token, sessionId(), "guard_raised", { text: "x" }))).toBe(t.levelTooLow("guard_raised", 3, 2));
    const three = await principal("three", { level: 3 });
    expect(await execute(three.token, sessionId(), "guard_raised", { text: "x" })).toMatchObject({ isError: false });
    expect(await execute(owner, sessionId(), "guard_raised", { text: "x" })).toMatchObject({ isError: false });

    const zero = await principal("zero");
    expect(await execute(zero.token, sessionId(), "guard_lowered", { text: "low" })).toEqual({ content: '{"text":"low"}', isError: false });
    // The same declaration without an override needs level 2.
    expect(errorText(await execute(zero.token, sessionId(), "guard_restricted", { text: "x" }))).toBe(t.levelTooLow("guard_restricted", 2, 0));
  });

  it("refuses a banned caller (negative level) every tool, even a public one, even with the owner flag: 403 banned", async () => {
    // A ban is refused at the door (src/http/auth.ts), before the guard; the guard's own banned rule stays behind it.
    const banned = await principal("banned", { level: -1, groups: ["web"] });
    const calls: [string, Record<string, unknown>][] = [["guard_plain", {}], ["echo", {}], ["calculate", { expression: "1 + 1" }]];
    for (const [name, args] of calls) {
      expect(await errorOf(await executeResponse(banned.token, sessionId(), name, args))).toMatchObject(anError(403, "banned"));
    }
    const bannedOwner = await principal("banned-owner", { level: -1, owner: true });
    expect(await errorOf(await executeResponse(bannedOwner.token, sessionId(), "guard_plain")))
      .toMatchObject(anError(403, "banned"));
  });

  it("refuses a denied capability (deniedCapabilities glob) to everyone, the owner included", async () => {
    const mighty = await principal("mighty", { level: 1000 });
    for (const caller of [owner, mighty.token]) {
      const body = await execute(caller, sessionId(), "guard_denied_wipe", { text: "x" });
      expect(errorText(body)).toBe(t.capabilityDenied("tool:guard_denied_wipe"));
    }
    // The pattern names guard_denied_* only: its neighbours run.
    expect(await execute(owner, sessionId(), "guard_plain", { text: "x" })).toMatchObject({ isError: false });
  });

  it("guards the session's client tools too: banned callers and denied capabilities get no 'the client runs it'", async () => {
    const clientTools = ["guard_client_plain", "guard_denied_client"].map((name) => ({
      name, description: `Client tool ${name}.`, inputSchema: { type: "object" },
    }));
    const prepareAs = async (tokenText: string, sid: string): Promise<void> => {
      const response = await api(`/v1/sessions/${sid}/prepare`, { token: tokenText, body: { messages: [], tools: clientTools } });
      expect(response.status).toBe(200);
    };
    // A principal banned after its session got a client catalog (a new token of the same sub) runs none of it.
    const banned = await principal("banned-client", { level: -1 });
    const bannedSid = sessionId();
    await prepareAs(await token({ sub: banned.id }), bannedSid);
    expect(await errorOf(await executeResponse(banned.token, bannedSid, "guard_client_plain"))).toMatchObject(anError(403, "banned"));

    const ownerSid = sessionId();
    await prepareAs(owner, ownerSid);
    expect(errorText(await execute(owner, ownerSid, "guard_denied_client"))).toBe(t.capabilityDenied("tool:guard_denied_client"));
    expect(await execute(owner, ownerSid, "guard_client_plain")).toEqual({ content: t.clientRuns("guard_client_plain"), isError: false });
  });

  it("holds a tool that needs confirmation: not run, isError false, a confirmation and the model-facing text", async () => {
    const files = await principal("confirm", { level: 2, groups: ["files"] });
    const before = Date.now();
    const body = await execute(files.token, sessionId(), "delete_file", { path: "notes/old.txt" });
    const after = Date.now();
    const pending = pendingOf(body, "delete_file", "always");
    expect(pending.id).toMatch(/^[A-Za-z0-9_-]{1,128}$/);
    expect(pending.expiresAt).toBeGreaterThanOrEqual(before + CONFIRMATION_TTL_MS);
    expect(pending.expiresAt).toBeLessThanOrEqual(after + CONFIRMATION_TTL_MS);
    // The owner is asked too: confirmation is about the model acting, not about who may act.
    pendingOf(await execute(owner, sessionId(), "guard_journal", { text: "x" }), "guard_journal", "session");
    // confirmOverrides: a safe tool made to ask every time, a dangerous one that never asks.
    pendingOf(await execute(files.token, sessionId(), "guard_forced_once", { text: "x" }), "guard_forced_once", "always");
    expect(await execute(files.token, sessionId(), "guard_lifted", { text: "x" })).toEqual({ content: '{"text":"x"}', isError: false });
  });

  it("a session grant runs the tool again and again in that session, and only there", async () => {
    const carol = await principal("session-grant");
    const sid = sessionId();
    const pending = pendingOf(await execute(carol.token, sid, "guard_journal", { text: "0" }), "guard_journal", "session");
    const approved = await resolve(carol.token, sid, pending.id, true);
    expect(approved.status).toBe(200);
    expect(await json(approved)).toEqual({ id: pending.id, approved: true, capability: "tool:guard_journal", mode: "session" });
    for (const text of ["1", "2", "3"]) {
      expect(await execute(carol.token, sid, "guard_journal", { text })).toEqual({ content: JSON.stringify({ text }), isError: false });
    }
    // Another session of the same principal has no grant.
    pendingOf(await execute(carol.token, sessionId(), "guard_journal", { text: "x" }), "guard_journal", "session");
  });

  it("an 'always' approval grants one run, then the tool asks again", async () => {
    const dave = await principal("once");
    const sid = sessionId();
    const first = pendingOf(await execute(dave.token, sid, "guard_stamp", { text: "a" }), "guard_stamp", "always");
    expect(await json(await resolve(dave.token, sid, first.id, true))).toMatchObject({ approved: true, mode: "always" });
    expect(await execute(dave.token, sid, "guard_stamp", { text: "a" })).toEqual({ content: '{"text":"a"}', isError: false });
    const second = pendingOf(await execute(dave.token, sid, "guard_stamp", { text: "b" }), "guard_stamp", "always");
    expect(second.id).not.toBe(first.id);
    // The used approval cannot be replayed for another run.
    expect(await errorOf(await resolve(dave.token, sid, first.id, true))).toMatchObject(anError(404, "confirmation_not_found"));

    // The same on a demo tool the client runs: after approval the answer says the client runs it.
    const files = await principal("once-files", { level: 2, groups: ["files"] });
    const demoSid = sessionId();
    const asked = pendingOf(await execute(files.token, demoSid, "delete_file", { path: "a.txt" }), "delete_file", "always");
    expect((await resolve(files.token, demoSid, asked.id, true)).status).toBe(200);
    expect(await execute(files.token, demoSid, "delete_file", { path: "a.txt" })).toEqual({ content: t.clientRuns("delete_file"), isError: false });
    pendingOf(await execute(files.token, demoSid, "delete_file", { path: "a.txt" }), "delete_file", "always");
  });

  it("an expired confirmation cannot be approved (410, then 404), and an expired grant asks again", async () => {
    const erin = await principal("expiry");
    const sid = sessionId();
    const stale = pendingOf(await execute(erin.token, sid, "guard_journal", { text: "x" }), "guard_journal", "session");
    await expire(erin.id, sid, "pending");
    expect(await errorOf(await resolve(erin.token, sid, stale.id, true))).toMatchObject(anError(410, "confirmation_expired"));
    expect(await errorOf(await resolve(erin.token, sid, stale.id, true))).toMatchObject(anError(404, "confirmation_not_found"));
    const fresh = pendingOf(await execute(erin.token, sid, "guard_journal", { text: "x" }), "guard_journal", "session");
    expect(fresh.id).not.toBe(stale.id);

    expect((await resolve(erin.token, sid, fresh.id, true)).status).toBe(200);
    expect(await execute(erin.token, sid, "guard_journal", { text: "y" })).toMatchObject({ isError: false, content: '{"text":"y"}' });
    await expire(erin.id, sid, "grants");
    pendingOf(await execute(erin.token, sid, "guard_journal", { text: "z" }), "guard_journal", "session");
  });

  it("a confirmation the user denied is gone: it cannot be approved afterwards, and the tool asks again", async () => {
    const fay = await principal("denied-by-user");
    const sid = sessionId();
    const pending = pendingOf(await execute(fay.token, sid, "guard_journal", { text: "x" }), "guard_journal", "session");
    const denied = await resolve(fay.token, sid, pending.id, false);
    expect(await json(denied)).toEqual({ id: pending.id, approved: false, capability: "tool:guard_journal", mode: "session" });
    expect(await errorOf(await resolve(fay.token, sid, pending.id, true))).toMatchObject(anError(404, "confirmation_not_found"));
    expect(await errorOf(await resolve(fay.token, sid, pending.id, false))).toMatchObject(anError(404, "confirmation_not_found"));
    const again = pendingOf(await execute(fay.token, sid, "guard_journal", { text: "x" }), "guard_journal", "session");
    expect(again.id).not.toBe(pending.id);
  });

  it("refuses another principal's approval with 404, in the same session id, and leaves the confirmation pending", async () => {
    const gil = await principal("asker");
    const mallory = await principal("approver", { level: 5 });
    const sid = sessionId();
    const pending = pendingOf(await execute(gil.token, sid, "guard_journal", { text: "x" }), "guard_journal", "session");
    expect(await errorOf(await resolve(mallory.token, sid, pending.id, true))).toMatchObject(anError(404, "confirmation_not_found"));
    expect(await errorOf(await resolve(owner, sid, pending.id, true))).toMatchObject(anError(404, "confirmation_not_found"));
    // Nothing was granted, to anyone.
    pendingOf(await execute(gil.token, sid, "guard_journal", { text: "x" }), "guard_journal", "session");
    pendingOf(await execute(mallory.token, sid, "guard_journal", { text: "x" }), "guard_journal", "session");
    // The rightful principal can still approve it.
    expect((await resolve(gil.token, sid, pending.id, true)).status).toBe(200);
    expect(await execute(gil.token, sid, "guard_journal", { text: "x" })).toMatchObject({ isError: false });
  });

  it("answers 400 for a malformed confirmation request and 404 for an id nobody issued", async () => {
    const hal = await principal("malformed");
    const sid = sessionId();
    expect(await errorOf(await api(`/v1/sessions/${sid}/confirmations/abc`, { token: hal.token, body: {} }))).toMatchObject(anError(400, "invalid_request"));
    expect(await errorOf(await api(`/v1/sessions/${sid}/confirmations/abc`, { token: hal.token, body: { approve: "yes" } }))).toMatchObject(anError(400, "invalid_request"));
    expect(await errorOf(await resolve(hal.token, sid, crypto.randomUUID(), true))).toMatchObject(anError(404, "confirmation_not_found"));
  });
});

// ---- the group gate -------------------------------------------------------------------------------------------

describe("the group gate at execution", () => {
  it("answers a tool outside the caller's groups byte for byte like a tool that does not exist", async () => {
    // A name close to a visible tool (calculate): the suggestion it earns is the same either way.
    const vault = { ...echoTool("calculate_vault"), groups: ["vault"] };
    expect((await api("/v1/tools/calculate_vault", { method: "PUT", token: owner, body: vault })).status).toBe(201);
    const outsider = await principal("outsider", { level: 5 });
    const switchedOff = await principal("switched-off", { level: 5, groups: ["vault", "web"] });
    const sid = sessionId();
    const call = (caller: string, extra: Record<string, unknown> = {}): Promise<Response> =>
      api(`/v1/sessions/${sid}/execute`, { token: caller, body: { name: "calculate_vault", arguments: { text: "x" }, ...extra } });

    // The vault member runs it; without the group in the token, or with it switched off in the request, it is gated.
    expect(await json(await call(switchedOff.token))).toMatchObject({ isError: false });
    const gatedByToken = await call(outsider.token);
    const gatedByRequest = await call(switchedOff.token, { enabledGroups: ["web"] });
    expect((await api("/v1/tools/calculate_vault", { method: "DELETE", token: owner })).status).toBe(200);
    const absentForOutsider = await call(outsider.token);
    const absentForRequest = await call(switchedOff.token, { enabledGroups: ["web"] });

    for (const [gated, absent] of [[gatedByToken, absentForOutsider], [gatedByRequest, absentForRequest]] as const) {
      expect(gated.status).toBe(200);
      expect(absent.status).toBe(gated.status);
      expect(gated.headers.get("content-type")).toBe(absent.headers.get("content-type"));
      const gatedText = await gated.text();
      expect(gatedText).toBe(await absent.text());
      const body: unknown = JSON.parse(gatedText);
      if (!isExecuteBody(body)) throw new Error(`not an execute answer: ${gatedText}`);
      expect(errorText(body)).toBe(t.unknownTool("calculate_vault", ["calculate"]));
    }
  });

  it("answers a demo tool of a group the caller lacks like an unknown name", async () => {
    const noFiles = await principal("no-files", { level: 2, groups: ["web"] });
    const body = await execute(noFiles.token, sessionId(), "delete_file", { path: "a" });
    expect(errorText(body)).toMatch(/^Unknown tool "delete_file"\./);
    expect(body.content).not.toContain("Not allowed");
  });
});

// ---- the rate limit -------------------------------------------------------------------------------------------

describe("the per-principal rate limit", () => {
  it("answers 429 with Retry-After on execute and search once a fresh principal is over its limit", async () => {
    const limited = withRateLimit(3);
    const caller = await principal("limited");
    const sid = sessionId();
    const search = (): Response | Promise<Response> =>
      fetchWithEnv(limited, request(`/v1/sessions/${sid}/search`, { token: caller.token, body: { query: "" } }));
    expect((await fetchWithEnv(limited, executeRequest(caller.token, sid, "guard_plain", { text: "1" }))).status).toBe(200);
    expect((await search()).status).toBe(200);
    expect((await fetchWithEnv(limited, executeRequest(caller.token, sid, "guard_plain", { text: "2" }))).status).toBe(200);

    for (const response of [await fetchWithEnv(limited, executeRequest(caller.token, sid, "guard_plain", { text: "3" })), await search()]) {
      const retryAfter = Number(response.headers.get("retry-after"));
      expect(await errorOf(response)).toMatchObject(anError(429, "rate_limited"));
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      // The sliding window is estimated from two fixed minutes, so the wait can reach past one minute (never two).
      expect(retryAfter).toBeLessThanOrEqual(120);
    }
    // Another principal has its own counter.
    const other = await principal("not-limited");
    expect((await fetchWithEnv(limited, executeRequest(other.token, sid, "guard_plain", { text: "x" }))).status).toBe(200);
  });
});

// ---- executors ------------------------------------------------------------------------------------------------

/** The text of a wrapped answer after its banner (which must come first, naming `source`). */
function afterBanner(content: string, source: string): string {
  const banner = t.untrustedBanner(sanitizeSource(source));
  expect(content.startsWith(banner)).toBe(true);
  return content.slice(banner.length);
}

describe("executors through execute", () => {
  let caller = "";
  beforeAll(async () => {
    caller = (await principal("executors")).token;
  });

  it("echo returns its arguments, and refuses arguments of the wrong type", async () => {
    const args = { message: "hi 你好 👋", extra: [1, { deep: true }] };
    expect(await execute(caller, sessionId(), "echo", args)).toEqual({ content: JSON.stringify(args), isError: false });
    const wrong = await execute(caller, sessionId(), "echo", { message: 5 });
    expect(errorText(wrong)).toMatch(/^Invalid arguments for "echo": .*message/);
  });

  it("calculate evaluates, and reports a bad expression and a missing one", async () => {
    const body = await execute(caller, sessionId(), "calculate", { expression: "17 * 3 + sqrt(81)" });
    expect(body).toEqual({ content: JSON.stringify({ expression: "17 * 3 + sqrt(81)", result: 60 }), isError: false });
    expect(errorText(await execute(caller, sessionId(), "calculate", { expression: "2 +" }))).toMatch(/^Tool "calculate" failed: /);
    expect(errorText(await execute(caller, sessionId(), "calculate", {}))).toBe(t.invalidArguments("calculate", [t.argument.missing("expression")]));
  });

  it("current_time answers in a time zone, and reports an unknown one", async () => {
    const before = Date.now();
    const body = await execute(caller, sessionId(), "current_time", { timezone: "Asia/Shanghai" });
    expect(body.isError).toBe(false);
    const time: unknown = JSON.parse(body.content);
    expect(time).toMatchObject({ timezone: "Asia/Shanghai", utcOffset: "+08:00", weekday: expect.any(String), local: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/) });
    const utc = typeof time === "object" && time !== null && "utc" in time ? Date.parse(String(time.utc)) : Number.NaN;
    expect(utc).toBeGreaterThanOrEqual(before - 1000);
    expect(utc).toBeLessThanOrEqual(Date.now() + 1000);
    const bad = await execute(caller, sessionId(), "current_time", { timezone: "Mars/Olympus_Mons" });
    expect(errorText(bad)).toBe(t.toolFailed("current_time", 'unknown time zone "Mars/Olympus_Mons" (use an IANA name such as "Asia/Shanghai")'));
  });

  it("an owner-registered http tool sends its secret header to the remote, wrapped; the secret never shows in its definition", async () => {
    const definition = httpTool("https://remote.test/echo", { headers: { Authorization: "TOOL_SECRET_REMOTE_TOKEN" } });
    const put = await api("/v1/tools/guard_remote_echo", { method: "PUT", token: owner, body: definition });
    expect(put.status).toBe(201);
    const putText = await put.text();
    expect(REMOTE_SECRET.length).toBeGreaterThan(8);
    expect(putText).toContain("TOOL_SECRET_REMOTE_TOKEN");
    expect(putText).not.toContain(REMOTE_SECRET);
    for (const format of ["openai", "anthropic", "mcp", "summary"]) {
      const listed = await (await api(`/v1/tools?format=${format}`, { token: owner })).text();
      expect(listed).toContain("guard_remote_echo");
      expect(listed).not.toContain(REMOTE_SECRET);
    }

    const args = { text: "to the remote 远端" };
    const body = await execute(caller, sessionId(), "guard_remote_echo", args);
    expect(body.isError).toBe(false);
    const echoed: unknown = JSON.parse(afterBanner(body.content, "http POST https://remote.test/echo"));
    expect(echoed).toMatchObject({ method: "POST", path: "/echo", body: args, headers: { authorization: REMOTE_SECRET, "content-type": "application/json" } });
  });

  it("reports a missing secret by name, a non-2xx answer, a timeout and an oversize answer as tool errors", async () => {
    const cases: [string, string][] = [
      ["guard_remote_nosecret", 'secret "TOOL_SECRET_NOT_SET" is not set on the gateway'],
      ["guard_remote_down", "HTTP 503 from remote.test"],
      ["guard_remote_slow", "timed out after 100 ms waiting for remote.test"],
      ["guard_remote_big", `the answer from remote.test is larger than ${2 * 1024 * 1024} bytes`],
    ];
    const started = Date.now();
    for (const [name, message] of cases) {
      expect(errorText(await execute(caller, sessionId(), name, { text: "x" }))).toBe(t.toolFailed(name, message));
    }
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("a service tool posts to the bound Worker and wraps its answer; an unbound one is a tool error", async () => {
    const body = await execute(caller, sessionId(), "guard_service_echo", { text: "via binding" });
    expect(JSON.parse(afterBanner(body.content, "service TOOL_REMOTE/echo"))).toMatchObject({ method: "POST", path: "/echo", body: { text: "via binding" } });
    const missing = await execute(caller, sessionId(), "guard_service_missing", { text: "x" });
    expect(errorText(missing)).toBe(t.toolFailed("guard_service_missing", 'service binding "NO_SUCH_BINDING" is not configured on the gateway'));
  });

  it("fetch_url wraps what it fetched and refuses local and private addresses", async () => {
    const web = (await principal("fetcher", { level: 1, groups: ["web"] })).token;
    const url = "https://remote.test/text?b64=5Lit5paHIGFuZCBjb2Rl";
    const body = await execute(web, sessionId(), "fetch_url", { url });
    expect(afterBanner(body.content, `fetch_url ${url}`)).toBe("中文 and code");
    for (const host of ["127.0.0.1", "10.1.2.3", "localhost", "[::1]", "169.254.169.254"]) {
      const refused = await execute(web, sessionId(), "fetch_url", { url: `http://${host}/admin` });
      expect(errorText(refused)).toMatch(/^Tool "fetch_url" failed: refusing to fetch a local or private address/);
    }
  });
});

// ---- the audit line -------------------------------------------------------------------------------------------

interface AuditRecord {
  type: string;
  principal: string;
  session: string;
  tool: string;
  decision: string;
  durationMs: number;
}

/** Spies on console.log for one call; returns what was logged (as text lines). */
async function logged(action: () => Promise<unknown>): Promise<string[]> {
  const lines: string[] = [];
  const spy = vi.spyOn(console, "log").mockImplementation((...values: unknown[]) => {
    lines.push(values.map((value) => (typeof value === "string" ? value : JSON.stringify(value))).join(" "));
  });
  try {
    await action();
  } finally {
    spy.mockRestore();
  }
  return lines;
}

function isAuditRecord(value: unknown): value is AuditRecord {
  if (typeof value !== "object" || value === null) return false;
  const record: Record<string, unknown> = Object.fromEntries(Object.entries(value));
  return record.type === "audit" &&
    ["principal", "session", "tool", "decision"].every((key) => typeof record[key] === "string") &&
    typeof record.durationMs === "number";
}

/** The audit lines of one session among what was logged (other lines are not JSON, or not audit lines). */
function auditRecords(lines: string[], sid: string): AuditRecord[] {
  return lines.flatMap((line) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return [];
    }
    return isAuditRecord(parsed) && parsed.session === sid ? [parsed] : [];
  });
}

describe("the audit line", () => {
  it.each([
    ["guard_plain", {}, "allow"],
    ["guard_journal", {}, "confirm"],
    ["guard_denied_wipe", {}, "deny"],
    ["guard_raised", {}, "deny"],
    ["no_such_tool_here", {}, "error"],
    ["echo", { groups: [] }, "allow"],
  ] as const)("one JSON line per execute of %s (decision %s), with no argument value or name", async (tool, claims, decision) => {
    const caller = await principal("audited", claims);
    const sid = sessionId("audit");
    const secretValue = `value-${crypto.randomUUID()}`;
    const secretKey = `key${crypto.randomUUID().slice(0, 8)}`;
    const args = tool === "echo" ? { message: secretValue, [secretKey]: 1 } : { text: secretValue };
    const lines = await logged(() => execute(caller.token, sid, tool, args));
    const records = auditRecords(lines, sid);
    expect(records).toHaveLength(1);
    const [record] = records;
    expect(record).toEqual({ type: "audit", event: "execute", principal: caller.id, session: sid, tool, decision, durationMs: expect.any(Number) });
    expect(record?.durationMs).toBeGreaterThanOrEqual(0);
    for (const line of lines) {
      expect(line).not.toContain(secretValue);
      expect(line).not.toContain(secretKey);
    }
  });

  it("logs a denied client tool as deny (client tools run inside the session object; the decision comes back with the result)", async () => {
    const caller = await principal("audited-client");
    const sid = sessionId("audit");
    const tools = [{ name: "guard_denied_client", description: "A client tool the configuration denies.", inputSchema: { type: "object" } }];
    expect((await api(`/v1/sessions/${sid}/prepare`, { token: caller.token, body: { messages: [], tools } })).status).toBe(200);
    const lines = await logged(() => execute(caller.token, sid, "guard_denied_client", {}));
    expect(auditRecords(lines, sid).map((record) => record.decision)).toEqual(["deny"]);
  });

  it("logs a rate-limited execute as rate_limited", async () => {
    const limited = withRateLimit(1);
    const caller = await principal("audited-limit");
    const sid = sessionId("audit");
    const lines = await logged(async () => {
      expect((await fetchWithEnv(limited, executeRequest(caller.token, sid, "guard_plain", { text: "a" }))).status).toBe(200);
      expect((await fetchWithEnv(limited, executeRequest(caller.token, sid, "guard_plain", { text: "b" }))).status).toBe(429);
    });
    expect(auditRecords(lines, sid).map((record) => record.decision)).toEqual(["allow", "rate_limited"]);
  });
});
