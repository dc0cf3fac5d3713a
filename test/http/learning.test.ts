// Learning from calls over HTTP (docs/search.md, "Learning from calls"): searches and calls by three principals make a
// tool rank first for a request it did not match before; one principal alone changes nothing; a reset restores the
// ranking; held, refused, failed and out-of-group calls teach nothing; the owner's routes; bad configuration.
import { env } from "cloudflare:workers";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { analyze } from "../../src/core/search/analyze.ts";
import { connect, textOf } from "../mcp/helpers.ts";
import { anError, api, errorOf, fetchWithEnv, json, ownerToken, request, sessionId, token } from "./helpers.ts";

const GROUP = "lt";
const TARGET = "lt_currency_convert";
const RIVAL = "lt_payroll_report";
const HELD = "lt_currency_wire";
const REFUSED = "lt_currency_vault";
const SECRET = "lt_currency_secret";
/**
 * The request the target does not match (no word of its text), which a rival does by one word ("payroll"): the
 * rival's text does not describe the request whole (a learned word that a matched tool's own text holds counts less).
 */
const REQUEST = "payroll spreadsheet totals ledger";
/** What the teaching principals search: the target matches it, and its terms include the request's. */
const TEACHING = "convert currency for the payroll spreadsheet totals ledger";
/** Two neighbours: the index puts the planner above the adviser for PLANNING (by "plan"). */
const PLANNER = "lt_trip_plan";
const ADVISER = "lt_trip_advice";
const PLANNING = "plan a trip for the family holiday weekend";
/** One of six like fillers, sixth for FILING; its teachers' search shows it first (by its number). */
const FILER = "lt_filler_5";
const FILER_TEACHING = "filler 5 audit ledger";
/** A request of the fillers' words, one learned word ("audit") and many words no tool holds: a small learned part. */
const FILING = "files a record of the weather audit for the northern branch yellow folder signed urgent";

function vars(settings: Record<string, unknown>): Record<string, string> {
  const base: unknown = JSON.parse(env.TOOL_SEARCH_CONFIG);
  return { TOOL_SEARCH_CONFIG: JSON.stringify({ ...(typeof base === "object" && base !== null ? base : {}), ...settings }) };
}

const LEARNING = { enabled: true, minPrincipals: 3 };

async function send(settings: Record<string, unknown>, path: string, tokenText: string, options: { method?: string; body?: unknown } = {}): Promise<Response> {
  return fetchWithEnv(vars(settings), request(path, { token: tokenText, ...options }));
}

async function searchNames(settings: Record<string, unknown>, tokenText: string, query: string, mode: string): Promise<string[]> {
  const response = await send(settings, `/v1/sessions/${sessionId("lt-look")}/search`, tokenText, { body: { query, mode, enabledGroups: [GROUP], limit: 5 } });
  expect(response.status).toBe(200);
  return (await json<{ tools: { name: string }[] }>(response)).tools.map((tool) => tool.name);
}

/** One principal's session: a search that shows `tool`, then a call of it; the call's answer. */
async function searchAndCall(settings: Record<string, unknown>, tokenText: string, query: string, tool: string, mode: string): Promise<{ shown: string[]; result: { isError: boolean; confirmation?: unknown } }> {
  const sid = sessionId("lt");
  const found = await send(settings, `/v1/sessions/${sid}/search`, tokenText, { body: { query, mode, enabledGroups: [GROUP], limit: 5 } });
  expect(found.status).toBe(200);
  const shown = (await json<{ tools: { name: string }[] }>(found)).tools.map((t) => t.name);
  const called = await send(settings, `/v1/sessions/${sid}/execute`, tokenText, { body: { name: tool, arguments: { amount: 1 }, enabledGroups: [GROUP] } });
  expect(called.status).toBe(200);
  return { shown, result: await json(called) };
}

const caller = (label: string, claims: Record<string, unknown> = {}): Promise<string> =>
  token({ sub: `${label}-${crypto.randomUUID()}`, groups: [GROUP], ...claims });

