// The registry routes: listing in every format, the owner's register / replace / remove / dispose, bulk
// registration of 5,000 tools, and every change visible to the very next request.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_CONTEXT, demoCatalog } from "../../src/catalog/demo.ts";
import { registryStub } from "../../src/durable/stubs.ts";
import { anError, api, errorOf, fetchWithEnv, json, request, sessionId, suiteConfig, token } from "./helpers.ts";
import { nameInShape } from "./shapes.ts";

interface ToolsBody {
  tools: Record<string, unknown>[];
}

let owner = "";
let alice = "";
let webUser = "";
beforeAll(async () => {
  owner = await token({ sub: "owner-tools", owner: true });
  alice = await token({ sub: "alice-tools" });
  webUser = await token({ sub: "web-tools", groups: ["web"] });
  await api("/v1/health");
}, 60_000);

const simple = (description: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  description,
  parameters: { type: "object", properties: { text: { type: "string" } } },
  ...extra,
});

async function listNames(tokenText: string, query = ""): Promise<string[]> {
  const response = await api(`/v1/tools?format=summary${query}`, { token: tokenText });
  expect(response.status).toBe(200);
  return (await json<ToolsBody>(response)).tools.map((tool) => String(tool.name));
}

function put(name: string, body: unknown, tokenText = owner): Promise<Response> {
  return api(`/v1/tools/${name}`, { method: "PUT", token: tokenText, body });
}

function remove(path: string): Promise<Response> {
  return api(path, { method: "DELETE", token: owner });
}

const demo = demoCatalog();
const ungroupedDemo = demo.filter((tool) => !tool.groups?.length).map((tool) => tool.name);
const webDemo = demo.filter((tool) => tool.groups?.includes("web")).map((tool) => tool.name);

describe("GET /v1/tools", () => {
  it("lists the tools the caller may see, in OpenAI Chat shape by default", async () => {
    const response = await api("/v1/tools", { token: alice });
    expect(response.status).toBe(200);
    const { tools } = await json<ToolsBody>(response);
    expect(tools.map((tool) => nameInShape(tool, "openai"))).toEqual(ungroupedDemo);
  });

  it.each(["responses", "anthropic", "mcp"] as const)("answers format=%s in that shape", async (format) => {
    const { tools } = await json<ToolsBody>(await api(`/v1/tools?format=${format}`, { token: alice }));
    expect(tools.map((tool) => nameInShape(tool, format))).toEqual(ungroupedDemo);
  });

  it("answers format=summary with names and descriptions only", async () => {
    const { tools } = await json<ToolsBody>(await api("/v1/tools?format=summary&groups=web", { token: webUser }));
    const search = tools.find((tool) => tool.name === "web_search");
    expect(search).toMatchObject({ name: "web_search", description: expect.any(String), groups: ["web"] });
    expect(search).not.toHaveProperty("parameters");
  });

  it("applies the group gate within the token's groups", async () => {
    expect(await listNames(webUser)).toEqual(expect.arrayContaining([...ungroupedDemo, ...webDemo]));
    expect(await listNames(webUser, "&groups=")).toEqual(ungroupedDemo);
    expect(await listNames(alice, "&groups=web")).toEqual(ungroupedDemo);
    expect(await listNames(webUser, "&groups=web,mail")).toEqual(await listNames(webUser, "&groups=web"));
    const everything = await listNames(owner);
    expect(everything).toHaveLength(demo.length);
  });

  it.each([
    ["?format=xml", /^format: must be one of/],
    ["?group=web", /^group: unknown query parameter/],
    ["?format=mcp&format=openai", /^format: given more than once/],
  ])("answers 400 for %s", async (query, message) => {
    const error = await errorOf(await api(`/v1/tools${query}`, { token: alice }));
    expect(error).toMatchObject(anError(400, "invalid_request"));
    expect(error.message).toMatch(message);
  });
});

