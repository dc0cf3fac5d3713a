import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toBase64Url } from "../../src/core/base64url.ts";

const text = (value: string): Uint8Array => new TextEncoder().encode(value);

describe("toBase64Url", () => {
  it("gives RFC 4648's base64url test vectors without padding", () => {
    expect(toBase64Url(text(""))).toBe("");
    expect(toBase64Url(text("f"))).toBe("Zg");
    expect(toBase64Url(text("fo"))).toBe("Zm8");
    expect(toBase64Url(text("foobar"))).toBe("Zm9vYmFy");
    expect(toBase64Url(new Uint8Array([0xfb, 0xff, 0xbf]))).toBe("-_-_");
  });

  it("is Base64 with the URL alphabet and no padding, for any bytes", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
      const encoded = toBase64Url(bytes);
      expect(encoded).toMatch(/^[A-Za-z0-9_-]*$/);
      const padded = encoded.replaceAll("-", "+").replaceAll("_", "/") + "=".repeat((4 - (encoded.length % 4)) % 4);
      expect(Uint8Array.from(atob(padded), (char) => char.charCodeAt(0))).toEqual(bytes);
    }));
  });
});
