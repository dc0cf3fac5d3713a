// HTTP load through `wrangler dev` (with its Durable Objects): requests per second and latency of `prepare` and
// `search`, and of MCP's search_tools call and whole first round (bench/mcp.ts), at a fixed number of concurrent
// clients, on the loopback interface only, bounded in time.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { SignJWT } from "jose";
import type { ToolDefinition } from "../src/core/types.ts";
import { mcpRound, mcpSearch, openMcpSession } from "./mcp.ts";
import { summarize, type Distribution } from "./stats.ts";

export const HOST = "127.0.0.1";
/** Only this bench's server knows it; never a real secret. */
export const SECRET = "bench-only-secret-0123456789abcdef0123456789";

export interface LoadResult {
  route: string;
  clients: number;
  seconds: number;
  requests: number;
  requestsPerSecond: number;
  /** Milliseconds, per request. */
  latency: Distribution;
  statuses: Record<string, number>;
  /**
   * CPU milliseconds the server's workerd processes spent per request (Linux /proc; null elsewhere): the route's own
   * cost, which the machine's load inflates far less than wall time.
   */
  serverCpuMsPerRequest: number | null;
}

/** Each route's median latency over `GET /v1/health`'s, measured in the same run (the Worker's own floor). */
export type RatiosToHealth = Record<string, number>;

/**
 * How the dev server treats its own tooling: "off" (the bench's measure: no inspector, no local observability
 * collector, console lines dropped without wrangler's source-mapping; bench/devServer.mjs says why) or "dev-defaults"
 * (wrangler's local observability and log handling as `wrangler dev` has them; the inspector stays off), for comparison.
 */
export type DevTooling = "off" | "dev-defaults";

export type HttpSection =
  | { skipped: string }
  | {
    server: string;
    devTooling: DevTooling;
    catalogTools: number;
    /** Each route's time is cut into this many windows, taken in turn with the other routes'. */
    rounds: number;
    results: LoadResult[];
    p50RatioToHealth: RatiosToHealth;
    /** serverCpuMsPerRequest over health's. */
    cpuRatioToHealth: RatiosToHealth;
  };

/** The routes judged against health (bench/run.ts's targets): each at most 1.5x. */
export const HEALTH_RATIO_ROUTES = {
  prepare: "POST /v1/sessions/:sid/prepare",
  search: "POST /v1/sessions/:sid/search (substring)",
  execute: "POST /v1/sessions/:sid/execute (builtin echo)",
} as const;
export const HEALTH_ROUTE = "GET /v1/health";

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, HOST, () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === "object") resolve(address.port);
        else reject(new Error("no port"));
      });
    });
  });
}

export function headers(bearer: string): Record<string, string> {
  return { authorization: `Bearer ${bearer}`, "content-type": "application/json" };
}

function searchBody(mode: string): string {
  return JSON.stringify({ query: "current stock price of a company", mode });
}

export async function token(claims: Record<string, unknown>, subject: string): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(subject)
    .setExpirationTime("1h")
    .sign(new TextEncoder().encode(SECRET));
}

/** Ends the server and everything it started (its own process group, which only it is in). */
export function stop(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    // already gone
  }
}

