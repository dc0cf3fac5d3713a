// Pending confirmations and grants of one session (issue 4): pure state, stored by the session's Durable Object.
import type { ConfirmationRequest } from "./types.ts";

export interface PendingConfirmation {
  id: string;
  capability: string;
  mode: "session" | "always";
  /** Epoch ms. */
  expiresAt: number;
}

export interface Grant {
  capability: string;
  mode: "session" | "always";
  /** Epoch ms. */
  expiresAt: number;
}

export interface GrantState {
  pending: PendingConfirmation[];
  grants: Grant[];
}

export type ResolveOutcome =
  | { ok: true; approved: boolean; capability: string; mode: "session" | "always" }
  | { ok: false; code: "not_found" | "expired" };

export class ConfirmationLedger {
  constructor(_state?: GrantState) {}
  toState(): GrantState { throw new Error("not implemented"); }
  /**
   * Whether a grant covers `capability` now. A `session` grant stands until it expires; an `always` grant is used
   * up by this call (one run per approval).
   */
  consume(_capability: string, _now: number): boolean { throw new Error("not implemented"); }
  /** A pending confirmation for `capability` (a fresh id; `newId` makes it unguessable). */
  request(_capability: string, _mode: "session" | "always", _ttlMs: number, _now: number, _newId: () => string): ConfirmationRequest {
    throw new Error("not implemented");
  }
  /** Approve or deny a pending confirmation, once: a resolved, denied or expired one cannot be replayed. */
  resolve(_id: string, _approve: boolean, _ttlMs: number, _now: number): ResolveOutcome { throw new Error("not implemented"); }
  /** Drops expired entries. */
  prune(_now: number): void { throw new Error("not implemented"); }
}
