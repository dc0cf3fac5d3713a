// Registry search over shards (config searchShards), through the Worker's own fetch: past the threshold every search
// asks the search shard objects and answers exactly what the isolate's own index answers (pages, totals, pagination,
// related names), for callers with and without groups, in both modes; at or below the threshold, and with the switch
// off, no shard is asked. A registry write the isolate has not seen yet is found by the shards, and the search is
// answered at the new version.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { REGISTRY_OBJECT_NAME } from "../../src/durable/names.ts";
import { countingNamespace, fetchWithEnv, json, ownerToken, request, sessionId, token } from "./helpers.ts";
import { generatedCatalog } from "../support/generatedCatalog.ts";

const CONTEXT = "sharded-search";
const catalog = generatedCatalog(90, 21);
const TOOLS = catalog.tools.map((tool, i) => ({
  ...tool,
  name: `sh_${tool.name}`,
  // A few groups shared by several tools, so that a caller's view is a real subset.
  ...(i % 3 === 0 ? { groups: [`sh_group_${i % 2}`] } : {}),
  executor: { type: "builtin", name: "echo" },
}));

/** SEARCH_SHARD RPCs since the count was last reset. */
let shardCalls = 0;
const countedShards = (): unknown => countingNamespace(env.SEARCH_SHARD, () => {
  shardCalls += 1;
});

function vars(settings: Record<string, unknown>): Record<string, unknown> {
  const base: unknown = JSON.parse(env.TOOL_SEARCH_CONFIG);
  return {
    TOOL_SEARCH_CONFIG: JSON.stringify({ ...(typeof base === "object" && base !== null ? base : {}), registryVersionTtlMs: 60_000, ...settings }),
    SEARCH_SHARD: countedShards(),
  };
}

const QUERIES = [
  "",
  "create user data",
  catalog.words[40] ?? "",
  `${catalog.words[60] ?? ""}ing list`,
  TOOLS[7]?.name ?? "",
  "get the weather in paris tomorrow",
  `${catalog.words[3] ?? ""} ${catalog.words[90] ?? ""} ${catalog.words[200] ?? ""} with the file`,
  // A sentence (substring: more keywords than a band of every weighing takes, most of them counted by the queries
  // before, so one round with a band bounded by those counts).
  `can you get the list of ${catalog.words[40] ?? ""} user data in the ${catalog.words[90] ?? ""} file with ${catalog.words[300] ?? ""} for me`,
];

let owner = "";
let caller = "";
let grouped = "";
beforeAll(async () => {
  owner = await ownerToken("owner-sharded");
  caller = await token({ sub: `sh-${crypto.randomUUID()}` });
  grouped = await token({ sub: `sh-g-${crypto.randomUUID()}`, groups: ["sh_group_0", "search"] });
  const response = await fetchWithEnv({}, request("/v1/tools", { method: "PUT", token: owner, body: { tools: TOOLS, context: CONTEXT } }));
  if (response.status !== 200) throw new Error(`registering the tools failed: ${await response.text()}`);
}, 60_000);

/** Every answer to QUERIES (two pages each) under `settings`, and how many shard RPCs they took. */
async function answers(settings: Record<string, unknown>, tokenText: string): Promise<{ answers: unknown[]; calls: number }> {
  const overrides = vars(settings);
  shardCalls = 0;
  const seen: unknown[] = [];
  for (const query of QUERIES) {
    for (const page of [{ limit: 4 }, { limit: 3, offset: 4 }, { limit: 0 }]) {
      const response = await fetchWithEnv(overrides, request(`/v1/sessions/${sessionId("sh")}/search`, { token: tokenText, body: { query, ...page } }));
      expect(response.status).toBe(200);
      seen.push({ query, page, answer: await json(response) });
    }
  }
  return { answers: seen, calls: shardCalls };
}

