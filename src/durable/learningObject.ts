// The deployment's evidence for learning from calls (docs/search.md, "Learning from calls"): one SQLite-backed object,
// `learning`. Isolates send it batches of evidence after their answers (never on a request's path); it keeps one row
// per (tool, term, principal) (and one per tool, term and principal that passed the tool over), folds the rows into the learned state at most every `applyEverySeconds` (an alarm) or
// when the owner applies them, and hands the folded state, with its version, to isolates that hold an older one.
//
// The folded state is kept as rows (one per learned term, per profile and per profile term), not as one storage value:
// thousands of learning tools, each with its terms and its profile, would outgrow a value's limit.
//
// A separate object rather than the registry object: evidence is written after many calls, the registry on an owner's
// rare writes and by every isolate's version checks; sharing one object would queue each behind the other, and the
// registry object's storage (tools, snapshots) stays as it is.
import { DurableObject } from "cloudflare:workers";
import type { LearningConfig } from "../core/config.ts";
import {
  EMPTY_LEARNED_STATE,
  foldEvidence,
  isEvidenceEvent,
  PASSED_OVER_SHARE,
  passedOver,
  reinforced,
  rowCounts,
  searchShares,
  type CallerProfile,
  type EvidenceEvent,
  type EvidenceRow,
  type LearnedState,
  type LearnedTerm,
} from "../core/learning/evidence.ts";

/** Most evidence events one batch may carry (an isolate's batch is smaller; the rest of a larger one is dropped). */
export const MAX_BATCH_EVENTS = 1_000;
/** Most evidence rows kept: past it, the oldest rows go when the evidence is folded. */
export const MAX_EVIDENCE_ROWS = 200_000;
/**
 * Most events pending (not yet folded): a batch that reaches it is folded at once, so that one fold's work stays
 * bounded (each event is up to MAX_TERMS_PER_EVENT row updates).
 */
export const MAX_PENDING_EVENTS = 5_000;
/** How long a folded search's count of called tools is kept (a later call of it shares with them). */
const FOLDED_SEARCH_MS = 86_400_000;
/** Most folded searches kept (the oldest go first). */
const MAX_FOLDED_SEARCHES = 100_000;

/** The evidence for a tool, and the evidence against it (passed over). */
const EVIDENCE_TABLES = ["evidence", "passed_over_evidence"] as const;
type EvidenceTable = (typeof EVIDENCE_TABLES)[number];
/** The folded terms, learned and passed over for. */
type TermsTable = "learned_terms" | "passed_over_terms";

const KEY = { applied: "applied", appliedVersion: "appliedVersion", options: "options" } as const;

export interface LearningReport {
  /** The folded state the ranking uses now. */
  applied: LearnedState;
  /**
   * The evidence kept (not yet all counting: a term counts with enough principals), and the calls not yet folded into
   * it (`pending`).
   */
  evidence: { rows: number; tools: number; principals: number; pending: number };
}

