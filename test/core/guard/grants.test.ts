import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConfirmationLedger, MAX_PENDING, type GrantBinding, type GrantState } from "../../../src/core/guard/grants.ts";

const TTL = 60_000;
/** A call's binding: digests of the tool's definition and of its arguments (opaque to the ledger). */
const B: GrantBinding = { tool: "tool-digest", arguments: "args-digest" };
/** The same tool, other arguments. */
const OTHER_ARGS: GrantBinding = { tool: B.tool, arguments: "other-args-digest" };
/** Another tool of the same name (another definition), the same arguments. */
const OTHER_TOOL: GrantBinding = { tool: "other-tool-digest", arguments: B.arguments };

/** Fails a fast-check property with a message (fast-check then shrinks and reports the counterexample). */
function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

/** What storage does to the state: a JSON round trip. */
function viaJson(state: GrantState): GrantState {
  const copy: GrantState = JSON.parse(JSON.stringify(state));
  return copy;
}
const T0 = 1_700_000_000_000;

function ids(): () => string {
  let n = 0;
  return () => `id-${++n}`;
}

describe("ConfirmationLedger.request", () => {
  it("opens a pending confirmation with the given id and expiry, and grants nothing yet", () => {
    const ledger = new ConfirmationLedger();
    const request = ledger.request("tool:delete_file", "session", B, TTL, T0, () => "abc");
    expect(request).toEqual({ id: "abc", capability: "tool:delete_file", mode: "session", expiresAt: T0 + TTL });
    expect(ledger.consume("tool:delete_file", B, T0)).toBe(false);
    expect(ledger.pendingAt(T0)).toHaveLength(1);
  });

  it("reuses the open confirmation of the same call as it stands: a retry never pushes the expiry out", () => {
    const ledger = new ConfirmationLedger();
    const newId = ids();
    const first = ledger.request("tool:a", "always", B, TTL, T0, newId);
    const again = ledger.request("tool:a", "always", B, TTL, T0 + 1_000, newId);
    expect(again).toEqual(first);
    const late = ledger.request("tool:a", "always", B, TTL, T0 + TTL - 1, newId);
    expect(late).toEqual({ ...first, expiresAt: T0 + TTL });
    // Once it has expired, a retry opens a new one.
    const fresh = ledger.request("tool:a", "always", B, TTL, T0 + TTL, newId);
    expect(fresh.id).not.toBe(first.id);
    expect(fresh.expiresAt).toBe(T0 + TTL + TTL);
    const otherMode = ledger.request("tool:a", "session", B, TTL, T0 + TTL, newId);
    expect(otherMode.id).not.toBe(fresh.id);
  });

  it("an always confirmation is per arguments and per tool: other arguments or another definition get a new id", () => {
    const ledger = new ConfirmationLedger();
    const newId = ids();
    const asked = ledger.request("tool:transfer", "always", B, TTL, T0, newId);
    const swapped = ledger.request("tool:transfer", "always", OTHER_ARGS, TTL, T0 + 1, newId);
    const otherTool = ledger.request("tool:transfer", "always", OTHER_TOOL, TTL, T0 + 2, newId);
    expect(new Set([asked.id, swapped.id, otherTool.id]).size).toBe(3);
    expect(ledger.request("tool:transfer", "always", B, TTL, T0 + 3, newId)).toEqual(asked);
    expect(ledger.pendingAt(T0 + 3)).toHaveLength(3);
  });

  it("a session confirmation is per tool: a retry with other arguments gets the same id, another tool a new one", () => {
    const ledger = new ConfirmationLedger();
    const newId = ids();
    const asked = ledger.request("tool:journal", "session", B, TTL, T0, newId);
    expect(ledger.request("tool:journal", "session", OTHER_ARGS, TTL, T0 + 5, newId)).toEqual(asked);
    expect(ledger.request("tool:journal", "session", OTHER_TOOL, TTL, T0 + 5, newId).id).not.toBe(asked.id);
  });

  it("never hands out an id that is already pending", () => {
    const ledger = new ConfirmationLedger();
    const sequence = ["dup", "dup", "fresh"];
    const newId = (): string => sequence.shift() ?? "late";
    const a = ledger.request("tool:a", "session", B, TTL, T0, newId);
    const b = ledger.request("tool:b", "session", B, TTL, T0, newId);
    expect(a.id).toBe("dup");
    expect(b.id).toBe("fresh");
  });

  it("keeps at most MAX_PENDING pending confirmations, dropping the oldest", () => {
    const ledger = new ConfirmationLedger();
    const newId = ids();
    for (let i = 0; i < MAX_PENDING + 5; i++) ledger.request(`tool:t${i}`, "always", B, TTL, T0, newId);
    const pending = ledger.pendingAt(T0);
    expect(pending).toHaveLength(MAX_PENDING);
    expect(pending[0]?.capability).toBe("tool:t5");
    expect(ledger.resolve("id-1", true, TTL, T0)).toEqual({ ok: false, code: "not_found" });
  });
});

