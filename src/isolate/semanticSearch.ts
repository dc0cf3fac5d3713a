// Ranked search with an embeddings provider (`semantic` in the configuration; docs/search.md, "Embeddings
// providers"), the isolate's part: the tools' vectors, read from the registry object once per registry version and
// computed only for tools that have none stored (when an owner's write stores them, or, for what that missed, after a
// search notices); each search's query vector, within `timeoutMs`, cached, behind a circuit breaker; and the index
// that fuses both with the lexical ranking (core/search/vectorFusion.ts). A provider that errors, is slow or is
// skipped costs the search its vectors, never its answer: the ranking is lexical and the stats say why.
import type { SearchMode, SemanticConfig } from "../core/config.ts";
import { CircuitBreaker, EmbeddingTimeout, QueryVectorCache } from "../core/search/embeddingProvider.ts";
import type { EmbeddingProvider, FallbackReason } from "../core/search/embeddingProvider.ts";
import { embeddingText, packVector, vectorDigest } from "../core/search/toolVectors.ts";
import { DEFAULT_FUSION, withQueryVector } from "../core/search/vectorFusion.ts";
import type { SearchIndex } from "../core/search/types.ts";
import type { SearchStats } from "../core/turn/searchTools.ts";
import type { ToolDefinition } from "../core/types.ts";
import type { StoredVector } from "../durable/registryObject.ts";
import { registryStub } from "../durable/stubs.ts";
import { providerOf } from "./embeddingProviders.ts";
import type { LoadedRegistry } from "./registryCache.ts";

/** Names per vector read from the registry object (one RPC each). */
const READ_NAMES_PER_CALL = 2_000;
/** How long one batch of tool texts may take (a store is off the search's path: far longer than a query may). */
const STORE_TIMEOUT_MS = 30_000;
/** After a failed fill, missing vectors are asked for again no sooner than this (milliseconds). */
const FILL_RETRY_MS = 60_000;
/** Registry versions whose vector maps are kept (the current one, and the one before while requests move over). */
const VERSIONS_KEPT = 2;

/** One configured provider's state in this isolate. */
interface ProviderState {
  /** The configuration it is for (JSON text): another configuration starts afresh. */
  config: string;
  breaker: CircuitBreaker;
  queries: QueryVectorCache;
  /** Every tool's vector this isolate has read or computed, by name, with the digest it is for. */
  known: Map<string, { digest: string; vector: Int8Array }>;
  /** Per registry version: the vectors of its tools (current digests only), and the tools that have none. */
  versions: Map<string, Promise<VersionVectors>>;
  filling: Promise<void> | undefined;
  /** When a fill last failed (Date.now()). */
  failedAt: number;
}

interface VersionVectors {
  vectors: Map<string, Int8Array>;
  missing: { tool: ToolDefinition; text: string; digest: string }[];
}

let state: ProviderState | undefined;

function stateOf(semantic: SemanticConfig): ProviderState {
  const config = JSON.stringify(semantic);
  if (state?.config !== config) {
    state = { config, breaker: new CircuitBreaker(), queries: new QueryVectorCache(), known: new Map(), versions: new Map(), filling: undefined, failedAt: 0 };
  }
  return state;
}

/** The names whose vectors this isolate holds (tests: what a removed tool leaves behind). */
export function heldToolVectorNames(): string[] {
  return state === undefined ? [] : [...state.known.keys()];
}

