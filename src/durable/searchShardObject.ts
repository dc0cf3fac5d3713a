// One shard of a sharded registry search (core/search/shardedSearch.ts): the index of one part of the registry (by a
// hash of the tool name: core/search/catalogParts.ts) at one registry version, for one search mode. The object is
// named after all of these (searchShardName), so a registry write makes new shards rather than changing these: an
// isolate still on the version before searches the shards of that version, consistent with its own registry. A shard
// builds its part itself, from the registry object's rows (partPage: only its part's texts travel), validated by the
// same code as the isolate's registry, once per object; its index per view (the tools a caller's groups show) once per
// view. Each view's part is kept in the object's SQLite as a snapshot (core/tools/partSnapshot.ts): an evicted shard
// reads it back instead of reading every registry row and analyzing its tools again (a corrupt or foreign snapshot is
// dropped and the part built again). The rows of a version the registry has moved past are deleted by an alarm.
import { DurableObject } from "cloudflare:workers";
import { DEMO_CONTEXT, demoCatalog } from "../catalog/demo.ts";
import type { SearchMode } from "../core/config.ts";
import type { PartCatalog, PartTermTable } from "../core/search/catalogParts.ts";
import { answerAsShard, wholeStatistics, type KeywordCounts, type ShardAnswer, type WholeStatistics } from "../core/search/shardedSearch.ts";
import { partOf } from "../core/search/catalogParts.ts";
import { createIndexPart, type IndexPart } from "../core/search/indexPart.ts";
import { registerStoredTools } from "../core/tools/storedTools.ts";
import type { StoredTool } from "../core/tools/storedTools.ts";
import { ToolRegistry } from "../core/tools/toolRegistry.ts";
import { visibleCatalog } from "../core/tools/visibleCatalog.ts";
import type { Locale, ToolDefinition } from "../core/types.ts";
import { SnapshotError } from "../core/search/snapshotCodec.ts";
import { decodePartSnapshot, encodePartSnapshot, type PartBinding } from "../core/tools/partSnapshot.ts";
import { decodeWholeSnapshot, encodeWholeSnapshot } from "../core/search/wholeSnapshot.ts";
import { snapshotFingerprint } from "../core/tools/registrySnapshot.ts";
import type { RegistryVersion } from "./registryObject.ts";
import { registryStub, searchShardStub } from "./stubs.ts";

/** What a shard is of: the registry version, the search mode and the settings its catalog depends on, and its part. */
export interface ShardSpec {
  version: RegistryVersion;
  mode: SearchMode;
  locale: Locale;
  /** Whether the demo catalog is part of the registry (settings.demoCatalog). */
  demoCatalog: boolean;
  part: number;
  count: number;
}

/** The object's name: everything its part depends on. */
export function searchShardName(spec: ShardSpec): string {
  return `${spec.mode}/${spec.locale}/${spec.demoCatalog ? "demo" : "nodemo"}/${spec.version.epoch}:${spec.version.version}/${spec.part}of${spec.count}`;
}

/** The registry moved past the shard's version while it read it: the caller is to read the registry version again. */
export const STALE_SHARD = "the registry moved past this search shard's version";

/**
 * A shard's answer when the registry moved past its version before it could build its part: the version it found.
 * An answer, not a thrown error: an expected outcome does not travel as an RPC's rejection (the isolate turns it into
 * StaleShardError in its own promise chain: src/isolate/shardedSearches.ts).
 */
export interface StaleShardAnswer {
  stale: RegistryVersion;
}

/** The registry moved past a shard's version (thrown within a shard, and by the isolate's shard clients). */
export class StaleShardError extends Error {
  readonly version: RegistryVersion;

  constructor(version: RegistryVersion) {
    super(`${STALE_SHARD}: ${version.epoch} ${version.version}`);
    this.version = version;
  }
}

/** `ask`'s answer, or the StaleShardAnswer of the StaleShardError it threw. */
async function staleAsAnswer<T>(ask: () => Promise<T>): Promise<T | StaleShardAnswer> {
  try {
    return await ask();
  } catch (error) {
    if (error instanceof StaleShardError) return { stale: error.version };
    throw error;
  }
}

