// What an upstream's Durable Object stores: a small head value (configuration, health, last refresh) and every tool,
// pin, quarantined copy and refusal as a row of its own in the object's SQLite, as the registry object keeps tools.
// No storage value grows with the server's tool count, and a save writes only the rows that changed: a refresh of a
// server whose list did not change writes none. An object written by the old code (everything in one value under
// "state") is read and converted once, on its first use.
import type { UpstreamHealth } from "../core/upstream/backoff.ts";
import { UPSTREAM_LIMITS } from "../core/upstream/config.ts";
import type { UpstreamConfig } from "../core/upstream/config.ts";
import type { McpTool } from "../core/upstream/mcpTool.ts";
import type { Pin, QuarantinedTool } from "../core/upstream/pins.ts";
import type { ToolPageStart } from "../core/upstream/toolPage.ts";
import type { UpstreamTransport } from "./upstreamClient.ts";

/** A listed tool toolgate could not take, and why. */
export interface RejectedTool {
  name: string;
  reason: string;
}

/** The small part, kept in one value: read by every call and summary. */
export interface UpstreamHead {
  config: UpstreamConfig;
  /** The registry's tool cap, as of the last configuration (an alarm has no request to read it from). */
  maxTools: number;
  health: UpstreamHealth;
  /** Epoch milliseconds of the last successful list; 0 before the first. */
  lastRefresh: number;
  transport: UpstreamTransport | null;
}

/** The part that grows with the server, kept as rows. */
export interface UpstreamRows {
  pins: Record<string, Pin>;
  quarantine: Record<string, QuarantinedTool>;
  /** The tools registered now (pinned and unchanged, or accepted), in list order. */
  accepted: McpTool[];
  /** What the last list left out (read when it came); `rejected` adds what registering it left out. */
  listRejected: RejectedTool[];
  rejected: RejectedTool[];
  /** Each tool's place in the server's last list: accepted and held tools are kept in that order. */
  order: Map<string, number>;
}

export type UpstreamState = UpstreamHead & UpstreamRows;

const HEAD_KEY = "head";
/** Where the old code kept the whole state in one value. */
const LEGACY_KEY = "state";
const TABLES = ["upstream_accepted", "upstream_pins", "upstream_quarantine", "upstream_rejected"] as const;
type Table = (typeof TABLES)[number];

interface Row {
  key: string;
  position: number;
  body: string;
}

interface RejectedRow extends RejectedTool {
  /** Left out by the list (true) or by registering (false). */
  listed: boolean;
}

/** The old single value: the head and the rows together (listRejected was added later, so it may be absent). */
interface LegacyState extends UpstreamHead {
  pins: Record<string, Pin>;
  quarantine: Record<string, QuarantinedTool>;
  accepted: McpTool[];
  listRejected?: RejectedTool[];
  rejected: RejectedTool[];
}

export function emptyRows(): UpstreamRows {
  return { pins: {}, quarantine: {}, accepted: [], listRejected: [], rejected: [], order: new Map() };
}

export class UpstreamStore {
  /** Rows written (inserted, replaced, deleted) and head values put by this instance: what a refresh cost. */
  readonly written = { rows: 0, heads: 0 };
  private migrated = false;

  private readonly storage: DurableObjectStorage;

  constructor(storage: DurableObjectStorage) {
    this.storage = storage;
    this.createTables();
  }

  /** The tables (again, after the object's storage was deleted). */
  createTables(): void {
    const { sql } = this.storage;
    for (const table of TABLES) {
      sql.exec(`CREATE TABLE IF NOT EXISTS ${table} (key TEXT PRIMARY KEY, position INTEGER NOT NULL, body TEXT NOT NULL) WITHOUT ROWID`);
    }
  }

  head(): UpstreamHead | undefined {
    this.migrate();
    return this.storage.kv.get<UpstreamHead>(HEAD_KEY);
  }

  putHead(head: UpstreamHead): void {
    this.migrate();
    const { config, maxTools, health, lastRefresh, transport } = head;
    this.storage.kv.put(HEAD_KEY, { config, maxTools, health, lastRefresh, transport });
    this.written.heads += 1;
  }

  /** The head and every row; undefined for an upstream never configured (or removed). */
  state(): UpstreamState | undefined {
    const head = this.head();
    if (!head) return undefined;
    const rows = emptyRows();
    // Bodies this module wrote from values of these types (the object's own storage, not input).
    for (const row of this.rows("upstream_pins")) {
      const pin: Pin = JSON.parse(row.body);
      rows.pins[row.key] = pin;
    }
    for (const row of this.rows("upstream_quarantine")) {
      const held: QuarantinedTool = JSON.parse(row.body);
      rows.quarantine[row.key] = held;
      rows.order.set(row.key, row.position);
    }
    for (const row of this.rows("upstream_accepted")) {
      const tool: McpTool = JSON.parse(row.body);
      rows.accepted.push(tool);
      rows.order.set(row.key, row.position);
    }
    for (const row of this.rejectedRows()) {
      const { listed, ...rejected } = row;
      if (listed) rows.listRejected.push(rejected);
      rows.rejected.push(rejected);
    }
    return { ...head, ...rows };
  }

  /**
   * Up to `limit` registered tools after `start` (from the first without one), in the stored order, each with its
   * place; `more` when tools follow. Only those rows are read.
   */
  acceptedPage(start: ToolPageStart | undefined, limit: number): { tools: { tool: McpTool; position: number }[]; more: boolean } {
    const { rows, more } = this.page("upstream_accepted", start, limit);
    return {
      tools: rows.map((row) => {
        const tool: McpTool = JSON.parse(row.body);
        return { tool, position: row.position };
      }),
      more,
    };
  }

