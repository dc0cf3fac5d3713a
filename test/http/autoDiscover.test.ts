// Auto-discovery through the Worker's own fetch: prepare's auto-discovery (config autoDiscover). The tools the
// latest user message matches are sent last in this turn, named in stats.autoDiscovered, kept out of the discovered
// set until called; a tool the caller's groups hide never is; a direct call and call_tool both run it.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { anError, api, errorOf, fetchWithEnv, json, ownerToken, request, sessionId, token } from "./helpers.ts";

interface PrepareBody {
  tools: { type: string; function: { name: string } }[];
  applied: boolean;
  discovered: string[];
  stats: { sent: number; tokensSent: number; autoDiscovered?: string[] };
}

const WEATHER = "ad_weather_forecast";
const HIDDEN = "ad_weather_radar_secret";
const FILLERS = Array.from({ length: 8 }, (_, i) => `ad_filler_${i}`);

function vars(settings: Record<string, unknown>): Record<string, string> {
  const base: unknown = JSON.parse(env.TOOL_SEARCH_CONFIG);
  return { TOOL_SEARCH_CONFIG: JSON.stringify({ ...(typeof base === "object" && base !== null ? base : {}), ...settings }) };
}

const ON = { autoDiscover: { topK: 3, minScore: 0.5 } };

async function call(settings: Record<string, unknown>, caller: string, sid: string, route: string, body: unknown): Promise<Response> {
  return fetchWithEnv(vars(settings), request(`/v1/sessions/${sid}/${route}`, { token: caller, body }));
}

async function prepare(settings: Record<string, unknown>, caller: string, sid: string, messages: unknown[]): Promise<PrepareBody> {
  const response = await call(settings, caller, sid, "prepare", { messages, enabledGroups: ["ad"] });
  expect(response.status).toBe(200);
  return json<PrepareBody>(response);
}

const names = (body: PrepareBody): string[] => body.tools.map((tool) => tool.function.name);
const asking = (text: string): unknown[] => [{ role: "user", content: text }];
const WEATHER_QUESTION = asking("What will the weather forecast say for Paris?");

beforeAll(async () => {
  const owner = await ownerToken("owner-autodiscover");
  const tools = [
    {
      name: WEATHER,
      description: "Weather forecast for a city: temperature and rain for the coming days.",
      parameters: { type: "object", properties: { city: { type: "string" } } },
      groups: ["ad"],
      executor: { type: "builtin", name: "echo" },
    },
    {
      // Matches the question better than anything, but only callers with the "ad_secret" group may see it.
      name: HIDDEN,
      description: "Weather forecast radar for Paris.",
      parameters: { type: "object", properties: {} },
      groups: ["ad_secret"],
      executor: { type: "builtin", name: "echo" },
    },
    ...FILLERS.map((name) => ({
      name,
      description: `Filler ${name}: files a record.`,
      parameters: { type: "object", properties: {} },
      groups: ["ad"],
      executor: { type: "builtin", name: "echo" },
    })),
  ];
  const response = await api("/v1/tools", { method: "PUT", token: owner, body: { tools, context: "autodiscover" } });
  if (response.status !== 200) throw new Error(`registering the tools failed: ${await response.text()}`);
}, 60_000);

function newCaller(label: string, groups = ["ad"]): Promise<string> {
  return token({ sub: `${label}-${crypto.randomUUID()}`, groups });
}

