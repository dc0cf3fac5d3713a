// The execution guard (docs/DESIGN.md, "The guard"): authority, denied capabilities, confirmation grants. Every
// registry's execute() passes it: the isolate's registry and each session's client-tool registry.
//
// The decision itself is `decideAuthority` (denied capability → banned → level → confirmation → allow); this module
// only adds the session's grants: it asks the session for a grant only when the verdict is "confirm", and opens a
// pending confirmation when none covers the call. A call without a session id cannot hold a grant, so a tool that
// needs confirmation is refused there (with a text that says why) rather than confirmed into the void.
//
// Grants are bound to what the user saw: SHA-256 digests (Web Crypto, core/digest.ts) of the tool's canonical
// definition and of the call's canonical arguments (core/guard/approval.ts); the ledger only compares the digests. The
// confirmation handed back carries the approver's view: the tool, its description's first line and the arguments,
// bounded.
import { approvalView, canonicalJson } from "./approval.ts";
import { ANONYMOUS_PRINCIPAL_ID, decideAuthority, denialText } from "./authority.ts";
import type { GatewayConfig } from "../config.ts";
import { sha256Hex } from "../digest.ts";
import type { GrantBinding } from "./grants.ts";
import { texts } from "../locale.ts";
import type { ExecutionGuard, GuardDecision, GuardInput, OpenConfirmation } from "../types.ts";

/** What the guard needs from a session's Durable Object (SessionObject implements these as RPC methods). */
export interface SessionGrants {
  /** True when an unexpired grant covers the call (an `always` grant is used up). */
  consumeGrant(capability: string, binding: GrantBinding): Promise<boolean>;
  /** Records a pending confirmation (or finds the open one for the same call) and returns it. */
  requestConfirmation(capability: string, mode: "session" | "always", binding: GrantBinding): Promise<OpenConfirmation>;
}

/** What a grant for this call is bound to. Throws on arguments that cannot be encoded (the registry then refuses). */
export async function bindingOf(input: GuardInput): Promise<GrantBinding> {
  const [tool, args] = await Promise.all([sha256Hex(canonicalJson(input.tool.definition)), sha256Hex(canonicalJson(input.arguments))]);
  return { tool, arguments: args };
}

export interface GuardDeps {
  config: GatewayConfig;
  /** The session object of (principal, session id); called only when a decision needs grants. */
  session(principalId: string, sessionId: string): SessionGrants;
  /** Told every decision (for the audit line); must not throw. */
  onDecision?(decision: GuardDecision, input: GuardInput): void;
}

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
    const binding = await bindingOf(input);
    // Confirmation is core's last rule: a grant that covers it leaves nothing but allow.
    if (await grants.consumeGrant(verdict.capability, binding)) return { kind: "allow" };
    const open = await grants.requestConfirmation(verdict.capability, verdict.mode, binding);
    return { kind: "confirm", request: { ...open, ...approvalView(tool, input.arguments) } };
  }

  return async (input) => {
    const decision = await decide(input);
    deps.onDecision?.(decision, input);
    return decision;
  };
}
