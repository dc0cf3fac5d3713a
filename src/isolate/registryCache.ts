// The isolate's tool registry: the demo catalog plus the tools persisted in the registry Durable Object, with the
// executor runner and the execution guard, rebuilt whenever that object's version changes. The version is read from
// the one registry object at most once per `registryVersionTtlMs` per isolate (concurrent requests share the read),
// so no request waits on that global object on the common path; the isolate that served an owner's write learns the
// new version from the write's answer (noteRegistryVersion) and rebuilds on its next request. Other isolates see a
// change within registryVersionTtlMs (default 5 s; docs/scaling.md). A rebuild reads only what changed: the isolate
// tells the registry object which version's texts it holds, and the object sends the texts of tools written since
// (the others by name and revision), so a change of a few tools in a large registry moves a few texts, not all.
// A cold isolate (nothing held yet) first reads the version's registry snapshot for its search mode (the definitions
// as validated, their token counts, the search index: core/tools/registrySnapshot.ts), kept by the registry object:
// nothing is validated, tokenized or indexed again. Without one (or with a stale or corrupt one, which is refused and
// dropped), it builds from the texts as before and, when the registry object names it the writer (the first to ask),
// writes the snapshot for the isolates after it; so does an isolate that rebuilt a new version from the texts (a
// registry searched through shards, built by an isolate that holds nothing, goes page by page into its snapshot and
// is read back from it: the definitions are never all held as objects, which would not fit an isolate at 100,000). The
// large sections of a snapshot are checked when first read: one found corrupt then fails the request that read it
// (503 index_rebuilding: retry) and is dropped, and the isolate builds from the texts on its next request
// (forgetCorruptSnapshot).
import { DEMO_CONTEXT, demoCatalog } from "../catalog/demo.ts";
import type { SearchMode } from "../core/config.ts";
import { createExecutionGuard } from "../core/guard/executionGuard.ts";
import { SearchIndexCache } from "../core/search/indexCache.ts";
import { createSearchIndex } from "../core/search/createIndex.ts";
import { byteParts, SnapshotError, type ByteStream } from "../core/search/snapshotCodec.ts";
import { decodeSnapshotOfEitherKind, encodeRegistrySnapshot, registrySnapshotStream, snapshotFingerprint } from "../core/tools/registrySnapshot.ts";
import type { DecodedSnapshot, RegistrySnapshotContent } from "../core/tools/registrySnapshot.ts";
import { missingTexts, skippedTools, storedFromSnapshot, StoredToolsReader, StoredToolsSnapshot } from "../core/tools/storedTools.ts";
import type { StoredDefinition, StoredDefinitions } from "../core/tools/storedTools.ts";
import type { SearchIndex } from "../core/search/types.ts";
import { ToolRegistry } from "../core/tools/toolRegistry.ts";
import { viewKey, visibleCatalog } from "../core/tools/visibleCatalog.ts";
import { catalogFigures, firstTurnMetaToolTexts, rememberCatalogFigures } from "../core/turn/prepare.ts";
import type { ExecutionGuard, ExecutorRunner, ToolDefinition } from "../core/types.ts";
import type { RegistryPage, RegistryVersion } from "../durable/registryObject.ts";
import { orRefusal, refusalOfError, TOO_MANY_SESSIONS } from "../durable/sessionLimit.ts";
import { registryStub, sessionStub, upstreamStub } from "../durable/stubs.ts";
import { createExecutorRunner } from "../executors/index.ts";
import { SIGN_IN_LINK_MS, signInLink } from "./upstreamSignIn.ts";
import type { Settings } from "./settings.ts";
import { isSharded, shardsPast } from "./shardedSearches.ts";

export interface LoadedRegistry {
  /** `epoch:version` of the registry object this was built from. */
  key: string;
  version: RegistryVersion;
  registry: ToolRegistry;
  /** Every tool, in registry order: the catalog search indexes are built on. */
  definitions: readonly ToolDefinition[];
  /** Where it came from: the version's snapshot, or the stored texts (validated and indexed here). */
  source: "snapshot" | "texts";
}