/** Forget this isolate's vectors, query cache and breaker (tests: a cold isolate). */
export function resetSemanticState(): void {
  state = undefined;
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The vectors of a registry version's tools: from memory, else from the registry object; those without one listed. */
async function readVersionVectors(env: Env, st: ProviderState, provider: EmbeddingProvider, loaded: LoadedRegistry): Promise<VersionVectors> {
  const wanted = loaded.definitions.map((tool) => {
    const text = embeddingText(tool);
    return { tool, text, digest: vectorDigest(provider.id, text) };
  });
  const unknown = wanted.filter(({ tool, digest }) => st.known.get(tool.name)?.digest !== digest);
  const stub = registryStub(env);
  for (let at = 0; at < unknown.length; at += READ_NAMES_PER_CALL) {
    const rows: StoredVector[] = await stub.readToolVectors(unknown.slice(at, at + READ_NAMES_PER_CALL).map(({ tool }) => tool.name));
    for (const row of rows) st.known.set(row.name, { digest: row.digest, vector: new Int8Array(row.vector) });
  }
  const vectors = new Map<string, Int8Array>();
  const missing: VersionVectors["missing"] = [];
  for (const entry of wanted) {
    const known = st.known.get(entry.tool.name);
    if (known?.digest === entry.digest) vectors.set(entry.tool.name, known.vector);
    else missing.push(entry);
  }
  // Names this version no longer has leave the isolate's memory with it (a version still served keeps its own map):
  // a catalog that turns over would otherwise grow the isolate's vectors without bound.
  for (const name of st.known.keys()) if (!vectors.has(name)) st.known.delete(name);
  return { vectors, missing };
}

function versionVectors(env: Env, st: ProviderState, provider: EmbeddingProvider, loaded: LoadedRegistry): Promise<VersionVectors> {
  let read = st.versions.get(loaded.key);
  if (read === undefined) {
    read = readVersionVectors(env, st, provider, loaded);
    st.versions.set(loaded.key, read);
    // A failed read is asked again by the next search.
    read.catch(() => { if (st.versions.get(loaded.key) === read) st.versions.delete(loaded.key); });
    while (st.versions.size > VERSIONS_KEPT) {
      const oldest = st.versions.keys().next();
      if (oldest.done === true) break;
      st.versions.delete(oldest.value);
    }
  }
  return read;
}

/**
 * Computes the vectors `version` lacks, batch by batch, and stores each batch in the registry object (and in this
 * isolate) as it comes: the ones stored are never computed again, by this isolate or any other. One fill at a time.
 */
function fillMissing(env: Env, st: ProviderState, provider: EmbeddingProvider, version: VersionVectors): Promise<void> {
  if (st.filling !== undefined) return st.filling;
  if (version.missing.length === 0 || Date.now() - st.failedAt < FILL_RETRY_MS || !st.breaker.allow()) return Promise.resolve();
  const fill = (async () => {
    const stub = registryStub(env);
    const pending = [...version.missing];
    while (pending.length > 0) {
      const batch = pending.splice(0, provider.batchSize);
      let embedded: ArrayLike<number>[];
      try {
        embedded = await provider.embed(batch.map(({ text }) => text), STORE_TIMEOUT_MS);
        st.breaker.succeeded();
      } catch (error) {
        st.breaker.failed();
        st.failedAt = Date.now();
        console.error(`semantic: tool vectors not computed (${batch.length + pending.length} left; asked again later): ${reasonOf(error)}`);
        return;
      }
      const stored: StoredVector[] = [];
      batch.forEach(({ tool, digest }, index) => {
        const vector = packVector(embedded[index] ?? []);
        if (vector === undefined) return;
        st.known.set(tool.name, { digest, vector });
        version.vectors.set(tool.name, vector);
        stored.push({ name: tool.name, digest, vector: vector.slice().buffer });
      });
      version.missing = version.missing.filter(({ tool }) => !version.vectors.has(tool.name));
      if (stored.length > 0) await stub.writeToolVectors(stored);
    }
  })().catch((error: unknown) => {
    st.failedAt = Date.now();
    console.error(`semantic: tool vectors not stored: ${reasonOf(error)}`);
  });
  st.filling = fill.finally(() => { st.filling = undefined; });
  return st.filling;
}

/**
 * After an owner's write: the vectors of the registry's tools that have none (the tools just stored or imported),
 * computed and stored now, off the answer's path where the request has a context. Nothing without a provider.
 */
export function storeToolVectors(
  env: Env,
  semantic: SemanticConfig | undefined,
  loaded: () => Promise<LoadedRegistry>,
  ctx: ExecutionContext | undefined,
): Promise<void> {
  if (semantic === undefined) return Promise.resolve();
  const st = stateOf(semantic);
  const provider = providerOf(env, semantic);
  const work = (async () => {
    const version = await versionVectors(env, st, provider, await loaded());
    // A write is new work: a fill that failed a moment ago does not hold it back.
    st.failedAt = 0;
    await fillMissing(env, st, provider, version);
  })().catch((error: unknown) => { console.error(`semantic: tool vectors not stored: ${reasonOf(error)}`); });
  if (ctx === undefined) return work;
  ctx.waitUntil(work);
  return Promise.resolve();
}

/** The query's vector: cached, else the provider's within timeoutMs (unless the breaker skips it), or why not. */
async function queryVector(st: ProviderState, provider: EmbeddingProvider, semantic: SemanticConfig, query: string): Promise<Int8Array | FallbackReason> {
  const cached = st.queries.get(query);
  if (cached !== undefined) return cached;
  if (!st.breaker.allow()) return "circuit_open";
  try {
    const [vector] = await provider.embed([query], semantic.timeoutMs);
    const packed = packVector(vector ?? []);
    if (packed === undefined) throw new Error("the query's vector is empty");
    st.breaker.succeeded();
    st.queries.set(query, packed);
    return packed;
  } catch (error) {
    st.breaker.failed();
    const reason: FallbackReason = error instanceof EmbeddingTimeout ? "timeout" : "error";
    console.error(`semantic: search ranked lexically (${reason}${st.breaker.state === "open" ? "; provider skipped for a while" : ""}): ${reasonOf(error)}`);
    return reason;
  }
}

/**
 * The index a registry search ranks with, and what its stats say: with a provider, in the ranked mode and for a
 * non-blank query, the lexical index fused with the vectors; else `index` itself, without stats (today's answer).
 */
export async function semanticSearchIndex(
  request: { env: Env; semantic: SemanticConfig | undefined; ctx: ExecutionContext | undefined },
  loaded: LoadedRegistry,
  search: { index: SearchIndex; catalog: readonly ToolDefinition[]; mode: SearchMode; query: string },
): Promise<{ index: SearchIndex; stats?: SearchStats }> {
  const { env, semantic, ctx } = request;
  const query = search.query.trim();
  if (semantic === undefined || search.mode !== "minisearch" || query === "") return { index: search.index };
  const st = stateOf(semantic);
  const provider = providerOf(env, semantic);
  let version: VersionVectors;
  try {
    version = await versionVectors(env, st, provider, loaded);
  } catch (error) {
    console.error(`semantic: tool vectors unreadable, search ranked lexically: ${reasonOf(error)}`);
    return { index: search.index, stats: { semantic: "fallback", reason: "error" } };
  }
  if (version.missing.length > 0) {
    const fill = fillMissing(env, st, provider, version);
    if (ctx !== undefined) ctx.waitUntil(fill);
    else void fill;
  }
  if (version.vectors.size === 0) return { index: search.index, stats: { semantic: "fallback", reason: "no_tool_vectors" } };
  const vector = await queryVector(st, provider, semantic, query);
  if (typeof vector === "string") return { index: search.index, stats: { semantic: "fallback", reason: vector } };
  const fusion = { ...DEFAULT_FUSION, weight: semantic.weight };
  return { index: withQueryVector(search.index, search.catalog, version.vectors, vector, fusion), stats: { semantic: "vectors" } };
}