export async function waitForHealth(base: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited with code ${child.exitCode}`);
    try {
      const response = await fetch(`${base}/v1/health`, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) return;
    } catch {
      // not up yet
    }
    await sleep(250);
  }
  throw new Error(`no answer from ${base}/v1/health within ${timeoutMs} ms`);
}

function ratios(results: readonly LoadResult[], figure: (result: LoadResult) => number | null): RatiosToHealth {
  const healthResult = results.find((result) => result.route === HEALTH_ROUTE);
  const health = healthResult ? figure(healthResult) : null;
  const out: RatiosToHealth = {};
  if (health === null || health <= 0) return out;
  for (const result of results) {
    const value = figure(result);
    if (result.route !== HEALTH_ROUTE && value !== null) out[result.route] = Number((value / health).toFixed(2));
  }
  return out;
}

const CLOCK_TICKS_PER_SECOND = 100;

/** CPU ms used so far by the workerd processes of a process group (Linux /proc), or null where that cannot be read. */
export function groupCpuMs(processGroup: number | undefined): number | null {
  if (processGroup === undefined) return null;
  try {
    let ticks = 0;
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      } catch {
        continue;
      }
      // pid (comm) state ppid pgrp …; comm may hold spaces, so the fields are read after its closing parenthesis.
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (!comm.startsWith("workerd") || Number(fields[2]) !== processGroup) continue;
      ticks += Number(fields[11]) + Number(fields[12]);
    }
    return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

interface Window {
  latencies: number[];
  statuses: Record<string, number>;
  elapsedSeconds: number;
  cpuMs: number | null;
}

/** `clients` loops sending `request()` until `seconds` have passed; each loop waits for its answer before the next. */
async function load(clients: number, seconds: number, request: (client: number) => Promise<Response>, processGroup?: number): Promise<Window> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const cpuBefore = groupCpuMs(processGroup);
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const loops = Array.from({ length: clients }, async (_, client) => {
    while (performance.now() < deadline) {
      const sent = performance.now();
      let status: string;
      try {
        const response = await request(client);
        await response.arrayBuffer();
        status = String(response.status);
      } catch {
        status = "error";
      }
      latencies.push(performance.now() - sent);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  });
  await Promise.all(loops);
  const cpuAfter = groupCpuMs(processGroup);
  return {
    latencies,
    statuses,
    elapsedSeconds: (performance.now() - started) / 1000,
    cpuMs: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
  };
}

function merged(route: string, clients: number, windows: readonly Window[]): LoadResult {
  const latencies = windows.flatMap((window) => window.latencies);
  const statuses: Record<string, number> = {};
  for (const window of windows) {
    for (const [status, count] of Object.entries(window.statuses)) statuses[status] = (statuses[status] ?? 0) + count;
  }
  const elapsed = windows.reduce((sum, window) => sum + window.elapsedSeconds, 0);
  const cpu = windows.every((window) => window.cpuMs !== null)
    ? windows.reduce((sum, window) => sum + (window.cpuMs ?? 0), 0)
    : null;
  return {
    route,
    clients,
    seconds: Number(elapsed.toFixed(2)),
    requests: latencies.length,
    requestsPerSecond: Number((latencies.length / elapsed).toFixed(1)),
    latency: summarize(latencies),
    statuses,
    serverCpuMsPerRequest: cpu === null || latencies.length === 0 ? null : Number((cpu / latencies.length).toFixed(3)),
  };
}

/**
 * Every route gets `seconds` in all, cut into `rounds` windows taken in turn (health, execute, prepare, …, health,
 * execute, …): a burst of load from elsewhere on the machine then falls on every route alike, rather than on
 * whichever route was being measured, which moved the ratios by ±0.5 between runs.
 */
async function interleaved(
  routes: readonly { route: string; request: (client: number) => Promise<Response> }[],
  clients: number,
  seconds: number,
  rounds: number,
  processGroup: number | undefined,
  log: (message: string) => void,
): Promise<LoadResult[]> {
  // A short unmeasured round first: the first requests of a route pay for compiling and building its indexes.
  for (const { request } of routes) await load(clients, Math.min(1, seconds), request);
  const windows = new Map<string, Window[]>(routes.map(({ route }) => [route, []]));
  for (let round = 0; round < rounds; round++) {
    log(`http: round ${round + 1} of ${rounds}, ${routes.length} routes, ${clients} clients, ${(seconds / rounds).toFixed(2)} s each`);
    for (const { route, request } of routes) windows.get(route)?.push(await load(clients, seconds / rounds, request, processGroup));
  }
  return routes.map(({ route }) => merged(route, clients, windows.get(route) ?? []));
}

/** A bench's `wrangler dev` (bench/devServer.mjs), its state in a fresh folder: up once `ready()` resolves. */
export interface BenchServer {
  base: string;
  child: ChildProcess;
  ready(): Promise<void>;
  /** A token the server accepts (HS256 with the bench's secret). */
  token(claims: Record<string, unknown>, subject: string): Promise<string>;
  /** Why the bench could not go on, with the end of what wrangler printed. */
  failure(error: unknown): string;
  stop(): Promise<void>;
}

export async function startBenchServer(repository: string, devTooling: DevTooling, log: (message: string) => void): Promise<BenchServer> {
  const port = await freePort();
  const base = `http://${HOST}:${port}`;
  const state = mkdtempSync(join(tmpdir(), "toolgate-bench-"));
  // No rate limit, and no session bound: every MCP round opens a session.
  const config = JSON.stringify({ limits: { rateLimitPerMinute: 0, maxSessionsPerPrincipal: 0 } });
  log(`starting wrangler dev on ${base} (dev tooling ${devTooling})`);
  // wrangler's dev server through its API (bench/devServer.mjs, which says why): the devtools inspector always off;
  // with devTooling "off", also wrangler's local observability collector and its printing of the Worker's console
  // lines, each a cost per request that falls on the routes that log or make RPCs, and none of them a cost of a
  // deployed Worker.
  const vars = { AUTH_JWT_SECRET: SECRET, ALLOW_ANONYMOUS: "false", TOOL_SEARCH_CONFIG: config };
  const child = spawn(process.execPath, ["bench/devServer.mjs", String(port), state, JSON.stringify(vars), devTooling], {
    cwd: repository,
    detached: true,
    stdio: ["ignore", "ignore", "pipe"],
    // The page build that wrangler runs first needs this Node (a system Node may be older) and the project's tools.
    env: { ...process.env, PATH: `${join(repository, "node_modules", ".bin")}:${process.env.PATH ?? ""}`, WRANGLER_SEND_METRICS: "false" },
  });
  let errors = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    errors = (errors + chunk.toString()).slice(-4000);
  });
  const stopOnExit = (): void => stop(child);
  process.once("exit", stopOnExit);
  return {
    base,
    child,
    ready: () => waitForHealth(base, child, 90_000),
    token,
    failure: (error) => {
      const reason = error instanceof Error ? error.message : String(error);
      return `${reason}${errors ? `; wrangler said: ${errors.trim().slice(-500)}` : ""}`;
    },
    stop: async () => {
      stop(child);
      process.off("exit", stopOnExit);
      await sleep(500);
      rmSync(state, { recursive: true, force: true });
    },
  };
}

