// Bundles the playground's TypeScript (src/playground) into public/app.js, the one script index.html loads.
// wrangler runs it before `wrangler dev` and `wrangler deploy` ([build] in wrangler.toml); `npm run build:page` too.
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const started = performance.now();
const outfile = fileURLToPath(new URL("../public/app.js", import.meta.url));
await build({
  entryPoints: [fileURLToPath(new URL("../src/playground/main.ts", import.meta.url))],
  outfile,
  bundle: true,
  format: "esm",
  platform: "browser",
  // Browsers of the last few years; the page uses nothing newer.
  target: ["es2022", "chrome111", "firefox111", "safari16.4"],
  minify: true,
  legalComments: "none",
  logLevel: "warning",
});
console.log(`build-page: public/app.js in ${Math.round(performance.now() - started)} ms`);
