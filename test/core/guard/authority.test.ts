import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  capabilityKey, confirmMode, decideAuthority, denialText, matchesCapability, minimumLevel,
} from "../../../src/core/guard/authority.ts";
import type { AuthorityConfig } from "../../../src/core/guard/authority.ts";
import { defaultConfig } from "../../../src/core/config.ts";
import { texts } from "../../../src/core/locale.ts";
import type { Principal, ToolDefinition } from "../../../src/core/types.ts";
import { toolMaker } from "../../support/tools.ts";

const noConfig: AuthorityConfig = { authorityOverrides: {}, confirmOverrides: {}, deniedCapabilities: [] };

const tool = toolMaker((name) => ({ description: name, parameters: { type: "object" } }));

function principal(level: number, owner = false): Principal {
  return { id: `p${level}${owner ? "-owner" : ""}`, level, owner, groups: [] };
}

describe("minimumLevel", () => {
  it("derives the level from visibility and risk, the highest applying", () => {
    const cases: [Partial<ToolDefinition>, number][] = [
      [{}, 0],
      [{ visibility: "public" }, 0],
      [{ visibility: "restricted" }, 2],
      [{ risk: "safe" }, 0],
      [{ risk: "sensitive" }, 1],
      [{ risk: "dangerous" }, 2],
      [{ visibility: "public", risk: "sensitive" }, 1],
      [{ visibility: "restricted", risk: "sensitive" }, 2],
      [{ visibility: "restricted", risk: "dangerous" }, 2],
    ];
    const actual = cases.map(([extra]) => [extra, minimumLevel(tool("t", extra), noConfig)]);
    expect(actual).toEqual(cases);
  });

  it("lets authorityOverrides['tool:<name>'] replace the level, up or down", () => {
    const config = { ...noConfig, authorityOverrides: { "tool:admin": 0, "tool:weather": 5, "tool:other": 9 } };
    expect(minimumLevel(tool("admin", { visibility: "restricted", risk: "dangerous" }), config)).toBe(0);
    expect(minimumLevel(tool("weather"), config)).toBe(5);
    expect(minimumLevel(tool("weathers"), config)).toBe(0);
  });

  it("never reads overrides through the prototype", () => {
    expect(minimumLevel(tool("constructor"), noConfig)).toBe(0);
    expect(confirmMode(tool("constructor"), noConfig)).toBe("off");
  });
});

describe("confirmMode", () => {
  it("is the declared confirm, else 'session' for dangerous tools, else 'off'", () => {
    expect(confirmMode(tool("t"), noConfig)).toBe("off");
    expect(confirmMode(tool("t", { risk: "sensitive" }), noConfig)).toBe("off");
    expect(confirmMode(tool("t", { risk: "dangerous" }), noConfig)).toBe("session");
    expect(confirmMode(tool("t", { risk: "dangerous", confirm: "always" }), noConfig)).toBe("always");
    expect(confirmMode(tool("t", { confirm: "session" }), noConfig)).toBe("session");
  });

  it("lets confirmOverrides replace it, 'off' included", () => {
    const config: AuthorityConfig = {
      ...noConfig, confirmOverrides: { "tool:wipe": "off", "tool:read": "always", "tool:send": "session" },
    };
    expect(confirmMode(tool("wipe", { risk: "dangerous", confirm: "always" }), config)).toBe("off");
    expect(confirmMode(tool("read"), config)).toBe("always");
    expect(confirmMode(tool("send", { confirm: "always" }), config)).toBe("session");
  });
});

