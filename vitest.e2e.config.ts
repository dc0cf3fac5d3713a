// The browser test (npm run test:e2e): plain Node, not workerd. It starts `wrangler dev` itself and drives Debian's
// Chromium with playwright-core; see test/e2e/.
import { defineConfig } from "vitest/config";
import { ensureDevVars } from "./scripts/devVars.ts";

// wrangler dev and the workerd pool read .dev.vars; a fresh clone has only the committed example.
ensureDevVars();

export default defineConfig({
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
