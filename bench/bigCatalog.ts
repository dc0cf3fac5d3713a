// A catalog past one isolate (`--big-catalog`): 100,000 generated tools (bench/catalog.ts) searched through the search
// shards (config searchShards; src/core/search/shardedSearch.ts). In process (Node): the heap an isolate would hold for
// one index over them against one shard's part, the calls a search makes and its CPU. Through `wrangler dev`
// (bench/devServer.mjs): the tools registered over HTTP, then the first search (the isolate reads the registry, the
// shards build their parts) and warm searches in both modes, p50 and p99 of wall time, and the dev server's memory.
// In `wrangler dev` the Worker and every Durable Object run in one workerd process on this machine's cores: the shards'
// work is not spread over machines as on Cloudflare, so the wall times hold every shard's CPU one after another.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { SearchMode } from "../src/core/config.ts";
import { catalogPart } from "../src/core/search/catalogParts.ts";
import { createSearchIndex } from "../src/core/search/createIndex.ts";
import { createIndexPart } from "../src/core/search/indexPart.ts";
import type { IndexPart } from "../src/core/search/indexPart.ts";
import { ShardedSearch, shardsInMemory, wholeStatistics, type IndexShard } from "../src/core/search/shardedSearch.ts";
import { decodePartSnapshot, encodePartSnapshot } from "../src/core/tools/partSnapshot.ts";
import { decodeWholeSnapshot, encodeWholeSnapshot } from "../src/core/search/wholeSnapshot.ts";
import { decodeSnapshotOfEitherKind, registrySnapshotStream, snapshotFingerprint } from "../src/core/tools/registrySnapshot.ts";
import type { RegistrySnapshotContent, SnapshotBinding } from "../src/core/tools/registrySnapshot.ts";
import { byteParts, collectBytes } from "../src/core/search/snapshotCodec.ts";
import { storedFromSnapshot, StoredToolsSnapshot, type StoredTool } from "../src/core/tools/storedTools.ts";
import { ToolRegistry } from "../src/core/tools/toolRegistry.ts";
import type { ToolDefinition } from "../src/core/types.ts";
import { freePort, headers, HOST, SECRET, stop, token, waitForHealth } from "./http.ts";
import { summarize, threadCpuMs } from "./stats.ts";
import { threadSha256 } from "./threadDigest.ts";

export const BIG_CATALOG_TOOLS = 100_000;
/** Shards of the bench's deployment, and the registry size past which it shards. */
export const BIG_CATALOG_SHARDS = 8;
export const BIG_CATALOG_ABOVE = 20_000;
/** Tools per PUT /v1/tools page (the bulk route's body cap allows it): the fastest registration the API offers. */
const BATCH = 5_000;
const MODES: readonly SearchMode[] = ["minisearch", "substring"];
/** Longer than local workerd keeps an idle Durable Object (10 s). */
const EVICTION_WAIT_MS = 12_000;

