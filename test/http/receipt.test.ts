// The discovery receipt: one structured audit line per prepare, saying how many tools were visible, sent and withheld
// by the group gate, and the catalog's version; no tool names, no message text.
import { afterEach, describe, expect, it, vi } from "vitest";
import { api, sessionId, token } from "./helpers.ts";

afterEach(() => {
  vi.restoreAllMocks();
});

function receipts(spy: { mock: { calls: unknown[][] } }): Record<string, unknown>[] {
  return spy.mock.calls
    .map((call) => call[0])
    .filter((line): line is string => typeof line === "string" && line.includes('"event":"prepare"'))
    .map((line): Record<string, unknown> => JSON.parse(line));
}

describe("the discovery receipt", () => {
  it("logs visible, sent, withheld by the gate and the registry version for a registry turn", async () => {
    const spy = vi.spyOn(console, "log");
    const sid = sessionId("receipt");
    const caller = await token({ sub: "receipt-user", groups: ["web"] });
    const response = await api(`/v1/sessions/${sid}/prepare`, { token: caller, body: { messages: [{ role: "user", content: "secret words" }], enabledGroups: ["web"] } });
    expect(response.status).toBe(200);
    const { stats } = await response.json<{ stats: { total: number; sent: number } }>();
    const [line] = receipts(spy);
    expect(line).toMatchObject({ type: "audit", event: "prepare", principal: "receipt-user", session: sid, catalog: "registry", visible: stats.total, sent: stats.sent });
    expect(Number(line?.withheldByGate)).toBeGreaterThan(0);
    expect(String(line?.catalogVersion)).toMatch(/^[0-9a-f-]+:\d+$/);
    expect(JSON.stringify(line)).not.toContain("secret words");
  });

  it("names a client catalog by its hash and withholds nothing", async () => {
    const spy = vi.spyOn(console, "log");
    const sid = sessionId("receipt-client");
    const caller = await token({ sub: "receipt-client" });
    const tools = [{ type: "function", function: { name: "client_one", description: "One.", parameters: { type: "object" } } }];
    expect((await api(`/v1/sessions/${sid}/prepare`, { token: caller, body: { messages: [], tools } })).status).toBe(200);
    const [line] = receipts(spy);
    expect(line).toMatchObject({ catalog: "client", visible: 1, withheldByGate: 0 });
    expect(typeof line?.catalogVersion).toBe("string");
  });
});
