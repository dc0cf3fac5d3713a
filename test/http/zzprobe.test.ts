import { describe, expect, it } from "vitest";
import { api, token, sessionId } from "./helpers.ts";
import { initializeBody, rpc } from "../mcp/helpers.ts";
function deep(n: number): unknown { let v: unknown = 1; for (let i = 0; i < n; i++) v = { a: v }; return v; }
describe("probe", () => {
  it("execute text", async () => {
    const t = await token({ sub: "probe" });
    const r = await api(`/v1/sessions/${sessionId("p")}/execute`, { token: t, body: { name: "echo", arguments: JSON.stringify({ text: deep(5000) }) } });
    console.log("execute", r.status, await r.text());
    const r2 = await api(`/v1/sessions/${sessionId("p")}/execute`, { token: t, body: { name: "call_tool", arguments: JSON.stringify({ name: "echo", arguments: JSON.stringify({text: deep(5000)}) }) } });
    console.log("call_tool", r2.status, (await r2.text()).slice(0, 300));
    const init = await rpc(initializeBody(), { authorization: `Bearer ${t}` });
    const sid = init.headers.get("mcp-session-id") ?? "";
    console.log("init", init.status, sid);
    const r3 = await rpc({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: deep(5000) } } }, { authorization: `Bearer ${t}`, "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25" });
    console.log("mcp", r3.status, (await r3.text()).slice(0, 400));
    expect(1).toBe(1);
  });
});
