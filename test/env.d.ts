// Bindings that only the tests have. vitest.config.ts reads the evaluation data at test time (scripts/evalData.ts
// finds it) and passes either the three EVAL_* files or, when there is none, EVAL_MISSING with the reason; the tests
// read them through test/evalData.ts.
interface EvalMcpTool {
  server: string;
  category: string;
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown> | null;
}

declare namespace Cloudflare {
  interface Env {
    EVAL_MCP_TOOLS?: { tools: EvalMcpTool[] };
    EVAL_METATOOL?: { tools: { name: string; description: string }[]; queries: { query: string; tools: string[] }[] };
    EVAL_INJECTIONS?: { payloads: { source: string; text: string }[] };
    /** The tools of Seal-Tools, Gorilla APIBench and API-Bank, by set (a set whose file is missing is absent). */
    EVAL_RETRIEVAL_CATALOGS?: Record<string, { name: string; description: string; parameters: Record<string, unknown> }[]>;
    EVAL_MISSING?: string;
    /** The JSON Schema of MCP 2026-07-28 (vitest.config.ts reads it), or why it is missing. */
    MCP_2026_SCHEMA?: Record<string, unknown>;
    MCP_2026_SCHEMA_MISSING?: string;
  }
}
