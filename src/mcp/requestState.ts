// The `requestState` of an approval asked for as a multi-round-trip request (MCP 2026-07-28): the client carries it
// between the `input_required` answer and its retry, so it is the attacker's to change. It is sealed with HMAC-SHA256
// under a key derived from a Worker secret, and binds everything the retry must match: the principal, the session,
// the confirmation record (single use: resolving it twice fails), the tool's name and definition digest, the
// arguments' digest, and a short expiry. Opening it checks the MAC in constant time before reading anything.
import { isRecord } from "../core/records.ts";
import type { Settings } from "../isolate/settings.ts";
import { seal, signingKey, unseal } from "../isolate/signingKeys.ts";

/** Longest life of a request state (the confirmation's own expiry may be shorter). */
export const REQUEST_STATE_MAX_MS = 10 * 60_000;
const VERSION = 1;
/** Domain separation: a key derived from AUTH_JWT_SECRET signs nothing but request states. */
const DERIVATION_LABEL = "toolgate mcp request state v1";

export interface RequestState {
  principal: string;
  session: string;
  confirmation: string;
  /** The name the tools/call names (call_tool, when the confirmed tool runs through it). */
  tool: string;
  /** Digest of the tools/call's canonical arguments: the retry must repeat them. */
  argumentsDigest: string;
  /** The confirmation's binding, as the guard made it: the confirmed tool's definition digest and arguments digest. */
  toolDigest: string;
  boundArgumentsDigest: string;
  /** Epoch ms. */
  expiresAt: number;
}

export type OpenedState = { ok: true; state: RequestState } | { ok: false; problem: "forged" };

/**
 * The HMAC key of this deployment's request states: MCP_STATE_SECRET, else one derived from AUTH_JWT_SECRET;
 * undefined when neither is set (approvals then go the HTTP way, as for a client that cannot be asked).
 */
export function requestStateKey(settings: Settings): Promise<CryptoKey> | undefined {
  return signingKey(settings, { label: DERIVATION_LABEL, ownSecretAsIs: true });
}

export async function sealRequestState(key: CryptoKey, state: RequestState): Promise<string> {
  return seal(key, { v: VERSION, ...state });
}

function readState(value: unknown): RequestState | undefined {
  if (!isRecord(value) || value["v"] !== VERSION) return undefined;
  const { principal, session, confirmation, tool, argumentsDigest, toolDigest, boundArgumentsDigest, expiresAt } = value;
  if (typeof principal !== "string" || typeof session !== "string" || typeof confirmation !== "string" ||
    typeof tool !== "string" || typeof argumentsDigest !== "string" || typeof toolDigest !== "string" ||
    typeof boundArgumentsDigest !== "string" || typeof expiresAt !== "number") {
    return undefined;
  }
  return { principal, session, confirmation, tool, argumentsDigest, toolDigest, boundArgumentsDigest, expiresAt };
}

/**
 * The state of a sign-in to an upstream asked as a URL elicitation: its retry only runs the call again (the guard and
 * the grant decide, as on any call), so it binds the caller, the session, the call and a short expiry, no approval.
 * Its own key (another derivation label): it never opens as an approval's state.
 */
export interface SignInRetryState {
  principal: string;
  session: string;
  tool: string;
  argumentsDigest: string;
  expiresAt: number;
}

export function signInRetryKey(settings: Settings): Promise<CryptoKey> | undefined {
  return signingKey(settings, { label: "toolgate mcp sign-in retry v1", ownSecretAsIs: false });
}

export async function sealSignInRetry(key: CryptoKey, state: SignInRetryState): Promise<string> {
  return seal(key, { v: VERSION, ...state });
}

export async function openSignInRetry(key: CryptoKey, text: string): Promise<SignInRetryState | undefined> {
  const value = await unseal(key, text, 4096);
  if (!isRecord(value) || value["v"] !== VERSION) return undefined;
  const { principal, session, tool, argumentsDigest, expiresAt } = value;
  if (typeof principal !== "string" || typeof session !== "string" || typeof tool !== "string" || typeof argumentsDigest !== "string" || typeof expiresAt !== "number") {
    return undefined;
  }
  return { principal, session, tool, argumentsDigest, expiresAt };
}

/** The state, if this deployment sealed it unchanged (its checks against the retry are the caller's). */
export async function openRequestState(key: CryptoKey, text: string): Promise<OpenedState> {
  const forged = { ok: false, problem: "forged" } as const;
  // A sealed state is a few hundred characters; anything far longer was not made here.
  const state = readState(await unseal(key, text, 4096));
  return state ? { ok: true, state } : forged;
}
