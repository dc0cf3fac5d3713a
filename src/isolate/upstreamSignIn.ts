// Sign-in links to OAuth upstreams, and the `state` of the flows they start. Both are sealed with HMAC
// (signingKeys.ts, a derivation label of their own each, so that neither opens as the other or as anything else the
// gateway signs) and name the principal they were made for, the upstream and a nonce; both expire. A link is
// single-use: its first open records the nonce in the principal's object (durable/upstreamGrants.ts), and the
// callback takes the flow by that nonce once.
import { isRecord } from "../core/records.ts";
import { randomToken } from "../durable/oauthClient.ts";
import type { Settings } from "./settings.ts";
import { seal, signingKey, unseal } from "./signingKeys.ts";

/** How long a sign-in link, and the flow it starts, may be used. */
export const SIGN_IN_LINK_MS = 10 * 60_000;
const LINK_PURPOSE = { label: "toolgate upstream sign-in link v1", ownSecretAsIs: false } as const;
const STATE_PURPOSE = { label: "toolgate upstream sign-in state v1", ownSecretAsIs: false } as const;
const VERSION = 1;
const MAX_SEALED_CHARS = 2048;

export interface SignInTicket {
  principal: string;
  upstream: string;
  nonce: string;
  /** Epoch ms. */
  expiresAt: number;
}

function keyOf(settings: Settings, purpose: typeof LINK_PURPOSE | typeof STATE_PURPOSE): Promise<CryptoKey> {
  const key = signingKey(settings, purpose);
  if (!key) throw new Error("sign-in links need a signing secret (MCP_STATE_SECRET or AUTH_JWT_SECRET)");
  return key;
}

async function open(key: CryptoKey, text: string): Promise<SignInTicket | undefined> {
  const value = await unseal(key, text, MAX_SEALED_CHARS);
  if (!isRecord(value) || value["v"] !== VERSION) return undefined;
  const { principal, upstream, nonce, expiresAt } = value;
  if (typeof principal !== "string" || typeof upstream !== "string" || typeof nonce !== "string" || typeof expiresAt !== "number") return undefined;
  return { principal, upstream, nonce, expiresAt };
}

/** A link's ticket, sealed. */
export async function sealSignInTicket(settings: Settings, ticket: SignInTicket): Promise<string> {
  return seal(await keyOf(settings, LINK_PURPOSE), { v: VERSION, ...ticket });
}

/** A fresh link for `principal` to sign in to `upstream` (undefined without a signing secret). */
export async function signInLink(settings: Settings, origin: string, principal: string, upstream: string): Promise<{ url: string; expiresAt: number } | undefined> {
  if (!signingKey(settings, LINK_PURPOSE)) return undefined;
  const expiresAt = Date.now() + SIGN_IN_LINK_MS;
  const ticket = await sealSignInTicket(settings, { principal, upstream, nonce: randomToken(18), expiresAt });
  return { url: `${origin}/v1/upstreams/${upstream}/oauth/connect?ticket=${ticket}`, expiresAt };
}

/** The link's ticket, if this deployment sealed it unchanged (its expiry is the caller's to check). */
export async function openSignInTicket(settings: Settings, text: string): Promise<SignInTicket | undefined> {
  return open(await keyOf(settings, LINK_PURPOSE), text);
}

/** The `state` sent to the authorization server: the ticket's fields under the state's own key. */
export async function sealSignInState(settings: Settings, ticket: SignInTicket): Promise<string> {
  return seal(await keyOf(settings, STATE_PURPOSE), { v: VERSION, ...ticket });
}

export async function openSignInState(settings: Settings, text: string): Promise<SignInTicket | undefined> {
  return open(await keyOf(settings, STATE_PURPOSE), text);
}
