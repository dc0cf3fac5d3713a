// Approval links: for a client that cannot ask its user (no elicitation), a held call carries a URL the user opens to
// approve or deny it in a browser. The token in the link is sealed with HMAC (isolate/signingKeys.ts, its own
// derivation label) and binds the principal, the session, the confirmation and its binding (the digests of the tool's
// definition and of the arguments); it expires with the confirmation or sooner. It is single-use because the session
// object resolves a confirmation once. The token in the link is the only credential the page's POST accepts: no
// cookie or other ambient authority, so another site cannot make a browser approve anything.
import { isRecord } from "../core/records.ts";
import type { ConfirmationRequest } from "../core/types.ts";
import type { GrantBinding } from "../core/guard/grants.ts";
import { sessionStub } from "../durable/stubs.ts";
import type { Settings } from "../isolate/settings.ts";
import { seal, signingKey, unseal } from "../isolate/signingKeys.ts";
import type { Call } from "./stage.ts";

/** Longest life of an approval link (the confirmation's own expiry may be shorter). */
export const APPROVAL_LINK_MAX_MS = 15 * 60_000;
export const APPROVAL_PATH = "/v1/approvals/";
const PURPOSE = { label: "toolgate approval link v1", ownSecretAsIs: false } as const;
const VERSION = 1;

export interface ApprovalToken {
  principal: string;
  session: string;
  confirmation: string;
  toolDigest: string;
  argumentsDigest: string;
  /** Epoch ms. */
  expiresAt: number;
}

export function approvalKey(settings: Settings): Promise<CryptoKey> | undefined {
  return signingKey(settings, PURPOSE);
}

export async function sealApprovalToken(key: CryptoKey, token: ApprovalToken): Promise<string> {
  return seal(key, { v: VERSION, ...token });
}

/** The token, if this deployment sealed it unchanged (expiry and binding are the caller's to check). */
export async function openApprovalToken(key: CryptoKey, text: string): Promise<ApprovalToken | undefined> {
  const value = await unseal(key, text, 2048);
  if (!isRecord(value) || value["v"] !== VERSION) return undefined;
  const { principal, session, confirmation, toolDigest, argumentsDigest, expiresAt } = value;
  if (typeof principal !== "string" || typeof session !== "string" || typeof confirmation !== "string" ||
    typeof toolDigest !== "string" || typeof argumentsDigest !== "string" || typeof expiresAt !== "number") {
    return undefined;
  }
  return { principal, session, confirmation, toolDigest, argumentsDigest, expiresAt };
}

export function bindingOf(token: ApprovalToken): GrantBinding {
  return { tool: token.toolDigest, arguments: token.argumentsDigest };
}

/**
 * The approval URL of a held call, its page kept by the session; undefined when the deployment has no signing secret,
 * the request's origin is unknown, or the confirmation is no longer pending.
 */
export async function approvalUrl(call: Call, sessionId: string, confirmation: ConfirmationRequest): Promise<string | undefined> {
  const key = approvalKey(call.settings);
  if (!key || call.origin === undefined) return undefined;
  const binding = await sessionStub(call.env, call.principal.id, sessionId).keepApprovalView(confirmation, call.settings.config);
  if (binding === null) return undefined;
  const token = await sealApprovalToken(await key, {
    principal: call.principal.id,
    session: sessionId,
    confirmation: confirmation.id,
    toolDigest: binding.tool,
    argumentsDigest: binding.arguments,
    expiresAt: Math.min(confirmation.expiresAt, Date.now() + APPROVAL_LINK_MAX_MS),
  });
  return `${call.origin}${APPROVAL_PATH}${token}`;
}

/** The confirmation with its approval URL, when one could be made. */
export async function withApprovalUrl(call: Call, sessionId: string, confirmation: ConfirmationRequest): Promise<ConfirmationRequest> {
  const url = await approvalUrl(call, sessionId, confirmation);
  return url === undefined ? confirmation : { ...confirmation, approvalUrl: url };
}
