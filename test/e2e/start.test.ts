// `npm start` (scripts/start.ts) is honest about its port: it refuses a port another server holds (no "up", no link,
// exit 1), reads --port and PORT, and prints the link only once the server answers there. Plain Node, like the
// browser test: npm run test:e2e, or npx vitest run --config vitest.e2e.config.ts test/e2e/start.test.ts.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import type { Server } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT } from "./devServer.ts";

const BIN = join(ROOT, "node_modules", ".bin");

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The processes and servers a test started, stopped after it. */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).toReversed()) await cleanup();
});

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

async function holdFreePort(): Promise<{ port: number; release: () => Promise<void> }> {
  const server = await listen(0);
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  const release = (): Promise<void> => new Promise((resolve) => server.close(() => resolve()));
  return { port, release };
}

async function freePort(): Promise<number> {
  const { port, release } = await holdFreePort();
  await release();
  return port;
}

/**
 * Runs scripts/start.ts as `npm start` does (node_modules/.bin first on PATH: the pinned Node and wrangler), in its
 * own process group. Resolves when it exits, or as soon as `until` matches its stdout (it keeps running then).
 */
function start(args: string[], env: Record<string, string> = {}, until?: RegExp): Promise<Run & { stop: () => Promise<void> }> {
  const child = spawn("node", ["scripts/start.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, PATH: `${BIN}${delimiter}${process.env["PATH"] ?? ""}`, WRANGLER_SEND_METRICS: "false", ...env },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const run: Run = { code: null, stdout: "", stderr: "" };
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      // already gone
    }
    const timer = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 10_000).unref());
    if ((await Promise.race([exited, timer])) === "timeout") process.kill(-child.pid, "SIGKILL");
  };
  cleanups.push(stop);
  return new Promise((resolve) => {
    child.stdout.on("data", (chunk: Buffer) => {
      run.stdout += chunk.toString("utf8");
      if (until?.test(run.stdout)) resolve({ ...run, stop });
    });
    child.stderr.on("data", (chunk: Buffer) => {
      run.stderr += chunk.toString("utf8");
    });
    child.once("exit", (code) => resolve({ ...run, code, stop }));
  });
}

describe("npm start", () => {
  it("refuses a port another server holds, from --port or PORT: exit 1, a clear message, no link", async () => {
    const { port, release } = await holdFreePort();
    cleanups.push(release);
    for (const [args, env] of [[["--port", String(port)], {}], [[`--port=${port}`], {}], [[], { PORT: String(port) }]] as const) {
      const run = await start([...args], { ...env });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(run.stderr).toContain(`npm start -- --port ${port + 1}`);
      expect(run.stdout).not.toMatch(/is up|#token=/);
    }
  });

  it.each([
    [["--port", "http"], {}, /--port must be a port number from 1 to 65535, got "http"/],
    [["--port", "70000"], {}, /--port must be a port number/],
    [["--port"], {}, /--port needs a value/],
    [[], { PORT: "0" }, /PORT must be a port number from 1 to 65535, got "0"/],
    [["--ip", "0.0.0.0"], {}, /always listens on 127\.0\.0\.1/],
  ])("answers %j %j with exit 2 and the reason", async (args, env, message) => {
    const run = await start([...args], { ...env });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe("");
  });

  it("prints its usage for --help", async () => {
    const run = await start(["--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^usage: npm start \[-- --port N\]/);
  });

  it("starts on the port --port names (passed once to wrangler) and prints the link once it answers there", async () => {
    const port = await freePort();
    const state = mkdtempSync(join(tmpdir(), "toolgate-start-"));
    cleanups.push(async () => rmSync(state, { recursive: true, force: true }));
    const run = await start(["--port", String(port), "--persist-to", state, "--show-interactive-dev-session=false"], { PORT: "1" }, /Anonymous access/);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBeNull();
    expect(run.stdout).toContain(`toolgate is up on http://127.0.0.1:${port}`);
    expect(run.stdout).toMatch(new RegExp(`http://127\\.0\\.0\\.1:${port}/#token=[\\w-]+\\.[\\w-]+\\.[\\w-]+`));
    const health = await fetch(`http://127.0.0.1:${port}/v1/health`);
    expect(await health.json()).toMatchObject({ ok: true });
    await run.stop();
  }, 180_000);
});
