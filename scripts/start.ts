// `npm start [-- --port N] [-- other wrangler dev flags]`: wrangler dev on 127.0.0.1 with anonymous access and the demo
// catalog on (local only), .dev.vars made from its example when absent, then a playground link that
// carries a development token (level 2, every group, not owner) in the URL fragment, so that the whole demo catalog
// shows without curl or a token command. The port must be free before wrangler starts, and the link is printed only
// once this server answers /v1/health on it; otherwise it says why and exits non-zero.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { devMaxTokenLifetime, mintDevToken } from "./devToken.ts";
import { ensureDevVars, localDevVarArgs } from "./devVars.ts";

const HOST = "127.0.0.1";
const DEFAULT_PORT = 8787;
/** wrangler dev builds the page and starts workerd first: a busy machine may take a minute or more. */
const STARTUP_TIMEOUT_MS = 180_000;

const USAGE = `usage: npm start [-- --port N] [-- other wrangler dev flags]

Runs wrangler dev on http://${HOST}:<port> and prints a playground link once the server answers.
  --port N    the port (1-65535); default: the PORT environment variable, else ${DEFAULT_PORT}
  --help      this text
Any other flag goes to wrangler dev unchanged (e.g. --persist-to <dir>). The address is always ${HOST}:
use npm run dev -- --ip <address> to listen elsewhere.`;

function fail(message: string, code: number): never {
  console.error(`start: ${message}`);
  process.exit(code);
}

function readPort(text: string, from: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) < 1 || Number(text) > 65_535) {
    fail(`${from} must be a port number from 1 to 65535, got ${JSON.stringify(text)}\n\n${USAGE}`, 2);
  }
  return Number(text);
}

/** `--port N` / `--port=N` (the last one wins), else PORT, else 8787; every other argument goes to wrangler. */
function parseArguments(argv: readonly string[]): { port: number; wranglerArgs: string[] } {
  let portText: string | undefined;
  const wranglerArgs: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] ?? "";
    if (arg === "--help" || arg === "-h") {
      console.log(USAGE);
      process.exit(0);
    }
    if (arg === "--port") {
      const value = argv[index + 1];
      if (value === undefined) fail(`--port needs a value\n\n${USAGE}`, 2);
      portText = value;
      index++;
    } else if (arg.startsWith("--port=")) {
      portText = arg.slice("--port=".length);
    } else if (arg === "--ip" || arg.startsWith("--ip=")) {
      fail(`npm start always listens on ${HOST}; use npm run dev -- --ip <address> for another address`, 2);
    } else {
      wranglerArgs.push(arg);
    }
  }
  if (portText !== undefined) return { port: readPort(portText, "--port"), wranglerArgs };
  const fromEnv = process.env.PORT;
  return { port: fromEnv === undefined || fromEnv === "" ? DEFAULT_PORT : readPort(fromEnv, "PORT"), wranglerArgs };
}

/** Whether nothing listens on HOST:port: binds a server there and closes it again. */
function checkPortFree(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", (error: NodeJS.ErrnoException) => {
      resolve(error.code === "EADDRINUSE" ? "is already in use (another server holds it)" : `cannot be used (${error.message})`);
    });
    server.listen({ port, host: HOST, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}

/** True once toolgate answers /v1/health at `origin` (its answer carries `version`). */
async function answers(origin: string): Promise<boolean> {
  try {
    const response = await fetch(`${origin}/v1/health`, { signal: AbortSignal.timeout(2_000) });
    const body: unknown = await response.json();
    return typeof body === "object" && body !== null && "version" in body;
  } catch {
    return false;
  }
}

const { port, wranglerArgs } = parseArguments(process.argv.slice(2));
const origin = `http://${HOST}:${port}`;
const problem = await checkPortFree(port);
if (problem !== undefined) {
  fail(`port ${port} on ${HOST} ${problem}. Stop that server, or choose another port: npm start -- --port ${port + 1} (or PORT=${port + 1} npm start)`, 1);
}

if (ensureDevVars()) console.log("start: made .dev.vars from .dev.vars.example (a random AUTH_JWT_SECRET, local only)");
// Anonymous access and the demo catalog are local conveniences, passed here and never kept in a file a deployment reads.
const wrangler = spawn("wrangler", ["dev", "--ip", HOST, "--port", String(port), ...localDevVarArgs(), ...wranglerArgs], { stdio: "inherit" });
let up = false;
let gaveUp = false;
wrangler.on("error", (error) => fail(`could not run wrangler (${error.message}); run npm install first`, 1));
wrangler.on("exit", (code) => {
  if (!up) fail(`wrangler dev ${gaveUp ? "was stopped" : `exited (code ${code ?? "none"})`} before ${origin} answered; no link printed`, 1);
  process.exit(code ?? 0);
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => wrangler.kill(signal));

const deadline = Date.now() + STARTUP_TIMEOUT_MS;
while (!(await answers(origin))) {
  if (wrangler.exitCode !== null || wrangler.signalCode !== null) break;
  if (Date.now() > deadline) {
    gaveUp = true;
    console.error(`start: ${origin}/v1/health did not answer within ${STARTUP_TIMEOUT_MS / 1000} s; stopping wrangler dev`);
    wrangler.kill("SIGTERM");
    break;
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
}
if (!gaveUp && wrangler.exitCode === null && wrangler.signalCode === null) {
  up = true;
  console.log(`\ntoolgate is up on ${origin}`);
  try {
    const token = await mintDevToken({ sub: "developer", level: 2, groups: ["*"], owner: false, ttlSeconds: devMaxTokenLifetime() });
    console.log(`Playground with a development token (every demo group, level 2):\n  ${origin}/#token=${token}`);
  } catch (error) {
    console.error(`start: no development token (${error instanceof Error ? error.message : String(error)})`);
  }
  console.log(`Anonymous access (ungrouped tools only): ${origin}/\n`);
}
