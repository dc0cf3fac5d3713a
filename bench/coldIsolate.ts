// A cold isolate's first search and first prepare over a registry of N tools, each in a fresh Node process (nothing
// cached: no term caches, no word vectors decoded, no token counts), the way a new isolate starts: from the registry
// snapshot (decode, register the definitions as validated, restore the index: core/tools/registrySnapshot.ts), and,
// for comparison, from the stored texts (parse, validate, index; the path without snapshots). The parent also times
// writing the snapshot (the one isolate per version that writes it). Bounded: a few child processes per size and mode.
// `node bench/coldIsolate.ts child <snapshot file> <mode> <search|prepare|texts-search>` is the child: search and
// prepare after the warm-up a Worker's isolate runs at its start (src/core/turn/warmUp.ts; its CPU printed apart, as
// startupCpu), search-unwarmed and prepare-unwarmed without it; with the task `decode` it times the snapshot's
// decoding alone (decodeRegistrySnapshot, the fingerprint worked out before the clock), with `next-version` a warm
// isolate's read of the same bytes as a second table (the first read before the clock).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defaultConfig, SEARCH_MODES, type GatewayConfig, type SearchMode } from "../src/core/config.ts";
import { createSearchIndex } from "../src/core/search/createIndex.ts";
import { decodeRegistrySnapshot, encodeRegistrySnapshot, snapshotFingerprint } from "../src/core/tools/registrySnapshot.ts";
import { registerStoredTools, storedFromSnapshot } from "../src/core/tools/storedTools.ts";
import { toolListTokens } from "../src/core/tools/toolTokens.ts";
import { ToolRegistry } from "../src/core/tools/toolRegistry.ts";
import { catalogFigures, firstTurnMetaToolTexts, prepareTurn, rememberCatalogFigures, WarnOnce } from "../src/core/turn/prepare.ts";
import { runSearchTools } from "../src/core/turn/searchTools.ts";
import { warmUp } from "../src/core/turn/warmUp.ts";
import type { ToolDefinition } from "../src/core/types.ts";
import { enlargedCatalog, loadBenchData, registrableCatalog } from "./catalog.ts";
import { summarize, timedAsync } from "./stats.ts";
import { threadSha256 } from "./threadDigest.ts";
import { provideBundledDataFromFiles } from "./bundledData.ts";

const QUERY = "find the current stock price of a company and send it by email";
const MESSAGE = "What will the weather be in Paris tomorrow? Also find the current stock price of a company.";
const quiet = { warn: (): void => undefined, error: (): void => undefined, log: (): void => undefined };
const EPOCH = "bench";
const VERSION = 1;

export interface ColdFigures {
  /** Wall and thread CPU of the first request, median over the child processes. */
  medianMs: number;
  medianCpuMs: number;
  runs: number;
}

export interface ColdSize {
  tools: number;
  snapshotMiB: number;
  /** Making the snapshot from a built registry (token counts of every tool included): once per version. */
  write: { ms: number; cpuMs: number };
  /** After the isolate's start-up warm-up (src/core/turn/warmUp.ts), as the Worker starts: the headline figures. */
  firstSearch: ColdFigures;
  firstPrepare: ColdFigures;
  /** The warm-up's own thread CPU at the isolate's start (median over the warmed children): no request's. */
  startupWarmUpCpuMs: number;
  /** Without the warm-up (TOOL_SEARCH_CONFIG `warmUp: false`): what the first request pays then. */
  firstSearchUnwarmed: ColdFigures;
  firstPrepareUnwarmed: ColdFigures;
  /** A warm isolate's read of the next version (the same bytes as a second table), its names and groups read once. */
  nextVersion: ColdFigures;
  /** Without a snapshot: the stored texts parsed, validated and indexed, then the first search (up to 10,000 tools). */
  firstSearchFromTexts: ColdFigures | null;
}

export type ColdSection = { modes: Record<string, ColdSize[]> } | { skipped: string };

