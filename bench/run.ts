// `npm run bench` (node --expose-gc bench/run.ts [--quick] [--no-http] [--adversarial] [--conversation] [--auto-discover]
// [--quality] [--upstream] [--learning]): search latency, index build time and heap, tool-list tokens, retrieval quality on four sets
// (--quality: only that), HTTP load, adversarial validation
// (--adversarial: only that), the billed tokens of a conversation under prompt caching (--conversation: only that)
// and auto-discovery's success@k against minScore on MetaTool (--auto-discover: only that), concurrent upstream MCP calls
// (--upstream: only that, a few seconds), printed as ONE JSON summary on stdout (progress on stderr),
// with the targets (docs/benchmarks.md) and whether each is met. Not a test: figures depend on the machine and its load.
import { availableParallelism, cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { defaultConfig, type SearchMode } from "../src/core/config.ts";
import { prepareTurn, WarnOnce } from "../src/core/turn/prepare.ts";
import { createSearchIndex } from "../src/core/search/createIndex.ts";
import { runSearchTools } from "../src/core/turn/searchTools.ts";
import { registerStoredTools, type StoredDefinitions, type StoredTool } from "../src/core/tools/storedTools.ts";
import { ToolRegistry } from "../src/core/tools/toolRegistry.ts";
import type { SearchIndex } from "../src/core/search/types.ts";
import type { ToolDefinition } from "../src/core/types.ts";
import {
  enlargedCatalog,
  keywordQueries,
  loadBenchData,
  realCatalog,
  registrableCatalog,
  sentenceQueries,
} from "./catalog.ts";
import { adversarialSection, type AdversarialSection } from "./adversarial.ts";
import { BIG_CATALOG_TOOLS, bigCatalogHttp, bigCatalogInProcess } from "./bigCatalog.ts";
import { coldHttp } from "./coldHttp.ts";
import { coldIsolateSection, type ColdSection } from "./coldIsolate.ts";
import { autoDiscoverSection, type AutoDiscoverSection } from "./autoDiscover.ts";
import { conversationSection, DEFAULT_OPTIONS, PRICES, type ConversationSection } from "./conversation.ts";
import { HEALTH_RATIO_ROUTES, httpLoad, type HttpSection } from "./http.ts";
import { upstreamSection, type UpstreamSection } from "./upstream.ts";
import { QUALITY_METHOD, qualitySection, qualityTargets } from "./quality.ts";
import { LEARNING_METHOD, learningSection, learningTargets } from "./learning.ts";
import { summarize, threadCpuMs, timed, type Distribution } from "./stats.ts";
import { provideBundledDataFromFiles } from "./bundledData.ts";

// The word vectors and the token ranks, as the Worker provides them (bench/bundledData.ts).
provideBundledDataFromFiles();

const { values: flags } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    "no-http": { type: "boolean", default: false },
    // Only the adversarial validation section (the validator's bounds, docs/guard.md), in a few seconds.
    adversarial: { type: "boolean", default: false },
    // Only the conversation simulation: tokens sent and billed per tool-list mode, in a few seconds.
    conversation: { type: "boolean", default: false },
    // Only auto-discovery on MetaTool: success@k, precision and extra tokens per turn over a sweep of minScore.
    "auto-discover": { type: "boolean", default: false },
    // Only concurrent upstream MCP calls: callers x calls through wrangler dev to a slow server, failures (target 0).
    upstream: { type: "boolean", default: false },
    // Only retrieval quality: the four retrieval sets, both modes and the plain-MiniSearch baseline (bench/quality.ts).
    quality: { type: "boolean", default: false },
    // Only the cold isolates: a new isolate's first search and prepare from a registry snapshot (bench/coldIsolate.ts),
    // and with --http also through wrangler dev restarted on the same state (bench/coldHttp.ts).
    "cold-isolates": { type: "boolean", default: false },
    // Only the catalog past one isolate: 100,000 tools through the search shards, in process and through wrangler dev
    // (bench/bigCatalog.ts).
    "big-catalog": { type: "boolean", default: false },
    // With --big-catalog: another number of tools than 100,000 (a smaller one while developing; it shards past half of it).
    "big-catalog-tools": { type: "string" },
    // Only learning from calls on the four retrieval sets: tested-half nDCG@10 before and after (bench/learning.ts).
    learning: { type: "boolean", default: false },
  },
});
const quick = flags.quick === true;
const MODES: readonly SearchMode[] = ["substring", "minisearch"];
const SIZES = quick ? [500, 2_500, 10_000] : [500, 2_500, 10_000, 50_000];
const QUERIES_PER_KIND = quick ? 100 : 300;
const WARM_UP_QUERIES = 20;
/** Each query set is run this many times, so that a p99 rests on several hundred samples. */
const LATENCY_ROUNDS = quick ? 2 : 3;
const HTTP_SECONDS = quick ? 2 : 5;
/** Each route's HTTP time in this many windows, taken in turn with the other routes' (bench/http.ts, interleaved). */
const HTTP_ROUNDS = quick ? 4 : 5;
const HTTP_CLIENTS = 10;

const log = (message: string): void => {
  console.error(`[bench] ${message}`);
};

type Collect = () => void;
const collectGarbage: Collect | undefined = typeof globalThis.gc === "function" ? () => globalThis.gc?.() : undefined;

/** JS heap and memory outside it (typed arrays' buffers), after a full collection. */
function memory(): { heap: number; external: number } {
  // Twice: array buffers freed by the first collection are only returned by a later one.
  collectGarbage?.();
  collectGarbage?.();
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed, external: usage.external };
}

function round(value: number, digits = 2): number {
  return Number(value.toFixed(digits));
}

// ---------------------------------------------------------------------------------------------------------------
// 1 and 2: search latency, build time and heap

