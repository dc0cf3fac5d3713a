import { describe, expect, it } from "vitest";
import { parseSettings } from "../../src/isolate/settings.ts";
import { openRequestState, requestStateKey, sealRequestState } from "../../src/mcp/requestState.ts";
import type { RequestState } from "../../src/mcp/requestState.ts";

const state: RequestState = {
  principal: "p",
  session: "s",
  confirmation: "c",
  tool: "call_tool",
  argumentsDigest: "a".repeat(64),
  toolDigest: "t".repeat(64),
  boundArgumentsDigest: "b".repeat(64),
  expiresAt: 1_700_000_000_000,
};

function settings(vars: Record<string, string>): ReturnType<typeof parseSettings> {
  return parseSettings({ TOOL_SEARCH_CONFIG: "{}", ...vars });
}

describe("request states", () => {
  it("open what was sealed under the same key, and nothing else", async () => {
    const key = requestStateKey(settings({ AUTH_JWT_SECRET: "s".repeat(32) }));
    const other = requestStateKey(settings({ AUTH_JWT_SECRET: "o".repeat(32) }));
    if (!key || !other) throw new Error("no key");
    const sealed = await sealRequestState(await key, state);
    expect(await openRequestState(await key, sealed)).toEqual({ ok: true, state });
    expect(await openRequestState(await other, sealed)).toEqual({ ok: false, problem: "forged" });
    const [payload = "", mac = ""] = sealed.split(".");
    const altered = JSON.stringify({ v: 1, ...state, principal: "q" });
    const alteredPayload = btoa(altered).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
    for (const bad of [`${alteredPayload}.${mac}`, payload, `${sealed}.x`, "", "a".repeat(5000), `${payload}.${mac.slice(1)}`]) {
      expect(await openRequestState(await key, bad)).toEqual({ ok: false, problem: "forged" });
    }
  });

  it("MCP_STATE_SECRET is its own key (at least 32 characters); without any secret there is none", async () => {
    const own = settings({ AUTH_JWT_SECRET: "s".repeat(32), MCP_STATE_SECRET: "m".repeat(32) });
    const derived = settings({ AUTH_JWT_SECRET: "s".repeat(32) });
    const ownKey = requestStateKey(own);
    const derivedKey = requestStateKey(derived);
    if (!ownKey || !derivedKey) throw new Error("no key");
    expect(await openRequestState(await derivedKey, await sealRequestState(await ownKey, state))).toEqual({ ok: false, problem: "forged" });
    expect(() => settings({ AUTH_JWT_SECRET: "s".repeat(32), MCP_STATE_SECRET: "short" })).toThrow(/MCP_STATE_SECRET/);
    expect(requestStateKey(settings({ ALLOW_ANONYMOUS: "true" }))).toBeUndefined();
  });
});