/** Pages read while the registry changes underneath before giving up (the next request tries again). */
const MAX_SNAPSHOT_ATTEMPTS = 5;

/** Indexes per registry version, mode and view (the callers' group sets): a few views of the current version. */
const searchIndexes = new SearchIndexCache(8);
/** Client catalogs' indexes (auto-discovery in prepare), apart: many clients' catalogs never evict the registry's. */
const catalogIndexes = new SearchIndexCache(4);
let current: { settings: Settings; loaded: LoadedRegistry } | undefined;
let pending: { settings: Settings; key: string; promise: Promise<LoadedRegistry> } | undefined;
/** The registry version this isolate last learned, and when (Date.now()). */
let known: { key: string; version: RegistryVersion; at: number } | undefined;
/**
 * The stored tools of the last registry built, by name: the revision that wrote each and the definition it validated
 * to (no text). A new version validates only the tools written since; the others keep their definition objects
 * (toolRegistry.ts), so the search index update, token counts and compiled schemas see them as unchanged.
 */
let storedDefinitions: StoredDefinitions = new Map();
/** The version storedDefinitions was read at: the registry object leaves out the texts of tools unchanged since. */
let storedFrom: RegistryVersion | undefined;
/** The version read in flight: concurrent requests past the TTL share one RPC. */
let versionRead: Promise<string> | undefined;
/**
 * A snapshot found corrupt after it was loaded (a section checked when first read: snapshotCodec.ts): the next build
 * drops it and reads the texts instead, and writes it again when the registry object gives it the claim.
 */
let corruptSnapshot: { key: string; version: RegistryVersion } | undefined;

function versionKey(version: RegistryVersion): string {
  return `${version.epoch}:${version.version}`;
}

/** Whether `next` is newer than what the isolate knows (another epoch counts as newer: the storage was recreated). */
function isNewer(next: RegistryVersion): boolean {
  return known === undefined || known.version.epoch !== next.epoch || next.version > known.version.version;
}

/**
 * The version a registry write answered with: the isolate that served the write uses it from its next request on,
 * without waiting for the TTL. An older version (a write that lost a race) is ignored.
 */
export function noteRegistryVersion(version: RegistryVersion): void {
  if (isNewer(version) || known?.key === versionKey(version)) {
    known = { key: versionKey(version), version: { epoch: version.epoch, version: version.version }, at: Date.now() };
  }
}

/** The registry version, from the isolate's memory while it is younger than `ttlMs`, else from the registry object. */
async function registryVersionKey(env: Env, ttlMs: number): Promise<string> {
  if (known !== undefined && Date.now() - known.at < ttlMs) return known.key;
  if (versionRead === undefined) {
    const read = registryStub(env).getVersion().then((version) => {
      known = { key: versionKey(version), version, at: Date.now() };
      return known.key;
    });
    versionRead = read;
    const clear = (): void => { if (versionRead === read) versionRead = undefined; };
    read.then(clear, clear);
  }
  return versionRead;
}

/**
 * A cold isolate's snapshot read, started beside its first version read rather than after it (both on the registry
 * object: one round trip, not two in a row), and taken by the build that follows. The read answers its own version,
 * which the registry built from it then has, as a read started after the version read would.
 */
let coldRead: { key: string; promise: Promise<StoredSnapshot> } | undefined;