describe("matchesCapability", () => {
  it("matches globs against the whole key", () => {
    expect(capabilityKey("shell")).toBe("tool:shell");
    expect(matchesCapability("tool:shell", "tool:shell")).toBe(true);
    expect(matchesCapability("tool:shell", "tool:shell2")).toBe(false);
    expect(matchesCapability("tool:shell", "xtool:shell")).toBe(false);
    expect(matchesCapability("tool:*", "tool:anything.at_all")).toBe(true);
    expect(matchesCapability("tool:fs_*", "tool:fs_write")).toBe(true);
    expect(matchesCapability("tool:fs_*", "tool:net_fs_write")).toBe(false);
    expect(matchesCapability("*write*", "tool:fs_write_all")).toBe(true);
    expect(matchesCapability("tool:fs_?", "tool:fs_a")).toBe(true);
    expect(matchesCapability("tool:fs_?", "tool:fs_ab")).toBe(false);
    expect(matchesCapability("tool:fs_?", "tool:fs_")).toBe(false);
    expect(matchesCapability("*", "")).toBe(true);
  });

  it("treats regex-special characters literally", () => {
    expect(matchesCapability("tool:a.b", "tool:a.b")).toBe(true);
    expect(matchesCapability("tool:a.b", "tool:axb")).toBe(false);
    expect(matchesCapability("tool:a-b", "tool:a-b")).toBe(true);
    expect(matchesCapability("tool:(a|b)+[x]{2}^$\\/", "tool:(a|b)+[x]{2}^$\\/")).toBe(true);
    expect(matchesCapability("tool:(a|b)", "tool:a")).toBe(false);
  });

  it("property: a pattern without wildcards matches exactly itself", () => {
    const noWildcards = fc.string().filter((s) => !s.includes("*") && !s.includes("?"));
    fc.assert(fc.property(noWildcards, fc.string(), (pattern, other) => {
      expect(matchesCapability(pattern, pattern)).toBe(true);
      expect(matchesCapability(pattern, other)).toBe(pattern === other);
    }));
  });

  it("property: prefix* matches every key that starts with the prefix, and only those", () => {
    const plain = fc.string().filter((s) => !s.includes("*") && !s.includes("?"));
    fc.assert(fc.property(plain, fc.string(), (prefix, key) => {
      expect(matchesCapability(`${prefix}*`, key)).toBe(key.startsWith(prefix));
      expect(matchesCapability(`${prefix}*`, prefix + key)).toBe(true);
    }));
  });
});

function decide(t: ToolDefinition, p: Principal | undefined, config: Partial<AuthorityConfig> = {}, granted = false) {
  return decideAuthority({ tool: t, principal: p, config: { ...noConfig, ...config }, granted });
}