describe("ConfirmationLedger.resolve", () => {
  it("approving a session confirmation grants every call of that capability until the grant expires", () => {
    const ledger = new ConfirmationLedger();
    const { id } = ledger.request("tool:x", "session", B, TTL, T0, () => "s1");
    expect(ledger.resolve(id, true, TTL, T0 + 10)).toEqual({ ok: true, approved: true, capability: "tool:x", mode: "session" });
    expect(ledger.consume("tool:x", B, T0 + 20)).toBe(true);
    expect(ledger.consume("tool:x", B, T0 + 30)).toBe(true);
    expect(ledger.consume("tool:other", B, T0 + 30)).toBe(false);
    expect(ledger.consume("tool:x", B, T0 + 10 + TTL - 1)).toBe(true);
    expect(ledger.consume("tool:x", B, T0 + 10 + TTL)).toBe(false);
  });

  it("an always approval runs exactly the approved arguments of the approved tool, once", () => {
    const ledger = new ConfirmationLedger();
    const newId = ids();
    const approved = ledger.request("tool:transfer", "always", B, TTL, T0, newId);
    // The model swaps the arguments while the approval card is open: that call is another confirmation.
    const swapped = ledger.request("tool:transfer", "always", OTHER_ARGS, TTL, T0 + 1, newId);
    expect(ledger.resolve(approved.id, true, TTL, T0 + 2)).toMatchObject({ ok: true, approved: true });
    expect(ledger.consume("tool:transfer", OTHER_ARGS, T0 + 3)).toBe(false);
    expect(ledger.consume("tool:transfer", OTHER_TOOL, T0 + 3)).toBe(false);
    expect(ledger.consume("tool:other", B, T0 + 3)).toBe(false);
    expect(ledger.consume("tool:transfer", B, T0 + 4)).toBe(true);
    expect(ledger.consume("tool:transfer", B, T0 + 5)).toBe(false);
    // The swapped call's confirmation is still open, unapproved.
    expect(ledger.pendingAt(T0 + 5).map((p) => p.id)).toEqual([swapped.id]);
  });

  it("a session approval covers the approved tool with any arguments, never another definition of the name", () => {
    const ledger = new ConfirmationLedger();
    const { id } = ledger.request("tool:journal", "session", B, TTL, T0, () => "s");
    ledger.resolve(id, true, TTL, T0);
    expect(ledger.consume("tool:journal", B, T0 + 1)).toBe(true);
    expect(ledger.consume("tool:journal", OTHER_ARGS, T0 + 2)).toBe(true);
    expect(ledger.consume("tool:journal", OTHER_TOOL, T0 + 3)).toBe(false);
  });

  it("approving an always confirmation grants exactly one call", () => {
    const ledger = new ConfirmationLedger();
    const { id } = ledger.request("tool:x", "always", B, TTL, T0, () => "a1");
    expect(ledger.resolve(id, true, TTL, T0)).toMatchObject({ ok: true, approved: true, mode: "always" });
    expect(ledger.consume("tool:x", B, T0 + 1)).toBe(true);
    expect(ledger.consume("tool:x", B, T0 + 2)).toBe(false);
  });

  it("a denial grants nothing and cannot be replayed as an approval", () => {
    const ledger = new ConfirmationLedger();
    const { id } = ledger.request("tool:x", "session", B, TTL, T0, () => "d1");
    expect(ledger.resolve(id, false, TTL, T0)).toEqual({ ok: true, approved: false, capability: "tool:x", mode: "session" });
    expect(ledger.consume("tool:x", B, T0)).toBe(false);
    expect(ledger.resolve(id, true, TTL, T0)).toEqual({ ok: false, code: "not_found" });
    expect(ledger.consume("tool:x", B, T0)).toBe(false);
  });

  it("a second approval of the same id is not_found and grants no second run", () => {
    const ledger = new ConfirmationLedger();
    const { id } = ledger.request("tool:x", "always", B, TTL, T0, () => "once");
    expect(ledger.resolve(id, true, TTL, T0).ok).toBe(true);
    expect(ledger.resolve(id, true, TTL, T0)).toEqual({ ok: false, code: "not_found" });
    expect(ledger.consume("tool:x", B, T0)).toBe(true);
    expect(ledger.consume("tool:x", B, T0)).toBe(false);
  });

  it("an expired confirmation answers expired, then not_found, and never grants", () => {
    const ledger = new ConfirmationLedger();
    const { id, expiresAt } = ledger.request("tool:x", "session", B, TTL, T0, () => "e1");
    expect(ledger.resolve(id, true, TTL, expiresAt)).toEqual({ ok: false, code: "expired" });
    expect(ledger.consume("tool:x", B, expiresAt)).toBe(false);
    expect(ledger.resolve(id, true, TTL, expiresAt)).toEqual({ ok: false, code: "not_found" });
  });

  it("an unknown id is not_found", () => {
    expect(new ConfirmationLedger().resolve("nope", true, TTL, T0)).toEqual({ ok: false, code: "not_found" });
  });

  it("uses a session grant before spending a one-run grant of the same capability", () => {
    const ledger = new ConfirmationLedger();
    const newId = ids();
    ledger.resolve(ledger.request("tool:x", "always", B, TTL, T0, newId).id, true, TTL, T0);
    ledger.resolve(ledger.request("tool:x", "session", B, TTL, T0, newId).id, true, 1_000, T0);
    expect(ledger.consume("tool:x", B, T0 + 1)).toBe(true);
    expect(ledger.consume("tool:x", B, T0 + 2)).toBe(true);
    // The session grant is over: the one-run grant is still there, once.
    expect(ledger.consume("tool:x", B, T0 + 1_000)).toBe(true);
    expect(ledger.consume("tool:x", B, T0 + 1_001)).toBe(false);
  });
});