/** Views kept per shard (callers' group lists repeat a few). */
const VIEWS_PER_SHARD = 8;
/** Bytes of a part's snapshot per row (SQLite's value cap is 2 MB); a snapshot over SNAPSHOT_MAX_BYTES is not kept. */
const SNAPSHOT_CHUNK_BYTES = 1024 * 1024;
const SNAPSHOT_MAX_BYTES = 128 * 1024 * 1024;
/** How often a shard holding snapshots asks whether the registry has moved past its version (then it deletes them). */
const SNAPSHOT_CHECK_MS = 60 * 60 * 1000;

/**
 * What a shard keeps per view, each kind in a table of heads (checksum, length) and one of 1 MiB chunks: the part's
 * snapshot (partSnapshot.ts) and the whole catalog's statistics (wholeSnapshot.ts).
 */
const SNAPSHOT_TABLES = {
  part: { heads: "part_snapshots", chunks: "part_snapshot_chunks" },
  whole: { heads: "whole_statistics", chunks: "whole_statistics_chunks" },
} as const;
type SnapshotKind = keyof typeof SNAPSHOT_TABLES;

/** What a view's snapshots (its part's and the whole catalog's statistics) are bound to: the shard, the view, the code. */
function snapshotBinding(spec: ShardSpec, view: string): PartBinding {
  return { shard: searchShardName(spec), view, fingerprint: snapshotFingerprint(spec.mode, spec.locale, spec.demoCatalog) };
}

/** A caller's group list as the key of its view's snapshot: the same list, the same key, whatever its order. */
function groupsKey(groups: readonly string[] | undefined): string {
  if (groups === undefined) return "";
  if (groups.includes("*")) return "*";
  return JSON.stringify([...new Set(groups)].toSorted());
}

/** What a part adds to the whole catalog's statistics. */
interface PartStatistics {
  catalog: PartCatalog;
  table: PartTermTable;
}

interface PartTools {
  tools: readonly ToolDefinition[];
  /** Each tool's place in the whole registry's order: demo tools by their place in the demo catalog, then stored ones. */
  positions: readonly number[];
}

export class SearchShardObject extends DurableObject<Env> {
  #spec: ShardSpec | undefined;
  #tools: Promise<PartTools> | undefined;
  readonly #views = new Map<string, IndexPart>();
  /** Per view: the whole catalog's statistics (every shard's added up), asked once. */
  readonly #wholes = new Map<string, Promise<WholeStatistics>>();

