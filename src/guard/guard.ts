// The one execution guard of the Worker (issue 4): authority, denied capabilities, confirmation grants.
//
// The decision itself is core's `decideAuthority` (denied capability → banned → level → confirmation → allow); this
// module only adds the session's grants: it asks the session object for a grant only when the verdict is "confirm",
// and opens a pending confirmation when none covers the call. A call without a session id cannot hold a grant, so a
// tool that needs confirmation is refused there (with a text that says why) rather than confirmed into the void.
import { decideAuthority, denialText } from "../core/authority.ts";
import type { GatewayConfig } from "../core/config.ts";
import { texts } from "../core/locale.ts";
import type { ConfirmationRequest, ExecutionGuard, GuardDecision, GuardInput } from "../core/types.ts";

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
  /** Told every decision (for the audit line); must not throw. */
  onDecision?(decision: GuardDecision, input: GuardInput): void;
}

/** The principal id the guard uses for a call without a principal (anonymous access). */
export const ANONYMOUS_PRINCIPAL_ID = "anonymous";

export function createExecutionGuard(deps: GuardDeps): ExecutionGuard {
  const { config } = deps;
  const t = texts(config.locale);

  async function decide(input: GuardInput): Promise<GuardDecision> {
    const tool = input.tool.definition;
    const principal = input.context.principal;
    const verdict = decideAuthority({ tool, principal, config, granted: false });
    if (verdict.kind === "allow") return { kind: "allow" };
    if (verdict.kind === "deny") return { kind: "deny", reason: denialText(verdict, tool.name, principal, config.locale) };
    const sessionId = input.context.sessionId;
    if (sessionId === undefined || sessionId === "") return { kind: "deny", reason: t.confirmationNeedsSession(tool.name) };
    const grants = deps.session(principal?.id ?? ANONYMOUS_PRINCIPAL_ID, sessionId);
    // Confirmation is core's last rule: a grant that covers it leaves nothing but allow.
    if (await grants.consumeGrant(verdict.capability)) return { kind: "allow" };
    const request = await grants.requestConfirmation(verdict.capability, verdict.mode);
    return { kind: "confirm", request };
  }

  return async (input) => {
    const decision = await decide(input);
    deps.onDecision?.(decision, input);
    return decision;
  };
}
