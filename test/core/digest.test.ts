// SHA-256 through Web Crypto: the digests of known inputs, of a view into a larger buffer, and the benches' digest on
// their own thread (bench/threadDigest.ts) equal to it.
import { describe, expect, it } from "vitest";
import { threadSha256 } from "../../bench/threadDigest.ts";
import { sameDigest, sha256Bytes, sha256Hex } from "../../src/core/digest.ts";

const hex = (bytes: Uint8Array): string => [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");

describe("sha256Bytes", () => {
  it("gives the standard digests (FIPS 180-2 examples)", async () => {
    expect(hex(await sha256Bytes(new Uint8Array()))).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(hex(await sha256Bytes(new TextEncoder().encode("abc")))).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(await sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("digests a view's bytes only, and a view of shared memory alike", async () => {
    const whole = new Uint8Array(1_000).map((_, i) => (i * 7) & 0xff);
    const view = whole.subarray(100, 900);
    const shared = new Uint8Array(new SharedArrayBuffer(800));
    shared.set(view);
    const expected = await sha256Bytes(view.slice());
    expect(sameDigest(await sha256Bytes(view), expected)).toBe(true);
    expect(sameDigest(await sha256Bytes(shared), expected)).toBe(true);
    expect(sameDigest(await sha256Bytes(whole), expected)).toBe(false);
  });

  it("is what the benches work out on their own thread", async () => {
    for (const length of [0, 1, 63, 64, 65, 100_000]) {
      const bytes = new Uint8Array(length).map((_, i) => (i * 31 + length) & 0xff);
      expect(hex(await threadSha256(bytes))).toBe(hex(await sha256Bytes(bytes)));
    }
  });
});

describe("sameDigest", () => {
  it("holds equal only the same bytes of the same length", () => {
    expect(sameDigest(Uint8Array.of(1, 2, 3), Uint8Array.of(1, 2, 3))).toBe(true);
    expect(sameDigest(Uint8Array.of(1, 2, 3), Uint8Array.of(1, 2, 4))).toBe(false);
    expect(sameDigest(Uint8Array.of(1, 2, 3), Uint8Array.of(1, 2))).toBe(false);
    expect(sameDigest(new Uint8Array(), new Uint8Array())).toBe(true);
  });
});
