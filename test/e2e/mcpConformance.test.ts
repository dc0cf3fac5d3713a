// The official MCP conformance suite (@modelcontextprotocol/conformance, a devDependency) against /mcp of a real
// `wrangler dev` (loopback only, offline; anonymous access as npm start has it, as the suite sends no token). The active
// suite runs with test/e2e/mcp-conformance-baseline.yml as its expected failures (scenarios that need the suite's own
// fixtures: see that file), so the command exits 0 only when every other scenario passes and no listed one does.
// By hand: npm run test:mcp-conformance -- --url http://127.0.0.1:8787/mcp (after npm start).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, startDevServer } from "./devServer.ts";
import type { DevServer } from "./devServer.ts";

const BIN = join(ROOT, "node_modules", ".bin");
const BASELINE = join(ROOT, "test", "e2e", "mcp-conformance-baseline.yml");
/** Scenarios that must pass (the ones that apply to a server with its own tools), in both protocol versions. */
const REQUIRED = ["server-initialize", "ping", "tools-list", "logging-set-level"];
/** …and those the suite has for 2025-11-25 only. */
const REQUIRED_2025_11_25 = ["server-sse-multiple-streams", "dns-rebinding-protection"];

interface Run {
  code: number | null;
  output: string;
}

function conformance(args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(BIN, "conformance"), args, {
      cwd,
      // node_modules/.bin first: the suite runs on the pinned Node 24, as under npm.
      env: { ...process.env, PATH: `${BIN}${delimiter}${process.env["PATH"] ?? ""}` },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, output }));
  });
}

let server: DevServer | undefined;
let results = "";
beforeAll(async () => {
  results = mkdtempSync(join(tmpdir(), "toolgate-mcp-conformance-"));
  server = await startDevServer();
});
afterAll(async () => {
  await server?.stop();
  if (results) rmSync(results, { recursive: true, force: true });
});

describe("MCP conformance (wrangler dev)", () => {
  for (const version of ["2025-11-25", "2025-06-18"]) {
    it(`passes the active server suite of ${version} but for the baseline's fixture scenarios`, async () => {
      if (!server) throw new Error("no dev server");
      const run = await conformance(
        ["server", "--url", `${server.origin}/mcp`, "--suite", "active", "--spec-version", version,
          "--expected-failures", BASELINE, "-o", results],
        results,
      );
      const summary = run.output.slice(run.output.indexOf("=== SUMMARY ==="));
      expect(run.code, `conformance exited ${String(run.code)}:\n${summary}\n${server.output().slice(-2_000)}`).toBe(0);
      const required = version === "2025-11-25" ? [...REQUIRED, ...REQUIRED_2025_11_25] : REQUIRED;
      for (const scenario of required) expect(summary).toMatch(new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`));
    }, 180_000);
  }
});