  /** The same for the tools quarantine holds (QUARANTINE_PAGE): each with its place in the server's list. */
  quarantinePage(start: ToolPageStart | undefined, limit: number): { held: { tool: QuarantinedTool; position: number }[]; more: boolean } {
    const { rows, more } = this.page("upstream_quarantine", start, limit);
    return {
      held: rows.map((row) => {
        const tool: QuarantinedTool = JSON.parse(row.body);
        return { tool, position: row.position };
      }),
      more,
    };
  }

  private page(table: Table, start: ToolPageStart | undefined, limit: number): { rows: { key: string; position: number; body: string }[]; more: boolean } {
    const columns = `SELECT key, position, body FROM ${table}`;
    const rows = start === undefined
      ? this.storage.sql.exec<{ key: string; position: number; body: string }>(`${columns} ORDER BY position, key LIMIT ?`, limit + 1).toArray()
      : this.storage.sql.exec<{ key: string; position: number; body: string }>(
        `${columns} WHERE position > ? OR (position = ? AND key > ?) ORDER BY position, key LIMIT ?`,
        start.position,
        start.position,
        start.name,
        limit + 1,
      ).toArray();
    return { rows: rows.slice(0, limit), more: rows.length > limit };
  }

  /** What was left out (at most UPSTREAM_LIMITS.rejectedShown and one line for the rest). */
  rejectedTools(): RejectedTool[] {
    return this.rejectedRows().map(({ name, reason }) => ({ name, reason }));
  }

  private rejectedRows(): RejectedRow[] {
    return this.rows("upstream_rejected").map((row) => {
      const body: RejectedRow = JSON.parse(row.body);
      return body;
    });
  }

  /** Writes the head and, of the rows, only those that differ from what is stored (one transaction). */
  save(state: UpstreamState): void {
    this.migrate();
    this.storage.transactionSync(() => {
      this.putHead(state);
      this.saveRows(state);
    });
  }

  isQuarantined(name: string): boolean {
    return this.storage.sql.exec("SELECT 1 FROM upstream_quarantine WHERE key = ?", name).toArray().length > 0;
  }

  isAccepted(name: string): boolean {
    return this.storage.sql.exec("SELECT 1 FROM upstream_accepted WHERE key = ?", name).toArray().length > 0;
  }

  /** Rows of each kind, for summaries (no row is read). */
  counts(): { accepted: number; quarantined: number; rejected: number } {
    const count = (table: Table): number => this.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).one().n;
    return { accepted: count("upstream_accepted"), quarantined: count("upstream_quarantine"), rejected: count("upstream_rejected") };
  }

  private saveRows(state: UpstreamRows): void {
    // A tool not in the last list (an accept of an older hold, say) goes after the listed ones.
    const positionOf = (name: string): number => state.order.get(name) ?? Number.MAX_SAFE_INTEGER;
    this.sync("upstream_pins", Object.entries(state.pins).map(([key, pin]) => ({ key, position: 0, body: JSON.stringify(pin) })));
    this.sync("upstream_quarantine", Object.values(state.quarantine).map((held) => ({ key: held.name, position: positionOf(held.name), body: JSON.stringify(held) })));
    this.sync("upstream_accepted", state.accepted.map((tool) => ({ key: tool.name, position: positionOf(tool.name), body: JSON.stringify(tool) })));
    // `rejected` starts with what the list left out; past the cap, one last row tells how many more there were.
    const shown = state.rejected.slice(0, UPSTREAM_LIMITS.rejectedShown);
    const more = state.rejected.length - shown.length;
    const rows: RejectedRow[] = shown.map((rejected, index) => ({ ...rejected, listed: index < state.listRejected.length }));
    if (more > 0) rows.push({ name: "…", reason: `${more} more tools were left out`, listed: false });
    this.sync("upstream_rejected", rows.map((row, index) => ({ key: String(index), position: index, body: JSON.stringify(row) })));
  }

  /** Makes the table hold exactly `rows`, writing only the rows that differ. */
  private sync(table: Table, rows: Row[]): void {
    const { sql } = this.storage;
    const stored = new Map(this.rows(table).map((row) => [row.key, row]));
    for (const row of rows) {
      const old = stored.get(row.key);
      stored.delete(row.key);
      if (old?.body === row.body && old.position === row.position) continue;
      this.written.rows += sql.exec(
        `INSERT INTO ${table} (key, position, body) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET position = excluded.position, body = excluded.body`,
        row.key,
        row.position,
        row.body,
      ).rowsWritten;
    }
    for (const key of stored.keys()) this.written.rows += sql.exec(`DELETE FROM ${table} WHERE key = ?`, key).rowsWritten;
  }

  private rows(table: Table): Row[] {
    return this.storage.sql.exec<{ key: string; position: number; body: string }>(`SELECT key, position, body FROM ${table} ORDER BY position, key`).toArray();
  }

  /** Converts the old single value into the head and rows, once, in one transaction. */
  private migrate(): void {
    if (this.migrated) return;
    this.migrated = true;
    const legacy = this.storage.kv.get<LegacyState>(LEGACY_KEY);
    if (legacy === undefined) return;
    const listRejected = legacy.listRejected ?? [];
    const order = new Map<string, number>();
    for (const [index, tool] of legacy.accepted.entries()) order.set(tool.name, index);
    for (const name of Object.keys(legacy.quarantine)) if (!order.has(name)) order.set(name, order.size);
    this.storage.transactionSync(() => {
      this.putHead(legacy);
      this.saveRows({ pins: legacy.pins, quarantine: legacy.quarantine, accepted: legacy.accepted, listRejected, rejected: legacy.rejected, order });
      this.storage.kv.delete(LEGACY_KEY);
    });
  }
}