export interface BigCatalogInProcess {
  tools: number;
  shards: number;
  /** Heap of the isolate's registry of every definition (what an isolate still holds when sharded), MiB. */
  registryHeapMiB: number | null;
  /**
   * The registry snapshot of a sharded registry (src/isolate/registryCache.ts: the definitions as validated, without an
   * index or token counts): its size, the CPU of writing it (the first isolate that reads the texts), and of reading it
   * into a registry (what a cold isolate pays instead of reading and validating every text), with that registry's heap
   * (the snapshot's bytes included).
   */
  registrySnapshot: {
    MiB: number;
    writeCpuMs: number;
    readCpuMs: number;
    readHeapMiB: number | null;
    /**
     * The writer isolate's heap: its registry as src/isolate/registryCache.ts builds a sharded one from the stored
     * texts (page by page into the snapshot, then read back from it), and its peak while it reads the pages, lays the
     * snapshot out, reads its registry and writes the snapshot in 4 MiB parts (sampled after each step, garbage
     * collected first), above what it held before the texts came.
     */
    writerRegistryHeapMiB: number | null;
    writePeakHeapMiB: number | null;
    /** The reader's (a cold isolate's) peak: the snapshot's bytes as received, then the registry read from them. */
    readPeakHeapMiB: number | null;
  };
  /** Heap of one index over every tool (what sharding keeps out of the isolate), and its build CPU, per mode. */
  singleIndex: Record<string, { heapMiB: number | null; buildCpuMs: number }>;
  /**
   * Heap of one shard's part (1/shards of the tools) and its build CPU, per mode; the size of the snapshot a shard
   * keeps of it (core/tools/partSnapshot.ts), the CPU of writing it and of reading it back (what an evicted shard pays).
   */
  onePart: Record<string, { tools: number; heapMiB: number | null; buildCpuMs: number; snapshotMiB: number; snapshotWriteCpuMs: number; snapshotReadCpuMs: number }>;
  /**
   * Shard calls and rounds per search (mean over the queries: every round asks every shard once; substring takes a
   * second round for a query whose keyword band would be too wide: more than 16 keywords not yet counted, or too many
   * matches left within the bounds of their weights), and the summed CPU
   * of one search over every part, per mode; the terms of the whole catalog's table each shard holds, and the CPU of adding up the parts' statistics
   * (once per registry version and view); the tools a shard answers per search, mean (its frontier, for a page of 5).
   * `slowestShardMs`: per search, the longest of its shard calls (each runs at once in this thread, so its wall time
   * is its CPU plus any wait for a core), median and p99: what a search waits for when every shard has a machine of
   * its own, one round trip aside; `isolateMs`: the rest of the search (fusing, merging, exact names), median and p99.
   * `wholeSnapshot`: the statistics as a shard keeps them in its SQLite (core/search/wholeSnapshot.ts): size, CPU to
   * write and to read back (what a shard constructed anew pays instead of asking the others).
   */
  perSearch: Record<string, {
    shardCalls: number;
    rounds: number;
    cpuMsMedian: number;
    cpuMsP99: number;
    slowestShardMs: [number, number];
    isolateMs: [number, number];
    wholeTerms: number;
    wholeStatisticsCpuMs: number;
    wholeSnapshot: { MiB: number; writeCpuMs: number; readCpuMs: number };
    candidatesPerShard: number;
  }>;
}

export interface BigCatalogHttpMode {
  firstSearchMs: number;
  /**
   * A search after EVICTION_WAIT_MS without one: local workerd drops a Durable Object idle for 10 s, so every shard is
   * new and reads its part's snapshot from its SQLite (src/durable/searchShardObject.ts).
   */
  afterEvictionMs: number;
  searches: number;
  p50Ms: number;
  p99Ms: number;
  /**
   * CPU of the whole workerd process (Worker, session, every shard, the RPCs between them) per warm search, averaged
   * over the searches: what the load of other processes does not inflate as it inflates wall time.
   */
  workerdCpuMsPerSearch: number | null;
  /** Durable Object RPCs per search: the rate limiter, the session, and the shard calls (mean of the in-process run's). */
  doCallsPerSearch: number;
}

export type BigCatalogHttp =
  | {
    server: string;
    tools: number;
    shards: number;
    registerSeconds: number;
    modes: Record<string, BigCatalogHttpMode>;
    workerdRssMiB: number | null;
    /**
     * The dev server restarted on the same state (a cold isolate; every shard new, reading its snapshots), per mode in
     * turn: the first search's wall time (the isolate reads the registry snapshot the first isolate wrote, or the texts).
     */
    coldIsolateFirstSearchMs: Record<string, number>;
  }
  | { skipped: string };

type Collect = (() => void) | undefined;