describe("decideAuthority", () => {
  it("the level matrix: caller level against the tool's minimum, the owner passing", () => {
    const tools: [string, ToolDefinition][] = [
      ["public", tool("pub")],
      ["sensitive", tool("sens", { risk: "sensitive" })],
      ["restricted", tool("restr", { visibility: "restricted" })],
    ];
    const callers: [string, Principal | undefined][] = [
      ["anonymous", undefined], ["level0", principal(0)], ["level1", principal(1)], ["level2", principal(2)],
      ["level7", principal(7)], ["owner0", principal(0, true)],
    ];
    const matrix = Object.fromEntries(callers.map(([callerName, caller]) => [
      callerName,
      Object.fromEntries(tools.map(([kind, t]) => {
        const verdict = decide(t, caller);
        return [kind, verdict.kind === "deny" ? `deny:${verdict.code}:${verdict.required ?? ""}` : verdict.kind];
      })),
    ]));
    expect(matrix).toStrictEqual({
      anonymous: { public: "allow", sensitive: "deny:level:1", restricted: "deny:level:2" },
      level0: { public: "allow", sensitive: "deny:level:1", restricted: "deny:level:2" },
      level1: { public: "allow", sensitive: "allow", restricted: "deny:level:2" },
      level2: { public: "allow", sensitive: "allow", restricted: "allow" },
      level7: { public: "allow", sensitive: "allow", restricted: "allow" },
      owner0: { public: "allow", sensitive: "allow", restricted: "allow" },
    });
  });

  it("bans callers with a negative level, before the level check", () => {
    expect(decide(tool("pub"), principal(-1))).toStrictEqual({ kind: "deny", code: "banned" });
    // A contradictory credential (owner with a negative level) fails closed.
    expect(decide(tool("pub"), principal(-1, true))).toStrictEqual({ kind: "deny", code: "banned" });
  });

  it("fails closed on a level that is not a number (NaN passed both checks before)", () => {
    expect(decide(tool("adm", { visibility: "restricted" }), principal(Number.NaN))).toStrictEqual({ kind: "deny", code: "banned" });
    expect(decide(tool("pub"), principal(Number.NaN, true))).toStrictEqual({ kind: "deny", code: "banned" });
  });

  it("denied capabilities stop everyone, the owner included, before anything else", () => {
    const config = { deniedCapabilities: ["tool:shell*"] };
    expect(decide(tool("shell_exec"), principal(99, true), config)).toStrictEqual({ kind: "deny", code: "denied" });
    expect(decide(tool("shell_exec"), principal(-1), config)).toStrictEqual({ kind: "deny", code: "denied" });
    expect(decide(tool("shell_exec", { risk: "dangerous" }), principal(5), config, true)).toStrictEqual({ kind: "deny", code: "denied" });
    expect(decide(tool("ls"), principal(0), config)).toStrictEqual({ kind: "allow" });
  });

  it("asks for confirmation unless granted, the owner too", () => {
    const dangerous = tool("wipe", { risk: "dangerous" });
    expect(decide(dangerous, principal(2))).toStrictEqual({ kind: "confirm", mode: "session", capability: "tool:wipe" });
    expect(decide(dangerous, principal(0, true))).toStrictEqual({ kind: "confirm", mode: "session", capability: "tool:wipe" });
    expect(decide(dangerous, principal(2), {}, true)).toStrictEqual({ kind: "allow" });
    expect(decide(tool("mail", { confirm: "always" }), principal(0))).toStrictEqual({ kind: "confirm", mode: "always", capability: "tool:mail" });
    // The level comes first: a caller below the level is denied, not asked.
    expect(decide(dangerous, principal(1))).toStrictEqual({ kind: "deny", code: "level", required: 2 });
  });

  it("applies both overrides", () => {
    const dangerous = tool("wipe", { risk: "dangerous" });
    const config = { authorityOverrides: { "tool:wipe": 1 }, confirmOverrides: { "tool:wipe": "off" as const } };
    expect(decide(dangerous, principal(1), config)).toStrictEqual({ kind: "allow" });
    expect(decide(dangerous, principal(0), config)).toStrictEqual({ kind: "deny", code: "level", required: 1 });
    expect(decide(tool("read"), principal(0), { confirmOverrides: { "tool:read": "always" } }))
      .toStrictEqual({ kind: "confirm", mode: "always", capability: "tool:read" });
    // An override raises the level of a public tool, too.
    expect(decide(tool("pub"), undefined, { authorityOverrides: { "tool:pub": 3 } })).toStrictEqual({ kind: "deny", code: "level", required: 3 });
  });

  it("works with the default configuration", () => {
    expect(decideAuthority({ tool: tool("pub"), principal: undefined, config: defaultConfig(), granted: false })).toStrictEqual({ kind: "allow" });
  });
});

describe("denial texts", () => {
  it("names what was denied, in the locale's words", () => {
    expect(denialText({ kind: "deny", code: "denied" }, "shell", undefined)).toBe(texts().capabilityDenied("tool:shell"));
    expect(denialText({ kind: "deny", code: "level", required: 2 }, "t", undefined)).toBe(texts().levelTooLow("t", 2, 0));
    expect(denialText({ kind: "deny", code: "level", required: 2 }, "t", principal(1))).toBe(texts().levelTooLow("t", 2, 1));
    expect(denialText({ kind: "deny", code: "banned" }, "t", principal(1), "zh")).toBe(texts("zh").banned);
  });
});
