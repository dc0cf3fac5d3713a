// What a caller outside a group can learn, through the Worker's own fetch: nothing. Search pages and their order,
// auto-discovered tools, suggestions and the turn's tool list are the same before and after tools of a group the
// caller does not hold are registered (two of them share the visible tool's rare word, which used to lower its
// relevance under auto-discovery's floor); and a tool in several groups names only the caller's.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { api, fetchWithEnv, json, ownerToken, request, sessionId, token } from "./helpers.ts";

const RARE = "zygomorphic";
const SECRET_GROUP = "hushcrew";

const VISIBLE = [
  { name: "gv_orchid_lookup", description: `Looks up a ${RARE} orchid in the garden catalog.`, groups: ["gv_garden"] },
  { name: "gv_seed_order", description: "Orders seeds for the garden.", groups: ["gv_garden"] },
  { name: "gv_shared_ledger", description: "Ledger of plant purchases.", groups: ["gv_garden", SECRET_GROUP] },
  { name: "gv_watering_plan", description: "Plans watering for the garden beds.", groups: ["gv_garden"] },
].map((tool) => ({ ...tool, parameters: { type: "object", properties: {} }, executor: { type: "builtin", name: "echo" } }));

const HIDDEN = [
  { name: "gv_orchid_lookups", description: `${RARE} ${RARE} flowers, secret list.` },
  { name: "gv_orchid_lookout", description: `Watches ${RARE} things for the crew.` },
].map((tool) => ({ ...tool, groups: [SECRET_GROUP], parameters: { type: "object", properties: {} }, executor: { type: "builtin", name: "echo" } }));

function vars(settings: Record<string, unknown>): Record<string, string> {
  const base: unknown = JSON.parse(env.TOOL_SEARCH_CONFIG);
  return { TOOL_SEARCH_CONFIG: JSON.stringify({ ...(typeof base === "object" && base !== null ? base : {}), ...settings }) };
}

let owner = "";
let caller = "";
beforeAll(async () => {
  owner = await ownerToken("owner-group-views");
  caller = await token({ sub: `gv-${crypto.randomUUID()}`, groups: ["gv_garden"] });
  const response = await api("/v1/tools", { method: "PUT", token: owner, body: { tools: VISIBLE, context: "gv-visible" } });
  if (response.status !== 200) throw new Error(`registering the tools failed: ${await response.text()}`);
}, 60_000);

/** Everything the caller receives for its questions, each in a fresh session. */
async function everything(): Promise<unknown> {
  const seen: Record<string, unknown> = {};
  for (const mode of ["minisearch", "substring"]) {
    for (const [offset, limit] of [[0, 1], [1, 1], [0, 10]] as const) {
      const response = await api(`/v1/sessions/${sessionId("gv")}/search`, { token: caller, body: { query: `${RARE} orchid`, mode, limit, offset } });
      expect(response.status).toBe(200);
      seen[`search ${mode} ${offset}+${limit}`] = await json(response);
    }
    const settings = vars({ searchMode: mode, autoDiscover: { topK: 2, minScore: 0.9 }, toolList: "grow" });
    const prepared = await fetchWithEnv(settings, request(`/v1/sessions/${sessionId("gv")}/prepare`, {
      token: caller,
      body: { messages: [{ role: "user", content: `Tell me about ${RARE} blooms` }] },
    }));
    expect(prepared.status).toBe(200);
    seen[`prepare ${mode}`] = await json(prepared);
  }
  const unknown = await api(`/v1/sessions/${sessionId("gv")}/execute`, { token: caller, body: { name: "gv_orchid_lookupz" } });
  seen.suggestions = await json(unknown);
  seen.summaries = await json(await api("/v1/tools?format=summary", { token: caller }));
  seen.full = await json(await api("/v1/tools", { token: caller }));
  return seen;
}

describe("callers outside a group learn nothing of it", () => {
  it("receives the same answers whether or not the group's tools exist", async () => {
    const before = await everything();
    // The visible tool holds the rare word alone: auto-discovery sends it, over the floor.
    expect(before).toMatchObject({ "prepare minisearch": { stats: { autoDiscovered: ["gv_orchid_lookup"] } } });
    const added = await api("/v1/tools", { method: "PUT", token: owner, body: { tools: HIDDEN, context: "gv-hidden" } });
    expect(added.status).toBe(200);
    const after = await everything();
    expect(after).toEqual(before);
    // An insider does see them: the tools are there.
    const insider = await token({ sub: `gv-in-${crypto.randomUUID()}`, groups: ["gv_garden", SECRET_GROUP] });
    const found = await json<{ tools: { name: string }[] }>(await api(`/v1/sessions/${sessionId("gv")}/search`, { token: insider, body: { query: RARE, limit: 10 } }));
    expect(found.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(HIDDEN.map((tool) => tool.name)));
    const removed = await api("/v1/contexts/gv-hidden", { method: "DELETE", token: owner });
    expect(removed.status).toBe(200);
  }, 60_000);

  it("names only the caller's groups, and finds nothing by the name of another", async () => {
    const answers = JSON.stringify(await everything());
    expect(answers).not.toContain(SECRET_GROUP);
    const summaries = await json<{ tools: { name: string; groups?: string[] }[] }>(await api("/v1/tools?format=summary", { token: caller }));
    expect(summaries.tools.find((tool) => tool.name === "gv_shared_ledger")?.groups).toEqual(["gv_garden"]);
    const byGroup = await json<{ found: string }>(await api(`/v1/sessions/${sessionId("gv")}/search`, { token: caller, body: { query: SECRET_GROUP } }));
    expect(byGroup.found).toBe("0/0");
    // The owner holds every group and sees both names.
    const all = await json<{ tools: { name: string; groups?: string[] }[] }>(await api("/v1/tools?format=summary", { token: owner }));
    expect(all.tools.find((tool) => tool.name === "gv_shared_ledger")?.groups).toEqual(["gv_garden", SECRET_GROUP]);
  }, 60_000);
});