/**
 * Starts `wrangler dev` on a free loopback port (its own state folder, a bench-only secret, no rate limit), registers
 * `catalog`, then loads `prepare` and `search` (both modes). A route that answers 404 or 501 is not built yet: the
 * section is then skipped, with the reason.
 */
export async function httpLoad(options: {
  repository: string;
  catalog: readonly ToolDefinition[];
  clients: number;
  seconds: number;
  /** Windows per route (see interleaved). */
  rounds: number;
  /** Default "off". */
  devTooling?: DevTooling;
  /** Also load MCP's routes (default true). */
  mcp?: boolean;
  log: (message: string) => void;
}): Promise<HttpSection> {
  const { repository, catalog, clients, seconds, rounds, log } = options;
  const devTooling = options.devTooling ?? "off";
  const server = await startBenchServer(repository, devTooling, log);
  const { base, child } = server;
  try {
    await server.ready();
    const owner = await token({ owner: true }, "bench-owner");
    const user = await token({ level: 0 }, "bench-user");

    const registered = await fetch(`${base}/v1/tools`, {
      method: "PUT",
      headers: headers(owner),
      body: JSON.stringify({
        tools: [
          ...catalog.map(({ name, description, parameters }) => ({ name, description, parameters })),
          // A tool the Worker runs itself, whether or not the demo catalog is on.
          { name: "bench_echo", description: "Returns its arguments (bench).", parameters: { type: "object" }, executor: { type: "builtin", name: "echo" } },
        ],
      }),
    });
    if (registered.status === 404 || registered.status === 501 || registered.status === 405) {
      return { skipped: `PUT /v1/tools answered ${registered.status}: the route is not built yet` };
    }
    if (!registered.ok) return { skipped: `PUT /v1/tools answered ${registered.status}: ${(await registered.text()).slice(0, 300)}` };

    const prepareBody = JSON.stringify({ messages: [{ role: "user", content: "What will the weather be in Paris tomorrow?" }] });
    const executeBody = JSON.stringify({ name: "bench_echo", arguments: { text: "hello" } });
    const routes: { route: string; path: (client: number) => string; body: string }[] = [
      { route: HEALTH_ROUTE, path: () => "/v1/health", body: "" },
      { route: HEALTH_RATIO_ROUTES.execute, path: (c) => `/v1/sessions/bench-${c}/execute`, body: executeBody },
      { route: "POST /v1/sessions/:sid/prepare", path: (c) => `/v1/sessions/bench-${c}/prepare`, body: prepareBody },
      { route: "POST /v1/sessions/:sid/search (substring)", path: (c) => `/v1/sessions/bench-${c}/search`, body: searchBody("substring") },
      { route: "POST /v1/sessions/:sid/search (minisearch)", path: (c) => `/v1/sessions/bench-${c}/search`, body: searchBody("minisearch") },
    ];
    const send = (path: string, body: string): Promise<Response> =>
      body === "" ? fetch(`${base}${path}`, { headers: headers(user) }) : fetch(`${base}${path}`, { method: "POST", headers: headers(user), body });
    for (const { route, path, body } of routes) {
      const probe = await send(path(0), body);
      if (probe.status === 404 || probe.status === 501) return { skipped: `${route} answered ${probe.status}: the route is not built yet` };
      if (!probe.ok) return { skipped: `${route} answered ${probe.status}: ${(await probe.text()).slice(0, 300)}` };
    }

    const results = await interleaved(
      routes.map(({ route, path, body }) => ({ route, request: (c: number) => send(path(c), body) })),
      clients, seconds, rounds, child.pid, log,
    );

    const section = (): HttpSection => ({
      server: `wrangler dev on ${base} (local Durable Objects)`,
      devTooling,
      catalogTools: catalog.length,
      rounds,
      results,
      p50RatioToHealth: ratios(results, (result) => result.latency.median),
      cpuRatioToHealth: ratios(results, (result) => result.serverCpuMsPerRequest),
    });
    if (options.mcp === false) return section();
    // MCP: search_tools as tools/call in one open session per client (an SSE answer), then the whole first round of a
    // client (initialize, initialized, tools/list, search_tools), each round a new session.
    const query = "current stock price of a company";
    const sessions = await Promise.all(Array.from({ length: clients }, () => openMcpSession(base, user)));
    const mcpRoutes: { route: string; request: (client: number) => Promise<Response> }[] = [
      { route: "MCP tools/call search_tools (substring)", request: (c) => mcpSearch(base, user, sessions[c] ?? "", query) },
      { route: "MCP round: initialize + initialized + tools/list + search_tools", request: () => mcpRound(base, user, query) },
    ];
    results.push(...await interleaved(mcpRoutes, clients, seconds, 1, child.pid, log));
    return section();
  } catch (error) {
    return { skipped: server.failure(error) };
  } finally {
    await server.stop();
  }
}