describe("PUT and DELETE /v1/tools/:name", () => {
  it("creates (201), replaces (200), removes (200, then 404), each visible to the next request", async () => {
    const created = await put("lab_lifecycle", simple("First lab tool version: measures lab things."));
    expect(created.status).toBe(201);
    const body = await json<{ tool: Record<string, unknown>; context: string; version: number }>(created);
    expect(body.tool).toMatchObject({ name: "lab_lifecycle", description: "First lab tool version: measures lab things." });
    expect(body.context).toBe("runtime");
    expect(await listNames(alice)).toContain("lab_lifecycle");

    const replaced = await put("lab_lifecycle", simple("Second lab tool version: counts quasars."));
    expect(replaced.status).toBe(200);
    const after = await json<{ version: number }>(replaced);
    expect(after.version).toBeGreaterThan(body.version);
    const found = await json<{ tools: { name: string; description: string }[] }>(
      await api(`/v1/sessions/${sessionId()}/search`, { token: alice, body: { query: "quasars" } }),
    );
    expect(found.tools).toEqual([expect.objectContaining({ name: "lab_lifecycle", description: "Second lab tool version: counts quasars." })]);

    const removed = await remove("/v1/tools/lab_lifecycle");
    expect(removed.status).toBe(200);
    expect(await json(removed)).toMatchObject({ removed: "lab_lifecycle" });
    expect(await listNames(alice)).not.toContain("lab_lifecycle");
    expect(await errorOf(await remove("/v1/tools/lab_lifecycle"))).toMatchObject(anError(404, "tool_not_found"));
  });

  it("runs a registered tool with a built-in executor", async () => {
    expect((await put("lab_echo", simple("Echo again.", { executor: { type: "builtin", name: "echo" } }))).status).toBe(201);
    const response = await api(`/v1/sessions/${sessionId()}/execute`, {
      token: alice,
      body: { name: "lab_echo", arguments: { text: "ping-42" } },
    });
    const result = await json<{ content: string; isError: boolean }>(response);
    expect(result).toMatchObject({ isError: false, content: expect.stringContaining("ping-42") });
  });

  it("removes and restores a demo tool", async () => {
    expect((await remove("/v1/tools/generate_uuid")).status).toBe(200);
    expect(await listNames(alice)).not.toContain("generate_uuid");
    const back = await put("generate_uuid", simple("A stand-in for the demo tool."));
    expect(back.status).toBe(201);
    expect(await listNames(alice)).toContain("generate_uuid");
  });

  it.each([
    ["lab_bad", simple("x", { colour: "red" }), /^colour/],
    ["lab_bad", { description: "x", parameters: { type: "string" } }, /^parameters/],
    ["lab_bad", simple("x", { name: "other_name" }), /^name: must match the name in the path/],
    ["bad%09name", simple("x"), /^name: /],
    ["lab_bad", simple("x", { executor: { type: "builtin", name: "no_such_builtin" } }), /^executor/],
    ["lab_bad", simple("x", { context: "bad context" }), /^context: /],
    ["lab_bad", simple("x", { groups: "web" }), /^groups/],
  ])("answers 400 naming the field (PUT /v1/tools/%s %j)", async (name, body, message) => {
    const error = await errorOf(await put(name, body));
    expect(error).toMatchObject(anError(400, "invalid_request"));
    expect(error.message).toMatch(message);
  });

  it("answers a gated tool and an absent tool with byte-equal bodies", async () => {
    const vault = simple("Opens the vault.", { groups: ["vault"], executor: { type: "builtin", name: "echo" } });
    expect((await put("vault_opener", vault)).status).toBe(201);
    const call = { name: "vault_opener", arguments: { text: "x" } };
    const sid = sessionId();
    const gated = await api(`/v1/sessions/${sid}/execute`, { token: alice, body: call });
    expect((await remove("/v1/tools/vault_opener")).status).toBe(200);
    const absent = await api(`/v1/sessions/${sid}/execute`, { token: alice, body: call });
    expect(gated.status).toBe(200);
    expect(absent.status).toBe(gated.status);
    const gatedText = await gated.text();
    expect(gatedText).toBe(await absent.text());
    expect(gatedText).toContain('"isError":true');
  });

  it("answers 409 when a new tool would pass maxTools, but still lets a tool be replaced", async () => {
    const capped = suiteConfig({ limits: { maxTools: 1 } });
    const refused = await fetchWithEnv(capped, request("/v1/tools/lab_cap", { method: "PUT", token: owner, body: simple("x") }));
    expect(await errorOf(refused)).toMatchObject(anError(409, "too_many_tools"));
    const replaced = await fetchWithEnv(capped, request("/v1/tools/echo", { method: "PUT", token: owner, body: simple("Echo, replaced.", { executor: { type: "builtin", name: "echo" } }) }));
    expect(replaced.status).toBe(200);
  });

  // Another isolate's write is simulated by writing to the registry object directly (the route is not told).
  it("sees another isolate's change on the next request once the version TTL has run out (0: every request)", async () => {
    const fresh = suiteConfig({ registryVersionTtlMs: 0 });
    const list = async (): Promise<string[]> => {
      const response = await fetchWithEnv(fresh, request("/v1/tools?format=summary", { token: alice }));
      return (await json<ToolsBody>(response)).tools.map((tool) => String(tool.name));
    };
    const stub = registryStub(env);
    expect(await list()).not.toContain("lab_elsewhere");
    const outcome = await stub.put([{ context: "elsewhere", definition: { name: "lab_elsewhere", description: "From another isolate.", parameters: { type: "object" } } }], 50_000);
    expect(outcome.ok).toBe(true);
    expect(await list()).toContain("lab_elsewhere");
    await stub.remove("lab_elsewhere");
    expect(await list()).not.toContain("lab_elsewhere");
  });

  it("keeps another isolate's change out of view while the version is younger than registryVersionTtlMs", async () => {
    const cached = suiteConfig({ registryVersionTtlMs: 60_000 });
    const list = async (): Promise<string[]> => {
      const response = await fetchWithEnv(cached, request("/v1/tools?format=summary", { token: alice }));
      return (await json<ToolsBody>(response)).tools.map((tool) => String(tool.name));
    };
    const stub = registryStub(env);
    expect(await list()).not.toContain("lab_stale");
    await stub.put([{ context: "elsewhere", definition: { name: "lab_stale", description: "Not seen yet.", parameters: { type: "object" } } }], 50_000);
    // The isolate read the version less than 60 s ago: no registry round trip, the old registry answers.
    expect(await list()).not.toContain("lab_stale");
    // The owner's own write through this isolate carries the new version: seen at once, the other change with it.
    const own = await fetchWithEnv(cached, request("/v1/tools/lab_own", { method: "PUT", token: owner, body: simple("The owner's own.") }));
    expect(own.status).toBe(201);
    const names = await list();
    expect(names).toContain("lab_own");
    expect(names).toContain("lab_stale");
    await stub.remove("lab_stale");
    const removed = await fetchWithEnv(cached, request("/v1/tools/lab_own", { method: "DELETE", token: owner }));
    expect(removed.status).toBe(200);
    expect(await list()).not.toContain("lab_own");
    expect(await list()).not.toContain("lab_stale");
  });

  it("shows the owner's change on the owner's next search and execute (long TTL)", async () => {
    const cached = suiteConfig({ registryVersionTtlMs: 60_000 });
    const sid = sessionId("owner-next");
    await fetchWithEnv(cached, request("/v1/tools?format=summary", { token: owner }));
    const registered = await fetchWithEnv(cached, request("/v1/tools/lab_next_echo", { method: "PUT", token: owner, body: simple("Lab echo for the next request.", { executor: { type: "builtin", name: "echo" } }) }));
    expect(registered.status).toBe(201);
    const search = await fetchWithEnv(cached, request(`/v1/sessions/${sid}/search`, { token: owner, body: { query: "lab_next_echo" } }));
    expect(JSON.stringify(await json(search))).toContain("lab_next_echo");
    const run = await fetchWithEnv(cached, request(`/v1/sessions/${sid}/execute`, { token: owner, body: { name: "lab_next_echo", arguments: { text: "hi" } } }));
    expect(await json(run)).toMatchObject({ isError: false });
    expect((await fetchWithEnv(cached, request("/v1/tools/lab_next_echo", { method: "DELETE", token: owner }))).status).toBe(200);
  });
});

