// The isolate's registry rebuilt for a new registry version: stored tools whose text did not change keep their
// definition objects (what is kept per definition survives), a changed tool is validated anew.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { currentRegistry, resetIsolateRegistry } from "../../src/isolate/registryCache.ts";
import { loadSettings } from "../../src/isolate/settings.ts";
import type { Settings } from "../../src/isolate/settings.ts";
import { api, json, token } from "../http/helpers.ts";

let owner = "";
let settings: Settings;
beforeAll(async () => {
  owner = await token({ sub: "owner-registry-cache", owner: true });
  const loaded = loadSettings(env);
  if (!loaded.ok) throw loaded.error;
  // The version is read from the registry object on every call (no TTL): each write's version is seen at once.
  settings = { ...loaded.settings, config: { ...loaded.settings.config, registryVersionTtlMs: 0 } };
}, 60_000);

const body = (description: string): Record<string, unknown> => ({
  description,
  parameters: { type: "object", properties: { text: { type: "string", description: `Text for ${description}` } } },
});

/** Stores a tool through the route and lets this test's isolate know the version the write answered with. */
async function put(name: string, description: string): Promise<void> {
  const response = await api(`/v1/tools/${name}`, { method: "PUT", token: owner, body: body(description) });
  expect(response.status).toBeLessThan(300);
  const { version } = await json<{ version: number }>(response);
  expect(version).toBeGreaterThan(0);
}

function latest(): ReturnType<typeof currentRegistry> {
  return currentRegistry(env, settings);
}

describe("currentRegistry across registry versions", () => {
  it("keeps the definition objects of unchanged stored tools and validates a changed one anew", async () => {
    resetIsolateRegistry();
    await put("reuse_alpha", "Alpha tool: measures alpha things.");
    await put("reuse_beta", "Beta tool: counts beta things.");
    const first = await latest();
    const alpha = first.registry.get("reuse_alpha")?.definition;
    const beta = first.registry.get("reuse_beta")?.definition;
    expect(alpha).toBeDefined();
    expect(beta).toBeDefined();

    await put("reuse_beta", "Beta tool, second version: counts quasars.");
    const second = await latest();
    expect(second.key).not.toBe(first.key);
    expect(second.registry).not.toBe(first.registry);
    // Unchanged text: the very same object, in the registry and in the catalog the search indexes are built on.
    expect(second.registry.get("reuse_alpha")?.definition).toBe(alpha);
    expect(second.definitions).toContain(alpha);
    // Changed text: a new definition, validated (cleaned, frozen) from the new text.
    const newBeta = second.registry.get("reuse_beta")?.definition;
    expect(newBeta).not.toBe(beta);
    expect(newBeta?.description).toBe("Beta tool, second version: counts quasars.");
    expect(Object.isFrozen(newBeta)).toBe(true);

    // A removed tool is gone from the next version; the others stay the same objects.
    expect((await api("/v1/tools/reuse_beta", { method: "DELETE", token: owner })).status).toBe(200);
    const third = await latest();
    expect(third.registry.get("reuse_beta")).toBeUndefined();
    expect(third.registry.get("reuse_alpha")?.definition).toBe(alpha);
  });

  it("validates every stored tool again after the isolate forgot its registry", async () => {
    await put("reuse_gamma", "Gamma tool: weighs gamma things.");
    const before = (await latest()).registry.get("reuse_gamma")?.definition;
    resetIsolateRegistry();
    const after = (await latest()).registry.get("reuse_gamma")?.definition;
    expect(after).toEqual(before);
    expect(after).not.toBe(before);
  });
});
