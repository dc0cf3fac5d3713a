// `npm run bundle:check`: builds the Worker exactly as `npm run deploy` would (`wrangler deploy --dry-run`, which needs
// no account and no network), then reports the bundle's size, gzip-compressed as Cloudflare counts it, against the
// Workers limits (3 MB compressed on the free plan, 10 MB on paid). One JSON line on stdout; exit 1 past the paid
// limit or when the build fails. CI (.ci/run) runs it.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const MB = 1024 * 1024;
const FREE_LIMIT = 3 * MB;
const PAID_LIMIT = 10 * MB;

const repository = fileURLToPath(new URL("..", import.meta.url));
const outdir = mkdtempSync(join(tmpdir(), "toolgate-dry-run-"));
try {
  const run = spawnSync("npx", ["wrangler", "deploy", "--dry-run", "--outdir", outdir], {
    cwd: repository,
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", WRANGLER_LOG: "error" },
  });
  if (run.status !== 0) {
    process.stderr.write(`${run.stdout}${run.stderr}`);
    console.error(`bundle:check: wrangler deploy --dry-run failed (exit ${String(run.status)})`);
    process.exit(1);
  }
  // What is uploaded: the modules, not the source maps or wrangler's README.
  const modules = readdirSync(outdir).filter((name) => /\.(js|mjs|wasm|bin|txt)$/.test(name));
  let bytes = 0;
  let gzipBytes = 0;
  for (const name of modules) {
    const path = join(outdir, name);
    bytes += statSync(path).size;
    gzipBytes += gzipSync(readFileSync(path), { level: 9 }).length;
  }
  const report = {
    modules,
    bytes,
    gzipBytes,
    gzipMB: Number((gzipBytes / MB).toFixed(2)),
    freeLimitMB: FREE_LIMIT / MB,
    paidLimitMB: PAID_LIMIT / MB,
    fitsFree: gzipBytes <= FREE_LIMIT,
    fitsPaid: gzipBytes <= PAID_LIMIT,
  };
  console.log(JSON.stringify(report));
  if (!report.fitsPaid) process.exitCode = 1;
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
