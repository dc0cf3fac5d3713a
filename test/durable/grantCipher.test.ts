// Grants at rest: AES-GCM under a key derived from a Worker secret, bound to the grant's place (principal, upstream,
// generation). What was sealed opens only with the same key and place, unchanged; a short secret is refused.
import { describe, expect, it } from "vitest";
import { deriveGrantKey, MIN_GRANT_SECRET_LENGTH, openText, sealText } from "../../src/durable/grantCipher.ts";

const SECRET = "grant-secret-for-vitest-only-0123456789";

describe("grantCipher", () => {
  it("opens what it sealed, with the same key and place; never shows the plaintext", async () => {
    const key = await deriveGrantKey(SECRET);
    const sealed = await sealText(key, '{"accessToken":"at_secret_value"}', "place-a");
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain("at_secret_value");
    expect(await openText(key, sealed, "place-a")).toBe('{"accessToken":"at_secret_value"}');
    // A fresh IV each time: the same grant never seals to the same text.
    expect(await sealText(key, '{"accessToken":"at_secret_value"}', "place-a")).not.toBe(sealed);
  });

  it("refuses another place, another key, a changed byte and malformed text", async () => {
    const key = await deriveGrantKey(SECRET);
    const sealed = await sealText(key, "token", "alice/notes/g1");
    expect(await openText(key, sealed, "bob/notes/g1")).toBeUndefined();
    expect(await openText(key, sealed, "alice/notes/g2")).toBeUndefined();
    expect(await openText(await deriveGrantKey(`${SECRET}-rotated`), sealed, "alice/notes/g1")).toBeUndefined();
    const [version, iv, body] = sealed.split(".");
    const flipped = `${version}.${iv}.${(body ?? "").startsWith("A") ? "B" : "A"}${(body ?? "").slice(1)}`;
    expect(await openText(key, flipped, "alice/notes/g1")).toBeUndefined();
    for (const bad of ["", "v1", "v2.abc.def", "v1.short.def", `${sealed}.extra`, "v1.!!!!!!!!!!!!!!!!.x"]) {
      expect(await openText(key, bad, "alice/notes/g1")).toBeUndefined();
    }
  });

  it("refuses a secret shorter than 256 bits of text", async () => {
    await expect(deriveGrantKey("x".repeat(MIN_GRANT_SECRET_LENGTH - 1))).rejects.toThrow(/at least 32 characters/);
  });
});
