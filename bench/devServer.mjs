// wrangler's dev server (the same Worker, workerd and local Durable Objects as `wrangler dev`) started through its
// API so that the devtools inspector stays off: with it on, wrangler attaches to the Worker's inspector and every
// console call then also travels as an inspector event, a cost a deployment does not have.
// argv: port, state folder, vars as JSON ({name: value}). Plain JavaScript: wrangler's type declarations, once
// imported into the TypeScript program, change the global types the rest of the bench is checked against.
// Imported by a name read at run time (TOOLGATE_BENCH_WRANGLER: another wrangler build to bench with), so that no
// type checker follows it.
const wranglerModule = process.env.TOOLGATE_BENCH_WRANGLER ?? "wrangler";
const { unstable_startWorker } = await import(wranglerModule);

const [port, persist, varsJson] = process.argv.slice(2);
if (port === undefined || persist === undefined) throw new Error("usage: node bench/devServer.mjs <port> <state folder> [vars JSON]");
/** @type {Record<string, string>} */
const vars = JSON.parse(varsJson ?? "{}");
const worker = await unstable_startWorker({
  config: "wrangler.toml",
  bindings: Object.fromEntries(Object.entries(vars).map(([name, value]) => [name, { type: "plain_text", value }])),
  dev: { server: { hostname: "127.0.0.1", port: Number(port) }, inspector: false, persist, logLevel: "warn", watch: false },
});
await worker.ready;
console.error(`ready on ${String(await worker.url)}`);
