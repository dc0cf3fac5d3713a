// Where a restarted `wrangler dev`'s first search goes (docs/scaling.md, "What a cold isolate costs now"; each run in
// docs/scaling-log.md): per restart, a first request of one kind, and the workerd processes' CPU during each request
// (Linux /proc, 10 ms ticks). Each repository (a checkout of the code to compare: this one, a worktree of another
// commit) gets its own state with the same tools registered and its snapshot written; the restarts alternate between
// them, the order swapped each round.
//   node --expose-gc bench/coldHttpBreakdown.ts <substring|minisearch> <rounds> <repository>...
// Scenarios (env SCENARIOS, default "whole,steps"): "whole", the first search alone; "steps", the same cut into
// requests one after another: an authenticated request that touches no object (POST /v1/untrusted/wrap), a second one,
// one that starts the session object (POST /v1/memory/clear), one that loads the registry (execute of an unknown
// tool), then the search; "prepare", a first prepare. Each restart ends with a warm search of a new session.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { SearchMode } from "../src/core/config.ts";
import { enlargedCatalog, loadBenchData, registrableCatalog } from "./catalog.ts";
import { startServer, timedRequest } from "./coldHttp.ts";
import { groupCpuMs, headers, stop, token } from "./http.ts";
import { summarize } from "./stats.ts";

const [modeArgument = "substring", roundsArgument = "5", ...repositories] = process.argv.slice(2);
if (modeArgument !== "substring" && modeArgument !== "minisearch") throw new Error("the mode must be substring or minisearch");
const mode: SearchMode = modeArgument;
const rounds = Number(roundsArgument);
const scenarios = (process.env.SCENARIOS ?? "whole,steps").split(",");
const data = loadBenchData();
if ("missing" in data) throw new Error(data.missing);
const catalog = registrableCatalog(enlargedCatalog(data.real, 10_000));
const owner = await token({ owner: true }, "bench-owner");
const user = await token({ level: 0 }, "bench-user");
const figures = new Map<string, Map<string, number[]>>();
function keep(repository: string, figure: string, value: number): void {
  const byFigure = figures.get(repository) ?? new Map<string, number[]>();
  figures.set(repository, byFigure);
  byFigure.set(figure, [...byFigure.get(figure) ?? [], Math.round(value)]);
}

/** Times `request` (wall, and the server's CPU when /proc has it) as `figure`. */
async function measured(repository: string, processGroup: number | undefined, figure: string, request: () => Promise<Response>): Promise<void> {
  const cpuBefore = groupCpuMs(processGroup);
  keep(repository, figure, await timedRequest(request));
  const cpuAfter = groupCpuMs(processGroup);
  if (cpuBefore !== null && cpuAfter !== null) keep(repository, `${figure} (server CPU)`, cpuAfter - cpuBefore);
}

const states = new Map<string, string>();
for (const repository of repositories) {
  const state = mkdtempSync(join(tmpdir(), "toolgate-cold-breakdown-"));
  states.set(repository, state);
  let server = await startServer(repository, state, mode);
  for (let from = 0; from < catalog.length; from += 500) {
    const tools = catalog.slice(from, from + 500).map(({ name, description, parameters }) => ({ name, description, parameters }));
    const response = await fetch(`${server.base}/v1/tools`, { method: "PUT", headers: headers(owner), body: JSON.stringify({ tools }) });
    if (!response.ok) throw new Error(`PUT /v1/tools answered ${response.status}`);
  }
  stop(server.child);
  await sleep(1_000);
  // The first cold isolate builds from the texts and writes the snapshot the measured ones read.
  server = await startServer(repository, state, mode);
  const base = server.base;
  await timedRequest(() => fetch(`${base}/v1/sessions/writer/search`, { method: "POST", headers: headers(user), body: JSON.stringify({ query: "x", mode }) }));
  stop(server.child);
  await sleep(1_000);
}

const searchBody = JSON.stringify({ query: "current stock price of a company", mode });
const prepareBody = JSON.stringify({ messages: [{ role: "user", content: "What will the weather be in Paris tomorrow?" }] });
try {
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? repositories : repositories.toReversed();
    for (const scenario of scenarios) {
      for (const repository of order) {
        const server = await startServer(repository, states.get(repository) ?? "", mode);
        const { base, child } = server;
        const post = (path: string, body: string) => () => fetch(`${base}${path}`, { method: "POST", headers: headers(user), body });
        const wrap = post("/v1/untrusted/wrap", JSON.stringify({ content: "hi", source: "bench" }));
        const session = `cold-${round}`;
        try {
          if (scenario === "whole") await measured(repository, child.pid, "first search", post(`/v1/sessions/${session}/search`, searchBody));
          if (scenario === "prepare") await measured(repository, child.pid, "first prepare", post(`/v1/sessions/${session}/prepare`, prepareBody));
          if (scenario === "steps") {
            await measured(repository, child.pid, "steps: 1 first authenticated request", wrap);
            await measured(repository, child.pid, "steps: 2 second authenticated request", wrap);
            await measured(repository, child.pid, "steps: 3 session object's start", post("/v1/memory/clear", JSON.stringify({ scope: "session", sessionId: session })));
            await measured(repository, child.pid, "steps: 4 registry load (execute of an unknown tool)", post(`/v1/sessions/${session}/execute`, JSON.stringify({ name: "no_such_tool", arguments: {} })));
            await measured(repository, child.pid, "steps: 5 first search after them", post(`/v1/sessions/${session}/search`, searchBody));
          }
          await measured(repository, child.pid, "a warm search (new session)", post(`/v1/sessions/warm-${round}/search`, searchBody));
        } finally {
          stop(child);
          await sleep(1_000);
        }
      }
    }
  }
} finally {
  for (const state of states.values()) rmSync(state, { recursive: true, force: true });
}
const medians = Object.fromEntries([...figures].map(([repository, byFigure]) =>
  [repository, Object.fromEntries([...byFigure].map(([figure, values]) => [figure, { median: summarize(values).median, all: values }]))]));
console.log(JSON.stringify({ mode, rounds, loadAverage: loadavg().map((load) => Number(load.toFixed(2))), medians }, null, 1));