interface Latency {
  /** Wall time of a first page (`searchPage`, the route's call): what a caller waits on this machine, at its load. */
  wall: Distribution;
  /**
   * Thread CPU time per query: each query run again and again for CPU_PER_QUERY_MS of CPU, divided by the runs
   * (the thread clock ticks too coarsely to time one run), so its distribution is over queries, without the time
   * other processes took the core away.
   */
  cpu: Distribution;
  meanCpu: number;
  /** Mean number of matches (the page's total). */
  meanHits: number;
  /** Wall time of the full ranking (`search`: every match, ranked), for comparison. */
  fullRankingWall: Distribution;
}

interface SizeResult {
  tools: number;
  build: {
    firstMs: number;
    medianMs: number;
    medianCpuMs: number;
    runs: number;
    heapMiB: number | null;
    externalMiB: number | null;
    /** (heap + external) per 1,000 tools. */
    mibPer1000Tools: number | null;
  };
  /**
   * Adding 10 tools: the index of the new catalog version, patched in place where the mode's index can be
   * (`incremental`), else built; the catalog's tools are fresh copies, as the registry reads them from storage. For
   * minisearch this includes the semantic vectors (those of the tools added, and the pass that centres them on the
   * new catalog's mean): `update` makes them, nothing is left for the first search. `firstSearch`: that search.
   */
  add10Tools: { medianMs: number; medianCpuMs: number; incremental: boolean; firstSearch: { medianMs: number; medianCpuMs: number } };
  /** The same, when the new version's unchanged tools are the same objects (no content to compare). */
  add10ToolsSharedObjects: { medianMs: number; medianCpuMs: number };
  /**
   * The isolate's whole path for a registry version with 10 tools more (up to 10,000 tools): the stored texts
   * registered in a new ToolRegistry (registerStoredTools, reusing the last version's definitions of unchanged
   * revisions), its definitions, and the index of the mode patched (or built) on them; `withoutReuse`: every stored
   * tool parsed and validated again, as before the reuse. `skipped`: stored tools that do not validate.
   */
  add10ToolsThroughRegistry: { medianMs: number; medianCpuMs: number; withoutReuse: { medianMs: number; medianCpuMs: number }; tools: number; skipped: number } | null;
  latency: Record<"keywords3" | "sentence20", Latency>;
}

/** The route's page: offset 0, the default limit. */
const PAGE = defaultConfig().maxSearchResults;
const CPU_PER_QUERY_MS = quick ? 10 : 20;

function measureLatency(index: SearchIndex, queries: readonly string[]): Latency {
  for (const query of queries.slice(0, WARM_UP_QUERIES)) index.searchPage(query, PAGE);
  collectGarbage?.();
  const wall: number[] = [];
  let hits = 0;
  for (let pass = 0; pass < LATENCY_ROUNDS; pass++) {
    for (const query of queries) {
      const started = performance.now();
      hits += index.searchPage(query, PAGE).total;
      wall.push(performance.now() - started);
    }
  }
  const cpu: number[] = [];
  for (const query of queries) {
    const cpuStart = threadCpuMs();
    let runs = 0;
    let spent = 0;
    do {
      index.searchPage(query, PAGE);
      runs++;
      spent = threadCpuMs() - cpuStart;
    } while (spent < CPU_PER_QUERY_MS || runs < 3);
    cpu.push(spent / runs);
  }
  const full: number[] = [];
  for (const query of queries) {
    const started = performance.now();
    index.search(query);
    full.push(performance.now() - started);
  }
  const cpuSummary = summarize(cpu);
  return { wall: summarize(wall), cpu: cpuSummary, meanCpu: cpuSummary.mean, meanHits: Math.round(hits / wall.length), fullRankingWall: summarize(full) };
}

function measureSize(mode: SearchMode, catalog: readonly ToolDefinition[], queries: Record<"keywords3" | "sentence20", string[]>): SizeResult {
  // The first build of an isolate starts with cold term caches; later ones (a new registry version) reuse them.
  const before = memory();
  const [index, firstMs, firstCpuMs] = timed(() => createSearchIndex(mode, catalog));
  const after = memory();
  const runs = catalog.length >= 50_000 ? 2 : quick ? 3 : 5;
  const wall = [firstMs];
  const cpu = [firstCpuMs];
  for (let i = 1; i < runs; i++) {
    collectGarbage?.();
    const [, wallMs, cpuMs] = timed(() => createSearchIndex(mode, catalog));
    wall.push(wallMs);
    cpu.push(cpuMs);
  }
  // Ten tools more (copies of the first ten under new names): the index of the new catalog version, as the index
  // cache makes it (SearchIndex.update where the mode has it, else a build).
  const grown = [...catalog, ...catalog.slice(0, 10).map((tool, i) => ({ ...tool, name: `${tool.name}_added_${i}` }))];
  const addWall: number[] = [];
  const addCpu: number[] = [];
  const sharedWall: number[] = [];
  const sharedCpu: number[] = [];
  const firstSearchWall: number[] = [];
  const firstSearchCpu: number[] = [];
  let incremental = false;
  for (let i = 0; i < (catalog.length >= 50_000 ? 1 : 3); i++) {
    const previous = createSearchIndex(mode, catalog);
    const next = structuredClone(grown);
    collectGarbage?.();
    const [patched, wallMs, cpuMs] = timed(() => previous.update?.(next) ?? createSearchIndex(mode, next));
    incremental = patched === previous;
    addWall.push(wallMs);
    addCpu.push(cpuMs);
    const [, searchWallMs, searchCpuMs] = timed(() => patched.searchPage(queries.sentence20[i] ?? "send an email", PAGE));
    firstSearchWall.push(searchWallMs);
    firstSearchCpu.push(searchCpuMs);
    const again = createSearchIndex(mode, catalog);
    collectGarbage?.();
    const [, sharedWallMs, sharedCpuMs] = timed(() => again.update?.(grown) ?? createSearchIndex(mode, grown));
    sharedWall.push(sharedWallMs);
    sharedCpu.push(sharedCpuMs);
  }
  const throughRegistry = catalog.length <= 10_000 ? measureRegistryChange(mode, catalog, grown) : null;
  const latency = {
    keywords3: measureLatency(index, queries.keywords3),
    sentence20: measureLatency(index, queries.sentence20),
  };
  return {
    tools: catalog.length,
    build: {
      firstMs: round(firstMs),
      medianMs: summarize(wall).median,
      medianCpuMs: summarize(cpu).median,
      runs,
      heapMiB: collectGarbage ? round((after.heap - before.heap) / 2 ** 20) : null,
      externalMiB: collectGarbage ? round((after.external - before.external) / 2 ** 20) : null,
      mibPer1000Tools: collectGarbage
        ? round(((after.heap - before.heap + after.external - before.external) / 2 ** 20 / catalog.length) * 1000, 3)
        : null,
    },
    add10Tools: {
      medianMs: summarize(addWall).median,
      medianCpuMs: summarize(addCpu).median,
      incremental,
      firstSearch: { medianMs: summarize(firstSearchWall).median, medianCpuMs: summarize(firstSearchCpu).median },
    },
    add10ToolsSharedObjects: { medianMs: summarize(sharedWall).median, medianCpuMs: summarize(sharedCpu).median },
    add10ToolsThroughRegistry: throughRegistry,
    latency,
  };
}

