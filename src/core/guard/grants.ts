// Pending confirmations and grants of one session (docs/DESIGN.md, "The guard"): pure state, stored by the session's Durable Object.
//
// Rules (every time is epoch ms; an entry is valid while `now < expiresAt`):
// - Every entry is bound to a `GrantBinding`: digests of the tool's definition and of the call's
//   canonical arguments (core/guard/approval.ts `canonicalJson`; the execution guard hashes it). The ledger only compares them.
// - `request` opens a pending confirmation. While one for the same capability, mode and binding is still pending it
//   is reused (same id, same expiry: a retry never pushes the expiry out), so a model that retries does not pile up
//   approval cards. For `always` the binding is the tool and the arguments, so other arguments get a new id; for
//   `session` it is the tool only (a session approval covers any arguments).
// - `resolve` answers a pending confirmation exactly once and removes it: approve → a grant, deny → nothing. A second
//   resolve of the same id (approved, denied or pruned) answers `not_found`; there is no separate "already resolved"
//   code, so ids cannot be probed either. A pending one past its expiry answers `expired` (and is removed).
// - `consume`: a `session` grant covers the tool it was approved for (same definition digest), any arguments, until it
//   expires; an `always` grant covers exactly one call with exactly the approved arguments. Session grants are tried
//   first so that a one-run grant is not spent while a session grant covers the call.
// - Stored entries without both digests (state written before the binding existed) are dropped on load: fail closed,
//   the tool asks again.
// The ledger is per session object, which is per (principal, session): another principal never reaches it.
import type { OpenConfirmation } from "../types.ts";

/** What an approval is bound to: opaque digests, compared for equality only. */
export interface GrantBinding {
  /** Digest of the tool's definition: another tool of the same name (or a changed one) is not covered. */
  tool: string;
  /** Digest of the call's canonical arguments: a one-run approval covers exactly these. */
  arguments: string;
}

export interface PendingConfirmation extends OpenConfirmation {
  tool: string;
  arguments: string;
}

export interface Grant {
  capability: string;
  mode: "session" | "always";
  /** Epoch ms. */
  expiresAt: number;
  tool: string;
  /** The approved arguments' digest; checked for `always` grants only. */
  arguments: string;
}

export interface GrantState {
  pending: PendingConfirmation[];
  grants: Grant[];
}

export type ResolveOutcome =
  | { ok: true; approved: boolean; capability: string; mode: "session" | "always" }
  | { ok: false; code: "not_found" | "expired" };

/** Most pending confirmations kept per session; the oldest go first. Bounds the stored state. */
export const MAX_PENDING = 100;
/** Most grants kept per session (one-run grants can stack); the oldest go first. */
export const MAX_GRANTS = 200;

type Mode = "session" | "always";

function isMode(value: unknown): value is Mode {
  return value === "session" || value === "always";
}

function isEntry(value: unknown): value is Grant {
  return (
    typeof value === "object" &&
    value !== null &&
    "capability" in value &&
    typeof value.capability === "string" &&
    "mode" in value &&
    isMode(value.mode) &&
    "expiresAt" in value &&
    typeof value.expiresAt === "number" &&
    "tool" in value &&
    typeof value.tool === "string" &&
    "arguments" in value &&
    typeof value.arguments === "string"
  );
}

function copyGrant(g: Grant): Grant {
  return { capability: g.capability, mode: g.mode, expiresAt: g.expiresAt, tool: g.tool, arguments: g.arguments };
}

/** Whether a grant (or a pending confirmation) of `mode` covers a call with `binding`. */
function covers(entry: Grant, binding: GrantBinding): boolean {
  return entry.tool === binding.tool && (entry.mode === "session" || entry.arguments === binding.arguments);
}

function isPending(value: unknown): value is PendingConfirmation {
  return isEntry(value) && "id" in value && typeof value.id === "string";
}

export class ConfirmationLedger {
  #pending: PendingConfirmation[];
  #grants: Grant[];

