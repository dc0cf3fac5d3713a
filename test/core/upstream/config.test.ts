import { describe, expect, it } from "vitest";
import { upstreamContext, upstreamUrlRefusal } from "../../../src/core/upstream/config.ts";

describe("upstreamUrlRefusal", () => {
  it("takes https to public hosts, and private hosts or plain http only with allowPrivate", () => {
    expect(upstreamUrlRefusal("https:", "mcp.example.com", false)).toBeUndefined();
    expect(upstreamUrlRefusal("http:", "mcp.example.com", false)).toMatch(/https/);
    expect(upstreamUrlRefusal("http:", "mcp.example.com", true)).toBeUndefined();
    for (const host of ["127.0.0.1", "10.1.2.3", "192.168.0.1", "[::1]", "localhost", "mcp.internal", "router"]) {
      expect(upstreamUrlRefusal("https:", host, false)).toMatch(/allowPrivate/);
      expect(upstreamUrlRefusal("https:", host, true)).toBeUndefined();
    }
    expect(upstreamUrlRefusal("ws:", "mcp.example.com", true)).toMatch(/https/);
  });

  it("names the context of an upstream's tools", () => {
    expect(upstreamContext("fs")).toBe("upstream:fs");
  });
});
