// The one registry Durable Object: the tools the owner registers at run time, persisted with a version so that
// every isolate can tell when its in-memory registry is stale. The built-in demo catalog is code, not storage:
// only its removals are stored (tombstones, or the whole demo context disposed).
import { DurableObject } from "cloudflare:workers";
import { DEMO_CONTEXT, demoCatalog } from "../catalog/demo.ts";
import { partOf } from "../core/search/catalogParts.ts";
import type { ToolDefinition } from "../core/types.ts";

export interface StoredTool {
  definition: ToolDefinition;
  context: string;
}

/** Identifies one state of the registry; `epoch` changes if the storage is ever recreated. */
export interface RegistryVersion {
  epoch: string;
  version: number;
}

/**
 * A stored tool as its stored JSON text (parsed by the reader: cheaper over RPC than a structured object). The text is
 * left out when the reader said it holds a version that already had this tool as it is (`snapshot`'s `known`).
 */
export interface StoredToolText {
  name: string;
  definition?: string;
  context: string;
  /** The registry version that last wrote the tool (0: written before revisions were kept). */
  revision: number;
}

export interface RegistryPage extends RegistryVersion {
  /** Demo tools that were removed one by one. */
  removedBuiltins: string[];
  /** Whether the whole demo context was disposed. */
  demoDisposed: boolean;
  tools: StoredToolText[];
  /** Pass as `after` for the next page; absent on the last page. */
  next?: number;
  /** How many tools are stored (the first page of `snapshot` only): a reader sizes its build before reading them. */
  stored?: number;
}

export type ReplaceOutcome =
  | ({ ok: true; changed: boolean; created: number; removed: number; taken: string[] } & RegistryVersion)
  | { ok: false; code: "too_many_tools"; message: string };

export type PutOutcome =
  | ({ ok: true; created: number; replaced: number } & RegistryVersion)
  | { ok: false; code: "too_many_tools"; message: string };

/** A tool's embedding as stored: packed bytes (core/search/toolVectors.ts) under the digest they were computed for. */
export interface StoredVector {
  name: string;
  digest: string;
  vector: ArrayBuffer;
}

/** Names per vector lookup statement (the bound-parameter cap). */
const VECTOR_NAMES_PER_QUERY = 100;

/** Bytes of tool definitions per snapshot page, well under the RPC message limit. */
const PAGE_BYTES = 4 * 1024 * 1024;
/** Rows looked at per page of one search shard's part (partPage): a bound on one call's work. */
const PART_ROWS_PER_PAGE = 25_000;

/** A page of the stored tools of one part of a sharded search: each with its place (seq) in registration order. */
export interface RegistryPartPage extends RegistryPage {
  seqs: number[];
}
/**
 * A registry snapshot (core/tools/registrySnapshot.ts) is kept in rows of this many bytes (SQLite's value cap is 2 MB),
 * and sent to a reader as a byte stream, a row at a time (readRegistrySnapshot): no RPC message cap bounds it, and
 * the object holds at most one snapshot whole (HELD_SNAPSHOT_BYTES), the others a row at a time.
 */
const SNAPSHOT_CHUNK_BYTES = 1024 * 1024;
/**
 * The largest snapshot the object holds in memory once read (one at a time): a 10,000-tool snapshot of either mode
 * (13-27 MB), in an isolate of 128 MB. A larger one is read from its rows each time, one row held at a time.
 */
const HELD_SNAPSHOT_BYTES = 32 * 1024 * 1024;
/** A claim to write a snapshot that was not completed in this long (its writer died) can be taken by another. */
const SNAPSHOT_CLAIM_MS = 60_000;
/** Snapshots bigger than this are not kept (the isolates then build from the texts). */
export const MAX_SNAPSHOT_BYTES = 256 * 1024 * 1024;

/**
 * The registry snapshot of the current version under one key (mode and code fingerprint), as a stream of its `bytes`
 * bytes, or why there is none: `claimed` when the caller is the one to write it (single writer: the first to ask for a
 * missing one).
 */
export type SnapshotRead =
  | { found: true; epoch: string; version: number; bytes: number; stream: ReadableStream<Uint8Array> }
  | { found: false; claimed: boolean } & RegistryVersion;

let demoNamesCache: ReadonlySet<string> | undefined;
function demoNames(): ReadonlySet<string> {
  demoNamesCache ??= new Set(demoCatalog().map((tool) => tool.name));
  return demoNamesCache;
}

