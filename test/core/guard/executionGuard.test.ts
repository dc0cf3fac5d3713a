import { describe, expect, it } from "vitest";
import { defaultConfig, type GatewayConfig } from "../../../src/core/config.ts";
import { ConfirmationLedger } from "../../../src/core/guard/grants.ts";
import { texts } from "../../../src/core/locale.ts";
import type { ConfirmationRequest, GuardDecision, Principal, ToolCallContext, ToolDefinition } from "../../../src/core/types.ts";
import { ANONYMOUS_PRINCIPAL_ID } from "../../../src/core/guard/authority.ts";
import { createExecutionGuard, type SessionGrants } from "../../../src/core/guard/executionGuard.ts";
import { registered, toolMaker } from "../../support/tools.ts";

const TTL = 60_000;

/**
 * Stands in for the session Durable Objects: one ledger per (principal, session), as the Worker names its objects,
 * on a clock the test moves.
 */
class FakeSessions {
  now = 1_700_000_000_000;
  readonly ledgers = new Map<string, ConfirmationLedger>();
  readonly calls: string[] = [];
  #next = 0;

  ledger(principalId: string, sessionId: string): ConfirmationLedger {
    const key = `${principalId}/${sessionId}`;
    let ledger = this.ledgers.get(key);
    if (!ledger) {
      ledger = new ConfirmationLedger();
      this.ledgers.set(key, ledger);
    }
    return ledger;
  }

  session = (principalId: string, sessionId: string): SessionGrants => {
    this.calls.push(`${principalId}/${sessionId}`);
    const ledger = this.ledger(principalId, sessionId);
    return {
      consumeGrant: async (capability, binding) => ledger.consume(capability, binding, this.now),
      requestConfirmation: async (capability, mode, binding) =>
        ledger.request(capability, mode, binding, TTL, this.now, () => `c${++this.#next}`),
    };
  };

  /** What POST /confirmations/:id does, for the principal and session of the URL. */
  approve(principalId: string, sessionId: string, id: string, approve = true) {
    return this.ledger(principalId, sessionId).resolve(id, approve, TTL, this.now);
  }
}

const tool = toolMaker({ description: "d", parameters: { type: "object" } });

const alice: Principal = { id: "alice", level: 2, owner: false, groups: [] };
const bob: Principal = { id: "bob", level: 2, owner: false, groups: [] };
const carol: Principal = { id: "carol", level: 1, owner: false, groups: [] };
const owner: Principal = { id: "root", level: 0, owner: true, groups: [] };
const banned: Principal = { id: "spam", level: -1, owner: false, groups: [] };

function setup(overrides: Partial<GatewayConfig> = {}) {
  const sessions = new FakeSessions();
  const decisions: GuardDecision[] = [];
  const config = { ...defaultConfig(), ...overrides };
  const guard = createExecutionGuard({ config, session: sessions.session, onDecision: (d) => decisions.push(d) });
  const run = (
    definition: Partial<ToolDefinition> & { name: string },
    context: ToolCallContext,
    args: Record<string, unknown> = { secret: "shown to the approver only" },
  ) => Promise.resolve(guard({ tool: registered(tool(definition.name, definition)), arguments: args, context }));
  return { sessions, decisions, run };
}

function confirmation(decision: GuardDecision): ConfirmationRequest {
  if (decision.kind !== "confirm") throw new Error(`expected a confirmation, got ${JSON.stringify(decision)}`);
  return decision.request;
}

const dangerous = { name: "delete_repo", risk: "dangerous" as const };
const once = { name: "send_mail", confirm: "always" as const };