/** The registry as of the registry version the isolate knows (at most `registryVersionTtlMs` old). */
export async function currentRegistry(env: Env, settings: Settings): Promise<LoadedRegistry> {
  if (current === undefined && pending === undefined && known === undefined && storedDefinitions.size === 0 && corruptSnapshot === undefined) {
    coldRead ??= startColdRead(env, snapshotKey(settings));
  }
  const key = await registryVersionKey(env, settings.config.registryVersionTtlMs).catch((error: unknown) => {
    // Not kept for a later request: what it read would be as old as that request's wait.
    coldRead = undefined;
    throw error;
  });
  if (current?.settings === settings && current.loaded.key === key) return current.loaded;
  if (pending?.settings !== settings || pending.key !== key) {
    const promise = buildRegistry(env, settings).then((loaded) => {
      // The snapshot may be newer than the version asked for: known follows it, so that the next request does not
      // rebuild the same snapshot again.
      noteRegistryVersion(loaded.version);
      current = { settings, loaded };
      return loaded;
    });
    pending = { settings, key, promise };
    promise.then(
      () => { if (pending?.promise === promise) pending = undefined; },
      () => { if (pending?.promise === promise) pending = undefined; },
    );
  }
  return pending.promise;
}

/**
 * The search index of a client catalog for a mode, built once per catalog content (`hash`) in this isolate
 * (auto-discovery in prepare; the session object keeps its own for search_tools).
 */
export function catalogSearchIndex(hash: string, tools: readonly ToolDefinition[], mode: SearchMode): SearchIndex {
  return catalogIndexes.get(hash, mode, () => tools);
}

/**
 * The search index of the registry for a mode over the tools a caller holding `groups` sees (undefined: every tool),
 * built once per registry version and view (visibleCatalog.ts): nothing a caller receives depends on the tools its
 * groups hide. Search it with `visibleCatalog(loaded.definitions, groups)` as the catalog.
 */
export function registrySearchIndex(loaded: LoadedRegistry, mode: SearchMode, groups: readonly string[] | undefined): SearchIndex {
  // "*" sees every tool, as no group list does: one index (and the one a snapshot brings) serves both; so does any
  // view that holds every tool as it is (groups that every grouped tool is in, or a catalog without groups).
  const view = viewKey(loaded.definitions, groups);
  const tools = visibleCatalog(loaded.definitions, groups);
  const whole = view === "*" || isWholeCatalog(tools, loaded.definitions);
  return searchIndexes.get(`registry:${loaded.key}:${whole ? "" : view}`, mode, () => tools);
}

/** Views (visibleCatalog's arrays, the same array per view) known to be their catalog's every tool as it is. */
const wholeViews = new WeakMap<readonly ToolDefinition[], boolean>();

function isWholeCatalog(view: readonly ToolDefinition[], catalog: readonly ToolDefinition[]): boolean {
  if (view === catalog) return true;
  let whole = wholeViews.get(view);
  if (whole === undefined) {
    whole = view.length === catalog.length && view.every((tool, i) => tool === catalog[i]);
    wholeViews.set(view, whole);
  }
  return whole;
}

/** What a registry version's pages say besides its tools (`stored`: how many, from the first page). */
type RegistryHead = Omit<RegistryPage, "tools" | "next">;

/** Where a registry version's pages go as they are read (StoredToolsReader, StoredToolsSnapshot). */
interface PageSink {
  add(page: RegistryPage["tools"]): void;
}

/**
 * Every page of the registry at one version, each page's texts read into a sink as it comes (never all the texts at
 * once); `holding`: the version whose definitions `previous` holds (their texts are not sent again). `sinkFor` makes
 * the sink of each attempt, given the first page and what is held of its epoch. A text left out that `previous` does
 * not hold (its version was replaced meanwhile) makes it read every text.
 */