  /** The snapshot tables, made when first needed (and again after the alarm's deleteAll, for a late caller). */
  #tables(): SqlStorage {
    const sql = this.ctx.storage.sql;
    for (const { heads, chunks } of Object.values(SNAPSHOT_TABLES)) {
      sql.exec(`CREATE TABLE IF NOT EXISTS ${heads} (view TEXT PRIMARY KEY, checksum TEXT NOT NULL, bytes INTEGER NOT NULL)`);
      sql.exec(`CREATE TABLE IF NOT EXISTS ${chunks} (view TEXT NOT NULL, chunk INTEGER NOT NULL, bytes BLOB NOT NULL, PRIMARY KEY (view, chunk))`);
    }
    return sql;
  }

  /** The part's tools, read once from the registry object (a failed read is read again next time). */
  #partTools(spec: ShardSpec): Promise<PartTools> {
    if (this.#tools === undefined) {
      const reading = this.#read(spec);
      this.#tools = reading;
      reading.catch(() => {
        if (this.#tools === reading) this.#tools = undefined;
      });
    }
    return this.#tools;
  }

  async #read(spec: ShardSpec): Promise<PartTools> {
    const registry = registryStub(this.env);
    const stored: StoredTool[] = [];
    const seqOf = new Map<string, number>();
    let after = 0;
    let demo: { removed: string[]; disposed: boolean } | undefined;
    for (;;) {
      const page = await registry.partPage(after, spec.part, spec.count);
      // The isolate learns the newer version from the message (shardedSearches.ts, staleShardVersion).
      if (page.epoch !== spec.version.epoch || page.version !== spec.version.version) throw new StaleShardError({ epoch: page.epoch, version: page.version });
      demo ??= { removed: page.removedBuiltins, disposed: page.demoDisposed };
      page.tools.forEach((tool, i) => {
        stored.push(tool);
        seqOf.set(tool.name, page.seqs[i] ?? 0);
      });
      if (page.next === undefined) break;
      after = page.next;
    }
    // As the isolate's registry is built (src/isolate/registryCache.ts): the demo tools no stored tool replaces and
    // none removed, then the stored tools in registration order; validated by the same code.
    const partRegistry = new ToolRegistry({ logger: console, locale: spec.locale });
    const catalog = demoCatalog();
    const demoPlace = new Map(catalog.map((tool, i) => [tool.name, i]));
    if (spec.demoCatalog && demo !== undefined && !demo.disposed) {
      const removed = new Set(demo.removed);
      partRegistry.registerMany(catalog.filter((tool) => partOf(tool.name, spec.count) === spec.part && !removed.has(tool.name) && !seqOf.has(tool.name)), DEMO_CONTEXT);
    }
    registerStoredTools(partRegistry, stored, new Map(), (name, error) => {
      console.error(`search shard: skipped stored tool "${name}": ${error instanceof Error ? error.message : String(error)}`);
    });
    const tools = partRegistry.getDefinitions({ groups: ["*"] });
    const positions = tools.map((tool) => {
      const seq = seqOf.get(tool.name);
      return seq === undefined ? (demoPlace.get(tool.name) ?? 0) : catalog.length + seq;
    });
    return { tools, positions };
  }

  /**
   * The part's index over the tools a caller holding `groups` sees (undefined: every tool): kept in memory, else read
   * from its snapshot, else built from the registry's rows (and its snapshot written).
   */
  async #view(spec: ShardSpec, groups: readonly string[] | undefined): Promise<IndexPart> {
    const key = groupsKey(groups);
    const kept = this.#kept(key);
    if (kept !== undefined) return kept;
    const binding = snapshotBinding(spec, key);
    this.#bind(spec);
    const restored = this.#restore(spec, binding);
    if (restored !== undefined) return this.#keep(key, restored);
    const { tools, positions } = await this.#partTools(spec);
    // Another call may have built it meanwhile.
    const built = this.#kept(key);
    if (built !== undefined) return built;
    const view = visibleCatalog(tools, groups);
    const placeOf = new Map(tools.map((tool, i) => [tool.name, positions[i] ?? 0]));
    const viewPositions = view.map((tool) => placeOf.get(tool.name) ?? 0);
    const part = createIndexPart(spec.mode, view, viewPositions);
    this.#store(spec, binding, { tools: view, positions: viewPositions, part });
    return this.#keep(key, part);
  }

  #kept(key: string): IndexPart | undefined {
    const kept = this.#views.get(key);
    if (kept !== undefined) {
      this.#views.delete(key);
      this.#views.set(key, kept);
    }
    return kept;
  }

  #keep(key: string, part: IndexPart): IndexPart {
    if (this.#views.size >= VIEWS_PER_SHARD) {
      const oldest = this.#views.keys().next();
      if (oldest.done !== true) this.#views.delete(oldest.value);
    }
    this.#views.set(key, part);
    return part;
  }

  /** The object serves one shard name (the first asked for): another is refused. */
  #bind(spec: ShardSpec): void {
    if (this.#spec !== undefined && searchShardName(this.#spec) !== searchShardName(spec)) {
      throw new Error(`this search shard is ${searchShardName(this.#spec)}, not ${searchShardName(spec)}`);
    }
    this.#spec = spec;
  }

  /** The view's part from its snapshot, or undefined when there is none or it does not hold (then it is dropped). */
  #restore(spec: ShardSpec, binding: PartBinding): IndexPart | undefined {
    return this.#readSnapshot("part", binding, (bytes, checksum) => decodePartSnapshot(bytes, checksum, binding, spec.mode).part);
  }

  /**
   * What the view's snapshot of `kind` decodes to, or undefined when there is none or it does not hold (its rows do not
   * add up to its length, `decode` throws SnapshotError): then it is dropped, never served.
   */
  #readSnapshot<T>(kind: SnapshotKind, binding: PartBinding, decode: (bytes: Uint8Array, checksum: string) => T): T | undefined {
    const { heads, chunks } = SNAPSHOT_TABLES[kind];
    const sql = this.#tables();
    const head = sql.exec<{ checksum: string; bytes: number }>(`SELECT checksum, bytes FROM ${heads} WHERE view = ?`, binding.view).toArray()[0];
    if (head === undefined) return undefined;
    try {
      const bytes = new Uint8Array(head.bytes);
      let at = 0;
      for (const row of sql.exec<{ bytes: ArrayBuffer }>(`SELECT bytes FROM ${chunks} WHERE view = ? ORDER BY chunk`, binding.view)) {
        const chunk = new Uint8Array(row.bytes);
        if (at + chunk.length > bytes.length) throw new SnapshotError("the snapshot's rows hold more bytes than its head says");
        bytes.set(chunk, at);
        at += chunk.length;
      }
      if (at !== bytes.length) throw new SnapshotError("the snapshot's rows hold fewer bytes than its head says");
      return decode(bytes, head.checksum);
    } catch (error) {
      if (!(error instanceof SnapshotError)) throw error;
      console.error(`search shard ${binding.shard}: dropped the ${kind} snapshot of view ${binding.view}: ${error.message}`);
      this.#drop(kind, binding.view);
      return undefined;
    }
  }

  #drop(kind: SnapshotKind, view: string): void {
    const { heads, chunks } = SNAPSHOT_TABLES[kind];
    this.ctx.storage.transactionSync(() => {
      this.ctx.storage.sql.exec(`DELETE FROM ${chunks} WHERE view = ?`, view);
      this.ctx.storage.sql.exec(`DELETE FROM ${heads} WHERE view = ?`, view);
    });
  }

  /** Writes the view's part snapshot. */
  #store(spec: ShardSpec, binding: PartBinding, content: Parameters<typeof encodePartSnapshot>[1]): void {
    const sealed = encodePartSnapshot(binding, content);
    if (sealed !== undefined) this.#writeSnapshot("part", spec, binding, sealed);
  }

  /** Writes a snapshot of `kind` for the view (in chunks, head last, in one transaction) and arms the clean-up alarm. */
  #writeSnapshot(kind: SnapshotKind, spec: ShardSpec, binding: PartBinding, sealed: { bytes: Uint8Array; checksum: string }): void {
    if (sealed.bytes.length > SNAPSHOT_MAX_BYTES) return;
    const { heads, chunks } = SNAPSHOT_TABLES[kind];
    const sql = this.#tables();
    this.ctx.storage.transactionSync(() => {
      sql.exec(`DELETE FROM ${chunks} WHERE view = ?`, binding.view);
      for (let at = 0, chunk = 0; at < sealed.bytes.length; at += SNAPSHOT_CHUNK_BYTES, chunk++) {
        sql.exec(`INSERT INTO ${chunks} (view, chunk, bytes) VALUES (?, ?, ?)`, binding.view, chunk, sealed.bytes.slice(at, at + SNAPSHOT_CHUNK_BYTES));
      }
      sql.exec(`INSERT OR REPLACE INTO ${heads} (view, checksum, bytes) VALUES (?, ?, ?)`, binding.view, sealed.checksum, sealed.bytes.length);
      this.ctx.storage.kv.put("spec", spec);
    });
    void this.#armCleanUp(spec).catch((error: unknown) => {
      console.error(`search shard ${binding.shard}: the clean-up alarm was not set: ${error instanceof Error ? error.message : String(error)}`);
    });
  }

  /**
   * Arms the clean-up alarm: in SNAPSHOT_CHECK_MS while the shard's version is the registry's, at once when the
   * registry has already moved past it (a part built from rows read before a write, or a new view of a shard still
   * holding them): isolates still on that version are served from memory meanwhile, and the snapshots would only wait.
   */
  async #armCleanUp(spec: ShardSpec): Promise<void> {
    const now = await registryStub(this.env).getVersion();
    const alarm = await this.ctx.storage.getAlarm();
    if (now.epoch !== spec.version.epoch || now.version !== spec.version.version) {
      if (alarm === null || alarm > Date.now()) await this.ctx.storage.setAlarm(Date.now());
    } else if (alarm === null) await this.ctx.storage.setAlarm(Date.now() + SNAPSHOT_CHECK_MS);
  }

  /** Deletes the snapshots once the registry has moved past their version; else looks again later. */
  override async alarm(): Promise<void> {
    const spec = this.ctx.storage.kv.get<ShardSpec>("spec");
    const now = spec === undefined ? undefined : await registryStub(this.env).getVersion();
    if (spec === undefined || now === undefined || now.epoch !== spec.version.epoch || now.version !== spec.version.version) {
      await this.ctx.storage.deleteAll();
      return;
    }
    await this.ctx.storage.setAlarm(Date.now() + SNAPSHOT_CHECK_MS);
  }

  /**
   * The whole catalog's statistics for a view: kept in memory, else read from the shard's SQLite, else added up from
   * every shard's of the same version and written there (so once per registry version and view, not once per
   * instance: a shard constructed anew asks no other).
   */
  #whole(spec: ShardSpec, groups: readonly string[] | undefined): Promise<WholeStatistics> {
    const key = groupsKey(groups);
    const kept = this.#wholes.get(key);
    if (kept !== undefined) return kept;
    const view = groups === undefined ? undefined : [...groups];
    this.#bind(spec);
    const binding = snapshotBinding(spec, key);
    const asking = (async () => {
      const stored = this.#readSnapshot("whole", binding, (bytes, checksum) => decodeWholeSnapshot(bytes, checksum, binding));
      if (stored !== undefined) return stored;
      const parts = await Promise.all(
        Array.from({ length: spec.count }, (_, part) => (part === spec.part ? this.#statistics(spec, view) : searchShardStub(this.env, { ...spec, part }).statistics({ ...spec, part }, view))),
      );
      const whole = wholeStatistics(parts.map((part) => {
        if ("stale" in part) throw new StaleShardError(part.stale);
        return part;
      }));
      this.#writeSnapshot("whole", spec, binding, encodeWholeSnapshot(binding, whole));
      return whole;
    })();
    if (this.#wholes.size >= VIEWS_PER_SHARD) {
      const oldest = this.#wholes.keys().next();
      if (oldest.done !== true) this.#wholes.delete(oldest.value);
    }
    this.#wholes.set(key, asking);
    asking.catch(() => {
      if (this.#wholes.get(key) === asking) this.#wholes.delete(key);
    });
    return asking;
  }

  /** What this shard's part of a view adds to the whole catalog's statistics (asked by the other shards). */
  statistics(spec: ShardSpec, groups: string[] | undefined): Promise<PartStatistics | StaleShardAnswer> {
    return staleAsAnswer(() => this.#statistics(spec, groups));
  }

  async #statistics(spec: ShardSpec, groups: string[] | undefined): Promise<PartStatistics> {
    const part = await this.#view(spec, groups);
    return { catalog: part.catalog(), table: part.termTable() };
  }

  /**
   * IndexShard.search: the part's candidates under the whole catalog's statistics, or its keyword counts; or, when the
   * registry moved past the shard's version before its part was built, the version it found.
   */
  search(spec: ShardSpec, groups: string[] | undefined, query: string, known: KeywordCounts, count: number, excluded: string[], withRelevance: boolean): Promise<ShardAnswer | StaleShardAnswer> {
    return staleAsAnswer(async () => {
      const [part, whole] = await Promise.all([this.#view(spec, groups), this.#whole(spec, groups)]);
      return answerAsShard(part, whole, query, known, count, excluded, withRelevance);
    });
  }
}
