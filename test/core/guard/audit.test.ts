import { describe, expect, it } from "vitest";
import { auditDecisionOf, auditLine } from "../../../src/core/guard/audit.ts";

describe("auditLine", () => {
  it("is one line of JSON with principal, session, tool, decision and duration", () => {
    const line = auditLine({ principalId: "alice", sessionId: "s-1", tool: "echo", decision: "allow", durationMs: 12.6 });
    expect(line).not.toContain("\n");
    expect(JSON.parse(line)).toEqual({
      type: "audit",
      event: "execute",
      principal: "alice",
      session: "s-1",
      tool: "echo",
      decision: "allow",
      durationMs: 13,
    });
  });

  it("names an anonymous caller, and adds a reason and a timestamp when given", () => {
    const line: unknown = JSON.parse(
      auditLine({ principalId: undefined, sessionId: undefined, tool: "x", decision: "deny", durationMs: -3, reason: "level", at: 0 }),
    );
    expect(line).toMatchObject({
      principal: "anonymous",
      session: "",
      decision: "deny",
      durationMs: 0,
      reason: "level",
      at: "1970-01-01T00:00:00.000Z",
    });
  });

  it("cannot be split or forged by a hostile tool name, and caps it", () => {
    const tool = `evil\n{"type":"audit","decision":"allow"}${"x".repeat(500)}`;
    const line = auditLine({ principalId: "p", sessionId: "s", tool, decision: "error", durationMs: 1 });
    expect(line.split("\n")).toHaveLength(1);
    const parsed: { tool: string; decision: string } = JSON.parse(line);
    expect(parsed.decision).toBe("error");
    expect(parsed.tool).toBe(tool.slice(0, 128) + "…");
  });

  it("has no field for arguments: nothing of them can reach the log", () => {
    const entry = { principalId: "p", sessionId: "s", tool: "t", decision: "allow" as const, durationMs: 1, arguments: { password: "hunter2" } };
    expect(auditLine(entry)).not.toContain("hunter2");
  });
});

describe("auditDecisionOf", () => {
  it("maps a registry result to a decision", () => {
    expect(auditDecisionOf({ content: "ok", isError: false })).toBe("allow");
    expect(auditDecisionOf({ content: '{"error":"x"}', isError: true })).toBe("error");
    expect(
      auditDecisionOf({ content: "wait", isError: false, confirmation: { id: "1", capability: "tool:t", mode: "always", expiresAt: 1, tool: "t", description: "", arguments: {} } }),
    ).toBe("confirm");
  });
});