/** The JavaScript heap and the array buffers (the indexes' typed arrays live there), after collecting garbage. */
function heapNow(collect: Collect): number {
  collect?.();
  collect?.();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

const mib = (bytes: number): number => Math.round((bytes / 2 ** 20) * 10) / 10;

/** Bytes per write call of the snapshot to the registry object (src/isolate/registryCache.ts, SNAPSHOT_WRITE_BYTES). */
const SNAPSHOT_WRITE_BYTES = 4 * 1024 * 1024;

/**
 * The sharded registry's snapshot of `definitions`: written in parts (as the writer isolate hands them to the registry
 * object), then read into a registry as a cold isolate reads it; and the heap of the writer isolate (its registry built
 * from the stored texts) and of the reader at their peaks.
 */
async function registrySnapshotFigures(definitions: readonly ToolDefinition[], collect: Collect): Promise<BigCatalogInProcess["registrySnapshot"]> {
  const binding = { epoch: "bench", version: 1, mode: "minisearch" as const, fingerprint: snapshotFingerprint("minisearch", "en", false) };
  const content = (tools: readonly ToolDefinition[]): RegistrySnapshotContent => ({
    ...binding,
    tools: tools.map((definition) => ({ definition, context: "bench", revision: 1 })),
    skipped: [],
    countTools: false,
  });
  const writeStarted = threadCpuMs();
  const written = await registrySnapshotStream(content(definitions));
  if (written === undefined) throw new Error("the registry snapshot was not written");
  const parts = [...byteParts(written, SNAPSHOT_WRITE_BYTES)];
  const writeCpuMs = Math.round(threadCpuMs() - writeStarted);
  const { writerRegistryHeapMiB, writePeakHeapMiB } = await writerHeap(definitions, collect, binding);
  // The reader: the parts as received (one buffer, as readStoredSnapshot assembles them), then read into a registry.
  let before = heapNow(collect);
  const bytes = collectBytes({ byteLength: written.byteLength, pieces: () => parts });
  parts.length = 0;
  const received = heapNow(collect);
  before -= bytes.length;
  const started = threadCpuMs();
  const registry = new ToolRegistry({ locale: "en" });
  // Its digest on this thread, in the clock (threadDigest.ts).
  registry.registerTable((await decodeSnapshotOfEitherKind(bytes, binding, undefined, threadSha256)).tools);
  const readCpuMs = Math.round(threadCpuMs() - started);
  // The snapshot's bytes, which the registry keeps (its definitions are decoded from them when first read), included.
  const read = heapNow(collect);
  const readHeapMiB = collect === undefined ? null : mib(read - before);
  const readPeakHeapMiB = collect === undefined ? null : mib(Math.max(received, read) - before);
  if (registry.getDefinitions({ groups: ["*"] }).length !== definitions.length) throw new Error("the registry snapshot lost tools");
  return { MiB: mib(bytes.length), writeCpuMs, readCpuMs, readHeapMiB, writerRegistryHeapMiB, writePeakHeapMiB, readPeakHeapMiB };
}

/** Bytes of stored texts per page the registry object sends (src/durable/registryObject.ts, PAGE_BYTES). */
const STORED_PAGE_BYTES = 4 * 1024 * 1024;

/** The stored texts of `definitions` as the registry object sends them to an isolate that holds none: page by page. */
function* storedPages(definitions: readonly ToolDefinition[]): Generator<StoredTool[]> {
  let page: StoredTool[] = [];
  let bytes = 0;
  for (const tool of definitions) {
    const text = JSON.stringify(tool);
    if (bytes > 0 && bytes + text.length > STORED_PAGE_BYTES) {
      yield page;
      page = [];
      bytes = 0;
    }
    page.push({ name: tool.name, definition: text, context: "bench", revision: 1 });
    bytes += text.length;
  }
  if (page.length > 0) yield page;
}

/**
 * The writer isolate's heap (null without a garbage collector to ask), as registryCache.ts's buildFromTexts makes it
 * for a sharded registry in an isolate that holds nothing: the stored texts a page at a time, each page validated
 * into the snapshot's bytes (StoredToolsSnapshot) and let go; the snapshot laid out in one buffer; the registry read
 * from it as a cold isolate reads it; the buffer handed on in 4 MiB parts. `writerRegistryHeapMiB`: that registry
 * (the snapshot's bytes included); the peak is sampled after each page (while it is held), after the layout, after
 * the registry is read and after each part.
 */
async function writerHeap(
  definitions: readonly ToolDefinition[],
  collect: Collect,
  binding: SnapshotBinding,
): Promise<{ writerRegistryHeapMiB: number | null; writePeakHeapMiB: number | null }> {
  if (collect === undefined) return { writerRegistryHeapMiB: null, writePeakHeapMiB: null };
  const before = heapNow(collect);
  let peak = before;
  // Held to the end, as the isolate's build may hold it: what it keeps once laid out counts too.
  const pages = new StoredToolsSnapshot("en");
  for (const page of storedPages(definitions)) {
    pages.add(page);
    peak = Math.max(peak, heapNow(collect));
  }
  if (pages.skipped.length > 0) throw new Error(`the bench's tool ${pages.skipped[0]?.name ?? ""} did not validate`);
  const bytes = await pages.snapshot.finish(binding, []);
  peak = Math.max(peak, heapNow(collect));
  const registry = new ToolRegistry({ locale: "en" });
  const content = await decodeSnapshotOfEitherKind(bytes, binding);
  registry.registerTable(content.tools);
  const stored = storedFromSnapshot(content.tools, content.skipped);
  const registryHeap = heapNow(collect);
  peak = Math.max(peak, registryHeap);
  for (const part of byteParts({ byteLength: bytes.byteLength, pieces: () => [bytes] }, SNAPSHOT_WRITE_BYTES)) {
    if (part.byteLength === 0) throw new Error("an empty part");
    peak = Math.max(peak, heapNow(collect));
  }
  if (registry.getDefinitions({ groups: ["*"] }).length !== definitions.length || stored.size !== definitions.length) throw new Error("the writer's registry lost tools");
  if (pages.snapshot.size !== 0) throw new Error("the snapshot kept its columns once laid out");
  return { writerRegistryHeapMiB: mib(registryHeap - before), writePeakHeapMiB: mib(peak - before) };
}

/** The in-process figures: heap and CPU of the pieces, and the calls a search makes. */
export async function bigCatalogInProcess(catalog: readonly ToolDefinition[], queries: readonly string[], collect: Collect, log: (message: string) => void): Promise<BigCatalogInProcess> {
  const measure = collect !== undefined;
  log(`big catalog: registry of ${catalog.length} definitions`);
  let before = heapNow(collect);
  const registry = new ToolRegistry({ locale: "en" });
  registry.registerMany(catalog, "bench");
  const definitions = registry.getDefinitions({ groups: ["*"] });
  const registryHeapMiB = measure ? mib(heapNow(collect) - before) : null;
  log("big catalog: the registry snapshot of a sharded registry");
  const registrySnapshot = await registrySnapshotFigures(definitions, collect);
  log(`big catalog: ${JSON.stringify(registrySnapshot)}`);
  const singleIndex: BigCatalogInProcess["singleIndex"] = {};
  const onePart: BigCatalogInProcess["onePart"] = {};
  const perSearch: BigCatalogInProcess["perSearch"] = {};
  for (const mode of MODES) {
    log(`big catalog (${mode}): one index over ${definitions.length} tools`);
    before = heapNow(collect);
    let started = threadCpuMs();
    // In a function of its own: measured while it lives, released before the parts are measured.
    const singleSize = ((): number => {
      const index = createSearchIndex(mode, definitions);
      const buildCpuMs = Math.round(threadCpuMs() - started);
      singleIndex[mode] = { heapMiB: measure ? mib(heapNow(collect) - before) : null, buildCpuMs };
      return index.size;
    })();
    log(`big catalog (${mode}): one index of ${singleSize} tools built (${JSON.stringify(singleIndex[mode])}); now ${BIG_CATALOG_SHARDS} parts`);
    const parts: IndexPart[] = [];
    for (let part = 0; part < BIG_CATALOG_SHARDS; part++) {
      const { tools, positions } = catalogPart(definitions, part, BIG_CATALOG_SHARDS);
      before = heapNow(collect);
      started = threadCpuMs();
      const built = createIndexPart(mode, tools, positions);
      parts.push(built);
      if (part === 0) {
        const buildCpuMs = Math.round(threadCpuMs() - started);
        const heapMiB = measure ? mib(heapNow(collect) - before) : null;
        const binding = { shard: `bench/${part}`, view: "", fingerprint: "bench" };
        started = threadCpuMs();
        const sealed = encodePartSnapshot(binding, { tools, positions, part: built });
        const snapshotWriteCpuMs = Math.round(threadCpuMs() - started);
        if (sealed === undefined) throw new Error(`the ${mode} part wrote no snapshot`);
        started = threadCpuMs();
        decodePartSnapshot(sealed.bytes, sealed.checksum, binding, mode);
        const snapshotReadCpuMs = Math.round(threadCpuMs() - started);
        onePart[mode] = { tools: tools.length, heapMiB, buildCpuMs, snapshotMiB: mib(sealed.bytes.length), snapshotWriteCpuMs, snapshotReadCpuMs };
      }
    }
    // What the shards add up once per registry version and view (each shard holds the result): every part's catalog
    // counts and table of term counts, merged.
    started = threadCpuMs();
    const whole = wholeStatistics(parts.map((part) => structuredClone({ catalog: part.catalog(), table: part.termTable() })));
    const wholeStatisticsCpuMs = Math.round(threadCpuMs() - started);
    const wholeBinding = { shard: "bench/0", view: "", fingerprint: "bench" };
    started = threadCpuMs();
    const wholeSealed = encodeWholeSnapshot(wholeBinding, whole);
    const writeCpuMs = Math.round(threadCpuMs() - started);
    started = threadCpuMs();
    decodeWholeSnapshot(wholeSealed.bytes, wholeSealed.checksum, wholeBinding);
    const wholeSnapshot = { MiB: mib(wholeSealed.bytes.length), writeCpuMs, readCpuMs: Math.round(threadCpuMs() - started) };
    // The shards in memory: what the calls carry is copied as an RPC would copy it.
    let answered = 0;
    let candidates = 0;
    let callMs: number[] = [];
    const shards = shardsInMemory(parts, structuredClone).map((shard): IndexShard => ({
      search: async (...asked) => {
        // The in-memory shard answers before its promise is returned: the call's wall time is its work.
        const at = performance.now();
        const answering = shard.search(...asked);
        callMs.push(performance.now() - at);
        const answer = await answering;
        if ("candidates" in answer) {
          answered++;
          candidates += answer.candidates.matches.length;
        }
        return answer;
      },
    }));
    const search = new ShardedSearch(mode, definitions, shards);
    await search.searchPage("warm up", 5);
    const cpu: number[] = [];
    const slowest: number[] = [];
    const isolate: number[] = [];
    const callsBefore = search.calls;
    answered = 0;
    candidates = 0;
    const roundsBefore = search.rounds;
    for (const query of queries) {
      // The shards answer at once (resolved promises): the thread's CPU over the search is the search's, every shard's.
      const at = threadCpuMs();
      callMs = [];
      const wallAt = performance.now();
      await search.searchPage(query, 5);
      const wall = performance.now() - wallAt;
      cpu.push(threadCpuMs() - at);
      // A second round's calls wait on the first's: the slowest of each round, added.
      const rounds = Math.max(1, callMs.length / parts.length);
      let waited = 0;
      for (let round = 0; round < rounds; round++) waited += Math.max(0, ...callMs.slice(round * parts.length, (round + 1) * parts.length));
      slowest.push(waited);
      isolate.push(wall - callMs.reduce((sum, ms) => sum + ms, 0));
    }
    const calls = round1((search.calls - callsBefore) / queries.length);
    const rounds = round1((search.rounds - roundsBefore) / queries.length);
    const distribution = summarize(cpu);
    const slowestShard = summarize(slowest);
    const isolateOwn = summarize(isolate);
    perSearch[mode] = {
      shardCalls: calls,
      rounds,
      cpuMsMedian: round1(distribution.median),
      cpuMsP99: round1(distribution.p99),
      slowestShardMs: [round1(slowestShard.median), round1(slowestShard.p99)],
      isolateMs: [round1(isolateOwn.median), round1(isolateOwn.p99)],
      wholeTerms: whole.table.size,
      wholeStatisticsCpuMs,
      wholeSnapshot,
      candidatesPerShard: round1(candidates / Math.max(1, answered)),
    };
    // Said at once: the HTTP part that follows takes long on a loaded machine.
    log(`big catalog (${mode}): one part ${JSON.stringify(onePart[mode])}, per search ${JSON.stringify(perSearch[mode])}`);
  }
  return { tools: definitions.length, shards: BIG_CATALOG_SHARDS, registryHeapMiB, registrySnapshot, singleIndex, onePart, perSearch };
}

const round1 = (value: number): number => Math.round(value * 10) / 10;

/** The processes `pid` started (Linux), none when unknown. */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").split(/\s+/u).filter((entry) => entry !== "").map(Number);
  } catch {
    return [];
  }
}

