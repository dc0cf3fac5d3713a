// Starts the Worker with `wrangler dev` on a free port (its [build] step bundles the page first) and stops it again.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { SignJWT } from "jose";
import { ensureDevVars, localDevVarArgs } from "../../scripts/devVars.ts";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * Where a screenshot goes: docs/<name> (tracked, shown by the docs) only with UPDATE_SCREENSHOTS=1, else a folder
 * under the system's temporary directory, so that a test run never changes the tracked tree.
 */
export function screenshotPath(name: string): string {
  const folder = process.env["UPDATE_SCREENSHOTS"] === "1" ? join(ROOT, "docs") : join(tmpdir(), "toolgate-screenshots");
  mkdirSync(folder, { recursive: true });
  return join(folder, name);
}

/**
 * wrangler.toml's TOOL_SEARCH_CONFIG with `toolList: "grow"`: the playground tests walk through the original design's list, in
 * which found tools join the list sent (the default "fixed" list never changes; test/http/toolList.test.ts covers it).
 */
function growConfig(): string {
  const toml = readFileSync(join(ROOT, "wrangler.toml"), "utf8");
  const text = /^TOOL_SEARCH_CONFIG\s*=\s*'([^']*)'\s*$/m.exec(toml)?.[1];
  if (text === undefined) throw new Error("wrangler.toml has no single-quoted TOOL_SEARCH_CONFIG");
  const config: unknown = JSON.parse(text);
  return JSON.stringify({ ...(typeof config === "object" && config !== null ? config : {}), toolList: "grow" });
}

/** A token for the dev server, signed with .dev.vars' AUTH_JWT_SECRET as `npm run token` signs it; ten minutes. */
export async function devToken(subject: string, claims: { level?: number; owner?: boolean; groups?: string[] } = {}): Promise<string> {
  ensureDevVars(ROOT);
  const vars = readFileSync(join(ROOT, ".dev.vars"), "utf8");
  const line = vars.split("\n").find((entry) => entry.startsWith("AUTH_JWT_SECRET="));
  if (!line) throw new Error(".dev.vars has no AUTH_JWT_SECRET");
  return new SignJWT({ level: 2, groups: ["*"], ...claims })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(subject)
    .setIssuedAt()
    .setExpirationTime("10m")
    .sign(new TextEncoder().encode(line.slice("AUTH_JWT_SECRET=".length).trim()));
}

export interface DevServer {
  origin: string;
  /** What wrangler printed so far, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

/** A port on 127.0.0.1 that nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error("no free port"))));
    });
  });
}

async function healthy(origin: string): Promise<boolean> {
  try {
    const response = await fetch(`${origin}/v1/health`, { signal: AbortSignal.timeout(2_000) });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * `E2E_ORIGIN` (e.g. http://127.0.0.1:8787 of a running `npm start`) tests that server instead of starting one; its
 * state then carries over between runs, which the test tolerates (random session ids).
 */
export async function startDevServer(timeoutMs = 120_000): Promise<DevServer> {
  const given = process.env["E2E_ORIGIN"];
  if (given) {
    if (!(await healthy(given))) throw new Error(`E2E_ORIGIN ${given} does not answer /v1/health`);
    return { origin: given.replace(/\/$/, ""), output: () => "", stop: async () => undefined };
  }
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  // Durable Object state of this run only, so that runs never see each other's sessions.
  const state = mkdtempSync(join(tmpdir(), "toolgate-e2e-"));
  ensureDevVars(ROOT);
  const bin = join(ROOT, "node_modules", ".bin");
  const child = spawn(
    join(bin, "wrangler"),
    ["dev", "--ip", "127.0.0.1", "--port", String(port), "--persist-to", state, "--show-interactive-dev-session=false",
      ...localDevVarArgs(), "--var", `TOOL_SEARCH_CONFIG:${growConfig()}`],
    {
      cwd: ROOT,
      // node_modules/.bin first: wrangler and its [build] command then run on the pinned Node 24, as under npm.
      env: { ...process.env, PATH: `${bin}${delimiter}${process.env["PATH"] ?? ""}`, WRANGLER_SEND_METRICS: "false" },
      // Its own process group, so that stopping it also stops workerd and esbuild under it.
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString("utf8")).slice(-20_000);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  void exit.then(() => {
    exited = true;
  });

  const stop = async (): Promise<void> => {
    const pid = child.pid;
    if (!exited && pid !== undefined) {
      try {
        process.kill(-pid, "SIGTERM");
      } catch {
        // already gone
      }
      const timer = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 10_000).unref());
      if ((await Promise.race([exit, timer])) === "timeout") {
        try {
          process.kill(-pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    }
    rmSync(state, { recursive: true, force: true });
  };

  const deadline = Date.now() + timeoutMs;
  while (!(await healthy(origin))) {
    if (exited || Date.now() > deadline) {
      await stop();
      throw new Error(`wrangler dev did not answer ${origin}/v1/health ${exited ? "(it exited)" : "in time"}:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  return { origin, output: () => output, stop };
}