describe("ConfirmationLedger state", () => {
  it("round-trips through JSON", () => {
    const ledger = new ConfirmationLedger();
    const newId = ids();
    ledger.request("tool:p", "always", B, TTL, T0, newId);
    ledger.resolve(ledger.request("tool:s", "session", B, TTL, T0, newId).id, true, TTL, T0);
    const restored = new ConfirmationLedger(viaJson(ledger.toState()));
    expect(restored.toState()).toEqual(ledger.toState());
    expect(restored.consume("tool:s", B, T0 + 1)).toBe(true);
    expect(restored.resolve("id-1", true, TTL, T0 + 1)).toMatchObject({ ok: true, capability: "tool:p" });
  });

  it("toState is a copy: changing it does not change the ledger", () => {
    const ledger = new ConfirmationLedger();
    ledger.resolve(ledger.request("tool:s", "session", B, TTL, T0, () => "x").id, true, TTL, T0);
    const state = ledger.toState();
    state.grants.length = 0;
    expect(ledger.consume("tool:s", B, T0)).toBe(true);
  });

  it("drops stored entries of the wrong shape instead of trusting them", () => {
    // What a damaged storage could hand back (typed as state, as storage reads are).
    const corrupt: GrantState = JSON.parse(JSON.stringify({
      pending: [{ id: 1, capability: "tool:a", mode: "always", expiresAt: T0 + TTL }, null],
      grants: [{ capability: "tool:a", mode: "forever", expiresAt: T0 + TTL }, { capability: "tool:b", mode: "always", expiresAt: "later" }],
    }));
    const ledger = new ConfirmationLedger(corrupt);
    expect(ledger.toState()).toEqual({ pending: [], grants: [] });
    expect(ledger.consume("tool:a", B, T0)).toBe(false);
    const notLists: GrantState = JSON.parse('{"pending":"x","grants":3}');
    expect(new ConfirmationLedger(notLists).toState()).toEqual({ pending: [], grants: [] });
  });

  it("drops entries stored before approvals were bound to the call (no digests): the tool asks again", () => {
    // The shape the ledger stored before approvals were bound to the call: no `tool`, no `arguments`.
    const old: GrantState = JSON.parse(JSON.stringify({
      pending: [{ id: "old-pending", capability: "tool:transfer", mode: "always", expiresAt: T0 + TTL }],
      grants: [
        { capability: "tool:transfer", mode: "always", expiresAt: T0 + TTL },
        { capability: "tool:journal", mode: "session", expiresAt: T0 + TTL },
        { capability: "tool:half", mode: "session", expiresAt: T0 + TTL, tool: B.tool },
      ],
    }));
    const ledger = new ConfirmationLedger(old);
    expect(ledger.toState()).toEqual({ pending: [], grants: [] });
    expect(ledger.consume("tool:transfer", B, T0)).toBe(false);
    expect(ledger.consume("tool:journal", B, T0)).toBe(false);
    expect(ledger.consume("tool:half", B, T0)).toBe(false);
    expect(ledger.resolve("old-pending", true, TTL, T0)).toEqual({ ok: false, code: "not_found" });
    // The ledger works on: a new confirmation and grant.
    const { id } = ledger.request("tool:transfer", "always", B, TTL, T0, () => "new");
    expect(ledger.resolve(id, true, TTL, T0)).toMatchObject({ ok: true });
    expect(ledger.consume("tool:transfer", B, T0)).toBe(true);
  });

  it("prune drops expired pending confirmations and grants only", () => {
    const ledger = new ConfirmationLedger();
    const newId = ids();
    ledger.request("tool:short", "always", B, 10, T0, newId);
    ledger.request("tool:long", "always", B, TTL, T0, newId);
    ledger.resolve(ledger.request("tool:g", "session", B, TTL, T0, newId).id, true, 10, T0);
    ledger.prune(T0 + 10);
    const state = ledger.toState();
    expect(state.pending.map((p) => p.capability)).toEqual(["tool:long"]);
    expect(state.grants).toEqual([]);
  });
});

