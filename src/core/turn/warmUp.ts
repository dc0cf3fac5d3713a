// A new isolate's first search and first prepare pay for running their code for the first time: compiling some two
// hundred functions, then interpreting the hot loops over every tool until V8 has compiled them. Run here at the
// isolate's start (the Worker's global scope) on a small catalog of its own, that cost leaves the first request: a
// Cloudflare isolate's start is outside any request's CPU time (it has its own limit, 1 s), and starts ahead of the
// request, while the connection's handshake is under way. The catalog is a registry snapshot like any other (eleven
// tools of the demo catalog, written by scripts/warmUpSnapshots.ts, bundled as a Data module per search mode): read,
// searched and prepared as a cold isolate reads a registry version's (isolate/registryCache.ts), then dropped.
// Nothing it touches answers anyone: its registry, index and catalog are its own; what stays are compiled code and
// the process-wide caches' few entries (word vectors of its words, token counts of its texts).
import { defaultConfig, type GatewayConfig, type SearchMode } from "../config.ts";
import { createSearchIndex } from "../search/createIndex.ts";
import { decodeRegistrySnapshot, encodeRegistrySnapshot, snapshotFingerprint } from "../tools/registrySnapshot.ts";
import { registerStoredTools, storedFromSnapshot } from "../tools/storedTools.ts";
import { ToolRegistry } from "../tools/toolRegistry.ts";
import type { Logger, ToolDefinition } from "../types.ts";
import type { BytesDigest } from "../digest.ts";
import { catalogFigures, firstTurnMetaToolTexts, prepareTurn, rememberCatalogFigures, WarnOnce } from "./prepare.ts";
import { runSearchTools } from "./searchTools.ts";

/** The binding the warm-up snapshots are written with and read against (a version of no registry). */
const WARM_UP_BINDING = { epoch: "warm-up", version: 1 } as const;

/** The demo catalog's tools the warm-up snapshots hold: every WARM_UP_STRIDE-th, from the first. */
export const WARM_UP_STRIDE = 8;

/**
 * The requests run: one sentence, two, three (each a loop of its own over the tools' vectors), a typo, a prefix, a
 * name, words the catalog lacks, and Chinese; then a prepare of the first two. Asked once each: asking them again
 * cost the start about 5 ms more and saved the first request 0 to 2 ms (docs/scaling-log.md).
 */
const REQUESTS = [
  "find the current stock price of a company and send it by email",
  "What will the weather be in Paris tomorrow? Also convert 100 euros to dollars.",
  "Search the web for reviews. Then summarize the best one. Finally add a task to my list.",
  "translaet this documnt",
  "calend",
  "get_weather",
  "quantum chromodynamics lattice",
  "明天巴黎的天气怎么样",
] as const;

let bundled: ((mode: SearchMode) => ArrayBuffer | Uint8Array) | undefined;

/** Hands over the bundled warm-up snapshots (the Worker's Data modules, the bench's files): read on warmUp. */
export function provideWarmUpSnapshots(get: (mode: SearchMode) => ArrayBuffer | Uint8Array): void {
  bundled = get;
}

export type WarmUpOutcome = { ok: true; searches: number; prepares: number } | { ok: false; reason: string };

const quiet: Logger = { warn: () => undefined };

/**
 * Runs `mode`'s code paths once over the bundled warm-up snapshot: decode, registry, searches, prepares. Never throws:
 * a snapshot that is missing or does not read (written by other code) is a reason, and the isolate starts as it
 * would have without it.
 */
export async function warmUp(mode: SearchMode, digest?: BytesDigest): Promise<WarmUpOutcome> {
  try {
    if (bundled === undefined) return { ok: false, reason: "no warm-up snapshots were provided" };
    const held = bundled(mode);
    const bytes = held instanceof Uint8Array ? held : new Uint8Array(held);
    const binding = { ...WARM_UP_BINDING, mode, fingerprint: snapshotFingerprint(mode, "en", false) };
    const decoded = await decodeRegistrySnapshot(bytes, binding, undefined, digest);
    const registry = new ToolRegistry({ logger: quiet });
    registry.registerTable(decoded.tools);
    storedFromSnapshot(decoded.tools, decoded.skipped);
    for (const view of decoded.views ?? []) registry.whenListed(view.groups, (tools) => rememberCatalogFigures(tools, view));
    const catalog = registry.getDefinitions({ groups: ["*"] });
    const config = warmUpConfig(mode);
    const warnings = new WarnOnce(quiet);
    for (const query of REQUESTS) runSearchTools({ query }, { catalog, index: decoded.index, enabledGroups: undefined, config });
    const prepared = REQUESTS.slice(0, 2);
    for (const content of prepared) prepareTurn({ tools: catalog, messages: [{ role: "user", content }], discovered: [], config, warnings, searchIndex: decoded.index });
    return { ok: true, searches: REQUESTS.length, prepares: prepared.length };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

/** The configuration the warm-up snapshots are written with and searched under (the defaults, in `mode`). */
function warmUpConfig(mode: SearchMode): GatewayConfig {
  return { ...defaultConfig(), searchMode: mode };
}

/**
 * The warm-up snapshot of `mode` over `catalog` (the demo catalog: every WARM_UP_STRIDE-th tool), as the registry's
 * writer makes a version's (isolate/registryCache.ts): validated as stored tools are, with the token counts and the
 * first prepare's figures a cold isolate reads. The same bytes every time (scripts/warmUpSnapshots.ts writes them; a
 * test compares).
 */
export async function warmUpSnapshotBytes(mode: SearchMode, catalog: readonly ToolDefinition[]): Promise<Uint8Array> {
  const chosen = catalog.filter((_, at) => at % WARM_UP_STRIDE === 0);
  const registry = new ToolRegistry({ logger: quiet });
  const texts = chosen.map((tool) => ({ name: tool.name, definition: JSON.stringify(tool), context: "warm-up", revision: 1 }));
  registerStoredTools(registry, texts, new Map(), () => undefined);
  const definitions = registry.getDefinitions({ groups: ["*"] });
  if (definitions.length !== chosen.length) throw new Error(`the warm-up catalog holds ${chosen.length} tools, ${definitions.length} of them valid`);
  const config = warmUpConfig(mode);
  const bytes = await encodeRegistrySnapshot({
    ...WARM_UP_BINDING, mode, fingerprint: snapshotFingerprint(mode, "en", false),
    tools: definitions.map((definition) => ({ definition, context: "warm-up", revision: 1 })),
    skipped: [],
    index: createSearchIndex(mode, definitions),
    views: [{ groups: ["*"], ...catalogFigures(definitions, config) }],
    countedTexts: firstTurnMetaToolTexts(definitions, config, "openai"),
  });
  if (bytes === undefined) throw new Error(`the ${mode} index wrote no snapshot`);
  return bytes;
}
