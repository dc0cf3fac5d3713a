// Bindings that only the tests have (vitest.config.ts reads them from ../shared/eval at test time).
interface EvalMcpTool {
  server: string;
  category: string;
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

declare namespace Cloudflare {
  interface Env {
    EVAL_MCP_TOOLS: { tools: EvalMcpTool[] };
    EVAL_METATOOL: { tools: { name: string; description: string }[]; queries: { query: string; tools: string[] }[] };
    EVAL_INJECTIONS: { payloads: { source: string; text: string }[] };
  }
}
