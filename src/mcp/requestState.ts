// The `requestState` of an approval asked for as a multi-round-trip request (MCP 2026-07-28): the client carries it
// between the `input_required` answer and its retry, so it is the attacker's to change. It is sealed with HMAC-SHA256
// under a key derived from a Worker secret, and binds everything the retry must match: the principal, the session,
// the confirmation record (single use: resolving it twice fails), the tool's name and definition digest, the
// arguments' digest, and a short expiry. Opening it checks the MAC in constant time before reading anything.
import { isRecord } from "../core/records.ts";
import type { Settings } from "../isolate/settings.ts";

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

function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
    return Uint8Array.from(binary, (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
}

const keys = new WeakMap<Settings, Promise<CryptoKey>>();

async function importKey(secret: Uint8Array, derive: boolean): Promise<CryptoKey> {
  let raw = secret;
  if (derive) {
    const master = await crypto.subtle.importKey("raw", secret, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    raw = new Uint8Array(await crypto.subtle.sign("HMAC", master, new TextEncoder().encode(DERIVATION_LABEL)));
  }
  return crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
}

/**
 * The HMAC key of this deployment's request states: MCP_STATE_SECRET, else one derived from AUTH_JWT_SECRET;
 * undefined when neither is set (approvals then go the HTTP way, as for a client that cannot be asked).
 */
export function requestStateKey(settings: Settings): Promise<CryptoKey> | undefined {
  const known = keys.get(settings);
  if (known) return known;
  const own = settings.mcpStateSecret;
  const secret = own ?? settings.auth.secret;
  if (secret === undefined) return undefined;
  const key = importKey(secret, own === undefined);
  keys.set(settings, key);
  return key;
}

export async function sealRequestState(key: CryptoKey, state: RequestState): Promise<string> {
  const payload = new TextEncoder().encode(JSON.stringify({ v: VERSION, ...state }));
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, payload));
  return `${toBase64Url(payload)}.${toBase64Url(mac)}`;
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

/** The state, if this deployment sealed it unchanged (its checks against the retry are the caller's). */
export async function openRequestState(key: CryptoKey, text: string): Promise<OpenedState> {
  const forged = { ok: false, problem: "forged" } as const;
  // A sealed state is a few hundred characters; anything far longer was not made here.
  if (text.length > 4096) return forged;
  const [payloadText, macText, ...rest] = text.split(".");
  if (payloadText === undefined || macText === undefined || rest.length > 0) return forged;
  const payload = fromBase64Url(payloadText);
  const mac = fromBase64Url(macText);
  if (payload === undefined || mac === undefined) return forged;
  // crypto.subtle.verify compares in constant time.
  if (!(await crypto.subtle.verify("HMAC", key, mac, payload))) return forged;
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(payload));
  } catch {
    return forged;
  }
  const state = readState(parsed);
  return state ? { ok: true, state } : forged;
}