interface LearningBody {
  enabled: boolean;
  version: number;
  appliedAt: string | null;
  tools: { tool: string; terms: { term: string; weight: number; principals: number }[] }[];
  profiles?: { tool: string; principals: number; terms: { term: string; weight: number }[] }[];
  passedOver?: { tool: string; terms: { term: string; weight: number; principals: number }[] }[];
  evidence?: { rows: number; tools: number; principals: number; pending: number };
}

function testTool(name: string, description: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    description,
    parameters: { type: "object", properties: { amount: { type: "number" } } },
    groups: [GROUP],
    executor: { type: "builtin", name: "echo" },
    ...extra,
  };
}

let owner: string;
let upstreams = 0;

/** A fixture MCP server registered as an upstream whose tools are public and in the test's group. */
async function upstream(label: string): Promise<{ id: string; url: string; state: string }> {
  upstreams += 1;
  const id = `lt${label}${upstreams}${crypto.randomUUID().slice(0, 6)}`;
  const url = `https://mcp.fixture.example/mcp-upstream/${id}`;
  const response = await api(`/v1/upstreams/${id}`, { method: "PUT", token: owner, body: { url, visibility: "public", groups: [GROUP] } });
  if (response.status !== 201) throw new Error(`adding the upstream failed: ${await response.text()}`);
  return { id, url, state: `${url}/state` };
}

beforeAll(async () => {
  owner = await ownerToken("owner-learning");
  const tools = [
    testTool(TARGET, "Convert an amount of money from one currency to another at today's rate."),
    testTool(RIVAL, "Monthly payroll report: salaries paid per team."),
    testTool(HELD, "Wire a currency amount to a bank account.", { confirm: "always" }),
    testTool(REFUSED, "Open the currency vault.", { visibility: "restricted" }),
    testTool(SECRET, "Currency secret ledger.", { groups: ["lt_secret"] }),
    ...Array.from({ length: 6 }, (_, i) => testTool(`lt_filler_${i}`, `Filler ${i}: files a record of the weather.`)),
    testTool(PLANNER, "Plan a trip: flights and hotels for a journey."),
    testTool(ADVISER, "Advice for a trip: sights and tours on a journey."),
    // A tool whose name is the apply route's last segment.
    testTool("apply", "Apply a discount coupon to a basket."),
  ];
  const response = await api("/v1/tools", { method: "PUT", token: owner, body: { tools, context: "learning" } });
  if (response.status !== 200) throw new Error(`registering the tools failed: ${await response.text()}`);
}, 60_000);

// Every test starts from no evidence (the learning object is one per deployment).
beforeEach(async () => {
  const reset = await send({ learning: LEARNING }, "/v1/learning", owner, { method: "DELETE" });
  if (reset.status !== 200) throw new Error(`resetting learning failed: ${await reset.text()}`);
});

async function apply(settings: Record<string, unknown>): Promise<LearningBody> {
  const response = await send(settings, "/v1/learning/apply", owner, { method: "POST" });
  expect(response.status).toBe(200);
  return json<LearningBody>(response);
}