describe("autoDiscover", () => {
  it.each(["substring", "minisearch"])("sends the matching tool last, marked, and not discovered (%s)", async (searchMode) => {
    const user = await newCaller(`auto-${searchMode}`);
    const sid = sessionId("auto");
    const settings = { ...ON, searchMode, toolList: "grow" };
    const off = await prepare({ searchMode, toolList: "grow" }, user, sessionId("off"), WEATHER_QUESTION);
    const on = await prepare(settings, user, sid, WEATHER_QUESTION);
    expect(off.stats.autoDiscovered).toBeUndefined();
    // The weather tool first (the demo catalog's tools may follow: in a catalog this small, one shared word is rare).
    const auto = on.stats.autoDiscovered ?? [];
    expect(auto[0]).toBe(WEATHER);
    // The list without auto-discovery, then the tools: a provider's cached prefix keeps the whole list before them.
    expect(names(on)).toEqual([...names(off), ...auto]);
    expect(JSON.stringify(on.tools.slice(0, off.tools.length))).toBe(JSON.stringify(off.tools));
    expect(on.stats.sent).toBe(off.stats.sent + auto.length);
    expect(on.stats.tokensSent).toBeGreaterThan(off.stats.tokensSent);
    expect(on.discovered).toEqual([]);
    // A turn that does not call it leaves the set as it was.
    const again = await prepare(settings, user, sid, [...WEATHER_QUESTION, { role: "assistant", content: "Which city?" }]);
    expect(again.discovered).toEqual([]);
    expect(again.stats.autoDiscovered).toEqual(auto);
  });

  it("never sends a tool the caller's groups hide, but does once they allow it", async () => {
    const user = await newCaller("auto-gated");
    const body = await prepare(ON, user, sessionId("gated"), WEATHER_QUESTION);
    expect(names(body)).not.toContain(HIDDEN);
    const insider = await newCaller("auto-insider", ["ad", "ad_secret"]);
    const response = await call(ON, insider, sessionId("insider"), "prepare", { messages: WEATHER_QUESTION, enabledGroups: ["ad", "ad_secret"] });
    const seen = await json<PrepareBody>(response);
    expect(seen.stats.autoDiscovered).toContain(HIDDEN);
  });

  it("sends nothing for a message that matches no tool well enough, or when there is no user text", async () => {
    const user = await newCaller("auto-none");
    expect((await prepare(ON, user, sessionId("none"), asking("Thanks, that is all."))).stats.autoDiscovered).toEqual([]);
    expect((await prepare(ON, user, sessionId("empty"), [])).stats.autoDiscovered).toEqual([]);
    // "file" is in most tools' texts: it says little, and stays under the floor; with no floor, it is enough.
    const common = asking("Please file it");
    expect((await prepare(ON, user, sessionId("common"), common)).stats.autoDiscovered).toEqual([]);
    const unfloored = await prepare({ autoDiscover: { topK: 3, minScore: 0 } }, user, sessionId("unfloored"), common);
    // Which three is the ranking's matter, over the tools this caller sees (its groups' and the ungrouped ones).
    expect(unfloored.stats.autoDiscovered).toHaveLength(3);
    expect(unfloored.stats.autoDiscovered).not.toContain(HIDDEN);
  });

  it("reads the latest user text in the client's shape, past a turn that only answers tool calls", async () => {
    const user = await newCaller("auto-shapes");
    const anthropic = [
      { role: "user", content: [{ type: "text", text: "Weather forecast for Paris, please." }] },
      { role: "assistant", content: [{ type: "tool_use", id: "tu1", name: FILLERS[0], input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "tu1", content: "done" }] },
    ];
    const body = await prepare(ON, user, sessionId("anthropic"), anthropic);
    expect(body.stats.autoDiscovered?.[0]).toBe(WEATHER);
    // The called filler was discovered through the history; the weather tool was not.
    expect(body.discovered).toEqual([FILLERS[0]]);
  });

  it("runs an auto-discovered tool called by its name, which then joins the discovered set", async () => {
    const user = await newCaller("auto-run");
    const sid = sessionId("run");
    await prepare(ON, user, sid, WEATHER_QUESTION);
    const ran = await call(ON, user, sid, "execute", { name: WEATHER, arguments: { city: "Paris" } });
    expect(await json<{ isError: boolean }>(ran)).toMatchObject({ isError: false });
    const history = [
      ...WEATHER_QUESTION,
      { role: "assistant", tool_calls: [{ id: "c1", type: "function", function: { name: WEATHER, arguments: '{"city":"Paris"}' } }] },
      { role: "tool", tool_call_id: "c1", content: "sunny" },
    ];
    const next = await prepare(ON, user, sid, history);
    expect(next.discovered).toEqual([WEATHER]);
    // Sent as a discovered tool now, not as an auto-discovered one.
    expect(next.stats.autoDiscovered).not.toContain(WEATHER);
    expect(names(next).filter((name) => name === WEATHER)).toHaveLength(1);
  });

  it('under "fixed" comes after the meta-tools, runs by its name and through call_tool alike', async () => {
    const user = await newCaller("auto-fixed");
    const sid = sessionId("fixed");
    const settings = { ...ON, toolList: "fixed" };
    const body = await prepare(settings, user, sid, WEATHER_QUESTION);
    expect(names(body).slice(0, 3)).toEqual(["search_tools", "call_tool", WEATHER]);
    expect(names(body).slice(2)).toEqual(body.stats.autoDiscovered);
    const wrapped = await call(settings, user, sid, "execute", { name: "call_tool", arguments: { name: WEATHER, arguments: {} } });
    const direct = await call(settings, user, sid, "execute", { name: WEATHER, arguments: { city: "Paris" } });
    const directAnswer = await json<{ isError: boolean; content: string }>(direct);
    expect(directAnswer).toMatchObject({ isError: false });
    // Auto-discovery listed it without a search: call_tool runs it too (the guard is the boundary, not a search).
    expect(await json(wrapped)).toMatchObject({ isError: false });
  });

  it("works on a client catalog sent with the turn", async () => {
    const user = await newCaller("auto-client");
    const tools = [
      { type: "function", function: { name: "book_flight", description: "Books a flight between two airports.", parameters: { type: "object", properties: {} } } },
      ...Array.from({ length: 8 }, (_, i) => ({ type: "function", function: { name: `noise_${i}`, description: "Counts sheep.", parameters: { type: "object", properties: {} } } })),
    ];
    const response = await call(ON, user, sessionId("client"), "prepare", { messages: asking("Book me a flight to Rome"), tools });
    const body = await json<PrepareBody>(response);
    expect(body.stats.autoDiscovered).toEqual(["book_flight"]);
    expect(names(body).at(-1)).toBe("book_flight");
  });

  it.each([
    ["TOOL_SEARCH_CONFIG.autoDiscover.topK", { topK: 11 }],
    ["TOOL_SEARCH_CONFIG.autoDiscover.minScore", { topK: 3, minScore: 1.5 }],
    ["TOOL_SEARCH_CONFIG.autoDiscover.top", { top: 3 }],
  ])("fails fast on a bad setting, naming %s", async (field, autoDiscover) => {
    const user = await newCaller("auto-bad");
    const response = await call({ autoDiscover }, user, sessionId("bad"), "prepare", { messages: [] });
    const error = await errorOf(response);
    expect(error).toMatchObject(anError(503, "misconfigured"));
    expect(error.message).toContain(field);
  });
});
