import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

describe("evaluation data bindings", () => {
  it("reach the tests from ../shared/eval", () => {
    expect(env.EVAL_MCP_TOOLS.tools.length).toBeGreaterThan(500);
    expect(env.EVAL_METATOOL.queries.length).toBeGreaterThan(2000);
    expect(env.EVAL_INJECTIONS.payloads.length).toBeGreaterThan(300);
    expect(env.ALLOW_ANONYMOUS).toBe("false");
  });
});