function storedTexts(tools: readonly ToolDefinition[]): { name: string; definition: string; context: string; revision: number }[] {
  return tools.map((tool) => ({ name: tool.name, definition: JSON.stringify(tool), context: "bench", revision: 1 }));
}

type StoredText = ReturnType<typeof storedTexts>[number];

function isStoredText(value: unknown): value is StoredText {
  return typeof value === "object" && value !== null && "name" in value && typeof value.name === "string" && "definition" in value
    && typeof value.definition === "string" && "context" in value && typeof value.context === "string" && "revision" in value && typeof value.revision === "number";
}

interface Measure {
  wall: number;
  cpu: number;
  startupCpu: number;
}

function isMeasure(value: unknown): value is Measure {
  return typeof value === "object" && value !== null && "wall" in value && typeof value.wall === "number" && "cpu" in value && typeof value.cpu === "number"
    && "startupCpu" in value && typeof value.startupCpu === "number";
}

function benchConfig(mode: SearchMode): GatewayConfig {
  return { ...defaultConfig(), searchMode: mode, autoDiscover: { ...defaultConfig().autoDiscover, topK: 3 } };
}

/**
 * The child's one measured request. The snapshot's digest is worked out on this thread (threadSha256), inside the
 * clock, as workerd's Web Crypto does it on the request's thread (Node's would on its thread pool, out of the clock).
 */
async function child(file: string, mode: SearchMode, task: string): Promise<void> {
  // As a Worker starts: the table's bytes in memory, decoded on first use.
  provideBundledDataFromFiles();
  const config = benchConfig(mode);
  const bytes = new Uint8Array(readFileSync(file));
  const warnings = new WarnOnce(quiet);
  // Node loads its performance timer on first use (a Worker has it built in): loaded before the clock starts.
  performance.now();
  if (task === "next-version") {
    // A warm isolate reading a registry's next version: one snapshot read before the clock (the version before), then
    // the same bytes read again as a new table, registered, and every definition's name and groups read once (what a
    // search's visibility pass reads).
    const binding = { epoch: EPOCH, version: VERSION, mode, fingerprint: snapshotFingerprint(mode, "en", false) };
    await decodeRegistrySnapshot(bytes, binding, undefined, threadSha256);
    const [, wall, cpu] = await timedAsync(async () => {
      const content = await decodeRegistrySnapshot(bytes, binding, undefined, threadSha256);
      const registry = new ToolRegistry({ logger: quiet });
      registry.registerTable(content.tools);
      let read = 0;
      for (const tool of registry.getDefinitions({ groups: ["*"] })) read += tool.name.length + (tool.groups?.length ?? 0);
      return read;
    });
    process.stdout.write(JSON.stringify({ wall, cpu, startupCpu: 0 }));
    return;
  }
  if (task === "decode") {
    const binding = { epoch: EPOCH, version: VERSION, mode, fingerprint: snapshotFingerprint(mode, "en", false) };
    const [, wall, cpu] = await timedAsync(() => decodeRegistrySnapshot(bytes, binding, undefined, threadSha256));
    process.stdout.write(JSON.stringify({ wall, cpu, startupCpu: 0 }));
    return;
  }
  // As the Worker's start does (src/isolate/warmUp.ts), before the request: the code run once on the warm-up snapshot
  // (its CPU reported as the start's). "-unwarmed" tasks start without it, as an isolate did before.
  let startupCpu = 0;
  if (task === "search" || task === "prepare") {
    const [outcome, , warmUpCpu] = await timedAsync(() => warmUp(mode, threadSha256));
    if (!outcome.ok) throw new Error(`the warm-up failed: ${outcome.reason}`);
    startupCpu = warmUpCpu;
  }
  const [, wall, cpu] = await timedAsync(async () => {
    if (task === "texts-search") {
      const texts: unknown = JSON.parse(new TextDecoder().decode(bytes));
      if (!Array.isArray(texts) || !texts.every(isStoredText)) throw new Error("the texts file holds something else");
      const registry = new ToolRegistry({ logger: quiet });
      registerStoredTools(registry, texts, new Map(), () => undefined);
      const catalog = registry.getDefinitions({ groups: ["*"] });
      return runSearchTools({ query: QUERY }, { catalog, index: createSearchIndex(mode, catalog), enabledGroups: undefined, config });
    }
    // The code's fingerprint too: a new isolate works it out before it can ask for its snapshot.
    const fingerprint = snapshotFingerprint(mode, "en", false);
    const content = await decodeRegistrySnapshot(bytes, { epoch: EPOCH, version: VERSION, mode, fingerprint }, undefined, threadSha256);
    // As the isolate does (isolate/registryCache.ts, registryFromSnapshot): the snapshot's table registered, its stored
    // tools kept by name, the views' figures the snapshot carries given to those lists when made.
    const registry = new ToolRegistry({ logger: quiet });
    registry.registerTable(content.tools);
    storedFromSnapshot(content.tools, content.skipped);
    for (const view of content.views ?? []) registry.whenListed(view.groups, (tools) => rememberCatalogFigures(tools, view));
    const catalog = registry.getDefinitions({ groups: ["*"] });
    if (task === "search" || task === "search-unwarmed") return runSearchTools({ query: QUERY }, { catalog, index: content.index, enabledGroups: undefined, config });
    return prepareTurn({ tools: catalog, messages: [{ role: "user", content: MESSAGE }], discovered: [], config, warnings, searchIndex: content.index });
  });
  process.stdout.write(JSON.stringify({ wall, cpu, startupCpu }));
}

