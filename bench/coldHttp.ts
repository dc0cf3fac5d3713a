// A cold isolate through HTTP: `wrangler dev` with N tools registered, restarted on the same state (every isolate
// new), and the time of its first search: first without a snapshot (the isolate builds the registry from the texts,
// then writes the snapshot), then after another restart with it (the isolate reads it), then the median of the warm
// searches after; and a restarted server's first prepare. One server per search mode (its configured mode: the mode
// whose snapshot is kept). Loopback only, a handful of requests per start.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { SearchMode } from "../src/core/config.ts";
import type { ToolDefinition } from "../src/core/types.ts";
import { freePort, headers, HOST, SECRET, stop, token, waitForHealth } from "./http.ts";
import { summarize } from "./stats.ts";

const QUERY = "current stock price of a company";
const WARM_SEARCHES = 15;
const BATCH = 500;

export interface ColdHttpMode {
  tools: number;
  /** A restarted server's first search, the isolate building from the texts (and writing the snapshot), ms. */
  firstSearchWithoutSnapshotMs: number;
  /** The same after one more restart: the isolate reads the snapshot, ms. */
  firstSearchFromSnapshotMs: number;
  /** A restarted server's first prepare (the snapshot there), ms. */
  firstPrepareFromSnapshotMs: number;
  /** The searches after the first, median ms. */
  warmSearchMedianMs: number;
}

export type ColdHttpSection = { server: string; modes: Record<string, ColdHttpMode> } | { skipped: string };

/** `wrangler dev` of `repository` (bench/devServer.mjs) on `state`, configured for `mode`, once it answers health. */
export async function startServer(repository: string, state: string, mode: SearchMode): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const base = `http://${HOST}:${port}`;
  const config = JSON.stringify({ searchMode: mode, limits: { rateLimitPerMinute: 0, maxSessionsPerPrincipal: 0 } });
  const vars = { AUTH_JWT_SECRET: SECRET, ALLOW_ANONYMOUS: "false", TOOL_SEARCH_CONFIG: config };
  const child = spawn(process.execPath, ["bench/devServer.mjs", String(port), state, JSON.stringify(vars), "off"], {
    cwd: repository,
    detached: true,
    stdio: ["ignore", "ignore", "ignore"],
    env: { ...process.env, PATH: `${join(repository, "node_modules", ".bin")}:${process.env.PATH ?? ""}`, WRANGLER_SEND_METRICS: "false" },
  });
  await waitForHealth(base, child, 120_000);
  return { child, base };
}

/** Wall ms of one request, its body read; throws unless it answered 2xx. */
export async function timedRequest(request: () => Promise<Response>): Promise<number> {
  const started = performance.now();
  const response = await request();
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`answered ${response.status}`);
  return performance.now() - started;
}

export async function coldHttp(options: { repository: string; catalog: readonly ToolDefinition[]; log: (message: string) => void }): Promise<ColdHttpSection> {
  const { repository, catalog, log } = options;
  const owner = await token({ owner: true }, "bench-owner");
  const user = await token({ level: 0 }, "bench-user");
  const modes: Record<string, ColdHttpMode> = {};
  let server: { child: ChildProcess; base: string } | undefined;
  const stopOnExit = (): void => {
    if (server) stop(server.child);
  };
  process.once("exit", stopOnExit);
  try {
    for (const mode of ["substring", "minisearch"] as const) {
      const state = mkdtempSync(join(tmpdir(), "toolgate-cold-http-"));
      try {
        const restart = async (): Promise<{ child: ChildProcess; base: string }> => {
          if (server) {
            stop(server.child);
            await sleep(1_000);
          }
          server = await startServer(repository, state, mode);
          return server;
        };
        log(`cold http (${mode}): registering ${catalog.length} tools`);
        let { base } = await restart();
        for (let from = 0; from < catalog.length; from += BATCH) {
          const tools = catalog.slice(from, from + BATCH).map(({ name, description, parameters }) => ({ name, description, parameters }));
          const response = await fetch(`${base}/v1/tools`, { method: "PUT", headers: headers(owner), body: JSON.stringify({ tools }) });
          if (!response.ok) return { skipped: `PUT /v1/tools answered ${response.status}: ${(await response.text()).slice(0, 300)}` };
        }
        const search = (session: string): Promise<Response> =>
          fetch(`${base}/v1/sessions/${session}/search`, { method: "POST", headers: headers(user), body: JSON.stringify({ query: QUERY, mode }) });
        const prepare = (session: string): Promise<Response> =>
          fetch(`${base}/v1/sessions/${session}/prepare`, { method: "POST", headers: headers(user), body: JSON.stringify({ messages: [{ role: "user", content: "What will the weather be in Paris tomorrow?" }] }) });
        log(`cold http (${mode}): first search without a snapshot`);
        ({ base } = await restart());
        const withoutSnapshot = await timedRequest(() => search("cold-1"));
        ({ base } = await restart());
        const fromSnapshot = await timedRequest(() => search("cold-2"));
        const warm: number[] = [];
        for (let i = 0; i < WARM_SEARCHES; i++) warm.push(await timedRequest(() => search(`warm-${i}`)));
        ({ base } = await restart());
        const firstPrepare = await timedRequest(() => prepare("cold-3"));
        modes[mode] = {
          tools: catalog.length,
          firstSearchWithoutSnapshotMs: Math.round(withoutSnapshot),
          firstSearchFromSnapshotMs: Math.round(fromSnapshot),
          firstPrepareFromSnapshotMs: Math.round(firstPrepare),
          warmSearchMedianMs: Number(summarize(warm).median.toFixed(1)),
        };
      } finally {
        if (server) stop(server.child);
        server = undefined;
        await sleep(500);
        rmSync(state, { recursive: true, force: true });
      }
    }
    return { server: "wrangler dev (bench/devServer.mjs), restarted on the same state before each first request", modes };
  } catch (error) {
    return { skipped: error instanceof Error ? error.message : String(error) };
  } finally {
    if (server) stop(server.child);
    process.off("exit", stopOnExit);
  }
}
