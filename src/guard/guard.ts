// The one execution guard of the Worker (issue 4): authority, denied capabilities, confirmation grants.
import type { GatewayConfig } from "../core/config.ts";
import type { ConfirmationRequest, ExecutionGuard } from "../core/types.ts";

/** What the guard needs from a session's Durable Object (SessionObject implements these as RPC methods). */
export interface SessionGrants {
  /** True when an unexpired grant covers the capability (an `always` grant is used up). */
  consumeGrant(capability: string): Promise<boolean>;
  /** Records a pending confirmation and returns it. */
  requestConfirmation(capability: string, mode: "session" | "always"): Promise<ConfirmationRequest>;
}

export interface GuardDeps {
  config: GatewayConfig;
  /** The session object of (principal, session id); called only when a decision needs grants. */
  session(principalId: string, sessionId: string): SessionGrants;
}

export function createExecutionGuard(_deps: GuardDeps): ExecutionGuard {
  throw new Error("not implemented");
}
