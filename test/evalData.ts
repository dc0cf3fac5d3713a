// The evaluation data as the tests see it (vitest.config.ts reads it with scripts/evalData.ts), and the way a test
// that needs it says so: when the data is missing it is skipped, with the reason, and everything else still runs.
import { env } from "cloudflare:workers";
import { beforeEach } from "vitest";
import type { TestContext } from "vitest";

/** Why the data is missing ("eval data not found: …"), or undefined when it is there. */
export const evalMissing: string | undefined =
  env.EVAL_MCP_TOOLS && env.EVAL_METATOOL && env.EVAL_INJECTIONS ? undefined : (env.EVAL_MISSING ?? "eval data bindings missing");

/** The 527 MCP tools of LiveMCPBench (empty when missing). */
export const evalMcpTools: EvalMcpTool[] = env.EVAL_MCP_TOOLS?.tools ?? [];
/** MetaTool's tools and queries (empty when missing). */
export const evalMetaTool: NonNullable<Cloudflare.Env["EVAL_METATOOL"]> = env.EVAL_METATOOL ?? { tools: [], queries: [] };
/** The catalogs of the further retrieval sets (sealTools, gorilla, apiBank), those that are there. */
export const evalRetrievalCatalogs: NonNullable<Cloudflare.Env["EVAL_RETRIEVAL_CATALOGS"]> = env.EVAL_RETRIEVAL_CATALOGS ?? {};
/** The injection corpus (empty when missing). */
export const evalInjections: { source: string; text: string }[] = env.EVAL_INJECTIONS?.payloads ?? [];

/** First line of a test that needs the data: skips it, with the reason, when the data is missing. */
export function needsEvalData(context: TestContext): void {
  context.skip(evalMissing !== undefined, evalMissing);
}

/** In a describe block whose every test needs the data: skips each of them, with the reason, when it is missing. */
export function everyTestNeedsEvalData(): void {
  beforeEach((context) => {
    needsEvalData(context);
  });
}