async function readStoredTools<Sink extends PageSink>(
  env: Env,
  holding: RegistryVersion | undefined,
  previous: StoredDefinitions,
  sinkFor: (head: RegistryHead, held: StoredDefinitions) => Sink,
): Promise<RegistryHead & { sink: Sink }> {
  const stub = registryStub(env);
  let since = holding;
  for (let attempt = 0; attempt < MAX_SNAPSHOT_ATTEMPTS; attempt++) {
    let page: RegistryPage = await stub.snapshot(0, since);
    const { epoch, version, removedBuiltins, demoDisposed, stored } = page;
    const head: RegistryHead = { epoch, version, removedBuiltins, demoDisposed, ...(stored === undefined ? {} : { stored }) };
    // Revisions name texts within one epoch only: after another (storage recreated) nothing is compared.
    const held = holding?.epoch === epoch ? previous : new Map<string, StoredDefinition>();
    const sink = sinkFor(head, held);
    let consistent = true;
    for (;;) {
      if (page.epoch !== epoch || page.version !== version) {
        consistent = false;
        break;
      }
      if (since !== undefined && missingTexts(page.tools, held).length > 0) {
        // A text left out that this isolate does not hold: every text, from the first page again.
        since = undefined;
        consistent = false;
        break;
      }
      sink.add(page.tools);
      if (page.next === undefined) break;
      page = await stub.snapshot(page.next, since);
    }
    if (consistent) return { ...head, sink };
  }
  throw new Error("the registry kept changing while it was read");
}

function startColdRead(env: Env, key: string): { key: string; promise: Promise<StoredSnapshot> } {
  const promise = readStoredSnapshot(env, key);
  // Its failure is the build's to answer, when it takes the read; one the version read's failure left untaken is dropped.
  promise.then(undefined, () => { if (coldRead?.promise === promise) coldRead = undefined; });
  return { key, promise };
}

/** The key of the registry snapshots this isolate reads and writes: its search mode and code fingerprint. */
function snapshotKey(settings: Settings): string {
  const { searchMode, locale } = settings.config;
  return `${searchMode}:${snapshotFingerprint(searchMode, locale, settings.demoCatalog)}`;
}

/** A stored snapshot's bytes (undefined: the stream held another count than its head gave), or whether to write it. */
type StoredSnapshot = { bytes: Uint8Array | undefined; version: RegistryVersion } | { claimed: boolean };

/** The whole snapshot under `key`, read from the registry object's stream into one buffer, or whether to write it. */
async function readStoredSnapshot(env: Env, key: string): Promise<StoredSnapshot> {
  const read = await registryStub(env).readRegistrySnapshot(key);
  if (!read.found) return { claimed: read.claimed };
  const version = { epoch: read.epoch, version: read.version };
  try {
    return { bytes: await readExactly(read.stream, read.bytes), version };
  } catch (error) {
    // The object errors the stream when the snapshot changes under it (a registry write, a drop and a rewrite): the
    // registry moved on, so this isolate builds from the texts, and the next cold isolate reads the new snapshot.
    console.error(`registry: snapshot of version ${versionKey(version)} changed while it was read: ${error instanceof Error ? error.message : String(error)}`);
    return { claimed: false };
  }
}

/**
 * The `length` bytes of `stream`, read straight into one buffer (no chunk of it copied again), or undefined when the
 * stream holds fewer or more. One `readAtLeast` of the rest, not a `read` per chunk: an RPC byte stream arrives in
 * 64 KiB messages, and the runtime fills the buffer with them without a JavaScript read per message (416 at 27 MB:
 * about 30 ms of CPU, docs/scaling-log.md).
 */
