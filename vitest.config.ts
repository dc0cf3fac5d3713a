import { readFileSync } from "node:fs";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// The evaluation data stays in ../shared/eval (never copied into the repo); tests get it as JSON bindings.
type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

function evalData(file: string): Json {
  return JSON.parse(readFileSync(new URL(`../shared/eval/${file}`, import.meta.url), "utf8"));
}

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: {
          ALLOW_ANONYMOUS: "false",
          AUTH_JWT_SECRET: "test-secret-for-vitest-only-0123456789",
          EVAL_MCP_TOOLS: evalData("mcp-tools.json"),
          EVAL_METATOOL: evalData("metatool.json"),
          EVAL_INJECTIONS: evalData("injections.json"),
        },
      },
    }),
  ],
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/e2e/**"],
  },
});
