import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { buildSync } from "esbuild";
import { defineConfig } from "vitest/config";
import { ensureDevVars } from "./scripts/devVars.ts";
import { loadEvalData, loadRetrievalSets } from "./scripts/evalData.ts";

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

// The evaluation data is read here, at test time, from where scripts/evalData.ts finds it (TOOLGATE_EVAL_DIR,
// ../shared/eval, or the .eval-cache that npm run eval:fetch fills; never copied into the repo), and reaches the tests
// as JSON bindings. Without it the tests get EVAL_MISSING instead, and those that need the data skip with that reason
// (test/evalData.ts).
function evalBindings(): Record<string, unknown> {
  const loaded = loadEvalData();
  if ("missing" in loaded) {
    console.warn(`[toolgate] ${loaded.missing} (looked in ${loaded.looked.join(", ")}): the tests that need it are skipped`);
    return { EVAL_MISSING: loaded.missing };
  }
  // The further retrieval sets' catalogs (their queries are the bench's, not the tests'), those that are there.
  const retrievalCatalogs = Object.fromEntries(Object.entries(loadRetrievalSets()).map(([name, set]) => [name, set.tools]));
  return {
    EVAL_MCP_TOOLS: loaded.data.mcpTools,
    EVAL_METATOOL: loaded.data.metatool,
    EVAL_INJECTIONS: loaded.data.injections,
    EVAL_RETRIEVAL_CATALOGS: retrievalCatalogs,
  };
}

// The JSON Schema of MCP revision 2026-07-28, read at test time from the project's shared folder (never copied into
// the repo): TOOLGATE_MCP_SPEC_DIR, else ../shared/spec/mcp-2026-07-28 beside the repository or beside its worktree
// folder. Without it the tests that check answers against it skip, with MCP_2026_SCHEMA_MISSING as the reason.
function mcpSpecBindings(): Record<string, unknown> {
  const root = fileURLToPath(new URL(".", import.meta.url));
  const explicit = process.env["TOOLGATE_MCP_SPEC_DIR"];
  const dirs = explicit ? [explicit] : [`${root}../shared/spec/mcp-2026-07-28`, `${root}../../shared/spec/mcp-2026-07-28`];
  for (const dir of dirs) {
    try {
      return { MCP_2026_SCHEMA: JSON.parse(readFileSync(`${dir}/schema.json`, "utf8")) };
    } catch {
      // Not here: the next place.
    }
  }
  return { MCP_2026_SCHEMA_MISSING: `MCP 2026-07-28 schema.json not found (looked in ${dirs.join(", ")}; set TOOLGATE_MCP_SPEC_DIR)` };
}

// The remote end of executor, JWKS and upstream MCP tests (test/fixtures/remote-worker.ts): a real second Worker,
// bundled here because auxiliary workers run as given (no Vite transform) and it imports jose and the MCP SDK.
function remoteWorkerScript(): string {
  const built = buildSync({
    entryPoints: [fileURLToPath(new URL("./test/fixtures/remote-worker.ts", import.meta.url))],
    bundle: true,
    format: "esm",
    platform: "neutral",
    // Packages without an `exports` map (ajv, which the MCP SDK's server imports) are found by these fields.
    mainFields: ["module", "main"],
    target: "es2024",
    write: false,
  });
  const output = built.outputFiles[0];
  if (!output) throw new Error("esbuild produced no remote worker");
  return output.text;
}

// wrangler.toml's TOOL_SEARCH_CONFIG ("grow" lists) plus entries for test/http/guard.test.ts, so that the guard's configured rules
// (denied capabilities, overrides) are exercised through the Worker's own fetch. They name only tools that the guard
// tests register (`guard_*`), so no other test sees a difference.
function testConfig(): string {
  const toml = readFileSync(new URL("./wrangler.toml", import.meta.url), "utf8");
  const text = /^TOOL_SEARCH_CONFIG\s*=\s*'([^']*)'\s*$/m.exec(toml)?.[1];
  if (text === undefined) throw new Error("wrangler.toml has no single-quoted TOOL_SEARCH_CONFIG");
  const config: Record<string, Json> = JSON.parse(text);
  const list = (value: Json | undefined): Json[] => (Array.isArray(value) ? value : []);
  const record = (value: Json | undefined): Record<string, Json> =>
    typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
  return JSON.stringify({
    ...config,
    // The HTTP tests of the original design's list run "grow"; test/http/toolList.test.ts sets "fixed" and "stable" per request.
    toolList: "grow",
    // Usage figures sent after every request, so that a test reads them at once (stats.test.ts tests the batching).
    usageFlushMs: 0,
    deniedCapabilities: [...list(config.deniedCapabilities), "tool:guard_denied_*"],
    authorityOverrides: { ...record(config.authorityOverrides), "tool:guard_raised": 3, "tool:guard_lowered": 0 },
    confirmOverrides: { ...record(config.confirmOverrides), "tool:guard_forced_once": "always", "tool:guard_lifted": "off" },
  });
}

// wrangler dev and the workerd pool read .dev.vars; a fresh clone has only the committed example.
ensureDevVars();

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: {
          ALLOW_ANONYMOUS: "false",
          DEMO_CATALOG: "true",
          AUTH_JWT_SECRET: "test-secret-for-vitest-only-0123456789",
          TOOL_SEARCH_CONFIG: testConfig(),
          ...evalBindings(),
          ...mcpSpecBindings(),
          // A secret the http executor may use (only TOOL_SECRET_* names are usable); echoed back by the remote /echo.
          TOOL_SECRET_REMOTE_TOKEN: "remote-token-for-vitest-only",
        },
        // Every outbound fetch() of the Worker under test lands on the remote worker, whatever the URL's host.
        outboundService: "remote",
        serviceBindings: { TOOL_REMOTE: "remote" },
        workers: [
          {
            name: "remote",
            modules: true,
            script: remoteWorkerScript(),
            compatibilityDate: "2026-11-01",
          },
        ],
      },
    }),
  ],
  // The client package's source, as tsconfig.json's paths has it (its dist is what `npm pack` ships; test/e2e tests that).
  resolve: {
    alias: [{ find: /^@toolgate\/client$/, replacement: fileURLToPath(new URL("./packages/client/src/index.ts", import.meta.url)) }],
  },
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/e2e/**"],
    // Workerd runs the files two at a time on a 2-core machine; a file's first request pays the Worker's start, which
    // under load took 7 s against vitest's default of 5. A hang still fails.
    testTimeout: 15_000,
    // The word-vector table for core code reached without the Worker's entry (src/index.ts provides it otherwise).
    setupFiles: ["test/support/bundledData.ts"],
  },
});