function runChild(file: string, mode: SearchMode, task: string): Measure {
  const script = fileURLToPath(import.meta.url);
  const result = spawnSync(process.execPath, [script, "child", file, mode, task], { encoding: "utf8", maxBuffer: 1 << 20, timeout: 120_000 });
  if (result.status !== 0) throw new Error(`cold child (${mode} ${task}) failed: ${result.stderr.slice(-500)}`);
  const measured: unknown = JSON.parse(result.stdout);
  if (!isMeasure(measured)) throw new Error(`cold child (${mode} ${task}) printed ${result.stdout.slice(0, 200)}`);
  return measured;
}

function figures(runs: readonly { wall: number; cpu: number }[]): ColdFigures {
  return {
    medianMs: summarize(runs.map((run) => run.wall)).median,
    medianCpuMs: summarize(runs.map((run) => run.cpu)).median,
    runs: runs.length,
  };
}

const round = (value: number, digits = 1): number => Number(value.toFixed(digits));

/**
 * The registry snapshot of `definitions` in `mode`, as the registry's writer makes it (isolate/registryCache.ts). The
 * writer's cost: a fresh process would count every tool's tokens; in the section the counts of the first mode are
 * reused by the second (an isolate writes one mode's snapshot per version).
 */
async function snapshotBytes(definitions: readonly ToolDefinition[], mode: SearchMode): Promise<Uint8Array | undefined> {
  const index = createSearchIndex(mode, definitions);
  toolListTokens(definitions, "openai");
  return encodeRegistrySnapshot({
    epoch: EPOCH, version: VERSION, mode, fingerprint: snapshotFingerprint(mode, "en", false),
    tools: definitions.map((definition) => ({ definition, context: "bench", revision: 1 })),
    skipped: [],
    index,
    // As the registry's writer does (isolate/registryCache.ts): the first prepare's figures and meta-tool texts.
    views: [{ groups: ["*"], ...catalogFigures(definitions, benchConfig(mode)) }],
    countedTexts: firstTurnMetaToolTexts(definitions, benchConfig(mode), "openai"),
  });
}

/** The registry of the enlarged real catalog at `size` tools, built from its stored texts. */
function registryDefinitions(catalog: ToolDefinition[]): readonly ToolDefinition[] {
  const registry = new ToolRegistry({ logger: quiet });
  registerStoredTools(registry, storedTexts(catalog), new Map(), () => undefined);
  return registry.getDefinitions({ groups: ["*"] });
}

