// SHA-256 digests, through Web Crypto (workerd, Node and browsers all have it; core/env.d.ts declares what is used).

/** Lower-case hex SHA-256 of a text's UTF-8 bytes. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The 32 bytes of a SHA-256 digest of `bytes` (native: workerd hashes on the request's thread, in hardware where it can). */
export async function sha256Bytes(bytes: Uint8Array): Promise<Uint8Array> {
  // Web Crypto takes views of an ArrayBuffer only (a view of shared memory is copied).
  const { buffer } = bytes;
  const view = buffer instanceof ArrayBuffer ? new Uint8Array(buffer, bytes.byteOffset, bytes.byteLength) : bytes.slice();
  return new Uint8Array(await crypto.subtle.digest("SHA-256", view));
}

/** Bytes to their SHA-256 digest: Web Crypto's (sha256Bytes), or another of the same digest (a bench's, on its own thread). */
export type BytesDigest = (bytes: Uint8Array) => Promise<Uint8Array>;

/** Whether two digests are the same bytes. */
export function sameDigest(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