describe.each(["minisearch", "substring"] as const)("sharded registry search, %s", (mode) => {
  it("answers every search as the isolate's own index does, asking the shards", async () => {
    for (const tokenText of [caller, grouped]) {
      const single = await answers({ searchMode: mode }, tokenText);
      expect(single.calls).toBe(0);
      const sharded = await answers({ searchMode: mode, searchShards: { aboveTools: 10, count: 3 } }, tokenText);
      expect(sharded.calls).toBeGreaterThan(0);
      expect(sharded.answers).toEqual(single.answers);
    }
  }, 120_000);

  interface Turn {
    query: string;
    tools: (string | undefined)[];
    autoDiscovered: string[] | undefined;
  }
  /** Prepare's turns for QUERIES (fresh sessions) with auto-discovery on, and how many shard RPCs they took. */
  const turns = async (settings: Record<string, unknown>): Promise<{ found: Turn[]; calls: number }> => {
    const overrides = vars({ searchMode: mode, toolList: "grow", autoDiscover: { topK: 3, minScore: 0 }, ...settings });
    shardCalls = 0;
    const found: Turn[] = [];
    for (const query of QUERIES.slice(1)) {
      const response = await fetchWithEnv(overrides, request(`/v1/sessions/${sessionId("shp")}/prepare`, { token: grouped, body: { messages: [{ role: "user", content: query }] } }));
      expect(response.status).toBe(200);
      const body = await json<{ tools: { function?: { name: string } }[]; stats: { autoDiscovered?: string[] } }>(response);
      found.push({ query, tools: body.tools.map((tool) => tool.function?.name), autoDiscovered: body.stats.autoDiscovered });
    }
    return { found, calls: shardCalls };
  };

  it("auto-discovers in prepare what the isolate's own index finds", async () => {
    const single = await turns({});
    const sharded = await turns({ searchShards: { aboveTools: 10, count: 3 } });
    expect(single.calls).toBe(0);
    expect(sharded.calls).toBeGreaterThan(0);
    expect(sharded.found).toEqual(single.found);
    expect(single.found.some((turn) => turn.autoDiscovered?.length === 3)).toBe(true);
  }, 120_000);

  it("asks no shard at or below the threshold, and the answers do not change", async () => {
    const single = await answers({ searchMode: mode }, caller);
    const below = await answers({ searchMode: mode, searchShards: { aboveTools: 1_000, count: 3 } }, caller);
    expect(below.calls).toBe(0);
    expect(below.answers).toEqual(single.answers);
  }, 120_000);
});

describe("sharded registry search and registry writes", () => {
  it("finds a write the isolate has not seen yet, and answers at the new version", async () => {
    const overrides = vars({ searchMode: "minisearch", searchShards: { aboveTools: 10, count: 2 } });
    // The isolate reads the registry (and trusts its version for a minute); no shard of this count is made yet.
    const listed = await fetchWithEnv(overrides, request("/v1/tools?format=summary", { token: caller }));
    expect(listed.status).toBe(200);
    // Written to the registry object directly: the isolate does not know.
    const added = { name: "sh_quokka_caller", description: "Calls a quokkaphone.", parameters: { type: "object", properties: {} } };
    const outcome = await env.REGISTRY.getByName(REGISTRY_OBJECT_NAME).put([{ definition: added, context: CONTEXT }], 100_000);
    expect(outcome.ok).toBe(true);
    shardCalls = 0;
    // The shards of the isolate's version find the registry moved on and say to which version: the isolate reads it
    // and searches that version's shards.
    const response = await fetchWithEnv(overrides, request(`/v1/sessions/${sessionId("sw")}/search`, { token: caller, body: { query: "quokkaphone", limit: 3 } }));
    expect(response.status).toBe(200);
    const found = await json<{ tools: { name: string }[] }>(response);
    expect(found.tools.map((tool) => tool.name)).toEqual(["sh_quokka_caller"]);
    expect(shardCalls).toBeGreaterThan(2);
  }, 120_000);

  it("auto-discovers in prepare at the new version after a write the isolate has not seen yet", async () => {
    const overrides = vars({ searchMode: "substring", searchShards: { aboveTools: 10, count: 2 }, autoDiscover: { topK: 3, minScore: 0 } });
    const listed = await fetchWithEnv(overrides, request("/v1/tools?format=summary", { token: caller }));
    expect(listed.status).toBe(200);
    const added = { name: "sh_wombat_caller", description: "Calls a wombatphone.", parameters: { type: "object", properties: {} } };
    const outcome = await env.REGISTRY.getByName(REGISTRY_OBJECT_NAME).put([{ definition: added, context: CONTEXT }], 100_000);
    expect(outcome.ok).toBe(true);
    shardCalls = 0;
    // The turn's list is the isolate's version (the new tool is not in it); the shards of the new version are asked.
    const body = { messages: [{ role: "user", content: `call the wombatphone, then ${TOOLS[5]?.name ?? ""}` }] };
    const response = await fetchWithEnv(overrides, request(`/v1/sessions/${sessionId("swp")}/prepare`, { token: caller, body }));
    expect(response.status).toBe(200);
    const turn = await json<{ stats: { autoDiscovered?: string[] } }>(response);
    expect(turn.stats.autoDiscovered).toContain(TOOLS[5]?.name);
    expect(shardCalls).toBeGreaterThan(2);
  }, 120_000);
});
