// The browser test (npm run test:e2e): plain Node, not workerd. It starts `wrangler dev` itself and drives Debian's
// Chromium with playwright-core; see test/e2e/.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { ensureDevVars } from "./scripts/devVars.ts";

// wrangler dev and the workerd pool read .dev.vars; a fresh clone has only the committed example.
ensureDevVars();

/** The client package's source files, by the subpath they are exported under (packages/client/package.json). */
const CLIENT_SOURCES: Readonly<Record<string, string>> = { "": "index", "/ai-sdk": "aiSdk", "/openai-agents": "openaiAgents", "/langchain": "langchain" };

export default defineConfig({
  // The adapters' tests use the client package's source, as tsconfig.json's paths does (test/e2e/clientPackage.test.ts
  // tests the packed build).
  resolve: {
    alias: Object.entries(CLIENT_SOURCES).map(([subpath, file]) => ({
      find: new RegExp(`^@toolgate/client${subpath}$`),
      replacement: fileURLToPath(new URL(`./packages/client/src/${file}.ts`, import.meta.url)),
    })),
  },
  test: {
    include: ["test/e2e/**/*.test.ts"],
    environment: "node",
    // One Worker and one browser for the whole file; the steps run in order.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // What the page shows arrives after a request; a busy machine (CI has two cores) may take seconds.
    expect: { poll: { timeout: 10_000, interval: 100 } },
  },
});