/** A snapshot's head row (snapshot_heads). */
type SnapshotHead = { version: number; bytes: number; complete: number; claimed_at: number };

/** A whole snapshot's rows held in memory, as read under the head of `version` and `claimedAt`. */
interface HeldSnapshot {
  key: string;
  version: number;
  claimedAt: number;
  rows: ArrayBuffer[];
}

export class RegistryObject extends DurableObject<Env> {
  private current: RegistryVersion;
  /**
   * The snapshot last read whole from storage (one key, at most HELD_SNAPSHOT_BYTES), served to the next cold
   * isolates without SQLite: the object outlives isolates. Forgotten by whatever changes the stored rows (a registry
   * write, a claim, a drop), so that a stream serving it errors as a stream of rows would.
   */
  #held: HeldSnapshot | undefined;
  /** The stream keeping its rows to be held (since `at`): one at a time, a stalled one replaced after SNAPSHOT_CLAIM_MS. */
  #filling: { at: number } | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    sql.exec(`CREATE TABLE IF NOT EXISTS tools (
      name TEXT PRIMARY KEY, context TEXT NOT NULL, definition TEXT NOT NULL, seq INTEGER NOT NULL)`);
    // The version that last wrote each tool, so that a reader holding an earlier version is sent only what changed.
    // Storage from before it was kept gets the column, 0 for every tool (unchanged since, whatever a reader holds).
    const columns = sql.exec<{ name: string }>("SELECT name FROM pragma_table_info('tools')").toArray();
    if (!columns.some((column) => column.name === "revision")) sql.exec("ALTER TABLE tools ADD COLUMN revision INTEGER NOT NULL DEFAULT 0");
    sql.exec("CREATE INDEX IF NOT EXISTS tools_by_seq ON tools (seq)");
    sql.exec("CREATE INDEX IF NOT EXISTS tools_by_context ON tools (context)");
    sql.exec("CREATE TABLE IF NOT EXISTS removed_builtins (name TEXT PRIMARY KEY)");
    sql.exec("CREATE TABLE IF NOT EXISTS upstreams (id TEXT PRIMARY KEY)");
    // Registry snapshots of the current version only (a write deletes them all): per key a head (the version it is
    // of, whether it is whole, or who claimed writing it and when) and its bytes in chunks.
    sql.exec(`CREATE TABLE IF NOT EXISTS snapshot_heads (
      key TEXT PRIMARY KEY, version INTEGER NOT NULL, bytes INTEGER NOT NULL, complete INTEGER NOT NULL, claimed_at INTEGER NOT NULL)`);
    sql.exec("CREATE TABLE IF NOT EXISTS snapshot_chunks (key TEXT NOT NULL, part INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (key, part))");
    // Embeddings of the tools (docs/search.md, "Embeddings providers"), by name, under the digest of the provider and
    // the text embedded (core/search/toolVectors.ts): computed once per definition, whatever isolate reads them.
    sql.exec("CREATE TABLE IF NOT EXISTS tool_vectors (name TEXT PRIMARY KEY, digest TEXT NOT NULL, vector BLOB NOT NULL)");
    let epoch = ctx.storage.kv.get<string>("epoch");
    if (epoch === undefined) {
      epoch = crypto.randomUUID();
      ctx.storage.kv.put("epoch", epoch);
    }
    this.current = { epoch, version: ctx.storage.kv.get<number>("version") ?? 0 };
  }

  /** The current version, from memory: the per-request staleness check of every isolate. */
  getVersion(): RegistryVersion {
    return this.current;
  }

  /**
   * One page of the persisted tools, in registration order, with the removals of demo tools. `known`: the version the
   * reader last read in full (texts it holds): a tool no version after it wrote comes without its text.
   */
  snapshot(after = 0, known?: RegistryVersion): RegistryPage {
    const tools: StoredToolText[] = [];
    const since = known !== undefined && known.epoch === this.current.epoch && known.version <= this.current.version ? known.version : -1;
    let bytes = 0;
    let next: number | undefined;
    // The text is read only where it is sent: what the reader holds is not even taken out of storage.
    const rows = this.ctx.storage.sql.exec<{ name: string; context: string; definition: string | null; seq: number; revision: number }>(
      "SELECT name, context, CASE WHEN revision > ? THEN definition END AS definition, seq, revision FROM tools WHERE seq > ? ORDER BY seq",
      since,
      after,
    );
    for (const row of rows) {
      const size = row.definition?.length ?? row.name.length + row.context.length;
      if (bytes > 0 && bytes + size > PAGE_BYTES) break;
      tools.push(row.definition === null
        ? { name: row.name, context: row.context, revision: row.revision }
        : { name: row.name, context: row.context, definition: row.definition, revision: row.revision });
      bytes += size;
      next = row.seq;
    }
    const page = this.#page(tools, next);
    if (after !== 0) return page;
    return { ...page, stored: this.ctx.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM tools").one().n };
  }

  /** A page of `tools` at the current version; `next` (the last seq looked at) unless it was the last row. */
  #page(tools: StoredToolText[], next: number | undefined): RegistryPage {
    const last = this.ctx.storage.sql.exec<{ m: number | null }>("SELECT MAX(seq) AS m FROM tools").one().m;
    return {
      ...this.current,
      removedBuiltins: this.removedBuiltins(),
      demoDisposed: this.demoDisposed(),
      tools,
      ...(next !== undefined && next !== last ? { next } : {}),
    };
  }

  /**
   * One page of the persisted tools of part `part` of `count` (catalogParts.ts, by a hash of the name), in
   * registration order, with their texts and places: what a search shard builds its part from, read by the shard
   * itself. The other rows are looked at, not sent; at most PART_ROWS_PER_PAGE rows are looked at per page.
   */
  partPage(after: number, part: number, count: number): RegistryPartPage {
    const tools: StoredToolText[] = [];
    const seqs: number[] = [];
    let bytes = 0;
    let looked = 0;
    let next: number | undefined;
    const rows = this.ctx.storage.sql.exec<{ name: string; context: string; definition: string; seq: number; revision: number }>(
      "SELECT name, context, definition, seq, revision FROM tools WHERE seq > ? ORDER BY seq",
      after,
    );
    for (const row of rows) {
      if (looked >= PART_ROWS_PER_PAGE || bytes > PAGE_BYTES) break;
      looked++;
      next = row.seq;
      if (partOf(row.name, count) !== part) continue;
      tools.push({ name: row.name, context: row.context, definition: row.definition, revision: row.revision });
      seqs.push(row.seq);
      bytes += row.definition.length;
    }
    return { ...this.#page(tools, next), seqs };
  }

  /**
   * Registers (or replaces) tools, all or nothing. The definitions are already validated by the Worker.
   * `maxTools` caps the whole registry (demo tools included where the demo catalog is on: `demoOn`).
   */
  put(entries: StoredTool[], maxTools: number, demoOn = true): PutOutcome {
    const sql = this.ctx.storage.sql;
    const active = this.activeNames(demoOn);
    const added = new Set(entries.map((entry) => entry.definition.name).filter((name) => !active.has(name)));
    // Replacing never fails on the cap (even if a lowered cap is already exceeded); adding does.
    if (added.size > 0 && active.size + added.size > maxTools) {
      return {
        ok: false,
        code: "too_many_tools",
        message: `the registry would hold ${active.size + added.size} tools; the limit is ${maxTools}`,
      };
    }
    this.ctx.storage.transactionSync(() => {
      let seq = this.ctx.storage.kv.get<number>("seq") ?? 0;
      // A tool written again with the same text keeps its revision, as an upstream refresh keeps it: the isolates
      // compare revisions, not texts (core/tools/storedTools.ts), and are not sent a text they hold.
      const revision = this.current.version + 1;
      for (const { definition, context } of entries) {
        seq += 1;
        sql.exec(
          `INSERT INTO tools (name, context, definition, seq, revision) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (name) DO UPDATE SET context = excluded.context, definition = excluded.definition,
             revision = CASE WHEN tools.definition = excluded.definition THEN tools.revision ELSE excluded.revision END`,
          definition.name,
          context,
          JSON.stringify(definition),
          seq,
          revision,
        );
      }
      this.ctx.storage.kv.put("seq", seq);
      this.bump();
    });
    return { ok: true, created: added.size, replaced: entries.length - added.size, ...this.current };
  }

  /**
   * Removes one tool, persisted or built in. `demoOn`: whether the caller's deployment serves the demo catalog
   * (DEMO_CATALOG); without it a demo tool's name is no tool at all, and removing it is not recorded.
   */
  remove(name: string, demoOn = true): { removed: boolean } & RegistryVersion {
    const active = this.activeNames(demoOn);
    if (!active.has(name)) return { removed: false, ...this.current };
    this.ctx.storage.transactionSync(() => {
      this.ctx.storage.sql.exec("DELETE FROM tools WHERE name = ?", name);
      if (demoOn && demoNames().has(name)) this.ctx.storage.sql.exec("INSERT OR IGNORE INTO removed_builtins (name) VALUES (?)", name);
      this.dropToolVectors([name]);
      this.bump();
    });
    return { removed: true, ...this.current };
  }

  /** Removes every tool a context registered (the demo context included); returns how many went. */
  disposeContext(context: string): { removed: number } & RegistryVersion {
    const removed = this.ctx.storage.transactionSync(() => {
      const deletedNames = this.ctx.storage.sql
        .exec<{ name: string }>("DELETE FROM tools WHERE context = ? RETURNING name", context)
        .toArray()
        .map((row) => row.name);
      const deleted = deletedNames.length;
      // A deleted tool that had replaced a demo tool takes the name with it (as the core registry's dispose does):
      // the demo tool it replaced must not come back.
      for (const name of deletedNames) {
        if (demoNames().has(name)) this.ctx.storage.sql.exec("INSERT OR IGNORE INTO removed_builtins (name) VALUES (?)", name);
      }
      this.dropToolVectors(deletedNames);
      let demoRemoved = 0;
      if (context === DEMO_CONTEXT && !this.demoDisposed()) {
        const shadowedOrRemoved = new Set([...this.persistedNames(), ...this.removedBuiltins()]);
        const demoGone = [...demoNames()].filter((name) => !shadowedOrRemoved.has(name));
        demoRemoved = demoGone.length;
        this.dropToolVectors(demoGone);
        this.ctx.storage.kv.put("demoDisposed", true);
      }
      if (deleted > 0 || demoRemoved > 0) this.bump();
      return deleted + demoRemoved;
    });
    return { removed, ...this.current };
  }

  /**
   * Makes `entries` the whole of `context` (an upstream's refresh), all or nothing, and moves the version once, only
   * when something changed. Names another context (or the demo catalog) holds are left to it and answered in `taken`.
   */
  replaceContext(context: string, entries: ToolDefinition[], maxTools: number, demoOn = true): ReplaceOutcome {
    const sql = this.ctx.storage.sql;
    const rows = sql.exec<{ name: string; definition: string; revision: number }>("SELECT name, definition, revision FROM tools WHERE context = ?", context).toArray();
    const ours = new Map(rows.map((row) => [row.name, row.definition]));
    const revisions = new Map(rows.map((row) => [row.name, row.revision]));
    const active = this.activeNames(demoOn);
    const taken = entries.filter((definition) => active.has(definition.name) && !ours.has(definition.name)).map((d) => d.name);
    const kept = entries.filter((definition) => !taken.includes(definition.name));
    const texts = new Map(kept.map((definition) => [definition.name, JSON.stringify(definition)]));
    const changed = texts.size !== ours.size || [...texts].some(([name, text]) => ours.get(name) !== text);
    const created = [...texts.keys()].filter((name) => !ours.has(name)).length;
    const removed = [...ours.keys()].filter((name) => !texts.has(name)).length;
    if (created > removed && active.size - removed + created > maxTools) {
      return {
        ok: false,
        code: "too_many_tools",
        message: `the registry would hold ${active.size - removed + created} tools; the limit is ${maxTools}`,
      };
    }
    if (changed) {
      this.ctx.storage.transactionSync(() => {
        sql.exec("DELETE FROM tools WHERE context = ?", context);
        // The context's tools the new list leaves out go with their vectors (a kept name's vector stays: its digest
        // tells whether its text changed, and the next vector of that name replaces it).
        this.dropToolVectors([...ours.keys()].filter((name) => !texts.has(name)));
        let seq = this.ctx.storage.kv.get<number>("seq") ?? 0;
        const revision = this.current.version + 1;
        for (const [name, text] of texts) {
          seq += 1;
          // An unchanged tool keeps its revision: readers holding it are not sent its text again.
          const unchangedAt = ours.get(name) === text ? revisions.get(name) : undefined;
          sql.exec("INSERT INTO tools (name, context, definition, seq, revision) VALUES (?, ?, ?, ?, ?)", name, context, text, seq, unchangedAt ?? revision);
        }
        this.ctx.storage.kv.put("seq", seq);
        this.bump();
      });
    }
    return { ok: true, changed, created, removed, taken, ...this.current };
  }

  /** The stored vectors of `names` (those it has), each with the digest it was computed for. */
  readToolVectors(names: string[]): StoredVector[] {
    const out: StoredVector[] = [];
    const sql = this.ctx.storage.sql;
    // SQLite binds at most 100 parameters per statement in Durable Objects: IN lists of that many.
    for (let at = 0; at < names.length; at += VECTOR_NAMES_PER_QUERY) {
      const part = names.slice(at, at + VECTOR_NAMES_PER_QUERY);
      const rows = sql.exec<{ name: string; digest: string; vector: ArrayBuffer }>(
        `SELECT name, digest, vector FROM tool_vectors WHERE name IN (${part.map(() => "?").join(",")})`, ...part);
      for (const row of rows) out.push({ name: row.name, digest: row.digest, vector: row.vector });
    }
    return out;
  }

  /**
   * Keeps tools' vectors (each replaces the name's previous one). A name that is no tool any more (removed while its
   * vector was being computed) is not kept: nothing would ever remove its row. Answers how many were kept.
   */
  writeToolVectors(vectors: StoredVector[]): number {
    const sql = this.ctx.storage.sql;
    return this.ctx.storage.transactionSync(() => {
      let kept = 0;
      for (const { name, digest, vector } of vectors) {
        if (!this.mayBeTool(name)) continue;
        sql.exec("INSERT OR REPLACE INTO tool_vectors (name, digest, vector) VALUES (?, ?, ?)", name, digest, vector);
        kept += 1;
      }
      return kept;
    });
  }

  /** Records an upstream id (GET /v1/upstreams lists them); false when `max` are already recorded. */
  addUpstream(id: string, max: number): boolean {
    const sql = this.ctx.storage.sql;
    if (sql.exec("SELECT 1 FROM upstreams WHERE id = ?", id).toArray().length > 0) return true;
    const count = sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM upstreams").one().n;
    if (count >= max) return false;
    sql.exec("INSERT INTO upstreams (id) VALUES (?)", id);
    return true;
  }

  removeUpstream(id: string): void {
    this.ctx.storage.sql.exec("DELETE FROM upstreams WHERE id = ?", id);
  }

  upstreamIds(): string[] {
    return this.ctx.storage.sql.exec<{ id: string }>("SELECT id FROM upstreams ORDER BY id").toArray().map((row) => row.id);
  }

  /**
   * The whole registry snapshot of the current version under `key` as one byte stream of `bytes` bytes, from memory
   * when it is the one held (#held), else its rows read as the reader takes them, or why there is none: `claimed`
   * when the caller is the one to write it (single writer: the first to ask for a missing one; another may claim it
   * once SNAPSHOT_CLAIM_MS passed without the write completing). A stream errors when the snapshot it carries is no
   * longer the stored one (a registry write, or a drop, between two rows): it never mixes the rows of two.
   */
  readRegistrySnapshot(key: string): SnapshotRead {
    const head = this.#wholeSnapshotHead(key);
    if (head === undefined) return { found: false, claimed: this.claimRegistrySnapshot(key, this.current), ...this.current };
    const held = this.#held;
    const stream = held?.key === key && held.version === head.version && held.claimedAt === head.claimed_at
      ? this.#heldStream(held)
      : this.#storedStream(key, head);
    return { found: true, ...this.current, bytes: head.bytes, stream };
  }

  /**
   * The snapshot under `key` read from its rows, a row per pull. Its chunks are views of the rows as read (a stream
   * of chunks, not of bytes: nothing transferred away). One stream at a time (#filling) keeps its rows, to be held once
   * the last came whole; the others hold a row at a time, as every stream of a snapshot over HELD_SNAPSHOT_BYTES.
   */
  #storedStream(key: string, head: SnapshotHead): ReadableStream<Uint8Array> {
    const sql = this.ctx.storage.sql;
    let part = -1;
    let sent = 0;
    const filling = head.bytes <= HELD_SNAPSHOT_BYTES && (this.#filling === undefined || Date.now() - this.#filling.at > SNAPSHOT_CLAIM_MS)
      ? { at: Date.now() }
      : undefined;
    if (filling !== undefined) this.#filling = filling;
    const rows: ArrayBuffer[] = [];
    const done = (): void => {
      if (this.#filling === filling) this.#filling = undefined;
    };
    return new ReadableStream<Uint8Array>({
      pull: (controller) => {
        const now = this.#snapshotHead(key);
        if (now?.version !== head.version || now.complete !== 1 || now.claimed_at !== head.claimed_at) {
          done();
          controller.error(new Error("the registry snapshot changed while it was read"));
          return;
        }
        const row = sql.exec<{ part: number; data: ArrayBuffer }>(
          "SELECT part, data FROM snapshot_chunks WHERE key = ? AND part > ? ORDER BY part LIMIT 1", key, part).toArray()[0];
        // Rows missing: the stream ends short, which the reader tells from `bytes` (and refuses).
        if (row !== undefined) {
          controller.enqueue(new Uint8Array(row.data));
          if (filling !== undefined) rows.push(row.data);
          part = row.part;
          sent += row.data.byteLength;
        }
        if (row === undefined || sent >= head.bytes) {
          controller.close();
          if (filling !== undefined && this.#filling === filling && sent === head.bytes) {
            this.#held = { key, version: head.version, claimedAt: head.claimed_at, rows };
          }
          done();
        }
      },
      cancel: done,
    });
  }

  /** A held snapshot's rows; errors once it is no longer held (the stored one changed: #forgetHeld). */
  #heldStream(held: HeldSnapshot): ReadableStream<Uint8Array> {
    let next = 0;
    return new ReadableStream<Uint8Array>({
      pull: (controller) => {
        if (this.#held !== held) {
          controller.error(new Error("the registry snapshot changed while it was read"));
          return;
        }
        const row = held.rows[next];
        next += 1;
        if (row !== undefined) controller.enqueue(new Uint8Array(row));
        if (next >= held.rows.length) controller.close();
      },
    });
  }

  /** Forgets the held snapshot of `key` (every key: undefined) when its stored rows change. */
  #forgetHeld(key?: string): void {
    if (key === undefined || this.#held?.key === key) this.#held = undefined;
  }

  /** The head of the whole snapshot of the current version under `key`, if there is one. */
  #wholeSnapshotHead(key: string): SnapshotHead | undefined {
    const head = this.#snapshotHead(key);
    return head?.version === this.current.version && head.complete === 1 ? head : undefined;
  }

  #snapshotHead(key: string): SnapshotHead | undefined {
    return this.ctx.storage.sql.exec<SnapshotHead>(
      "SELECT version, bytes, complete, claimed_at FROM snapshot_heads WHERE key = ?", key).toArray()[0];
  }

  /**
   * Whether the caller is to write the snapshot under `key` of `version` (an isolate that built that version from the
   * texts): true for the first to ask while none is whole and no live claim stands.
   */
  claimRegistrySnapshot(key: string, version: RegistryVersion): boolean {
    if (version.epoch !== this.current.epoch || version.version !== this.current.version) return false;
    const head = this.ctx.storage.sql.exec<{ version: number; complete: number; claimed_at: number }>(
      "SELECT version, complete, claimed_at FROM snapshot_heads WHERE key = ?", key).toArray()[0];
    const claimable = head === undefined || head.version !== this.current.version || (head.complete === 0 && Date.now() - head.claimed_at > SNAPSHOT_CLAIM_MS);
    if (claimable) this.#claim(key);
    return claimable;
  }

  #claim(key: string): void {
    const sql = this.ctx.storage.sql;
    this.#forgetHeld(key);
    this.ctx.storage.transactionSync(() => {
      sql.exec("DELETE FROM snapshot_chunks WHERE key = ?", key);
      sql.exec("INSERT OR REPLACE INTO snapshot_heads (key, version, bytes, complete, claimed_at) VALUES (?, ?, 0, 0, ?)", key, this.current.version, Date.now());
    });
  }

  /**
   * Writes part of the snapshot the caller claimed (readRegistrySnapshot): `data` at byte `from` of `bytes` in all, for
   * `version`. Refused (false) when the registry moved on, or the claim is no longer the caller's version's; the
   * snapshot is served once its last byte is written.
   */
  writeRegistrySnapshot(key: string, version: RegistryVersion, bytes: number, from: number, data: ArrayBuffer): boolean {
    const sql = this.ctx.storage.sql;
    if (version.epoch !== this.current.epoch || version.version !== this.current.version) return false;
    if (bytes > MAX_SNAPSHOT_BYTES || from % SNAPSHOT_CHUNK_BYTES !== 0 || from + data.byteLength > bytes) return false;
    const head = sql.exec<{ version: number; complete: number }>("SELECT version, complete FROM snapshot_heads WHERE key = ?", key).toArray()[0];
    if (head?.version !== version.version || head.complete === 1) return false;
    this.ctx.storage.transactionSync(() => {
      for (let at = 0; at < data.byteLength; at += SNAPSHOT_CHUNK_BYTES) {
        sql.exec("INSERT OR REPLACE INTO snapshot_chunks (key, part, data) VALUES (?, ?, ?)", key, (from + at) / SNAPSHOT_CHUNK_BYTES, data.slice(at, at + SNAPSHOT_CHUNK_BYTES));
      }
      const end = from + data.byteLength;
      const written = sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM snapshot_chunks WHERE key = ?", key).one().n;
      const complete = end === bytes && written === Math.ceil(bytes / SNAPSHOT_CHUNK_BYTES) ? 1 : 0;
      sql.exec("UPDATE snapshot_heads SET bytes = ?, complete = ? WHERE key = ?", bytes, complete, key);
    });
    return true;
  }

  /**
   * Drops the snapshot under `key` of `version`, which a reader found corrupt, and gives the caller the claim to write
   * it again. Another version's is left alone.
   */
  dropRegistrySnapshot(key: string, version: RegistryVersion): { found: boolean; claimed: boolean } {
    const sql = this.ctx.storage.sql;
    if (version.epoch === this.current.epoch && version.version === this.current.version) {
      this.#forgetHeld(key);
      this.ctx.storage.transactionSync(() => {
        sql.exec("DELETE FROM snapshot_chunks WHERE key = ?", key);
        sql.exec("DELETE FROM snapshot_heads WHERE key = ?", key);
      });
    }
    // Whether a whole one is still there (another version's was left alone), else whether the caller is to write it.
    if (this.#wholeSnapshotHead(key) !== undefined) return { found: true, claimed: false };
    return { found: false, claimed: this.claimRegistrySnapshot(key, this.current) };
  }

  private bump(): void {
    // Every snapshot is of the version before: none is served, nor kept.
    this.#forgetHeld();
    this.ctx.storage.sql.exec("DELETE FROM snapshot_chunks");
    this.ctx.storage.sql.exec("DELETE FROM snapshot_heads");
    const version = this.current.version + 1;
    this.ctx.storage.kv.put("version", version);
    this.current = { epoch: this.current.epoch, version };
  }

  /** Deletes the vectors of tools that were removed (in the caller's transaction). */
  private dropToolVectors(names: readonly string[]): void {
    for (let at = 0; at < names.length; at += VECTOR_NAMES_PER_QUERY) {
      const part = names.slice(at, at + VECTOR_NAMES_PER_QUERY);
      this.ctx.storage.sql.exec(`DELETE FROM tool_vectors WHERE name IN (${part.map(() => "?").join(",")})`, ...part);
    }
  }

  /** Whether an isolate's registry may hold a tool of this name: a stored one, or a demo tool not removed. */
  private mayBeTool(name: string): boolean {
    const sql = this.ctx.storage.sql;
    if (sql.exec("SELECT 1 FROM tools WHERE name = ?", name).toArray().length > 0) return true;
    if (!demoNames().has(name) || this.demoDisposed()) return false;
    return sql.exec("SELECT 1 FROM removed_builtins WHERE name = ?", name).toArray().length === 0;
  }

  private removedBuiltins(): string[] {
    return this.ctx.storage.sql
      .exec<{ name: string }>("SELECT name FROM removed_builtins ORDER BY name")
      .toArray()
      .map((row) => row.name);
  }

  private demoDisposed(): boolean {
    return this.ctx.storage.kv.get<boolean>("demoDisposed") === true;
  }

  private persistedNames(): Set<string> {
    return new Set(this.ctx.storage.sql.exec<{ name: string }>("SELECT name FROM tools").toArray().map((row) => row.name));
  }

  /** Every name an isolate's registry holds right now (the demo tools only where the demo catalog is on). */
  private activeNames(demoOn: boolean): Set<string> {
    const names = this.persistedNames();
    if (demoOn && !this.demoDisposed()) {
      const removed = new Set(this.removedBuiltins());
      for (const name of demoNames()) if (!removed.has(name)) names.add(name);
    }
    return names;
  }
}