describe("execution guard: authority", () => {
  it("allows a public safe tool for an anonymous caller without touching the session", async () => {
    const { run, sessions } = setup();
    expect(await run({ name: "echo" }, {})).toEqual({ kind: "allow" });
    expect(await run({ name: "echo" }, { sessionId: "s1" })).toEqual({ kind: "allow" });
    expect(sessions.calls).toEqual([]);
  });

  it("denies a caller whose level is too low, with the level text", async () => {
    const { run } = setup();
    const decision = await run({ name: "admin_tool", visibility: "restricted" }, { principal: carol, sessionId: "s1" });
    expect(decision).toEqual({ kind: "deny", reason: texts("en").levelTooLow("admin_tool", 2, 1) });
    const anonymous = await run({ name: "lookup", risk: "sensitive" }, {});
    expect(anonymous).toEqual({ kind: "deny", reason: texts("en").levelTooLow("lookup", 1, 0) });
  });

  it("uses authorityOverrides over what the tool declares", async () => {
    const { run } = setup({ authorityOverrides: { "tool:admin_tool": 1, "tool:echo": 3 } });
    expect(await run({ name: "admin_tool", visibility: "restricted" }, { principal: carol })).toEqual({ kind: "allow" });
    expect(await run({ name: "echo" }, { principal: alice })).toEqual({ kind: "deny", reason: texts("en").levelTooLow("echo", 3, 2) });
  });

  it("denies a banned caller everything", async () => {
    const { run } = setup();
    expect(await run({ name: "echo" }, { principal: banned, sessionId: "s1" })).toEqual({ kind: "deny", reason: texts("en").banned });
  });

  it("lets the owner past the level check", async () => {
    const { run } = setup();
    expect(await run({ name: "admin_tool", visibility: "restricted" }, { principal: owner })).toEqual({ kind: "allow" });
  });

  it("denies a denied capability even to the owner", async () => {
    const { run, sessions } = setup({ deniedCapabilities: ["tool:delete_*"] });
    const decision = await run(dangerous, { principal: owner, sessionId: "s1" });
    expect(decision).toEqual({ kind: "deny", reason: texts("en").capabilityDenied("tool:delete_repo") });
    expect(sessions.calls).toEqual([]);
  });

  it("answers in the configured locale", async () => {
    const { run } = setup({ locale: "zh" });
    expect(await run({ name: "echo" }, { principal: banned })).toEqual({ kind: "deny", reason: texts("zh").banned });
  });
});

