// Base64url without padding (RFC 4648 §5): PKCE challenges, sealed tokens and links, principal ids, grant ciphertexts.

/** `bytes` as base64url text without padding. */
export function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}