/**
 * The stored tools of a catalog as the registry object sends them to an isolate: fresh strings on every call (as read
 * by RPC), each tool at `revision`; with `knownNames` (what the isolate's previous version holds unchanged), those
 * tools come without their text, at revision 1, as the object sends them to an isolate that read version 1.
 */
function storedTexts(tools: readonly ToolDefinition[], revision = 1, knownNames?: ReadonlySet<string>): StoredTool[] {
  return registrableCatalog(tools).map((tool) =>
    knownNames?.has(tool.name) === true
      ? { name: tool.name, context: "bench", revision: 1 }
      : { name: tool.name, definition: JSON.stringify(tool), context: "bench", revision });
}

function measureRegistryChange(mode: SearchMode, catalog: readonly ToolDefinition[], grown: readonly ToolDefinition[]): SizeResult["add10ToolsThroughRegistry"] {
  const quiet = { warn: (): void => undefined };
  let skipped = 0;
  const first = new ToolRegistry({ logger: quiet });
  const kept = registerStoredTools(first, storedTexts(catalog), new Map(), () => skipped++);
  const definitions = first.getDefinitions({ groups: ["*"] });
  const knownNames = new Set(catalog.map((tool) => tool.name));
  const run = (previous: StoredDefinitions): [number, number] => {
    const index = createSearchIndex(mode, definitions);
    // Version 2 as the registry object sends it: to an isolate that read version 1, the texts of the ten new tools
    // only; to one that holds nothing, every text.
    const next = previous.size > 0 ? storedTexts(grown, 2, knownNames) : storedTexts(grown, 2);
    collectGarbage?.();
    const [, wallMs, cpuMs] = timed(() => {
      const registry = new ToolRegistry({ logger: quiet });
      registerStoredTools(registry, next, previous, () => undefined, previous.size > 0 ? first : undefined);
      const tools = registry.getDefinitions({ groups: ["*"] });
      return index.update?.(tools) ?? createSearchIndex(mode, tools);
    });
    return [wallMs, cpuMs];
  };
  const runs = quick ? 2 : 3;
  const reuse = Array.from({ length: runs }, () => run(kept));
  const again = Array.from({ length: runs }, () => run(new Map()));
  return {
    medianMs: summarize(reuse.map(([wall]) => wall)).median,
    medianCpuMs: summarize(reuse.map(([, cpu]) => cpu)).median,
    withoutReuse: { medianMs: summarize(again.map(([wall]) => wall)).median, medianCpuMs: summarize(again.map(([, cpu]) => cpu)).median },
    tools: definitions.length,
    skipped,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// 3: tokens of the tool list

interface TokenCase {
  toolsSent: number;
  tokensAll: number;
  tokensSent: number;
  percentOfAll: number;
}

function tokenSection(catalog: readonly ToolDefinition[]): Record<string, TokenCase> | { skipped: string } {
  const warnings = new WarnOnce({ warn: () => undefined });
  const run = (showToolNames: boolean, discovered: string[]): TokenCase => {
    const out = prepareTurn({ tools: catalog, messages: [], discovered, config: { ...defaultConfig(), toolList: "grow", showToolNames }, warnings });
    return {
      toolsSent: out.stats.sent,
      tokensAll: out.stats.tokensAll,
      tokensSent: out.stats.tokensSent,
      percentOfAll: round((100 * out.stats.tokensSent) / out.stats.tokensAll, 3),
    };
  };
  // Twenty tools spread evenly over the catalog (every 26th), as a conversation across several servers finds them.
  const discovered = catalog.filter((_, i) => i % 26 === 0).slice(0, 20).map((t) => t.name);
  try {
    return {
      firstTurnNamesOn: run(true, []),
      firstTurnNamesOff: run(false, []),
      after20DiscoveredNamesOn: run(true, discovered),
      after20DiscoveredNamesOff: run(false, discovered),
    };
  } catch (error) {
    return { skipped: `prepareTurn failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// 3b: CPU per request of the core functions the prepare and search routes call, on the 527-tool catalog

interface RequestCost {
  calls: number;
  wall: Distribution;
  meanCpuMs: number;
}

function requestCost(run: (i: number) => unknown, calls: number): RequestCost {
  for (let i = 0; i < 20; i++) run(i);
  collectGarbage?.();
  const wall: number[] = [];
  const cpuStart = threadCpuMs();
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    run(i);
    wall.push(performance.now() - started);
  }
  return { calls, wall: summarize(wall), meanCpuMs: round((threadCpuMs() - cpuStart) / calls, 4) };
}

function requestSection(catalog: readonly ToolDefinition[], queries: readonly string[]): Record<string, RequestCost> {
  const warnings = new WarnOnce({ warn: () => undefined });
  const config = defaultConfig();
  const discovered = catalog.filter((_, i) => i % 26 === 0).slice(0, 20).map((t) => t.name);
  const calls = quick ? 200 : 1_000;
  const out: Record<string, RequestCost> = {
    prepareFirstTurn: requestCost(() => prepareTurn({ tools: catalog, messages: [], discovered: [], config, warnings }), calls),
    prepareAfter20Discovered: requestCost(() => prepareTurn({ tools: catalog, messages: [], discovered, config, warnings }), calls),
  };
  for (const mode of MODES) {
    // The route's index comes from the per-catalog cache: built once, outside the measured calls.
    const index = createSearchIndex(mode, catalog);
    out[`search_${mode}`] = requestCost(
      (i) => runSearchTools({ query: queries[i % queries.length] ?? "" }, { catalog, index, enabledGroups: undefined, config }),
      calls,
    );
    // Auto-discovery on (topK 3): the latest user message is searched in the same index on every turn.
    const autoConfig = { ...config, searchMode: mode, autoDiscover: { ...config.autoDiscover, topK: 3 } };
    out[`prepareAutoDiscover_${mode}`] = requestCost(
      (i) => prepareTurn({
        tools: catalog,
        messages: [{ role: "user", content: queries[i % queries.length] ?? "" }],
        discovered: [],
        config: autoConfig,
        warnings,
        searchIndex: index,
      }),
      calls,
    );
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Targets

interface Target {
  target: string;
  value: number | null;
  limit: number;
  pass: boolean | null;
  /** For timings: the same figure in thread CPU time, and whether it meets the limit. */
  cpuValue?: number;
  passOnCpuTime?: boolean;
}

function atMost(target: string, value: number | undefined, limit: number, cpuValue?: number): Target {
  if (value === undefined) return { target, value: null, limit, pass: null };
  const result: Target = { target, value, limit, pass: value <= limit };
  if (cpuValue !== undefined) {
    result.cpuValue = cpuValue;
    result.passOnCpuTime = cpuValue <= limit;
  }
  return result;
}

function atLeast(target: string, value: number | undefined, limit: number): Target {
  return value === undefined ? { target, value: null, limit, pass: null } : { target, value, limit, pass: value >= limit };
}

// ---------------------------------------------------------------------------------------------------------------

/** Prints a run's ONE JSON summary on stdout: its fields, then the targets and how many of them are met. */
function printSummary(fields: Record<string, unknown>, targets: readonly Target[]): void {
  const summary = { ...fields, targets, targetsMet: `${targets.filter((t) => t.pass === true).length}/${targets.length}` };
  process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
}

/** When a run started, how long it took and the machine it ran on, with the load before and after. */
function runTiming(startedAt: Date, loadBefore: number[]): { startedAt: string; seconds: number; machine: Record<string, unknown> } {
  return { startedAt: startedAt.toISOString(), seconds: round((Date.now() - startedAt.getTime()) / 1000, 1), machine: machine(loadBefore) };
}

function commandLine(): string {
  return `node --expose-gc bench/run.ts${flags["cold-isolates"] === true ? " --cold-isolates" : ""}${quick ? " --quick" : ""}${flags["no-http"] === true ? " --no-http" : ""}`;
}

/** Concurrent calls to a slow upstream: each caller's calls one after the other, all callers at once. */
const UPSTREAM_LOAD = { callers: 10, callsPerCaller: 5, toolMs: 200 } as const;

function upstreamTargets(section: UpstreamSection): Target[] {
  if ("skipped" in section) return [];
  return [
    atMost(`upstream calls failed (${section.callers} callers x ${section.callsPerCaller} calls of a ${section.toolMs} ms tool)`, section.failures, 0),
    atMost("upstream calls run more than once (tools/call received minus calls made)", section.upstreamCalls - section.calls, 0),
    atMost(`large upstream: tools of ${section.largeImport.tools} not imported`, section.largeImport.tools - section.largeImport.imported, 0),
    atMost("large upstream: tools held after one description changed, other than that one", Math.abs(section.largeImport.afterChange.quarantined - 1), 0),
  ];
}

async function upstreamOnly(): Promise<void> {
  const startedAt = new Date();
  const loadBefore = loadavg();
  const upstream = await upstreamSection({ repository: fileURLToPath(new URL("..", import.meta.url)), ...UPSTREAM_LOAD, log });
  const targets = upstreamTargets(upstream);
  printSummary({ command: "node --expose-gc bench/run.ts --upstream", ...runTiming(startedAt, loadBefore), upstream }, targets);
}

function adversarialTargets(section: AdversarialSection): Target[] {
  return [atMost(`worstValidationMs (slowest adversarial case: ${section.worstCase})`, section.worstValidationMs, 50, section.worstValidationCpuMs)];
}

function machine(loadBefore: number[]): Record<string, unknown> {
  const cpu = cpus()[0];
  return {
    node: process.version,
    cpu: cpu?.model ?? "unknown",
    cores: availableParallelism(),
    loadAverageBefore: loadBefore.map((l) => round(l)),
    loadAverageAfter: loadavg().map((l) => round(l)),
    gcExposed: collectGarbage !== undefined,
  };
}

async function adversarialOnly(): Promise<void> {
  const startedAt = new Date();
  const loadBefore = loadavg();
  const data = loadBenchData();
  // The attacks are synthetic; the real tools only add the "realistic arguments" headroom figure.
  const adversarial = adversarialSection("missing" in data ? [] : data.real, quick, log);
  const targets = adversarialTargets(adversarial);
  printSummary({ command: `node --expose-gc bench/run.ts --adversarial${quick ? " --quick" : ""}`, ...runTiming(startedAt, loadBefore), adversarial }, targets);
}

const CONVERSATION_METHOD =
  `bench/conversation.ts: a scripted ${DEFAULT_OPTIONS.turns}-turn conversation on the 527-tool catalog through prepareTurn (15 tools found over 6 turns, ` +
  `calls and re-use, maxDiscoveredKeep ${DEFAULT_OPTIONS.maxDiscoveredKeep} so that finds evict), ${DEFAULT_OPTIONS.messageTokensPerTurn} tokens of messages a turn plus the search results; ` +
  "each request = tool definitions, system, messages, one segment each (gpt-tokenizer, openai shape); the provider caches the previous request, " +
  "so the leading segments equal to it are billed at the read price and the rest at the write price " +
  `(${Object.entries(PRICES).map(([name, p]) => `${name}: read ${p.read}, write ${p.write}`).join("; ")}); ` +
  "no minimum cacheable length, no cache expiry";

function conversationTargets(section: ConversationSection): Target[] {
  const fixed = section.modes.fixed;
  const targets = Object.keys(PRICES).map((price) =>
    atMost(`billed tokens, default toolList "fixed", ${price} prices (% of every tool every turn)`, fixed?.percentOfEveryTool[price], 15));
  const grow = section.modes.grow?.firstTurnToolTokens;
  if (grow !== undefined) targets.push(atMost('first-turn tool tokens, "fixed" (at most "grow"\'s)', fixed?.firstTurnToolTokens, grow));
  return targets;
}

function conversationOnly(): void {
  const data = loadBenchData();
  const conversation = "missing" in data ? { skipped: data.missing } : conversationSection(realCatalog(data.real));
  const targets = "skipped" in conversation ? [] : conversationTargets(conversation);
  printSummary({ command: "node --expose-gc bench/run.ts --conversation", method: CONVERSATION_METHOD, conversation }, targets);
}

const AUTO_DISCOVER_METHOD =
  "bench/autoDiscover.ts: each MetaTool query as the latest user message; the tools prepare sends by itself are the first k of " +
  "the ranking whose relevance reaches minScore; success@k = a right tool among them; precision = right ones / sent ones; " +
  "extra tokens = the sent tools' definitions (openai shape, gpt-tokenizer); noToolMessageTools = tools sent for 30 chat turns " +
  "that need none (the bench's own); a sample of 100 queries per mode runs through prepareTurn and must agree (prepareMismatches 0)";

/** Auto-discovery's figures at the default floor, where docs/configuration.md quotes them, for minisearch at k = 3. */
function autoDiscoverTargets(section: AutoDiscoverSection): Target[] {
  const atDefault = section.modes.minisearch?.find((point) => point.minScore === defaultConfig().autoDiscover.minScore);
  return [
    atLeast("auto-discovery minisearch success@3 at the default minScore", atDefault?.successAtK["3"], 0.6),
    atMost("auto-discovery sample through prepareTurn: mismatches", section.prepareMismatches, 0),
  ];
}

const COLD_METHOD = "bench/coldIsolate.ts: per size and mode, the registry snapshot made from a registry built from stored texts (write: encoding it, every tool's openai token count included, once per version), then each first request in a fresh Node process (no caches: term caches, word vectors, token counts all cold): the code's fingerprint, decode and check the snapshot (the sections read whole by one checksum; its large sections, definition texts, postings, forward lists, the ranked index's term statistics and the substring index's postings and character lists, read in place and checked per chunk of 64 or 4 KiB when first read; definitions decoded per tool when first read), register its table (each tool's entry made when first asked for) and its stored tools by name, restore the index, then runSearchTools (firstSearch) or prepareTurn with auto-discovery topK 3 (firstPrepare), each after the warm-up a Worker's isolate runs at its start (src/core/turn/warmUp.ts: its thread CPU is startupWarmUpCpuMs, no request's), and without it (firstSearchUnwarmed, firstPrepareUnwarmed: TOOL_SEARCH_CONFIG warmUp false); nextVersion = a warm isolate reading the same snapshot again as a registry's next version (decoded, registered, every definition's name and groups read once); wall and thread CPU, median over the processes; firstSearchFromTexts = the same first search without a snapshot (texts parsed, validated, indexed; up to 10,000 tools)";
const COLD_SIZES = quick ? [10_000] : [10_000, 50_000];
const COLD_RUNS = quick ? 2 : 3;

function coldTargets(section: ColdSection): Target[] {
  if ("skipped" in section) return [];
  const targets: Target[] = [];
  for (const mode of MODES) {
    for (const [size, limit, cpuLimit] of [[10_000, 100, 30], [50_000, 300, null]] as const) {
      const at = section.modes[mode]?.find((entry) => entry.tools === size);
      if (!at) continue;
      for (const kind of ["firstSearch", "firstPrepare"] as const) {
        targets.push(atMost(`${mode} cold isolate ${kind} ms at ${size} tools (from the snapshot)`, at[kind].medianMs, limit, at[kind].medianCpuMs));
        if (cpuLimit !== null) targets.push(atMost(`${mode} cold isolate ${kind} CPU ms at ${size} tools (from the snapshot)`, at[kind].medianCpuMs, cpuLimit));
      }
    }
  }
  return targets;
}

async function coldOnly(): Promise<void> {
  const data = loadBenchData();
  const coldIsolates = "missing" in data ? { skipped: data.missing } : await coldIsolateSection((size) => enlargedCatalog(data.real, size), COLD_SIZES, COLD_RUNS, log);
  const coldHttpSection = "missing" in data || flags["no-http"] === true ? { skipped: "--no-http or no eval data" }
    : await coldHttp({ repository: fileURLToPath(new URL("..", import.meta.url)), catalog: registrableCatalog(enlargedCatalog(data.real, 10_000)), log });
  const targets = coldTargets(coldIsolates);
  printSummary({
    command: commandLine(),
    method: COLD_METHOD,
    coldIsolates,
    coldHttp: coldHttpSection,
  }, targets);
}

function autoDiscoverOnly(): void {
  const data = loadBenchData();
  const autoDiscover = "missing" in data ? { skipped: data.missing } : autoDiscoverSection(data.meta);
  const targets = "skipped" in autoDiscover ? [] : autoDiscoverTargets(autoDiscover);
  printSummary({ command: "node --expose-gc bench/run.ts --auto-discover", method: AUTO_DISCOVER_METHOD, defaultMinScore: defaultConfig().autoDiscover.minScore, autoDiscover }, targets);
}

function qualityOnly(): void {
  const data = loadBenchData();
  const quality = "missing" in data ? { skipped: data.missing } : qualitySection(data.meta, log);
  const targets = "skipped" in quality ? [] : qualityTargets(quality);
  printSummary({
    command: "node --expose-gc bench/run.ts --quality",
    method: QUALITY_METHOD,
    quality,
  }, targets);
}

/** --big-catalog-tools, or 100,000. */
function bigCatalogSize(): number {
  const asked = flags["big-catalog-tools"];
  if (asked === undefined) return BIG_CATALOG_TOOLS;
  const size = Number(asked);
  if (!Number.isInteger(size) || size < 1_000 || size > 500_000) throw new RangeError(`--big-catalog-tools must be a whole number from 1,000 to 500,000, not ${asked}`);
  return size;
}

/** 100,000 tools through the search shards (bench/bigCatalog.ts): p99 search through wrangler dev against 50 ms. */
async function bigCatalogOnly(): Promise<void> {
  const data = loadBenchData();
  if ("missing" in data) {
    process.stdout.write(`${JSON.stringify({ command: "node --expose-gc bench/run.ts --big-catalog", bigCatalog: { skipped: data.missing } }, null, 2)}\n`);
    return;
  }
  const size = bigCatalogSize();
  const catalog = registrableCatalog(enlargedCatalog(data.real, size));
  const queries = [...keywordQueries(data.real, 100), ...sentenceQueries(data.meta, 100)];
  const inProcess = await bigCatalogInProcess(catalog, queries, collectGarbage, log);
  const shardCalls = Object.fromEntries(Object.entries(inProcess.perSearch).map(([mode, figures]) => [mode, figures.shardCalls]));
  const http = flags["no-http"] === true ? { skipped: "--no-http" }
    : await bigCatalogHttp({ repository: fileURLToPath(new URL("..", import.meta.url)), catalog, queries, shardCalls, log });
  const targets = MODES.map((mode) => atMost(`${mode} search p99 ms at ${size} tools through wrangler dev (sharded)`, "skipped" in http ? undefined : http.modes[mode]?.p99Ms, 50));
  printSummary({
    command: `node --expose-gc bench/run.ts --big-catalog${size === BIG_CATALOG_TOOLS ? "" : ` --big-catalog-tools ${size}`}${flags["no-http"] === true ? " --no-http" : ""}`,
    method: "bench/bigCatalog.ts: the enlarged real catalog (bench/catalog.ts) at 100,000 tools; in process: heap of the registry, of one index over every tool and of one shard's part, and one sharded search's calls and CPU (every part in this thread); through wrangler dev (searchShards {aboveTools 20,000, count 8}): the tools registered in bulk PUT pages of 5,000, the first search per mode, then 200 searches one at a time (100 keyword, 100 sentence queries): wall p50 and p99, then one search after 12 s idle (every shard evicted by local workerd, read back from its snapshot)",
    loadAverage: loadavg().map((value) => Number(value.toFixed(1))),
    bigCatalog: { inProcess, http },
  }, targets);
}

function learningOnly(): void {
  const data = loadBenchData();
  const learning = "missing" in data ? { skipped: data.missing } : learningSection(data.meta, log);
  const targets = "skipped" in learning ? [] : learningTargets(learning);
  printSummary({
    command: "node --expose-gc bench/run.ts --learning",
    method: LEARNING_METHOD,
    learning,
  }, targets);
}

async function main(): Promise<void> {
  if (flags["big-catalog"] === true) return await bigCatalogOnly();
  if (flags.adversarial === true) return adversarialOnly();
  if (flags.upstream === true) return upstreamOnly();
  if (flags.quality === true) return qualityOnly();
  if (flags.learning === true) return learningOnly();
  if (flags["auto-discover"] === true) return autoDiscoverOnly();
  if (flags["cold-isolates"] === true) return await coldOnly();
  if (flags.conversation === true) return conversationOnly();
  const startedAt = new Date();
  const loadBefore = loadavg();
  if (!collectGarbage) log("heap figures need --expose-gc (npm run bench sets it); reporting null");
  const data = loadBenchData();
  if ("missing" in data) {
    // Every section measures the real catalogs: without them, each says so, and the summary is still printed.
    log(`${data.missing}: skipping every section that needs it`);
    const skipped = { skipped: data.missing };
    // The adversarial cases need no data: they still run, with the demo catalog alone as the realistic baseline.
    const adversarial = adversarialSection([], quick, log);
    const targets = adversarialTargets(adversarial);
    printSummary({
      command: commandLine(), startedAt: startedAt.toISOString(), evalData: skipped, modes: skipped, tokens: skipped, conversation: skipped, autoDiscover: skipped, http: skipped, httpWithDevDefaults: skipped, upstream: skipped,
      adversarial,
    }, targets);
    return;
  }
  log(`evaluation data from ${data.from}`);
  const { real, meta } = data;
  const queries = {
    keywords3: keywordQueries(real, QUERIES_PER_KIND),
    sentence20: sentenceQueries(meta, QUERIES_PER_KIND),
  };

  const modes: Record<string, { sizes: SizeResult[] }> = {};
  for (const mode of MODES) modes[mode] = { sizes: [] };
  for (const size of SIZES) {
    const catalog = enlargedCatalog(real, size);
    for (const mode of MODES) {
      log(`${mode}: ${size} tools`);
      modes[mode]?.sizes.push(measureSize(mode, catalog, queries));
    }
  }

  const quality = qualitySection(meta, log);

  log("tokens of the tool list (527 tools)");
  const tokenCatalog = realCatalog(real);
  const tokens = tokenSection(tokenCatalog);
  log("CPU per request of prepare and search (527 tools)");
  const requests = requestSection(tokenCatalog, [...queries.keywords3, ...queries.sentence20]);

  log("cold isolates: the first search and prepare from a registry snapshot");
  const coldIsolates = await coldIsolateSection((size) => enlargedCatalog(real, size), COLD_SIZES, COLD_RUNS, log);

  log("a 20-turn conversation under prompt caching");
  const conversation = conversationSection(tokenCatalog);

  log("adversarial validation");
  const adversarial = adversarialSection(real, quick, log);

  log("auto-discovery on MetaTool");
  const autoDiscover = autoDiscoverSection(meta);

  let http: HttpSection;
  let httpWithDevDefaults: HttpSection;
  let upstream: UpstreamSection;
  let coldHttpSection: Awaited<ReturnType<typeof coldHttp>> = { skipped: "--no-http" };
  if (flags["no-http"] === true) {
    http = { skipped: "--no-http" };
    httpWithDevDefaults = http;
    upstream = http;
  } else {
    coldHttpSection = await coldHttp({ repository: fileURLToPath(new URL("..", import.meta.url)), catalog: registrableCatalog(enlargedCatalog(real, 10_000)), log });
    const load = { repository: fileURLToPath(new URL("..", import.meta.url)), catalog: registrableCatalog(tokenCatalog), clients: HTTP_CLIENTS, log };
    http = await httpLoad({ ...load, seconds: HTTP_SECONDS, rounds: HTTP_ROUNDS });
    // For comparison, not judged: the same routes with wrangler dev's own local observability and log handling on
    // (bench/devServer.mjs), in half the time.
    httpWithDevDefaults = await httpLoad({ ...load, seconds: HTTP_SECONDS / 2, rounds: HTTP_ROUNDS, devTooling: "dev-defaults", mcp: false });
    upstream = await upstreamSection({ repository: load.repository, ...UPSTREAM_LOAD, log });
  }

  // The largest catalog whose index fits in half of an isolate's 128 MB (room to spare for everything else), from
  // the largest size's memory per 1,000 tools (the per-tool cost is flattest there).
  const isolateFit: Record<string, number | null> = {};
  for (const mode of MODES) {
    const largest = modes[mode]?.sizes.at(-1);
    const perThousand = largest?.build.mibPer1000Tools;
    isolateFit[mode] = perThousand ? Math.floor(64 / perThousand) * 1000 : null;
  }

  const targets: Target[] = [];
  targets.push(...qualityTargets(quality));
  targets.push(atLeast("minisearch success@5 on MetaTool", quality.metaTool?.minisearch.successAt5, 0.75));
  for (const mode of MODES) {
    const at10k = modes[mode]?.sizes.find((s) => s.tools === 10_000);
    const at2500 = modes[mode]?.sizes.find((s) => s.tools === 2_500);
    targets.push(atMost(`${mode} search p99 ms at 2500 tools, sentence20`, at2500?.latency.sentence20.wall.p99, 2, at2500?.latency.sentence20.cpu.p99));
    const sentence = at10k?.latency.sentence20;
    targets.push(atMost(`${mode} search p99 ms at 10000 tools, sentence20`, sentence?.wall.p99, 5, sentence?.cpu.p99));
    targets.push(atMost(`${mode} index build ms at 10000 tools (median)`, at10k?.build.medianMs, 250, at10k?.build.medianCpuMs));
    targets.push(atMost(`${mode} add 10 tools to a 10000-tool index, ms (median)`, at10k?.add10Tools.medianMs, 20, at10k?.add10Tools.medianCpuMs));
    const registry = at10k?.add10ToolsThroughRegistry ?? undefined;
    targets.push(atMost(`${mode} add 10 tools to 10000 through the registry (stored texts to index), ms (median)`, registry?.medianMs, 20, registry?.medianCpuMs));
  }
  for (const mode of MODES) {
    for (const [size, limit] of [[2_500, 2], [10_000, 8]] as const) {
      const result = modes[mode]?.sizes.find((s) => s.tools === size);
      for (const kind of ["keywords3", "sentence20"] as const) {
        targets.push(atMost(`${mode} search p99 ms at ${size} tools, ${kind}`, result?.latency[kind].wall.p99, limit, result?.latency[kind].cpu.p99));
      }
    }
    const at10k = modes[mode]?.sizes.find((s) => s.tools === 10_000);
    targets.push(atMost(`${mode} index build ms at 10000 tools (median)`, at10k?.build.medianMs, 300, at10k?.build.medianCpuMs));
  }
  if (!("skipped" in tokens)) {
    targets.push(atMost("tool-list tokens, first turn, showToolNames on (% of all)", tokens.firstTurnNamesOn?.percentOfAll, 4));
    targets.push(atMost("tool-list tokens, first turn, showToolNames off (% of all)", tokens.firstTurnNamesOff?.percentOfAll, 1));
    targets.push(atMost("tool-list tokens, after 20 discovered tools (% of all)", tokens.after20DiscoveredNamesOn?.percentOfAll, 10));
  }
  targets.push(...conversationTargets(conversation));
  targets.push(...coldTargets(coldIsolates));
  for (const [name, cost] of Object.entries(requests)) {
    targets.push({ ...atMost(`${name}: mean CPU ms per request, 527 tools`, cost.meanCpuMs, 5), cpuValue: cost.meanCpuMs, passOnCpuTime: cost.meanCpuMs <= 5 });
  }
  targets.push(...adversarialTargets(adversarial));
  targets.push(...upstreamTargets(upstream));
  targets.push(...autoDiscoverTargets(autoDiscover));
  for (const [name, route] of Object.entries(HEALTH_RATIO_ROUTES)) {
    const ratio = "skipped" in http ? undefined : http.p50RatioToHealth[route];
    // cpuValue: the same ratio of the server's CPU per request, which the machine's load moves much less.
    const cpuRatio = "skipped" in http ? undefined : http.cpuRatioToHealth[route];
    targets.push(atMost(`http ${name} p50 / health p50 (same run)`, ratio, 1.5, cpuRatio));
  }

  printSummary({
    command: commandLine(),
    ...runTiming(startedAt, loadBefore),
    evalData: data.from,
    method: {
      catalogs: "the evaluation data's mcp-tools.json (527 real tools, named server__name, grouped by category), enlarged by a seeded generator",
      queries: `${QUERIES_PER_KIND} per kind: keywords3 = 3 words from real descriptions; sentence20 = 20 words of MetaTool queries`,
      latency: `SearchIndex.searchPage(query, ${PAGE}) (the route's first page: the top ${PAGE} and the exact count), one query at a time after a warm-up, each query set ${LATENCY_ROUNDS} times: wall time per query; cpu = per query, thread CPU over repeated runs (at least ${CPU_PER_QUERY_MS} ms) divided by the runs, its distribution over the queries; fullRankingWall = SearchIndex.search (every match ranked), once per query`,
      build: "createSearchIndex (minisearch: with its semantic vectors): the first build (cold term caches) and the median of all; heap and external = memoryUsage deltas after gc, the index held; add10Tools = SearchIndex.update to the catalog plus 10 tools (fresh copies of every tool, as the registry reads them: every tool's content compared) where the mode has it, else createSearchIndex (minisearch: the semantic vectors included, made by the build and by update, none left for the first search; add10Tools.firstSearch = the first searchPage after the update); add10ToolsSharedObjects = the same with the unchanged tools as the same objects; add10ToolsThroughRegistry (up to 10,000 tools) = stored texts registered in a new ToolRegistry reusing the last version's definitions of unchanged revisions, then the index updated (withoutReuse: every text parsed and validated again)",
      targets: "pass is judged on wall time; for builds passOnCpuTime judges this thread's CPU time, which other processes' load does not inflate",
      tokens: "prepareTurn stats on the 527-tool catalog (openai shape, gpt-tokenizer o200k_base), toolList \"grow\" (the original design's list, whose size grows with discoveries)",
      conversation: CONVERSATION_METHOD,
      coldIsolates: COLD_METHOD,
      requests: "prepareTurn (no messages; first turn and after 20 discovered; and with autoDiscover topK 3, a user message of the search queries) and runSearchTools (cached index, keywords3 and sentence20 queries in turn) on the 527-tool catalog: wall per call and mean thread CPU",
      quality: QUALITY_METHOD,
      autoDiscover: AUTO_DISCOVER_METHOD,
      http: `wrangler dev (bench/devServer.mjs: local Durable Objects; its inspector, local observability collector and log printing off, as dev tooling a deployment does not run on the Worker's CPU), ${HTTP_CLIENTS} clients on loopback, each route ${HTTP_SECONDS} s in ${HTTP_ROUNDS} windows taken in turn with the other routes'; p50RatioToHealth = the route's median latency over GET /v1/health's in the same run, cpuRatioToHealth = the same for the workerd processes' CPU per request. httpWithDevDefaults: the same routes with wrangler dev's own local observability and log handling (not judged)`,
      upstream: `bench/upstream.ts: wrangler dev in front of a slow MCP server on loopback; ${UPSTREAM_LOAD.callers} principals each make ${UPSTREAM_LOAD.callsPerCaller} execute calls of a ${UPSTREAM_LOAD.toolMs} ms tool one after the other, all principals at once; failures and tools/call received; largeImport = bench/upstreamImport.ts: PUT of an upstream listing 10,000 tools over 50 pages, a refresh unchanged, a refresh with one description changed (wall ms each, through wrangler dev)`,
      adversarial: "bench/adversarial.ts: each case through validateArguments, cold (fresh schema: compile + validate, median of 3) and warm (median), wall and thread CPU time; definition cases through validateToolDefinition",
    },
    modes,
    quality,
    largestCatalogIn64MiB: isolateFit,
    tokens,
    conversation,
    coldIsolates,
    coldHttp: coldHttpSection,
    requests,
    http,
    httpWithDevDefaults,
    upstream,
    adversarial,
    autoDiscover,
  }, targets);
}

await main();