// Model-based property: whatever happens, consume answers exactly what a plain list of approvals says, so an
// expired grant, a used-up once-grant, a denied or replayed confirmation, or one approved for other arguments or
// another definition of the tool never counts; and a retry never moves a pending confirmation's expiry.
type Op =
  | { kind: "request"; cap: number; mode: "session" | "always"; tool: number; args: number }
  | { kind: "resolve"; pick: number; approve: boolean }
  | { kind: "consume"; cap: number; tool: number; args: number }
  | { kind: "tick"; ms: number }
  | { kind: "prune" }
  | { kind: "reload" };

const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("request" as const), cap: fc.nat(2), mode: fc.constantFrom("session" as const, "always" as const), tool: fc.nat(1), args: fc.nat(2) }) },
  // `pick` chooses among the ids issued so far (modulo), with an occasional never-issued one.
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("resolve" as const), pick: fc.nat(40), approve: fc.boolean() }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("consume" as const), cap: fc.nat(2), tool: fc.nat(1), args: fc.nat(2) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("tick" as const), ms: fc.integer({ min: 0, max: 400 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: "prune" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "reload" as const }) },
);

interface ModelGrant {
  cap: string;
  mode: "session" | "always";
  expiresAt: number;
  tool: string;
  args: string;
}

function bindingOf(op: { tool: number; args: number }): GrantBinding {
  return { tool: `t${op.tool}`, arguments: `a${op.args}` };
}