// Each test makes several searches, calls and folds over HTTP: on a loaded machine they take longer than the default 5 s.
describe("learning from calls", { timeout: 30_000 }, () => {
  it.each(["minisearch", "substring"])("three principals make a tool rank first for a request it did not match; a reset restores the ranking (%s)", async (mode) => {
    const settings = { learning: LEARNING, searchMode: mode };
    const before = await searchNames(settings, await caller("lt-look"), REQUEST, mode);
    expect(before).not.toContain(TARGET);
    expect(before[0]).toBe(RIVAL);

    for (const label of ["lt-a", "lt-b", "lt-c"]) {
      const { shown, result } = await searchAndCall(settings, await caller(label), TEACHING, TARGET, mode);
      expect(shown).toContain(TARGET);
      expect(result.isError).toBe(false);
    }
    const applied = await apply(settings);
    const learned = applied.tools.find((entry) => entry.tool === TARGET);
    expect(learned?.terms.map((term) => term.term)).toEqual(expect.arrayContaining(["payrol", "spreadsheet"]));
    expect(learned?.terms.every((term) => term.principals === 3)).toBe(true);
    // Only analyzed terms are kept: never the query's own text.
    expect(JSON.stringify(applied)).not.toContain(TEACHING);

    const after = await searchNames(settings, await caller("lt-look"), REQUEST, mode);
    expect(after[0]).toBe(TARGET);
    expect(after).toContain(RIVAL);

    // The owner's view: per tool, terms, weights, principals, when applied.
    const report = await json<LearningBody>(await send(settings, "/v1/learning", owner));
    expect(report).toMatchObject({ enabled: true, version: applied.version });
    expect(report.appliedAt).not.toBeNull();
    expect(report.evidence?.principals).toBe(3);
    // The callers' profile of the tool the three called: analyzed terms, each principal a third of it.
    const profile = report.profiles?.find((entry) => entry.tool === TARGET);
    expect(profile?.principals).toBe(3);
    expect(profile?.terms.map((term) => term.term).toSorted()).toEqual([...new Set(analyze(TEACHING))].toSorted());

    const reset = await send(settings, "/v1/learning", owner, { method: "DELETE" });
    expect(reset.status).toBe(200);
    expect(await searchNames(settings, await caller("lt-look"), REQUEST, mode)).toEqual(before);
  });

  it.each([["minisearch", true], ["substring", false]] as const)("a small learned part moves a tool into the ranked mode's first five places, not past the substring mode's first two (%s)", async (mode, joins) => {
    const settings = { learning: LEARNING, searchMode: mode };
    const before = await searchNames(settings, await caller("lt-look"), FILING, mode);
    expect(before).toHaveLength(5);
    expect(before).not.toContain(FILER);
    for (const label of ["lt-file-a", "lt-file-b", "lt-file-c"]) {
      const { shown, result } = await searchAndCall(settings, await caller(label), FILER_TEACHING, FILER, mode);
      expect(shown[0]).toBe(FILER);
      expect(result.isError).toBe(false);
    }
    const applied = await apply(settings);
    expect(applied.tools.find((entry) => entry.tool === FILER)?.terms.map((term) => term.term)).toContain(analyze("audit")[0]);
    const after = await searchNames(settings, await caller("lt-look"), FILING, mode);
    // Its part passes the fifth tool, not the second: in the ranked mode it joins the first five below the index's
    // first two, and the rest keep the index's order; in substring mode the page is the index's.
    expect(after.includes(FILER)).toBe(joins);
    expect(after.slice(0, 2)).toEqual(before.slice(0, 2));
    expect(after.filter((name) => name !== FILER)).toEqual(before.slice(0, joins ? 4 : 5));
  });

  it("the same searches and calls from one principal change nothing", async () => {
    const settings = { learning: LEARNING, searchMode: "minisearch" };
    const before = await searchNames(settings, await caller("lt-look"), REQUEST, "minisearch");
    const alone = await caller("lt-alone");
    for (let i = 0; i < 4; i++) expect((await searchAndCall(settings, alone, TEACHING, TARGET, "minisearch")).result.isError).toBe(false);
    const applied = await apply(settings);
    expect(applied.tools).toEqual([]);
    expect(applied.profiles).toEqual([]);
    expect(await searchNames(settings, await caller("lt-look"), REQUEST, "minisearch")).toEqual(before);
    const report = await json<LearningBody>(await send(settings, "/v1/learning", owner));
    expect(report.evidence).toMatchObject({ principals: 1 });
  });

  it("splits a search's evidence among the tools called from it; a principal's weight stays capped", async () => {
    const settings = { learning: LEARNING, searchMode: "minisearch" };
    const principals = await Promise.all(["lt-split-a", "lt-split-b", "lt-split-c"].map((label) => caller(label)));
    for (const who of principals) {
      // One search, two tools called from it: each learns half a call of its words.
      const sid = sessionId("lt-split");
      const found = await send(settings, `/v1/sessions/${sid}/search`, who, { body: { query: TEACHING, mode: "minisearch", enabledGroups: [GROUP], limit: 5 } });
      expect((await json<{ tools: { name: string }[] }>(found)).tools.map((tool) => tool.name)).toEqual(expect.arrayContaining([TARGET, RIVAL]));
      for (const name of [TARGET, RIVAL, TARGET]) {
        const called = await send(settings, `/v1/sessions/${sid}/execute`, who, { body: { name, arguments: { amount: 1 }, enabledGroups: [GROUP] } });
        expect((await json<{ isError: boolean }>(called)).isError).toBe(false);
      }
    }
    // Until the fold, the calls are pending (one per principal and tool: the target's second call counts once).
    expect((await json<LearningBody>(await send(settings, "/v1/learning", owner))).evidence).toMatchObject({ rows: 0, pending: 6 });
    const weights = (state: LearningBody, tool: string): number[] =>
      state.tools.find((entry) => entry.tool === tool)?.terms.map((term) => term.weight) ?? [];
    const split = await apply(settings);
    const terms = new Set(analyze(TEACHING)).size;
    expect(weights(split, TARGET)).toEqual(Array.from({ length: terms }, () => 1.5));
    expect(weights(split, RIVAL)).toEqual(Array.from({ length: terms }, () => 1.5));
    // Each principal calls the target alone from a search of its own: a whole call, capped at one per principal.
    for (const who of principals) expect((await searchAndCall(settings, who, TEACHING, TARGET, "minisearch")).result.isError).toBe(false);
    const whole = await apply(settings);
    expect(weights(whole, TARGET)).toEqual(Array.from({ length: terms }, () => 3));
    expect(weights(whole, RIVAL)).toEqual(Array.from({ length: terms }, () => 1.5));
    expect((await json<LearningBody>(await send(settings, "/v1/learning", owner))).evidence).toMatchObject({ pending: 0, principals: 3 });
  });

  it.each(["minisearch", "substring"])("three principals that passed a tool over lower it for their request; one principal changes nothing (%s)", async (mode) => {
    const settings = { learning: LEARNING, searchMode: mode };
    const before = await searchNames(settings, await caller("lt-look"), PLANNING, mode);
    expect(before.slice(0, 2)).toEqual([PLANNER, ADVISER]);
    /** The ranking with only the evidence against the planner: what calling the adviser taught it is forgotten. */
    const againstOnly = async (): Promise<{ names: string[]; report: LearningBody }> => {
      await apply(settings);
      expect((await send(settings, `/v1/learning/${ADVISER}`, owner, { method: "DELETE" })).status).toBe(200);
      const report = await json<LearningBody>(await send(settings, "/v1/learning", owner));
      return { names: await searchNames(settings, await caller("lt-look"), PLANNING, mode), report };
    };

    // One principal passing the planner over, however often, changes nothing.
    const alone = await caller("lt-pass-alone");
    for (let i = 0; i < 4; i++) expect((await searchAndCall(settings, alone, PLANNING, ADVISER, mode)).shown.slice(0, 2)).toEqual([PLANNER, ADVISER]);
    const one = await againstOnly();
    expect(one.report.passedOver).toEqual([]);
    expect(one.names).toEqual(before);

    // Three principals: the planner was passed over for the request's words, and falls below the adviser.
    for (const label of ["lt-pass-a", "lt-pass-b", "lt-pass-c"]) {
      const { shown, result } = await searchAndCall(settings, await caller(label), PLANNING, ADVISER, mode);
      expect(shown.slice(0, 2)).toEqual([PLANNER, ADVISER]);
      expect(result.isError).toBe(false);
    }
    const three = await againstOnly();
    expect(three.report.tools).toEqual([]);
    const against = three.report.passedOver?.find((entry) => entry.tool === PLANNER);
    expect(against?.terms.map((term) => term.term).toSorted()).toEqual([...new Set(analyze(PLANNING))].toSorted());
    // Three principals, each half a call of evidence against the planner (the fourth is the one alone, capped).
    expect(against?.terms.every((term) => term.principals === 4)).toBe(true);
    // The planner, lowered, falls below the adviser and each tool of the first places (two in substring mode, five in
    // the ranked mode) that its score lets pass, and no further.
    expect(three.names[0]).toBe(ADVISER);
    expect(three.names.slice(0, mode === "substring" ? 2 : 5)).toContain(PLANNER);
    expect(JSON.stringify(three.report)).not.toContain(PLANNING);

    expect((await send(settings, "/v1/learning", owner, { method: "DELETE" })).status).toBe(200);
    expect(await searchNames(settings, await caller("lt-look"), PLANNING, mode)).toEqual(before);
  });

  it("learns nothing while learning is off (the default)", async () => {
    const settings = { searchMode: "minisearch" };
    for (const label of ["lt-off-a", "lt-off-b", "lt-off-c"]) await searchAndCall(settings, await caller(label), TEACHING, TARGET, "minisearch");
    const report = await json<LearningBody>(await send(settings, "/v1/learning", owner));
    expect(report).toMatchObject({ enabled: false, evidence: { rows: 0 } });
  });

  it("a held call (confirmation pending) and a refused call teach nothing", async () => {
    const settings = { learning: LEARNING, searchMode: "minisearch" };
    for (const label of ["lt-held-a", "lt-held-b", "lt-held-c"]) {
      const held = await searchAndCall(settings, await caller(label), "wire currency for the payroll", HELD, "minisearch");
      expect(held.shown).toContain(HELD);
      expect(held.result.confirmation).toBeDefined();
      const refused = await searchAndCall(settings, await caller(label), "open the currency vault for payroll", REFUSED, "minisearch");
      expect(refused.shown).toContain(REFUSED);
      expect(refused.result.isError).toBe(true);
    }
    const applied = await apply(settings);
    expect(applied.tools).toEqual([]);
    expect((await json<LearningBody>(await send(settings, "/v1/learning", owner))).evidence?.rows).toBe(0);
  });

  it("a tool outside the caller's groups, or a call that no search of the session showed, teaches nothing", async () => {
    const settings = { learning: LEARNING, searchMode: "minisearch" };
    for (const label of ["lt-gate-a", "lt-gate-b", "lt-gate-c"]) {
      const gated = await searchAndCall(settings, await caller(label), "currency secret ledger payroll", SECRET, "minisearch");
      expect(gated.shown).not.toContain(SECRET);
      expect(gated.result.isError).toBe(true);
      // The target runs, but this session's search showed other tools only.
      const unseen = await searchAndCall(settings, await caller(label), "weather record", TARGET, "minisearch");
      expect(unseen.shown).not.toContain(TARGET);
      expect(unseen.result.isError).toBe(false);
    }
    const applied = await apply(settings);
    expect(applied.tools).toEqual([]);
  });

  it("DELETE /v1/learning/:tool forgets one tool's evidence", async () => {
    const settings = { learning: LEARNING, searchMode: "minisearch" };
    for (const label of ["lt-one-a", "lt-one-b", "lt-one-c"]) await searchAndCall(settings, await caller(label), TEACHING, TARGET, "minisearch");
    expect((await apply(settings)).tools.map((entry) => entry.tool)).toContain(TARGET);
    const forgotten = await send(settings, `/v1/learning/${TARGET}`, owner, { method: "DELETE" });
    expect(forgotten.status).toBe(200);
    // Three principals' rows for each of the target's terms.
    expect(await json(forgotten)).toMatchObject({ tool: TARGET, removed: 3 * new Set(analyze(TEACHING)).size });
    const report = await json<LearningBody>(await send(settings, "/v1/learning", owner));
    expect(report.tools.map((entry) => entry.tool)).not.toContain(TARGET);
    expect(await searchNames(settings, await caller("lt-look"), REQUEST, "minisearch")).not.toContain(TARGET);
  });

  it("DELETE /v1/learning/apply forgets the tool named apply; POST there still folds the evidence", async () => {
    const settings = { learning: LEARNING, searchMode: "minisearch" };
    for (const label of ["lt-apply-a", "lt-apply-b", "lt-apply-c"]) {
      const { shown, result } = await searchAndCall(settings, await caller(label), "apply my coupon", "apply", "minisearch");
      expect(shown).toContain("apply");
      expect(result.isError).toBe(false);
    }
    expect((await apply(settings)).tools.map((entry) => entry.tool)).toContain("apply");
    const forgotten = await send(settings, "/v1/learning/apply", owner, { method: "DELETE" });
    expect(forgotten.status).toBe(200);
    expect(await json(forgotten)).toMatchObject({ tool: "apply", removed: 3 * new Set(analyze("apply my coupon")).size });
    const report = await json<LearningBody>(await send(settings, "/v1/learning", owner));
    expect(report.tools.map((entry) => entry.tool)).not.toContain("apply");
    expect(report.evidence?.rows).toBe(0);
    // Anyone else gets 403 there too, and a method neither route has is still 405.
    expect(await errorOf(await send(settings, "/v1/learning/apply", await caller("lt-apply-user"), { method: "DELETE" }))).toMatchObject(anError(403, "forbidden"));
    expect((await send(settings, "/v1/learning/apply", owner, { method: "PUT", body: {} })).status).toBe(405);
  });

  it("learns over MCP, for an upstream MCP server's tool", async () => {
    const settings = { learning: LEARNING, searchMode: "minisearch" };
    const { id, url } = await upstream("mcp");
    const weather = `${id}__changing`;
    const config = vars(settings);
    for (const label of ["lt-mcp-a", "lt-mcp-b", "lt-mcp-c"]) {
      const { client } = await connect(await caller(label), { query: `?groups=${GROUP}`, env: config });
      const found = textOf(await client.callTool({ name: "search_tools", arguments: { query: "weather lookup for my umbrella" } }));
      expect(found).toContain(weather);
      const ran = await client.callTool({ name: weather, arguments: { city: "Oslo" } });
      expect(ran.isError ?? false).toBe(false);
      await client.close();
    }
    const applied = await apply(settings);
    expect(applied.tools.find((entry) => entry.tool === weather)?.terms.map((term) => term.term)).toContain("umbrella");
    expect(url).toContain(id);
  });

  it("a quarantined upstream tool teaches nothing, though a search showed it", async () => {
    const settings = { learning: LEARNING, searchMode: "minisearch" };
    const { id, state } = await upstream("quarantine");
    const weather = `${id}__changing`;
    const sessions: [string, string][] = [];
    for (const label of ["lt-q-a", "lt-q-b", "lt-q-c"]) {
      const who = await caller(label);
      const sid = sessionId("lt-q");
      const found = await send(settings, `/v1/sessions/${sid}/search`, who, { body: { query: "weather lookup umbrella", enabledGroups: [GROUP] } });
      expect((await json<{ tools: { name: string }[] }>(found)).tools.map((tool) => tool.name)).toContain(weather);
      sessions.push([who, sid]);
    }
    // The upstream changes the tool's description: it is held until the owner accepts it.
    await env.TOOL_REMOTE.fetch(state, { method: "POST", body: JSON.stringify({ version: 3 }) });
    expect((await api(`/v1/upstreams/${id}/refresh`, { method: "POST", token: owner })).status).toBe(200);
    for (const [who, sid] of sessions) {
      const called = await send(settings, `/v1/sessions/${sid}/execute`, who, { body: { name: weather, arguments: { city: "Oslo" }, enabledGroups: [GROUP] } });
      expect((await json<{ isError: boolean }>(called)).isError).toBe(true);
    }
    expect((await apply(settings)).tools).toEqual([]);
  });

  it("the routes are the owner's: 403 for anyone else", async () => {
    const user = await caller("lt-user");
    for (const [method, path] of [["GET", "/v1/learning"], ["DELETE", "/v1/learning"], ["DELETE", `/v1/learning/${TARGET}`], ["POST", "/v1/learning/apply"]] as const) {
      expect(await errorOf(await send({ learning: LEARNING }, path, user, { method }))).toMatchObject(anError(403, "forbidden"));
    }
  });

  it.each([
    [{ minPrincipals: 0 }, "learning.minPrincipals"],
    [{ halfLifeDays: -1 }, "learning.halfLifeDays"],
    [{ maxTermsPerTool: 1000 }, "learning.maxTermsPerTool"],
    [{ applyEverySeconds: 1 }, "learning.applyEverySeconds"],
    [{ enabled: "yes" }, "learning.enabled"],
    [{ rate: 1 }, "learning.rate"],
  ])("refuses bad configuration %j, naming the option", async (learning, option) => {
    const refused = await errorOf(await send({ learning }, "/v1/learning", owner));
    expect(refused).toMatchObject(anError(503, "misconfigured"));
    expect(refused.message).toContain(`TOOL_SEARCH_CONFIG.${option}`);
  });
});