async function readExactly(stream: ReadableStream<Uint8Array>, length: number): Promise<Uint8Array | undefined> {
  const reader = stream.getReader({ mode: "byob" });
  try {
    let buffer = new ArrayBuffer(length);
    let at = 0;
    while (at < length) {
      // It answers fewer only at the stream's end (then `done` on the next read).
      const { done, value } = await reader.readAtLeast(length - at, new Uint8Array(buffer, at, length - at));
      if (done || value === undefined) return undefined;
      // The view given is detached by the read: its bytes come back in `value`'s buffer, the same memory.
      buffer = value.buffer;
      at += value.byteLength;
    }
    // It must end here: a byte more is a longer snapshot than its head says.
    const { done } = await reader.read(new Uint8Array(1));
    return done ? new Uint8Array(buffer) : undefined;
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/**
 * The registry of a version read from its snapshot: its tools registered as the snapshot's table (each entry made when
 * first asked for), the figures of the views it carries given to those lists when a request first makes them.
 */
function registryFromSnapshot(env: Env, settings: Settings, content: DecodedSnapshot): LoadedRegistry {
  const { config } = settings;
  const registry = new ToolRegistry({ logger: console, locale: config.locale, runner: executorRunner(env, settings) });
  registry.registerTable(content.tools);
  storedDefinitions = storedFromSnapshot(content.tools, content.skipped);
  const version = { epoch: content.epoch, version: content.version };
  storedFrom = version;
  registry.setExecutionGuard(executionGuard(env, settings));
  for (const view of content.views ?? []) registry.whenListed(view.groups, (tools) => rememberCatalogFigures(tools, view));
  const key = versionKey(version);
  // The index was restored over the snapshot's definitions, which the registry now holds in the same order (a sharded
  // registry's snapshot has none: its shards hold the index).
  if (content.index !== undefined) searchIndexes.set(`registry:${key}:`, content.mode, content.index);
  return { key, version, registry, definitions: registry.getDefinitions({ groups: ["*"] }), source: "snapshot" };
}

/**
 * Writes the snapshot of `loaded` under `key` (this isolate holds the claim). Its index for the mode, from the cache
 * (a patched substring index writes none: a fresh one is built for it). A registry searched through shards: no index
 * (none is built here), and no token counts made for it (carried only when every tool was counted already): what a
 * cold isolate saves is reading and validating every stored text.
 */
async function writeSnapshot(env: Env, settings: Settings, key: string, loaded: LoadedRegistry): Promise<void> {
  const mode = settings.config.searchMode;
  const sharded = isSharded(settings, loaded);
  const fingerprint = key.slice(key.indexOf(":") + 1);
  const stored = new Set(loaded.definitions.map((tool) => tool.name));
  const content = (index: SearchIndex | undefined): RegistrySnapshotContent => ({
    ...loaded.version,
    mode,
    fingerprint,
    tools: loaded.definitions.map((definition) => ({
      definition,
      context: loaded.registry.get(definition.name)?.contextId ?? "",
      revision: storedRevision(definition.name),
    })),
    skipped: skippedTools(storedDefinitions, storedNamesBesides(stored)),
    ...(index === undefined ? { countTools: false } : {
      index,
      countedTexts: firstTurnTexts(settings, loaded),
      views: SNAPSHOT_VIEWS.map((groups) => ({ groups, ...catalogFigures(loaded.registry.getDefinitions({ groups }), settings.config) })),
    }),
  });
  // A sharded registry's snapshot is made as it is written, a part at a time (its definitions' texts never held
  // whole beside the registry); an indexed one (at most `aboveTools` tools) whole first, as before: the index it
  // writes is the cache's, which this isolate's next version may patch while the parts are awaited.
  const snapshot = sharded ? await registrySnapshotStream(content(undefined))
    : await encodeRegistrySnapshot(content(registrySearchIndex(loaded, mode, undefined)))
      ?? await encodeRegistrySnapshot(content(createSearchIndex(mode, loaded.definitions)));
  if (snapshot === undefined) return;
  await writeSnapshotParts(env, key, loaded.version, snapshot instanceof Uint8Array ? { byteLength: snapshot.byteLength, pieces: () => [snapshot] } : snapshot);
}

/** Hands `stream` to the registry object in parts (one held at a time); stops at the first part it refuses. */
async function writeSnapshotParts(env: Env, key: string, version: RegistryVersion, stream: ByteStream): Promise<void> {
  const stub = registryStub(env);
  let from = 0;
  for (const part of byteParts(stream, SNAPSHOT_WRITE_BYTES)) {
    if (!(await stub.writeRegistrySnapshot(key, version, stream.byteLength, from, part.buffer))) return;
    from += part.byteLength;
  }
}

/** The views whose first-turn figures a snapshot carries: every tool (owners, "*"), the ungrouped ones (no groups). */
const SNAPSHOT_VIEWS: readonly (readonly string[])[] = [["*"], []];

/**
 * The meta-tool texts a first prepare counts (prepare.ts: search_tools, and call_tool in a "fixed" list) for the views
 * most callers have: every tool (owners, "*") and the ungrouped tools (a caller without groups), in the shape prepare
 * answers in by default.
 */
function firstTurnTexts(settings: Settings, loaded: LoadedRegistry): string[] {
  const views = SNAPSHOT_VIEWS.map((groups) => loaded.registry.getDefinitions({ groups }));
  return [...new Set(views.flatMap((tools) => firstTurnMetaToolTexts(tools, settings.config, "openai")))];
}

/** The revision that wrote a stored tool of the version held; -1 for one that is not stored (the demo catalog). */
function storedRevision(name: string): number {
  return storedDefinitions.get(name)?.revision ?? -1;
}

/** Bytes per snapshot write call (a multiple of the object's chunk size, under the RPC message cap). */
const SNAPSHOT_WRITE_BYTES = 4 * 1024 * 1024;

/** The stored tools of the version last read that the registry does not hold (they did not validate). */
let storedNames: readonly string[] = [];
function storedNamesBesides(held: ReadonlySet<string>): string[] {
  return storedNames.filter((name) => !held.has(name));
}

async function buildRegistry(env: Env, settings: Settings): Promise<LoadedRegistry> {
  const key = snapshotKey(settings);
  /** Whether this isolate is to write the snapshot (undefined: not asked yet). */
  let claimed: boolean | undefined;
  const corrupt = corruptSnapshot;
  if (corrupt !== undefined) {
    // Found corrupt while it was served from: dropped, never read again; this isolate writes it anew.
    corruptSnapshot = undefined;
    const dropped = await registryStub(env).dropRegistrySnapshot(corrupt.key, corrupt.version);
    if (corrupt.key === key) claimed = !dropped.found && dropped.claimed;
  } else if (current === undefined && storedDefinitions.size === 0) {
    // A cold isolate: the version's snapshot, if there is a whole one (read already when started with the version's).
    const early = coldRead?.key === key ? coldRead.promise : undefined;
    coldRead = undefined;
    const read = await (early ?? readStoredSnapshot(env, key));
    if ("bytes" in read) {
      try {
        if (read.bytes === undefined) throw new SnapshotError("the stored snapshot is not of the length its head gives");
        const [mode, fingerprint] = [settings.config.searchMode, key.slice(key.indexOf(":") + 1)];
        const onCorrupt = (error: SnapshotError): void => forgetCorruptSnapshot(key, read.version, error);
        const content = await decodeSnapshotOfEitherKind(read.bytes, { ...read.version, mode, fingerprint }, onCorrupt);
        // Written under other settings (searchShards changed): an index where shards search, or none where the isolate does.
        if ((content.index === undefined) !== shardsPast(settings, content.tools.definitions.length)) {
          throw new SnapshotError(`stale snapshot: ${content.index === undefined ? "without" : "with"} an index for a registry of ${content.tools.definitions.length} tools`);
        }
        return registryFromSnapshot(env, settings, content);
      } catch (error) {
        if (!(error instanceof SnapshotError)) throw error;
        // Never served: dropped, and this isolate writes it again from the texts.
        console.error(`registry: snapshot of version ${versionKey(read.version)} refused: ${error.message}`);
        const dropped = await registryStub(env).dropRegistrySnapshot(key, read.version);
        claimed = !dropped.found && dropped.claimed;
      }
    } else claimed = read.claimed;
  }
  const { loaded, snapshot } = await buildFromTexts(env, settings, key);
  claimed ??= await registryStub(env).claimRegistrySnapshot(key, loaded.version);
  if (claimed) {
    if (snapshot === undefined) await writeSnapshot(env, settings, key, loaded);
    else await writeSnapshotParts(env, key, loaded.version, { byteLength: snapshot.byteLength, pieces: () => [snapshot] });
  }
  return loaded;
}

/**
 * A section of a loaded snapshot failed its check when first read (the read that found it throws, so nothing from it
 * was answered): the registry, the indexes and the definitions read from it are forgotten, so that the next request
 * builds from the texts (and drops the snapshot: buildRegistry).
 */
function forgetCorruptSnapshot(key: string, version: RegistryVersion, error: SnapshotError): void {
  if (corruptSnapshot?.key === key && corruptSnapshot.version.version === version.version && corruptSnapshot.version.epoch === version.epoch) return;
  console.error(`registry: snapshot of version ${versionKey(version)} found corrupt on read, dropped: ${error.message}`);
  corruptSnapshot = { key, version };
  current = undefined;
  pending = undefined;
  searchIndexes.clear();
  // Definitions read from it are not kept for the next version either (it reuses the definitions of unchanged texts).
  storedDefinitions = new Map();
  storedFrom = undefined;
  storedNames = [];
}

/** A registry built from the stored texts, and the snapshot's bytes when it was made as the texts were read. */
interface BuiltFromTexts {
  loaded: LoadedRegistry;
  snapshot?: Uint8Array;
}

async function buildFromTexts(env: Env, settings: Settings, key: string): Promise<BuiltFromTexts> {
  const { config } = settings;
  // An isolate that holds nothing yet, of a registry searched through shards (no demo tools to place first): the texts
  // go straight into the snapshot, and the registry is read from it, as a cold isolate reads it; the definitions are
  // never all held as objects (at 100,000 tools more than an isolate's memory with the snapshot being written).
  const holdsNothing = current === undefined && storedDefinitions.size === 0;
  const read = await readStoredTools(env, storedFrom, storedDefinitions, (head, held) =>
    holdsNothing && !(settings.demoCatalog && !head.demoDisposed) && shardsPast(settings, head.stored ?? 0)
      ? new StoredToolsSnapshot(config.locale)
      : new StoredToolsReader(held, config.locale));
  if (read.sink instanceof StoredToolsSnapshot) return await registryOfSnapshot(env, settings, key, read, read.sink);
  const reader = read.sink;
  const registry = new ToolRegistry({ logger: console, locale: config.locale, runner: executorRunner(env, settings) });
  const names = reader.names;
  if (settings.demoCatalog && !read.demoDisposed) {
    // Only here: without the demo catalog (a deployment), no set of every stored name is built per registry version.
    const persisted = new Set(names);
    const removed = new Set(read.removedBuiltins);
    // Demo tools that a persisted tool replaces are left out, rather than registered and replaced (one warning each).
    const demo = demoCatalog().filter((tool) => !removed.has(tool.name) && !persisted.has(tool.name));
    registry.registerMany(demo, DEMO_CONTEXT);
  }
  storedDefinitions = reader.register(registry, logSkipped, current?.loaded.registry);
  storedFrom = { epoch: read.epoch, version: read.version };
  storedNames = names;
  registry.setExecutionGuard(executionGuard(env, settings));
  return {
    loaded: {
      key: versionKey(read),
      version: { epoch: read.epoch, version: read.version },
      registry,
      definitions: registry.getDefinitions({ groups: ["*"] }),
      source: "texts",
    },
  };
}

/** A stored tool that no longer validates (stricter code) must not take the whole registry down. */
function logSkipped(name: string, error: unknown): void {
  console.error(`registry: skipped stored tool "${name}": ${errorMessage(error)}`);
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The registry of a version whose texts were read into its snapshot (StoredToolsSnapshot): the snapshot laid out in
 * one buffer, then read as a cold isolate reads it (registryFromSnapshot). Its bytes are written when this isolate
 * holds the claim (buildRegistry).
 */
async function registryOfSnapshot(env: Env, settings: Settings, key: string, read: RegistryHead, pages: StoredToolsSnapshot): Promise<BuiltFromTexts> {
  const binding = { epoch: read.epoch, version: read.version, mode: settings.config.searchMode, fingerprint: key.slice(key.indexOf(":") + 1) };
  for (const { name, error } of pages.skipped) logSkipped(name, error);
  const bytes = await pages.snapshot.finish(binding, pages.skipped.map(({ name, revision, error }) => ({ name, revision, error: errorMessage(error) })));
  const version = { epoch: read.epoch, version: read.version };
  const content = await decodeSnapshotOfEitherKind(bytes, binding, (error) => forgetCorruptSnapshot(key, version, error));
  const loaded = registryFromSnapshot(env, settings, content);
  // The stored names the registry does not hold (storedNamesBesides): those that did not validate. Not every name:
  // the snapshot's table holds them.
  storedNames = pages.skipped.map(({ name }) => name);
  return { loaded: { ...loaded, source: "texts" }, snapshot: bytes };
}

function executorRunner(env: Env, settings: Settings): ExecutorRunner {
  try {
    return createExecutorRunner({
      config: settings.config,
      env: { ...env },
      callUpstream: async (upstream, tool, args, context) => {
        const outcome = await upstreamStub(env, upstream).callTool(tool, args, settings.config.limits.maxResponseBytes, context.principal?.id);
        // An OAuth upstream the caller has no grant for: a link of this caller's own to sign in (upstreamSignIn.ts).
        if (outcome.ok || outcome.signIn === undefined || context.principal === undefined || context.origin === undefined) return outcome;
        const link = await signInLink(settings, context.origin, context.principal.id, upstream);
        if (!link) return outcome;
        const error = `${outcome.error}: sign in at ${link.url} (the link works once, for ${SIGN_IN_LINK_MS / 60_000} minutes), then call the tool again`;
        return { ...outcome, error, signIn: { upstream, url: link.url, expiresAt: link.expiresAt } };
      },
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    console.error(`executors unavailable: ${reason}`);
    return () => Promise.reject(new Error("executors are unavailable"));
  }
}

/** The execution guard; if it cannot be built, every call is denied (fail closed), never run unguarded. */
function executionGuard(env: Env, settings: Settings): ExecutionGuard {
  try {
    const guard = createExecutionGuard({
      config: settings.config,
      session: (principalId, sessionId) => {
        const session = sessionStub(env, principalId, sessionId);
        return {
          consumeGrant: async (capability, binding) => orRefusal(await session.consumeGrant(capability, binding, settings.config)),
          requestConfirmation: async (capability, mode, binding) =>
            orRefusal(await session.requestConfirmation(capability, mode, binding, settings.config)),
        };
      },
    });
    return async (input) => {
      try {
        return await guard(input);
      } catch (error) {
        // A confirmation in a new session past the principal's limit: the session kept nothing. A denial that says
        // so (code too_many_sessions), which http/toolCall.ts turns into 429.
        const refusal = refusalOfError(error);
        if (refusal) return { kind: "deny", reason: refusal.refused, code: TOO_MANY_SESSIONS };
        throw error;
      }
    };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    console.error(`execution guard unavailable: ${reason}`);
    return () => ({ kind: "deny", reason: "the execution guard is unavailable" });
  }
}

/** Forget the isolate's registry (tests). */
export function resetIsolateRegistry(): void {
  current = undefined;
  pending = undefined;
  known = undefined;
  versionRead = undefined;
  storedDefinitions = new Map();
  storedFrom = undefined;
  storedNames = [];
  corruptSnapshot = undefined;
  coldRead = undefined;
}
