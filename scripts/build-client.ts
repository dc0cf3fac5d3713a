// Bundles @toolgate/client (packages/client/src) into one dependency-free ES module, dist/toolgate-client.js, for a
// page, an extension or a runtime that loads one JavaScript file as is. Projects with npm install the package itself
// (packages/client, built by its own `npm run build`); this file is for everything else. `--outfile PATH` writes
// elsewhere (the extension example).
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { build } from "esbuild";

const { values } = parseArgs({ options: { outfile: { type: "string" }, entry: { type: "string" } } });
const outfile = values.outfile ?? fileURLToPath(new URL("../dist/toolgate-client.js", import.meta.url));
await build({
  entryPoints: [values.entry ?? fileURLToPath(new URL("../packages/client/src/index.ts", import.meta.url))],
  outfile,
  bundle: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  legalComments: "none",
  logLevel: "warning",
});
console.log(`build-client: ${outfile}`);
