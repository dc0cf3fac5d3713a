// Grants to upstream servers at rest: AES-256-GCM with a key derived (HKDF-SHA-256) from a Worker secret, a fresh
// 96-bit IV per seal, and the grant's place (principal, upstream, registration generation) as additional data, so
// that a sealed grant copied to another principal's row, or kept past its upstream's removal, never opens.
// Sealed text is `v1.<base64url iv>.<base64url ciphertext+tag>`.

import { toBase64Url } from "../core/base64url.ts";

const VERSION = "v1";
const HKDF_INFO = "toolgate upstream grants v1";
/** The shortest secret a key is derived from (256 bits, as for AUTH_JWT_SECRET). */
export const MIN_GRANT_SECRET_LENGTH = 32;

function fromBase64Url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    return Uint8Array.from(atob(text.replaceAll("-", "+").replaceAll("_", "/")), (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** The AES-GCM key of `secret` (a Worker secret's text); throws when it is too short to be one. */
export async function deriveGrantKey(secret: string): Promise<CryptoKey> {
  if (secret.length < MIN_GRANT_SECRET_LENGTH) throw new Error(`the grant key's secret must have at least ${MIN_GRANT_SECRET_LENGTH} characters`);
  const material = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: new TextEncoder().encode(HKDF_INFO) },
    material,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

/** `plaintext` sealed for `place` (the additional data: what the text may only be opened as). */
export async function sealText(key: CryptoKey, plaintext: string, place: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(place) },
    key,
    new TextEncoder().encode(plaintext),
  );
  return `${VERSION}.${toBase64Url(iv)}.${toBase64Url(new Uint8Array(sealed))}`;
}

/** The plaintext, when `text` was sealed with this key for this place and not changed since; else undefined. */
export async function openText(key: CryptoKey, text: string, place: string): Promise<string | undefined> {
  const [version, ivText, bodyText, ...rest] = text.split(".");
  if (version !== VERSION || ivText === undefined || bodyText === undefined || rest.length > 0) return undefined;
  const iv = fromBase64Url(ivText);
  const body = fromBase64Url(bodyText);
  if (iv?.byteLength !== 12 || body === undefined) return undefined;
  try {
    const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv, additionalData: new TextEncoder().encode(place) }, key, body);
    return new TextDecoder().decode(plain);
  } catch {
    return undefined;
  }
}