/** User and system CPU of the workerd processes under `root` so far (Linux), ms; null when unknown. */
function workerdCpuMs(root: number | undefined): number | null {
  if (root === undefined) return null;
  try {
    // Clock ticks per second: 100 on Linux (USER_HZ).
    let ticks = 0;
    const walk = (pid: number): void => {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("workerd")) {
        // After the command's closing parenthesis: state is field 3, utime 14 and stime 15 (1-based).
        const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
        ticks += Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
      }
      for (const child of childrenOf(pid)) walk(child);
    };
    walk(root);
    return ticks * 10;
  } catch {
    return null;
  }
}

/** The resident memory of the workerd processes under `root` (the dev server's process group), MiB; null off Linux. */
function workerdRss(root: number | undefined): number | null {
  if (root === undefined) return null;
  try {
    let total = 0;
    const walk = (pid: number): void => {
      const command = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (command.includes("workerd")) {
        const rss = /VmRSS:\s+(\d+) kB/u.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
        total += Number(rss?.[1] ?? 0) * 1024;
      }
      for (const child of childrenOf(pid)) walk(child);
    };
    walk(root);
    return mib(total);
  } catch {
    return null;
  }
}

async function timedSearch(base: string, bearer: string, session: string, query: string, mode: SearchMode): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${base}/v1/sessions/${session}/search`, { method: "POST", headers: headers(bearer), body: JSON.stringify({ query, mode }) });
  const body = await response.text();
  if (!response.ok) throw new Error(`search answered ${response.status}: ${body.slice(0, 300)}`);
  return performance.now() - started;
}

/** The catalog registered through `wrangler dev` with the shards on, and searched in both modes. */
export async function bigCatalogHttp(options: {
  repository: string;
  catalog: readonly ToolDefinition[];
  queries: readonly string[];
  shardCalls: Readonly<Record<string, number>>;
  log: (message: string) => void;
}): Promise<BigCatalogHttp> {
  const { repository, catalog, queries, shardCalls, log } = options;
  const state = mkdtempSync(join(tmpdir(), "toolgate-big-catalog-"));
  let server: { child: ChildProcess } | undefined;
  const stopOnExit = (): void => {
    if (server) stop(server.child);
  };
  process.once("exit", stopOnExit);
  try {
    const port = await freePort();
    const base = `http://${HOST}:${port}`;
    const config = JSON.stringify({
      searchMode: "minisearch",
      // Past BIG_CATALOG_ABOVE, or half of a smaller catalog (--big-catalog-tools).
      searchShards: { aboveTools: Math.min(BIG_CATALOG_ABOVE, Math.floor(catalog.length / 2)), count: BIG_CATALOG_SHARDS },
      registryVersionTtlMs: 60_000,
      limits: { maxTools: 200_000, rateLimitPerMinute: 0, maxSessionsPerPrincipal: 0 },
    });
    const vars = { AUTH_JWT_SECRET: SECRET, ALLOW_ANONYMOUS: "false", DEMO_CATALOG: "false", TOOL_SEARCH_CONFIG: config };
    const start = async (): Promise<ChildProcess> => {
      const started = spawn(process.execPath, ["bench/devServer.mjs", String(port), state, JSON.stringify(vars), "off"], {
        cwd: repository,
        detached: true,
        stdio: ["ignore", "ignore", "ignore"],
        env: { ...process.env, PATH: `${join(repository, "node_modules", ".bin")}:${process.env.PATH ?? ""}`, WRANGLER_SEND_METRICS: "false" },
      });
      server = { child: started };
      await waitForHealth(base, started, 120_000);
      return started;
    };
    const child = await start();
    const owner = await token({ owner: true }, "bench-owner");
    const user = await token({ level: 0 }, "bench-user");
    log(`big catalog http: registering ${catalog.length} tools in pages of ${BATCH}`);
    const registerStarted = performance.now();
    for (let from = 0; from < catalog.length; from += BATCH) {
      const tools = catalog.slice(from, from + BATCH).map(({ name, description, parameters, groups }) => ({ name, description, parameters, ...(groups ? { groups } : {}) }));
      const response = await fetch(`${base}/v1/tools`, { method: "PUT", headers: headers(owner), body: JSON.stringify({ tools, context: `bench-${from / BATCH}` }) });
      if (!response.ok) return { skipped: `PUT /v1/tools answered ${response.status}: ${(await response.text()).slice(0, 300)}` };
    }
    const registerSeconds = Math.round((performance.now() - registerStarted) / 100) / 10;
    const modes: Record<string, BigCatalogHttpMode> = {};
    for (const mode of MODES) {
      log(`big catalog http (${mode}): first search (the registry read, the shards built)`);
      const firstSearchMs = Math.round(await timedSearch(base, user, `big-first-${mode}`, "current stock price of a company", mode));
      for (let i = 0; i < 10; i++) await timedSearch(base, user, `big-warm-${mode}-${i}`, queries[i] ?? "weather", mode);
      log(`big catalog http (${mode}): ${queries.length} searches`);
      const walls: number[] = [];
      const cpuBefore = workerdCpuMs(child.pid);
      for (const [i, query] of queries.entries()) walls.push(await timedSearch(base, user, `big-${mode}-${i % 50}`, query, mode));
      const cpuAfter = workerdCpuMs(child.pid);
      const distribution = summarize(walls);
      log(`big catalog http (${mode}): p50 ${round1(distribution.median)} ms, p99 ${round1(distribution.p99)} ms; a search after ${EVICTION_WAIT_MS / 1000} s idle`);
      await sleep(EVICTION_WAIT_MS);
      const afterEvictionMs = Math.round(await timedSearch(base, user, `big-evicted-${mode}`, queries[0] ?? "weather", mode));
      modes[mode] = {
        firstSearchMs,
        afterEvictionMs,
        searches: walls.length,
        p50Ms: round1(distribution.median),
        p99Ms: round1(distribution.p99),
        workerdCpuMsPerSearch: cpuBefore === null || cpuAfter === null ? null : round1((cpuAfter - cpuBefore) / walls.length),
        doCallsPerSearch: 2 + (shardCalls[mode] ?? 0),
      };
    }
    const workerdRssMiB = workerdRss(child.pid);
    log("big catalog http: the server restarted on the same state (a cold isolate), the first search per mode");
    stop(child);
    await sleep(2_000);
    const restarted = await start();
    const coldIsolateFirstSearchMs: Record<string, number> = {};
    for (const mode of MODES) coldIsolateFirstSearchMs[mode] = Math.round(await timedSearch(base, user, `big-cold-${mode}`, queries[1] ?? "weather", mode));
    stop(restarted);
    return {
      server: "wrangler dev (bench/devServer.mjs): the Worker and every Durable Object in one local workerd process",
      tools: catalog.length,
      shards: BIG_CATALOG_SHARDS,
      registerSeconds,
      modes,
      workerdRssMiB,
      coldIsolateFirstSearchMs,
    };
  } catch (error) {
    return { skipped: error instanceof Error ? error.message : String(error) };
  } finally {
    if (server) stop(server.child);
    process.off("exit", stopOnExit);
    await sleep(500);
    rmSync(state, { recursive: true, force: true });
  }
}