  /** `state` comes from storage: entries of the wrong shape are dropped rather than trusted. */
  constructor(state?: GrantState) {
    const pending: unknown[] = Array.isArray(state?.pending) ? state.pending : [];
    const grants: unknown[] = Array.isArray(state?.grants) ? state.grants : [];
    this.#pending = pending.filter(isPending).map((p) => ({ id: p.id, ...copyGrant(p) }));
    this.#grants = grants.filter(isEntry).map(copyGrant);
  }

  /** A JSON-serialisable copy; `new ConfirmationLedger(ledger.toState())` behaves the same. */
  toState(): GrantState {
    return {
      pending: this.#pending.map((p) => ({ ...p })),
      grants: this.#grants.map((g) => ({ ...g })),
    };
  }

  /**
   * Whether a grant covers this call now. A `session` grant covers the approved tool with any arguments until it
   * expires; an `always` grant covers only the approved arguments and is used up by this call (one run per approval).
   */
  consume(capability: string, binding: GrantBinding, now: number): boolean {
    this.prune(now);
    const mine = (g: Grant): boolean => g.capability === capability && covers(g, binding);
    if (this.#grants.some((g) => g.mode === "session" && mine(g))) return true;
    const once = this.#grants.findIndex((g) => g.mode === "always" && mine(g));
    if (once < 0) return false;
    this.#grants.splice(once, 1);
    return true;
  }

  /**
   * A pending confirmation for this call: the open one of the same capability, mode and binding as it stands (its
   * expiry is not moved), else a new one (a fresh id; `newId` makes it unguessable).
   */
  request(
    capability: string,
    mode: "session" | "always",
    binding: GrantBinding,
    ttlMs: number,
    now: number,
    newId: () => string,
  ): OpenConfirmation {
    this.prune(now);
    const existing = this.#pending.find((p) => p.capability === capability && p.mode === mode && covers(p, binding));
    if (existing) return open(existing);
    let id = newId();
    // A collision is practically impossible with random UUIDs; never let one id name two confirmations anyway.
    while (this.#pending.some((p) => p.id === id)) id = newId();
    const pending: PendingConfirmation = { id, capability, mode, expiresAt: now + ttlMs, tool: binding.tool, arguments: binding.arguments };
    this.#pending.push(pending);
    if (this.#pending.length > MAX_PENDING) this.#pending.splice(0, this.#pending.length - MAX_PENDING);
    return open(pending);
  }

  /** Approve or deny a pending confirmation, once: a resolved, denied or expired one cannot be replayed. */
  resolve(id: string, approve: boolean, ttlMs: number, now: number): ResolveOutcome {
    const index = this.#pending.findIndex((p) => p.id === id);
    const pending = this.#pending[index];
    if (!pending) return { ok: false, code: "not_found" };
    this.#pending.splice(index, 1);
    if (now >= pending.expiresAt) return { ok: false, code: "expired" };
    if (approve) {
      const grant: Grant = { ...copyGrant(pending), expiresAt: now + ttlMs };
      if (grant.mode === "session") {
        // One session grant per capability: a new approval replaces (extends) the old one.
        this.#grants = this.#grants.filter((g) => !(g.capability === grant.capability && g.mode === "session"));
      }
      this.#grants.push(grant);
      if (this.#grants.length > MAX_GRANTS) this.#grants.splice(0, this.#grants.length - MAX_GRANTS);
    }
    return { ok: true, approved: approve, capability: pending.capability, mode: pending.mode };
  }

  /** Drops expired entries. */
  prune(now: number): void {
    this.#pending = this.#pending.filter((p) => now < p.expiresAt);
    this.#grants = this.#grants.filter((g) => now < g.expiresAt);
  }

  /** Pending confirmations still open at `now` (for display). */
  pendingAt(now: number): PendingConfirmation[] {
    return this.#pending.filter((p) => now < p.expiresAt).map((p) => ({ ...p }));
  }
}

function open(p: PendingConfirmation): OpenConfirmation {
  return { id: p.id, capability: p.capability, mode: p.mode, expiresAt: p.expiresAt };
}
