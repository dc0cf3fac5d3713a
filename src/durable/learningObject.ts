// The deployment's evidence for learning from calls (docs/search.md, "Learning from calls"): one SQLite-backed object,
// `learning`. Isolates send it batches of evidence after their answers (never on a request's path); it keeps one row
// per (tool, term, principal), folds the rows into the learned state at most every `applyEverySeconds` (an alarm) or
// when the owner applies them, and hands the folded state, with its version, to isolates that hold an older one.
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
  reinforced,
  rowCounts,
  type EvidenceRow,
  type LearnedState,
} from "../core/learning/evidence.ts";

/** Most evidence events one batch may carry (an isolate's batch is smaller; the rest of a larger one is dropped). */
export const MAX_BATCH_EVENTS = 1_000;
/** Most evidence rows kept: past it, the oldest rows go when the evidence is folded. */
export const MAX_EVIDENCE_ROWS = 200_000;

const KEY = { applied: "applied", options: "options" } as const;

export interface LearningReport {
  /** The folded state the ranking uses now. */
  applied: LearnedState;
  /** The evidence kept (not yet all counting: a term counts with enough principals). */
  evidence: { rows: number; tools: number; principals: number };
}

export class LearningObject extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS evidence (
      tool TEXT NOT NULL, term TEXT NOT NULL, principal TEXT NOT NULL, weight REAL NOT NULL, at INTEGER NOT NULL,
      PRIMARY KEY (tool, term, principal)) WITHOUT ROWID`);
    ctx.storage.sql.exec("CREATE INDEX IF NOT EXISTS evidence_by_at ON evidence (at)");
  }

  /**
   * Keeps a batch of evidence (malformed events are skipped) and makes sure it is folded within
   * `options.applyEverySeconds`; returns how many events were kept.
   */
  async record(events: unknown[], options: LearningConfig): Promise<number> {
    const now = Date.now();
    let kept = 0;
    for (const event of events.slice(0, MAX_BATCH_EVENTS)) {
      if (!isEvidenceEvent(event)) continue;
      kept++;
      for (const term of event.terms) {
        const key = { tool: event.tool, term, principal: event.principal };
        const row = this.ctx.storage.sql
          .exec<{ weight: number; at: number }>("SELECT weight, at FROM evidence WHERE tool = ? AND term = ? AND principal = ?", event.tool, term, event.principal)
          .toArray()[0];
        const next = reinforced(row === undefined ? undefined : { ...key, ...row }, key, Math.min(now, event.at), options.halfLifeDays);
        this.ctx.storage.sql.exec(
          "INSERT INTO evidence (tool, term, principal, weight, at) VALUES (?, ?, ?, ?, ?) " +
            "ON CONFLICT (tool, term, principal) DO UPDATE SET weight = excluded.weight, at = excluded.at",
          next.tool, next.term, next.principal, next.weight, next.at,
        );
      }
    }
    this.ctx.storage.kv.put(KEY.options, options);
    if (kept > 0 && (await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(now + options.applyEverySeconds * 1000);
    return kept;
  }

  /** The folded state when it is newer than `version` (the one the caller holds), else only the current version. */
  stateSince(version: number): LearnedState | { version: number } {
    const applied = this.applied();
    return applied.version === version ? { version } : applied;
  }

  /** Folds the evidence now (dropping rows that no longer count, and the oldest past MAX_EVIDENCE_ROWS). */
  apply(options: LearningConfig): LearnedState {
    this.ctx.storage.kv.put(KEY.options, options);
    const now = Date.now();
    const { sql } = this.ctx.storage;
    const rows: EvidenceRow[] = [];
    const stale: EvidenceRow[] = [];
    for (const row of sql.exec<{ tool: string; term: string; principal: string; weight: number; at: number }>("SELECT tool, term, principal, weight, at FROM evidence")) {
      (rowCounts(row, now, options.halfLifeDays) ? rows : stale).push({ ...row });
    }
    for (const row of stale) sql.exec("DELETE FROM evidence WHERE tool = ? AND term = ? AND principal = ?", row.tool, row.term, row.principal);
    if (rows.length > MAX_EVIDENCE_ROWS) {
      rows.sort((a, b) => a.at - b.at);
      for (const row of rows.splice(0, rows.length - MAX_EVIDENCE_ROWS)) {
        sql.exec("DELETE FROM evidence WHERE tool = ? AND term = ? AND principal = ?", row.tool, row.term, row.principal);
      }
    }
    const state = foldEvidence(rows, now, options, this.applied().version + 1);
    this.ctx.storage.kv.put(KEY.applied, state);
    return state;
  }

  /** What the owner sees: the state in use and how much evidence is kept. */
  report(): LearningReport {
    const counts = this.ctx.storage.sql
      .exec<{ rows: number; tools: number; principals: number }>(
        "SELECT COUNT(*) AS rows, COUNT(DISTINCT tool) AS tools, COUNT(DISTINCT principal) AS principals FROM evidence",
      )
      .toArray()[0];
    return { applied: this.applied(), evidence: { rows: counts?.rows ?? 0, tools: counts?.tools ?? 0, principals: counts?.principals ?? 0 } };
  }

  /**
   * Forgets the evidence of `tool`, or all of it (undefined), and folds at once, so that the ranking forgets it on the
   * next version; returns how many rows went and the new state.
   */
  forget(tool: string | undefined, options: LearningConfig): { removed: number; applied: LearnedState } {
    const { sql } = this.ctx.storage;
    const counted = tool === undefined
      ? sql.exec<{ rows: number }>("SELECT COUNT(*) AS rows FROM evidence")
      : sql.exec<{ rows: number }>("SELECT COUNT(*) AS rows FROM evidence WHERE tool = ?", tool);
    const removed = counted.toArray()[0]?.rows ?? 0;
    if (tool === undefined) sql.exec("DELETE FROM evidence");
    else sql.exec("DELETE FROM evidence WHERE tool = ?", tool);
    return { removed, applied: this.apply(options) };
  }

  /** The fold that `applyEverySeconds` asked for, with the options of the latest batch. */
  override async alarm(): Promise<void> {
    const options = this.ctx.storage.kv.get<LearningConfig>(KEY.options);
    if (options !== undefined) this.apply(options);
  }

  private applied(): LearnedState {
    return this.ctx.storage.kv.get<LearnedState>(KEY.applied) ?? EMPTY_LEARNED_STATE;
  }
}
