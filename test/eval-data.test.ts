import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { evalInjections, evalMcpTools, evalMetaTool, evalMissing, needsEvalData } from "./evalData.ts";

describe("evaluation data bindings", () => {
  it("reach the tests from TOOLGATE_EVAL_DIR, ../shared/eval or .eval-cache", (context) => {
    needsEvalData(context);
    expect(evalMcpTools.length).toBeGreaterThan(500);
    expect(evalMetaTool.queries.length).toBeGreaterThan(2000);
    expect(evalInjections.length).toBeGreaterThan(300);
    expect(env.EVAL_MISSING).toBeUndefined();
  });

  it("are replaced, when missing, by the reason and what to do", (context) => {
    context.skip(evalMissing === undefined, "the evaluation data is there");
    expect(env.EVAL_MISSING).toBe("eval data not found: set TOOLGATE_EVAL_DIR or run npm run eval:fetch");
    expect(evalMcpTools).toEqual([]);
  });

  it("run with the test bindings", () => {
    expect(env.ALLOW_ANONYMOUS).toBe("false");
  });
});
