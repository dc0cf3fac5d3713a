// DEMO_CATALOG: the built-in demo catalog is served only when the variable says "true" (npm start passes it), so
// that a deployment never serves the demo's 83 tools by accident.
import { beforeAll, describe, expect, it } from "vitest";
import { anError, errorOf, fetchWithEnv, json, request, sessionId, token } from "./helpers.ts";

interface ToolsBody {
  tools: Record<string, unknown>[];
}

let owner = "";
beforeAll(async () => {
  owner = await token({ sub: "owner-demo-catalog", owner: true });
});

async function namesWith(overrides: Record<string, unknown>): Promise<string[]> {
  const response = await fetchWithEnv(overrides, request("/v1/tools?format=summary", { token: owner }));
  expect(response.status).toBe(200);
  return (await json<ToolsBody>(response)).tools.map((tool) => String(tool.name));
}

describe("DEMO_CATALOG", () => {
  const demoName = "calculate";

  it("leaves the demo's tools out when it is not set (a deployment's default), and when it is \"false\"", async () => {
    expect(await namesWith({ DEMO_CATALOG: undefined })).not.toContain(demoName);
    expect(await namesWith({ DEMO_CATALOG: "false" })).not.toContain(demoName);
    const sid = sessionId("no-demo");
    const run = await fetchWithEnv({ DEMO_CATALOG: undefined }, request(`/v1/sessions/${sid}/execute`, { token: owner, body: { name: demoName, arguments: { expression: "1+1" } } }));
    expect(await json(run)).toMatchObject({ isError: true });
  });

  it("serves the demo's tools with \"true\" (npm start passes it)", async () => {
    expect(await namesWith({ DEMO_CATALOG: "true" })).toContain(demoName);
  });

  it("without it, a demo tool's name is no tool: deleting it answers 404 and records nothing", async () => {
    const off = { DEMO_CATALOG: "false" };
    const deleted = await fetchWithEnv(off, request(`/v1/tools/${demoName}`, { method: "DELETE", token: owner }));
    expect(await errorOf(deleted)).toMatchObject(anError(404, "tool_not_found"));
    // Not recorded as removed: a deployment that turns the demo on still has the tool.
    expect(await namesWith({ DEMO_CATALOG: "true" })).toContain(demoName);
    // The owner's own tool of that name is a tool either way, and goes.
    const put = await fetchWithEnv(off, request(`/v1/tools/${demoName}`, { method: "PUT", token: owner, body: { description: "Mine.", parameters: { type: "object", properties: {} } } }));
    // Created, not a replacement: without the demo there was no tool of that name.
    expect(put.status).toBe(201);
    expect((await fetchWithEnv(off, request(`/v1/tools/${demoName}`, { method: "DELETE", token: owner }))).status).toBe(200);
    expect(await namesWith(off)).not.toContain(demoName);
    expect(await namesWith({ DEMO_CATALOG: "true" })).toContain(demoName);
  });

  it("refuses any other value with 503 misconfigured, naming the variable", async () => {
    const response = await fetchWithEnv({ DEMO_CATALOG: "yes" }, request("/v1/tools", { token: owner }));
    const body = await errorOf(response);
    expect(body).toMatchObject(anError(503, "misconfigured"));
    expect(body.message).toContain("DEMO_CATALOG");
  });
});