describe("ConfirmationLedger property", () => {
  it("no sequence of operations makes an expired, denied, replayed or used-up grant count", () => {
    const seen = { granted: 0, refused: 0 };
    fc.assert(
      fc.property(fc.array(opArbitrary, { minLength: 10, maxLength: 80, size: "max" }), (ops) => {
        const ttl = 500;
        let now = T0;
        let ledger = new ConfirmationLedger();
        const newId = ids();
        const issued: string[] = [];
        const pending = new Map<string, ModelGrant>();
        let grants: ModelGrant[] = [];
        for (const op of ops) {
          switch (op.kind) {
            case "request": {
              const binding = bindingOf(op);
              const request = ledger.request(`tool:c${op.cap}`, op.mode, binding, ttl, now, newId);
              const known = pending.get(request.id);
              if (known && now < known.expiresAt) {
                check(known.cap === request.capability && known.mode === op.mode && known.tool === binding.tool &&
                  (op.mode === "session" || known.args === binding.arguments), "only the same call reuses a pending id");
                check(request.expiresAt === known.expiresAt, "a retry does not move the expiry");
              } else {
                check(!issued.includes(request.id), "a new confirmation has a new id");
                check(request.expiresAt === now + ttl, "a request expires ttl after now");
              }
              issued.push(request.id);
              pending.set(request.id, { cap: request.capability, mode: op.mode, expiresAt: request.expiresAt, tool: binding.tool, args: binding.arguments });
              break;
            }
            case "resolve": {
              const id = op.pick === 40 || issued.length === 0 ? "never-issued" : (issued[op.pick % issued.length] ?? "never-issued");
              const open = pending.get(id);
              const outcome = ledger.resolve(id, op.approve, ttl, now);
              pending.delete(id);
              if (!open || now >= open.expiresAt) {
                check(!outcome.ok, `${id}: a resolved, unknown or expired confirmation was accepted`);
                if (!open) check(!outcome.ok && outcome.code === "not_found", `${id}: replay must be not_found`);
                break;
              }
              check(
                outcome.ok && outcome.approved === op.approve && outcome.capability === open.cap && outcome.mode === open.mode,
                `${id}: an open confirmation must resolve as asked`,
              );
              if (op.approve) {
                if (open.mode === "session") grants = grants.filter((g) => !(g.cap === open.cap && g.mode === "session"));
                grants.push({ ...open, expiresAt: now + ttl });
              }
              break;
            }
            case "consume": {
              const cap = `tool:c${op.cap}`;
              const binding = bindingOf(op);
              const live = grants.filter((g) => g.cap === cap && g.tool === binding.tool && now < g.expiresAt);
              const session = live.find((g) => g.mode === "session");
              const once = live.find((g) => g.mode === "always" && g.args === binding.arguments);
              const expected = session !== undefined || once !== undefined;
              if (!session && once) grants.splice(grants.indexOf(once), 1);
              check(ledger.consume(cap, binding, now) === expected, `consume(${cap}, ${JSON.stringify(binding)}) at +${now - T0} ms should be ${expected}`);
              if (expected) seen.granted++;
              else seen.refused++;
              break;
            }
            case "tick":
              now += op.ms;
              break;
            case "prune":
              ledger.prune(now);
              break;
            case "reload":
              ledger = new ConfirmationLedger(viaJson(ledger.toState()));
              break;
          }
        }
      }),
      { numRuns: 300 },
    );
    // The runs reached both answers, so the property was not vacuous.
    expect(seen.granted).toBeGreaterThan(50);
    expect(seen.refused).toBeGreaterThan(50);
  });
});
