// Bundles the extension's TypeScript (src/) with @toolgate/client (its source, through tsconfig.json's paths) into
// build/ (git-ignored), which manifest.json and the pages load. `node examples/browser-extension/build.ts`, or
// `npm run build:extension`; the e2e test runs it too.
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

export const EXTENSION_DIR = fileURLToPath(new URL(".", import.meta.url));

export async function buildExtension(): Promise<void> {
  await build({
    entryPoints: ["background", "popup", "options"].map((name) => fileURLToPath(new URL(`./src/${name}.ts`, import.meta.url))),
    outdir: fileURLToPath(new URL("./build/", import.meta.url)),
    bundle: true,
    format: "esm",
    platform: "browser",
    target: ["chrome120"],
    legalComments: "none",
    logLevel: "warning",
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildExtension();
  console.log(`build-extension: ${EXTENSION_DIR}build/`);
}