/** The section: per mode and size, the snapshot's making and a cold isolate's first search and prepare from it. */
export async function coldIsolateSection(catalogOf: (size: number) => ToolDefinition[], sizes: readonly number[], runs: number, log: (message: string) => void): Promise<ColdSection> {
  const folder = mkdtempSync(join(tmpdir(), "toolgate-cold-"));
  try {
    const modes: Record<string, ColdSize[]> = {};
    for (const size of sizes) {
      const catalog = registrableCatalog(catalogOf(size));
      const texts = storedTexts(catalog);
      const textFile = join(folder, `texts-${size}.json`);
      writeFileSync(textFile, JSON.stringify(texts));
      const definitions = registryDefinitions(catalog);
      for (const mode of SEARCH_MODES) {
        log(`cold isolate: ${mode}, ${size} tools`);
        const [bytes, writeMs, writeCpuMs] = await timedAsync(() => snapshotBytes(definitions, mode));
        if (bytes === undefined) throw new Error(`the ${mode} index wrote no snapshot`);
        const file = join(folder, `${mode}-${size}.snapshot`);
        writeFileSync(file, bytes);
        const search = Array.from({ length: runs }, () => runChild(file, mode, "search"));
        const prepare = Array.from({ length: runs }, () => runChild(file, mode, "prepare"));
        const searchUnwarmed = Array.from({ length: runs }, () => runChild(file, mode, "search-unwarmed"));
        const prepareUnwarmed = Array.from({ length: runs }, () => runChild(file, mode, "prepare-unwarmed"));
        const nextVersion = Array.from({ length: runs }, () => runChild(file, mode, "next-version"));
        const fromTexts = size <= 10_000 ? Array.from({ length: Math.min(runs, 2) }, () => runChild(textFile, mode, "texts-search")) : null;
        (modes[mode] ??= []).push({
          tools: size,
          snapshotMiB: round(bytes.length / 2 ** 20, 2),
          write: { ms: round(writeMs), cpuMs: round(writeCpuMs) },
          firstSearch: figures(search),
          firstPrepare: figures(prepare),
          startupWarmUpCpuMs: summarize([...search, ...prepare].map((run) => run.startupCpu)).median,
          firstSearchUnwarmed: figures(searchUnwarmed),
          firstPrepareUnwarmed: figures(prepareUnwarmed),
          nextVersion: figures(nextVersion),
          firstSearchFromTexts: fromTexts ? figures(fromTexts) : null,
        });
      }
    }
    return { modes };
  } catch (error) {
    return { skipped: error instanceof Error ? error.message : String(error) };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

if (process.argv[2] === "snapshot") {
  // `node bench/coldIsolate.ts snapshot <size> <mode> <file>`: writes the snapshot a child reads (for before/after
  // runs of the child on two trees, each on its own format's snapshot of the same tools).
  const [size, mode, file] = process.argv.slice(3);
  if (size === undefined || (mode !== "substring" && mode !== "minisearch") || file === undefined) throw new Error("usage: coldIsolate.ts snapshot <size> <mode> <file>");
  const data = loadBenchData();
  if ("missing" in data) throw new Error(data.missing);
  provideBundledDataFromFiles();
  const bytes = await snapshotBytes(registryDefinitions(registrableCatalog(enlargedCatalog(data.real, Number(size)))), mode);
  if (bytes === undefined) throw new Error(`the ${mode} index wrote no snapshot`);
  writeFileSync(file, bytes);
}

if (process.argv[2] === "child") {
  const [file, mode, task] = process.argv.slice(3);
  if (file === undefined || (mode !== "substring" && mode !== "minisearch") || task === undefined) throw new Error("usage: coldIsolate.ts child <file> <mode> <task>");
  await child(file, mode, task);
}