describe("DELETE /v1/contexts/:id", () => {
  it("removes every tool a context registered", async () => {
    for (const name of ["lab_ctx_a", "lab_ctx_b", "lab_ctx_c"]) {
      expect((await put(name, simple(`Context tool ${name}.`, { context: "lab-context" }))).status).toBe(201);
    }
    const response = await remove("/v1/contexts/lab-context");
    expect(await json(response)).toMatchObject({ context: "lab-context", removed: 3 });
    expect((await listNames(alice)).filter((name) => name.startsWith("lab_ctx_"))).toEqual([]);
    expect(await json(await remove("/v1/contexts/lab-context"))).toMatchObject({ removed: 0 });
  });

  it("does not bring back a demo tool that a disposed context had replaced", async () => {
    const replacement = simple("A lab replacement of the demo's air quality tool.", { context: "lab-shadow", groups: ["lab"] });
    expect((await put("get_air_quality", replacement)).status).toBe(200);
    expect(await json(await remove("/v1/contexts/lab-shadow"))).toMatchObject({ context: "lab-shadow", removed: 1 });
    // The core registry's rule: disposing a context removes what it registered; the replaced entry is gone for good.
    expect(await listNames(owner)).not.toContain("get_air_quality");
    expect(await errorOf(await remove("/v1/tools/get_air_quality"))).toMatchObject(anError(404, "tool_not_found"));
  });

  it("answers 400 for a bad context id", async () => {
    expect(await errorOf(await remove("/v1/contexts/bad%20ctx"))).toMatchObject(anError(400, "invalid_request"));
  });
});

