// wrangler's dev server (the same Worker, workerd and local Durable Objects as `wrangler dev`) started through its
// API so that the devtools inspector stays off: with it on, wrangler attaches to the Worker's inspector and every
// console call then also travels as an inspector event, a cost a deployment does not have.
// argv: port, state folder, vars as JSON ({name: value}), and "off" (the default) or "dev-defaults" to keep wrangler's
// own log handling and local observability (below), for comparison. Plain JavaScript: wrangler's type declarations, once
// imported into the TypeScript program, change the global types the rest of the bench is checked against.
// Imported by a name read at run time (TOOLGATE_BENCH_WRANGLER: another wrangler build to bench with), so that no
// type checker follows it.
const [port, persist, varsJson, tooling] = process.argv.slice(2);
if (tooling !== undefined && tooling !== "off" && tooling !== "dev-defaults") {
  throw new Error(`the dev tooling argument must be "off" or "dev-defaults", not ${JSON.stringify(tooling)}`);
}
const devDefaults = tooling === "dev-defaults";
// wrangler's local observability (on unless X_LOCAL_OBSERVABILITY is false) attaches a streaming tail collector to the
// Worker in the same workerd process: every invocation's events (the request, each Durable Object RPC, each console
// line, its waitUntil) are sent to it and stored in SQLite for the local explorer page. A deployment's logs and traces
// are collected by the platform, not on the Worker's CPU; here it costs per event, so most on the routes that make
// the most events (prepare: a request, a session RPC, a receipt line, a usage flush) and least on health. Read from
// the environment, so it is set before wrangler is loaded.
if (!devDefaults) process.env.X_LOCAL_OBSERVABILITY = "false";
if (port === undefined || persist === undefined) throw new Error("usage: node bench/devServer.mjs <port> <state folder> [vars JSON] [off|dev-defaults]");
const wranglerModule = process.env.TOOLGATE_BENCH_WRANGLER ?? "wrangler";
const { unstable_startWorker } = await import(wranglerModule);

/** @type {Record<string, string>} */
const vars = JSON.parse(varsJson ?? "{}");
/**
 * The Worker's console lines as a deployment treats them: out of the request's way. wrangler's own handler source-maps
 * every line in its Node process before its logger (at "warn" here) drops it: about 1 ms of CPU per line on a 2-core
 * machine, which fell on every route that logs (execute's audit line, prepare's receipt) and on nothing else. workerd
 * still formats and writes each line; warnings and errors still reach stderr (the bench reads it when the server fails).
 * @param {{ level: string, message: string }} log
 */
function structuredLogsHandler(log) {
  if (log.level === "warn" || log.level === "error") console.error(log.message);
}
const worker = await unstable_startWorker({
  config: "wrangler.toml",
  bindings: Object.fromEntries(Object.entries(vars).map(([name, value]) => [name, { type: "plain_text", value }])),
  dev: {
    server: { hostname: "127.0.0.1", port: Number(port) },
    inspector: false,
    persist,
    logLevel: "warn",
    watch: false,
    ...(devDefaults ? {} : { structuredLogsHandler }),
  },
});
await worker.ready;
console.error(`ready on ${String(await worker.url)}`);
