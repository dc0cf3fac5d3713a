// HMAC-SHA256 keys for what the gateway signs and hands out (MCP request states, approval links), from a Worker
// secret: MCP_STATE_SECRET, else one derived from AUTH_JWT_SECRET. Each purpose has its own derivation label, so that
// nothing signed for one purpose opens as another. Sealed text is `base64url(payload).base64url(mac)`.
import type { Settings } from "./settings.ts";
import { toBase64Url } from "../core/base64url.ts";


export function fromBase64Url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
    return Uint8Array.from(binary, (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
}

export interface KeyPurpose {
  /** Domain separation: the derived key signs nothing but this purpose's payloads. */
  label: string;
  /** Whether MCP_STATE_SECRET itself is the key (else a key is derived from it with `label`, as from AUTH_JWT_SECRET). */
  ownSecretAsIs: boolean;
}

const keys = new WeakMap<Settings, Map<string, Promise<CryptoKey>>>();

async function importKey(secret: Uint8Array, label: string | undefined): Promise<CryptoKey> {
  let raw = secret;
  if (label !== undefined) {
    const master = await crypto.subtle.importKey("raw", secret, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    raw = new Uint8Array(await crypto.subtle.sign("HMAC", master, new TextEncoder().encode(label)));
  }
  return crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
}

/** This deployment's key for `purpose`; undefined when neither MCP_STATE_SECRET nor AUTH_JWT_SECRET is set. */
export function signingKey(settings: Settings, purpose: KeyPurpose): Promise<CryptoKey> | undefined {
  let known = keys.get(settings);
  if (!known) {
    known = new Map();
    keys.set(settings, known);
  }
  const cached = known.get(purpose.label);
  if (cached) return cached;
  const own = settings.mcpStateSecret;
  const secret = own ?? settings.auth.secret;
  if (secret === undefined) return undefined;
  const key = importKey(secret, own !== undefined && purpose.ownSecretAsIs ? undefined : purpose.label);
  known.set(purpose.label, key);
  return key;
}

/** `payload` (JSON) sealed with its MAC. */
export async function seal(key: CryptoKey, payload: object): Promise<string> {
  const bytes = new TextEncoder().encode(JSON.stringify(payload));
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, bytes));
  return `${toBase64Url(bytes)}.${toBase64Url(mac)}`;
}

/** The payload, parsed, if this key sealed `text` unchanged; the MAC is checked (in constant time) before parsing. */
export async function unseal(key: CryptoKey, text: string, maxLength: number): Promise<unknown> {
  if (text.length > maxLength) return undefined;
  const [payloadText, macText, ...rest] = text.split(".");
  if (payloadText === undefined || macText === undefined || rest.length > 0) return undefined;
  const payload = fromBase64Url(payloadText);
  const mac = fromBase64Url(macText);
  if (payload === undefined || mac === undefined) return undefined;
  // crypto.subtle.verify compares in constant time.
  if (!(await crypto.subtle.verify("HMAC", key, mac, payload))) return undefined;
  try {
    return JSON.parse(new TextDecoder().decode(payload)) as unknown;
  } catch {
    return undefined;
  }
}