interface ToolInput {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  groups: string[];
}

function bulk(count: number, label: string): ToolInput[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `bulk_${i}`,
    description: `Bulk tool ${i} (${label}): handles widget${i}z requests.`,
    parameters: { type: "object", properties: { id: { type: "integer" } } },
    groups: i % 2 === 0 ? ["bulk-even"] : ["bulk-odd"],
  }));
}

describe("PUT /v1/tools (bulk)", () => {

  it("registers 5,000 tools in one call, all visible to the next request", async () => {
    const started = Date.now();
    const response = await api("/v1/tools", { method: "PUT", token: owner, body: { tools: bulk(5_000, "v1"), context: "bulk" } });
    const registerMs = Date.now() - started;
    expect(response.status).toBe(200);
    expect(await json(response)).toMatchObject({ registered: 5_000, created: 5_000, replaced: 0 });

    const listStarted = Date.now();
    const names = await listNames(owner);
    const firstListMs = Date.now() - listStarted;
    expect(names.filter((name) => name.startsWith("bulk_"))).toHaveLength(5_000);
    console.log(`bulk: register 5,000 in ${registerMs} ms; first request after it (registry rebuild) ${firstListMs} ms`);

    const bulkUser = await token({ sub: "bulk-user", groups: ["bulk-odd"] });
    const found = await json<{ tools: { name: string }[] }>(
      await api(`/v1/sessions/${sessionId()}/search`, { token: bulkUser, body: { query: "widget4321z" } }),
    );
    expect(found.tools.map((tool) => tool.name)).toEqual(["bulk_4321"]);
    const gated = await json<{ tools: { name: string }[] }>(
      await api(`/v1/sessions/${sessionId()}/search`, { token: bulkUser, body: { query: "widget4320z" } }),
    );
    expect(gated.tools).toEqual([]);
  }, 60_000);

  it("is all or nothing: one bad tool registers none", async () => {
    const tools = bulk(3_000, "v2").map((tool, i) => ({ ...tool, name: `bulk_new_${i}` }));
    tools.splice(2_500, 1, { name: "bulk_new_2500", description: "Bad one.", parameters: { type: "array" }, groups: [] });
    const error = await errorOf(await api("/v1/tools", { method: "PUT", token: owner, body: { tools } }));
    expect(error).toMatchObject(anError(400, "invalid_request"));
    expect(error.message).toMatch(/^tools\[2500\]\.parameters/);
    expect((await listNames(owner)).filter((name) => name.startsWith("bulk_new_"))).toEqual([]);
  }, 60_000);

  it("answers 400 for duplicate names and unknown fields", async () => {
    const duplicate = await errorOf(await api("/v1/tools", { method: "PUT", token: owner, body: { tools: [...bulk(2, "d"), ...bulk(1, "d")] } }));
    expect(duplicate.message).toMatch(/^tools\[2\]\.name: "bulk_0" is also tools\[0\]/);
    const unknown = await errorOf(await api("/v1/tools", { method: "PUT", token: owner, body: { tools: [], force: true } }));
    expect(unknown.message).toMatch(/^force: unknown field/);
    const notArray = await errorOf(await api("/v1/tools", { method: "PUT", token: owner, body: { tools: {} } }));
    expect(notArray.message).toMatch(/^tools: must be an array/);
  });

  it("replaces in bulk, then disposes the context", async () => {
    const response = await api("/v1/tools", { method: "PUT", token: owner, body: { tools: bulk(5_000, "v3"), context: "bulk" } });
    expect(await json(response)).toMatchObject({ registered: 5_000, created: 0, replaced: 5_000 });
    const disposed = await remove("/v1/contexts/bulk");
    expect(await json(disposed)).toMatchObject({ context: "bulk", removed: 5_000 });
    expect((await listNames(owner)).filter((name) => name.startsWith("bulk_"))).toEqual([]);
  }, 60_000);
});

describe("disposing the demo context", () => {
  it("removes the built-in tools and keeps the ones registered at run time", async () => {
    expect((await put("lab_survivor", simple("Survives the demo's disposal."))).status).toBe(201);
    const response = await remove(`/v1/contexts/${DEMO_CONTEXT}`);
    const { removed } = await json<{ removed: number }>(response);
    expect(removed).toBeGreaterThan(50);
    const names = await listNames(owner);
    expect(names).toContain("lab_survivor");
    expect(names).not.toContain("web_search");
  });
});