describe("execution guard: confirmation", () => {
  it("holds a dangerous tool for confirmation in the caller's own session", async () => {
    const { run, sessions } = setup();
    const request = confirmation(await run(dangerous, { principal: alice, sessionId: "s1" }));
    expect(request).toMatchObject({ capability: "tool:delete_repo", mode: "session", expiresAt: sessions.now + TTL });
    expect(sessions.calls).toEqual(["alice/s1"]);
  });

  it("a session approval stands for every later call of that session, and only that session", async () => {
    const { run, sessions } = setup();
    const request = confirmation(await run(dangerous, { principal: alice, sessionId: "s1" }));
    expect(sessions.approve("alice", "s1", request.id)).toMatchObject({ ok: true, approved: true });
    for (let i = 0; i < 3; i++) expect(await run(dangerous, { principal: alice, sessionId: "s1" })).toEqual({ kind: "allow" });
    expect((await run(dangerous, { principal: alice, sessionId: "s2" })).kind).toBe("confirm");
  });

  it("an always approval grants one run, then confirmation is needed again", async () => {
    const { run, sessions } = setup();
    const request = confirmation(await run(once, { principal: alice, sessionId: "s1" }));
    expect(request.mode).toBe("always");
    sessions.approve("alice", "s1", request.id);
    expect(await run(once, { principal: alice, sessionId: "s1" })).toEqual({ kind: "allow" });
    const again = confirmation(await run(once, { principal: alice, sessionId: "s1" }));
    expect(again.id).not.toBe(request.id);
  });

  it("shows the approver the tool, its description's first line and the arguments", async () => {
    const { run } = setup();
    const definition = { ...once, description: "\n  Sends mail from the user's account.  \nSecond line, not shown." };
    const request = confirmation(await run(definition, { principal: alice, sessionId: "s1" }, { to: "ann@example.com", body: "x".repeat(250) }));
    expect(request).toEqual({
      id: request.id,
      capability: "tool:send_mail",
      mode: "always",
      expiresAt: request.expiresAt,
      tool: "send_mail",
      description: "Sends mail from the user's account.",
      arguments: { to: "ann@example.com", body: `${"x".repeat(200)}…[+50 chars]` },
    });
  });

  it("binds an always approval to the arguments: other arguments ask again, the approved ones run once", async () => {
    const { run, sessions } = setup();
    const ctx = { principal: alice, sessionId: "s1" };
    const asked = confirmation(await run(once, ctx, { to: "landlord", amount: 10 }));
    // A retry with the same arguments in another key order is the same call: same id, same expiry.
    sessions.now += 1_000;
    expect(confirmation(await run(once, ctx, { amount: 10, to: "landlord" }))).toEqual(asked);
    const swapped = confirmation(await run(once, ctx, { to: "attacker", amount: 99999 }));
    expect(swapped.id).not.toBe(asked.id);
    sessions.approve("alice", "s1", asked.id);
    expect(confirmation(await run(once, ctx, { to: "attacker", amount: 99999 })).id).toBe(swapped.id);
    expect(await run(once, ctx, { amount: 10, to: "landlord" })).toEqual({ kind: "allow" });
    expect((await run(once, ctx, { to: "landlord", amount: 10 })).kind).toBe("confirm");
  });

  it("binds a session approval to the tool's definition: any arguments, but not another tool of the same name", async () => {
    const { run, sessions } = setup();
    const ctx = { principal: alice, sessionId: "s1" };
    const request = confirmation(await run(dangerous, ctx, { repo: "a" }));
    sessions.approve("alice", "s1", request.id);
    expect(await run(dangerous, ctx, { repo: "b" })).toEqual({ kind: "allow" });
    const replaced = { ...dangerous, description: "Another tool that took the name." };
    expect((await run(replaced, ctx, { repo: "b" })).kind).toBe("confirm");
  });

  it("refuses arguments it cannot encode for a binding (the registry answers a thrown guard as a failure)", async () => {
    const { run } = setup();
    let deep: unknown = "leaf";
    for (let i = 0; i < 300; i++) deep = [deep];
    await expect(run(once, { principal: alice, sessionId: "s1" }, { deep })).rejects.toThrow(/nest deeper than/);
  });

  it("confirmOverrides turn confirmation on or off without touching the tool", async () => {
    const { run } = setup({ confirmOverrides: { "tool:delete_repo": "off", "tool:echo": "always" } });
    expect(await run(dangerous, { principal: owner, sessionId: "s1" })).toEqual({ kind: "allow" });
    expect(confirmation(await run({ name: "echo" }, { principal: alice, sessionId: "s1" })).mode).toBe("always");
  });

  it("the owner is asked too: confirmation is about the model acting", async () => {
    const { run } = setup();
    expect((await run(dangerous, { principal: owner, sessionId: "s1" })).kind).toBe("confirm");
  });

  it("an expired grant no longer counts, and an expired confirmation cannot be approved", async () => {
    const { run, sessions } = setup();
    const first = confirmation(await run(dangerous, { principal: alice, sessionId: "s1" }));
    sessions.approve("alice", "s1", first.id);
    sessions.now += TTL;
    const second = confirmation(await run(dangerous, { principal: alice, sessionId: "s1" }));
    sessions.now = second.expiresAt;
    expect(sessions.approve("alice", "s1", second.id)).toEqual({ ok: false, code: "expired" });
    expect((await run(dangerous, { principal: alice, sessionId: "s1" })).kind).toBe("confirm");
  });

  it("a denied confirmation grants nothing and cannot be replayed", async () => {
    const { run, sessions } = setup();
    const request = confirmation(await run(dangerous, { principal: alice, sessionId: "s1" }));
    expect(sessions.approve("alice", "s1", request.id, false)).toMatchObject({ ok: true, approved: false });
    expect(sessions.approve("alice", "s1", request.id, true)).toEqual({ ok: false, code: "not_found" });
    expect((await run(dangerous, { principal: alice, sessionId: "s1" })).kind).toBe("confirm");
  });

  it("another principal cannot approve: the confirmation lives in the caller's own session object", async () => {
    const { run, sessions } = setup();
    const request = confirmation(await run(dangerous, { principal: alice, sessionId: "shared" }));
    expect(sessions.approve("bob", "shared", request.id)).toEqual({ ok: false, code: "not_found" });
    expect((await run(dangerous, { principal: alice, sessionId: "shared" })).kind).toBe("confirm");
    // And bob's own approvals never cover alice's calls.
    const bobs = confirmation(await run(dangerous, { principal: bob, sessionId: "shared" }));
    sessions.approve("bob", "shared", bobs.id);
    expect(await run(dangerous, { principal: bob, sessionId: "shared" })).toEqual({ kind: "allow" });
    expect((await run(dangerous, { principal: alice, sessionId: "shared" })).kind).toBe("confirm");
  });

  it("without a session id a tool that needs confirmation is denied, saying why", async () => {
    const { run, sessions } = setup();
    expect(await run(dangerous, { principal: alice })).toEqual({ kind: "deny", reason: texts("en").confirmationNeedsSession("delete_repo") });
    expect(await run(dangerous, { principal: alice, sessionId: "" })).toMatchObject({ kind: "deny" });
    expect(sessions.calls).toEqual([]);
  });

  it("an anonymous caller's grants live under the anonymous principal id", async () => {
    const { run, sessions } = setup();
    await run(once, { sessionId: "s1" });
    expect(sessions.calls).toEqual([`${ANONYMOUS_PRINCIPAL_ID}/s1`]);
  });

  it("reports every decision to onDecision", async () => {
    const { run, decisions } = setup();
    await run({ name: "echo" }, {});
    await run({ name: "x", visibility: "restricted" }, {});
    await run(once, { principal: alice, sessionId: "s" });
    expect(decisions.map((d) => d.kind)).toEqual(["allow", "deny", "confirm"]);
  });
});