export class LearningObject extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS evidence (
      tool TEXT NOT NULL, term TEXT NOT NULL, principal TEXT NOT NULL, weight REAL NOT NULL, at INTEGER NOT NULL,
      PRIMARY KEY (tool, term, principal)) WITHOUT ROWID`);
    ctx.storage.sql.exec("CREATE INDEX IF NOT EXISTS evidence_by_at ON evidence (at)");
    // The evidence against a tool: per (tool, term, principal), a search showed it above a tool the principal called
    // from that search, and the principal did not call it.
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS passed_over_evidence (
      tool TEXT NOT NULL, term TEXT NOT NULL, principal TEXT NOT NULL, weight REAL NOT NULL, at INTEGER NOT NULL,
      PRIMARY KEY (tool, term, principal)) WITHOUT ROWID`);
    // Events not yet folded (one per principal, search and tool: a tool called twice from one search counts once), and
    // how many tools each recently folded search taught (a later call of it shares with them).
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS pending_evidence (
      principal TEXT NOT NULL, search TEXT NOT NULL, tool TEXT NOT NULL, terms TEXT NOT NULL, at INTEGER NOT NULL,
      PRIMARY KEY (principal, search, tool))`);
    // The tools shown above each pending call's tool (a JSON list), a column added after the table first existed.
    if (ctx.storage.sql.exec("SELECT name FROM pragma_table_info('pending_evidence') WHERE name = 'above'").toArray().length === 0) {
      ctx.storage.sql.exec("ALTER TABLE pending_evidence ADD COLUMN above TEXT");
    }
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS folded_searches (
      principal TEXT NOT NULL, search TEXT NOT NULL, tools INTEGER NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (principal, search))`);
    // The folded state in use: its version and time in `appliedVersion`, its terms and profiles as rows.
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS learned_terms (
      tool TEXT NOT NULL, term TEXT NOT NULL, weight REAL NOT NULL, principals INTEGER NOT NULL,
      PRIMARY KEY (tool, term)) WITHOUT ROWID`);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS learned_profiles (tool TEXT NOT NULL PRIMARY KEY, principals INTEGER NOT NULL) WITHOUT ROWID");
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS profile_terms (
      tool TEXT NOT NULL, term TEXT NOT NULL, weight REAL NOT NULL, PRIMARY KEY (tool, term)) WITHOUT ROWID`);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS passed_over_terms (
      tool TEXT NOT NULL, term TEXT NOT NULL, weight REAL NOT NULL, principals INTEGER NOT NULL,
      PRIMARY KEY (tool, term)) WITHOUT ROWID`);
    // A state folded before the rows existed was one value: it becomes rows once.
    const legacy = ctx.storage.kv.get<LearnedState>(KEY.applied);
    if (legacy !== undefined) {
      this.store(legacy);
      ctx.storage.kv.delete(KEY.applied);
    }
  }

  /**
   * Keeps a batch of evidence (malformed events are skipped) as pending events and makes sure they are folded within
   * `options.applyEverySeconds`; returns how many events were kept. The calls of one search come within seconds of
   * each other: pending until the fold, they are split among the tools called from their search (searchShares).
   */
  async record(events: unknown[], options: LearningConfig): Promise<number> {
    const now = Date.now();
    let kept = 0;
    for (const event of events.slice(0, MAX_BATCH_EVENTS)) {
      if (!isEvidenceEvent(event)) continue;
      kept++;
      // An event without a search id is a search of its own: its own id, so that it is never grouped with another.
      this.ctx.storage.sql.exec(
        "INSERT INTO pending_evidence (principal, search, tool, terms, at, above) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
        event.principal, event.search ?? crypto.randomUUID(), event.tool, JSON.stringify(event.terms), Math.min(now, event.at),
        event.above === undefined ? null : JSON.stringify(event.above),
      );
    }
    this.ctx.storage.kv.put(KEY.options, options);
    if (kept > 0 && this.pendingCount() >= MAX_PENDING_EVENTS) this.apply(options);
    else if (kept > 0 && (await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(now + options.applyEverySeconds * 1000);
    return kept;
  }

  private pendingCount(): number {
    return this.ctx.storage.sql.exec<{ events: number }>("SELECT COUNT(*) AS events FROM pending_evidence").toArray()[0]?.events ?? 0;
  }

  /**
   * The pending events become evidence rows: each search's evidence split among the tools called from it, counting
   * the tools of that search folded before (`folded_searches`, kept for FOLDED_SEARCH_MS: a late call of a search
   * shares with the earlier ones, which keep their share).
   */
  private foldPending(now: number, options: LearningConfig): void {
    const { sql } = this.ctx.storage;
    const events: (EvidenceEvent & { search: string })[] = [];
    for (const row of sql.exec<{ principal: string; search: string; tool: string; terms: string; at: number; above: string | null }>(
      "SELECT principal, search, tool, terms, at, above FROM pending_evidence ORDER BY at",
    )) {
      const terms: unknown = JSON.parse(row.terms);
      const above: unknown = row.above === null ? undefined : JSON.parse(row.above);
      const event = { tool: row.tool, terms, principal: row.principal, at: row.at, search: row.search, ...(above === undefined ? {} : { above }) };
      if (isEvidenceEvent(event)) events.push(event);
    }
    sql.exec("DELETE FROM pending_evidence");
    sql.exec("DELETE FROM folded_searches WHERE at < ?", now - FOLDED_SEARCH_MS);
    const calledBefore = (principal: string, search: string): number =>
      sql.exec<{ tools: number }>("SELECT tools FROM folded_searches WHERE principal = ? AND search = ?", principal, search).toArray()[0]?.tools ?? 0;
    const shares = searchShares(events, calledBefore);
    const called = new Map<string, { principal: string; search: string; tools: number; at: number }>();
    for (const { event, share } of shares) {
      if (share <= 0) continue;
      const group = JSON.stringify([event.principal, event.search]);
      const seen = called.get(group);
      called.set(group, { principal: event.principal, search: event.search, tools: (seen?.tools ?? 0) + 1, at: Math.max(event.at, seen?.at ?? 0) });
      for (const term of event.terms) this.reinforce("evidence", { tool: event.tool, term, principal: event.principal }, event.at, options, share);
    }
    // The tools shown above a called one and not called from its search: evidence against them, a share of a call.
    for (const skipped of passedOver(shares)) {
      for (const term of skipped.terms) {
        this.reinforce("passed_over_evidence", { tool: skipped.tool, term, principal: skipped.principal }, skipped.at, options, skipped.share * PASSED_OVER_SHARE);
      }
    }
    for (const { principal, search, tools, at } of called.values()) {
      sql.exec(
        "INSERT INTO folded_searches (principal, search, tools, at) VALUES (?, ?, ?, ?) " +
          "ON CONFLICT (principal, search) DO UPDATE SET tools = tools + excluded.tools, at = excluded.at",
        principal, search, tools, at,
      );
    }
    const kept = sql.exec<{ searches: number }>("SELECT COUNT(*) AS searches FROM folded_searches").toArray()[0]?.searches ?? 0;
    if (kept > MAX_FOLDED_SEARCHES) {
      sql.exec("DELETE FROM folded_searches WHERE rowid IN (SELECT rowid FROM folded_searches ORDER BY at LIMIT ?)", kept - MAX_FOLDED_SEARCHES);
    }
  }

  /** One more call's `share` for (tool, term, principal) in `table` (evidence or passed_over_evidence). */
  private reinforce(table: EvidenceTable, key: Omit<EvidenceRow, "weight" | "at">, at: number, options: LearningConfig, share: number): void {
    const { sql } = this.ctx.storage;
    const row = sql
      .exec<{ weight: number; at: number }>(`SELECT weight, at FROM ${table} WHERE tool = ? AND term = ? AND principal = ?`, key.tool, key.term, key.principal)
      .toArray()[0];
    const next = reinforced(row === undefined ? undefined : { ...key, ...row }, key, at, options.halfLifeDays, share);
    sql.exec(
      `INSERT INTO ${table} (tool, term, principal, weight, at) VALUES (?, ?, ?, ?, ?) ` +
        "ON CONFLICT (tool, term, principal) DO UPDATE SET weight = excluded.weight, at = excluded.at",
      next.tool, next.term, next.principal, next.weight, next.at,
    );
  }

  /** The folded state when it is newer than `version` (the one the caller holds), else only the current version. */
  stateSince(version: number): LearnedState | { version: number } {
    return this.appliedVersion().version === version ? { version } : this.applied();
  }

  /** Folds the evidence now (dropping rows that no longer count, and the oldest past MAX_EVIDENCE_ROWS). */
  apply(options: LearningConfig): LearnedState {
    this.ctx.storage.kv.put(KEY.options, options);
    const now = Date.now();
    const { sql } = this.ctx.storage;
    this.foldPending(now, options);
    const rows: EvidenceRow[] = [];
    const stale: EvidenceRow[] = [];
    for (const table of EVIDENCE_TABLES) {
      for (const row of sql.exec<{ tool: string; term: string; principal: string; weight: number; at: number }>(`SELECT tool, term, principal, weight, at FROM ${table}`)) {
        (rowCounts(row, now, options.halfLifeDays) ? rows : stale).push(table === "passed_over_evidence" ? { ...row, passedOver: true } : { ...row });
      }
    }
    const remove = (row: EvidenceRow): void => {
      sql.exec(`DELETE FROM ${row.passedOver === true ? "passed_over_evidence" : "evidence"} WHERE tool = ? AND term = ? AND principal = ?`, row.tool, row.term, row.principal);
    };
    for (const row of stale) remove(row);
    if (rows.length > MAX_EVIDENCE_ROWS) {
      rows.sort((a, b) => a.at - b.at);
      for (const row of rows.splice(0, rows.length - MAX_EVIDENCE_ROWS)) remove(row);
    }
    const state = foldEvidence(rows, now, options, this.appliedVersion().version + 1);
    this.store(state);
    return state;
  }

  /** What the owner sees: the state in use and how much evidence is kept. */
  report(): LearningReport {
    const counts = this.ctx.storage.sql
      .exec<{ rows: number; tools: number; principals: number }>(
        "SELECT COUNT(*) AS rows, COUNT(DISTINCT tool) AS tools, COUNT(DISTINCT principal) AS principals FROM " +
          "(SELECT tool, principal FROM evidence UNION ALL SELECT tool, principal FROM passed_over_evidence)",
      )
      .toArray()[0];
    return { applied: this.applied(), evidence: { rows: counts?.rows ?? 0, tools: counts?.tools ?? 0, principals: counts?.principals ?? 0, pending: this.pendingCount() } };
  }

  /**
   * Forgets the evidence of `tool`, or all of it (undefined), and folds at once, so that the ranking forgets it on the
   * next version; returns how many rows went and the new state.
   */
  forget(tool: string | undefined, options: LearningConfig): { removed: number; applied: LearnedState } {
    const { sql } = this.ctx.storage;
    // What is pending becomes rows first (split as every fold splits it), so that it is forgotten with them.
    this.foldPending(Date.now(), options);
    let removed = 0;
    for (const table of EVIDENCE_TABLES) {
      const counted = tool === undefined
        ? sql.exec<{ rows: number }>(`SELECT COUNT(*) AS rows FROM ${table}`)
        : sql.exec<{ rows: number }>(`SELECT COUNT(*) AS rows FROM ${table} WHERE tool = ?`, tool);
      removed += counted.toArray()[0]?.rows ?? 0;
      if (tool === undefined) sql.exec(`DELETE FROM ${table}`);
      else sql.exec(`DELETE FROM ${table} WHERE tool = ?`, tool);
    }
    if (tool === undefined) sql.exec("DELETE FROM folded_searches");
    return { removed, applied: this.apply(options) };
  }

  /** The fold that `applyEverySeconds` asked for, with the options of the latest batch. */
  override async alarm(): Promise<void> {
    const options = this.ctx.storage.kv.get<LearningConfig>(KEY.options);
    if (options !== undefined) this.apply(options);
  }

  /** The version and fold time of the state in use (the empty state's before any fold). */
  private appliedVersion(): { version: number; appliedAt: number } {
    return this.ctx.storage.kv.get<{ version: number; appliedAt: number }>(KEY.appliedVersion) ?? { version: EMPTY_LEARNED_STATE.version, appliedAt: EMPTY_LEARNED_STATE.appliedAt };
  }

  /** The state in use, read back from its rows: each tool's terms and profile terms heaviest first, as folded. */
  private applied(): LearnedState {
    const { version, appliedAt } = this.appliedVersion();
    if (version === EMPTY_LEARNED_STATE.version) return EMPTY_LEARNED_STATE;
    const { sql } = this.ctx.storage;
    // Maps first (a tool may be named `__proto__` or `constructor`), records by Object.fromEntries (own keys only).
    const tools = this.termsOf("learned_terms");
    const profiles = new Map<string, CallerProfile>();
    for (const { tool, principals } of sql.exec<{ tool: string; principals: number }>("SELECT tool, principals FROM learned_profiles ORDER BY tool")) {
      profiles.set(tool, { principals, terms: [] });
    }
    for (const { tool, term, weight } of sql.exec<{ tool: string; term: string; weight: number }>(
      "SELECT tool, term, weight FROM profile_terms ORDER BY tool, weight DESC, term",
    )) profiles.get(tool)?.terms.push({ term, weight });
    const passed = this.termsOf("passed_over_terms");
    return {
      version, appliedAt, tools: Object.fromEntries(tools), profiles: Object.fromEntries(profiles),
      ...(passed.size === 0 ? {} : { passedOver: Object.fromEntries(passed) }),
    };
  }

  /** Per tool, its terms kept in `table` (learned, or passed over for), heaviest first. */
  private termsOf(table: TermsTable): Map<string, LearnedTerm[]> {
    const tools = new Map<string, LearnedTerm[]>();
    for (const { tool, term, weight, principals } of this.ctx.storage.sql.exec<{ tool: string; term: string; weight: number; principals: number }>(
      `SELECT tool, term, weight, principals FROM ${table} ORDER BY tool, weight DESC, term`,
    )) {
      const terms = tools.get(tool) ?? [];
      terms.push({ term, weight, principals });
      tools.set(tool, terms);
    }
    return tools;
  }

  /** Makes `state` the state in use: its rows replace the previous state's, with its version, in one transaction. */
  private store(state: LearnedState): void {
    const { sql } = this.ctx.storage;
    this.ctx.storage.transactionSync(() => {
      sql.exec("DELETE FROM learned_terms");
      sql.exec("DELETE FROM learned_profiles");
      sql.exec("DELETE FROM profile_terms");
      sql.exec("DELETE FROM passed_over_terms");
      for (const [table, byTool] of [["learned_terms", state.tools], ["passed_over_terms", state.passedOver ?? {}]] as const) {
        for (const [tool, terms] of Object.entries(byTool)) {
          for (const { term, weight, principals } of terms) {
            sql.exec(`INSERT INTO ${table} (tool, term, weight, principals) VALUES (?, ?, ?, ?)`, tool, term, weight, principals);
          }
        }
      }
      for (const [tool, { principals, terms }] of Object.entries(state.profiles ?? {})) {
        sql.exec("INSERT INTO learned_profiles (tool, principals) VALUES (?, ?)", tool, principals);
        for (const { term, weight } of terms) sql.exec("INSERT INTO profile_terms (tool, term, weight) VALUES (?, ?, ?)", tool, term, weight);
      }
      this.ctx.storage.kv.put(KEY.appliedVersion, { version: state.version, appliedAt: state.appliedAt });
    });
  }
}
