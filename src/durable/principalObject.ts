// One SQLite-backed Durable Object per principal: the index of that principal's sessions, so that memory/clear with
// scope "all" reaches every one of them, and so that their number is bounded (limits.maxSessionsPerPrincipal: a
// session joins before its first write is kept, and leaves when it expires or is cleared empty). A clear fans out to the session objects in parallel batches; past
// SYNC_LIMIT sessions the rest continues in alarm invocations (each with a fresh subrequest budget), so any
// number of sessions is cleared without one request exceeding the platform's subrequest limit.
import { DurableObject } from "cloudflare:workers";
import { addBatch, emptyUsage } from "../core/turn/usage.ts";
import type { UsageBatch, UsageFigures } from "../core/turn/usage.ts";
import type { TokenSet } from "./oauthClient.ts";
import { sessionStub } from "./stubs.ts";
import { UpstreamGrantStore } from "./upstreamGrants.ts";
import type { PendingSignIn } from "./upstreamGrants.ts";

/** Sessions cleared inside the clear request itself; the rest follows through the alarm. */
export const SYNC_LIMIT = 500;
/** Parallel RPCs to session objects at a time. */
const CONCURRENCY = 50;

interface ClearJob {
  principalId: string;
  /** The last session id cleared (sessions are visited in id order). */
  after: string;
  /** Only sessions indexed before the clear was asked are part of it. */
  startedAt: number;
}

export interface ClearOutcome {
  /** Sessions cleared so far. */
  cleared: number;
  /** Sessions still to clear (by the alarm, within seconds). */
  pending: number;
}

export class PrincipalObject extends DurableObject<Env> {
  /** The principal's own grants to OAuth upstreams (sealed) and its sign-ins under way. */
  private readonly grants: UpstreamGrantStore;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.grants = new UpstreamGrantStore(ctx.storage, env);
    this.createTables();
  }

  private createTables(): void {
    this.ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS sessions (session_id TEXT PRIMARY KEY, added INTEGER NOT NULL)");
    this.grants.createTables();
  }

  /** This principal's grant to an OAuth upstream, as of the upstream's registration generation (durable/upstreamGrants.ts). */
  upstreamGrant(principalId: string, upstreamId: string, generation: string): Promise<TokenSet | undefined> {
    return this.grants.grant(principalId, upstreamId, generation);
  }

  putUpstreamGrant(principalId: string, upstreamId: string, generation: string, tokens: TokenSet): Promise<void> {
    return this.grants.putGrant(principalId, upstreamId, generation, tokens);
  }

  deleteUpstreamGrant(principalId: string, upstreamId: string, onlyIfAccessToken?: string): Promise<{ deleted: boolean; tokens?: TokenSet }> {
    return this.grants.deleteGrant(principalId, upstreamId, onlyIfAccessToken);
  }

  beginUpstreamSignIn(principalId: string, nonce: string, pending: PendingSignIn, expiresAt: number): Promise<boolean> {
    return this.grants.beginSignIn(principalId, nonce, pending, expiresAt);
  }

  takeUpstreamSignIn(principalId: string, nonce: string): Promise<PendingSignIn | undefined> {
    return this.grants.takeSignIn(principalId, nonce);
  }

  /**
   * Lists a session unless the index already holds `limit` others (0 = no limit). True when the session is listed
   * (already, or now). Count and insert run without an await in between: concurrent new sessions cannot overshoot.
   */
  addSession(sessionId: string, limit = 0): boolean {
    const listed = this.ctx.storage.sql.exec("SELECT 1 FROM sessions WHERE session_id = ?", sessionId).toArray().length > 0;
    if (listed) return true;
    if (limit > 0 && this.sessionCount() >= limit) return false;
    this.ctx.storage.sql.exec("INSERT INTO sessions (session_id, added) VALUES (?, ?)", sessionId, Date.now());
    return true;
  }

  /** An expired (or cleared, empty) session leaves the index; an empty index deletes the object's storage. */
  async removeSession(sessionId: string): Promise<void> {
    this.ctx.storage.sql.exec("DELETE FROM sessions WHERE session_id = ?", sessionId);
    // Grants to upstreams outlive the sessions: the user signed in to keep them.
    if (this.sessionCount() === 0 && this.ctx.storage.kv.get<ClearJob>("clearJob") === undefined && !this.grants.holdsAny()) {
      // The usage figures outlive the sessions (they are the operator's record).
      const usage = this.ctx.storage.kv.get<UsageFigures>("usage");
      await this.ctx.storage.deleteAll();
      this.createTables();
      if (usage !== undefined) this.ctx.storage.kv.put("usage", usage);
    }
  }

  /** Adds a batch of requests' shares to the usage figures (sent after the answers, through waitUntil). */
  recordUsage(batch: UsageBatch, now: number): void {
    this.ctx.storage.kv.put("usage", addBatch(this.usage(), batch, now));
  }

  usage(): UsageFigures {
    return this.ctx.storage.kv.get<UsageFigures>("usage") ?? emptyUsage();
  }

  sessionCount(): number {
    return this.ctx.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM sessions").one().n;
  }

  listSessions(): string[] {
    return this.ctx.storage.sql
      .exec<{ session_id: string }>("SELECT session_id FROM sessions ORDER BY session_id")
      .toArray()
      .map((row) => row.session_id);
  }

  /** Clears the discovered set of every session of the principal; `syncLimit` sessions now, the rest by alarm. */
  async clearAll(principalId: string, syncLimit = SYNC_LIMIT): Promise<ClearOutcome> {
    const job: ClearJob = { principalId, after: "", startedAt: Date.now() };
    this.ctx.storage.kv.put("clearJob", job);
    return this.runJob(job, syncLimit);
  }

  override async alarm(): Promise<void> {
    const job = this.ctx.storage.kv.get<ClearJob>("clearJob");
    if (job) await this.runJob(job, SYNC_LIMIT);
  }

  private async runJob(job: ClearJob, limit: number): Promise<ClearOutcome> {
    const batch = this.ctx.storage.sql
      .exec<{ session_id: string }>(
        "SELECT session_id FROM sessions WHERE session_id > ? AND added <= ? ORDER BY session_id LIMIT ?",
        job.after,
        job.startedAt,
        limit,
      )
      .toArray()
      .map((row) => row.session_id);
    for (let start = 0; start < batch.length; start += CONCURRENCY) {
      const chunk = batch.slice(start, start + CONCURRENCY);
      await Promise.all(
        chunk.map((sessionId) =>
          sessionStub(this.env, job.principalId, sessionId).clearDiscovered(),
        ),
      );
    }
    const last = batch.at(-1);
    const pending = last === undefined ? 0 : this.remainingAfter(last, job.startedAt);
    if (pending > 0 && last !== undefined) {
      this.ctx.storage.kv.put("clearJob", { ...job, after: last });
      await this.ctx.storage.setAlarm(Date.now());
    } else {
      this.ctx.storage.kv.delete("clearJob");
    }
    return { cleared: batch.length, pending };
  }

  private remainingAfter(after: string, startedAt: number): number {
    return this.ctx.storage.sql
      .exec<{ n: number }>("SELECT COUNT(*) AS n FROM sessions WHERE session_id > ? AND added <= ?", after, startedAt)
      .one().n;
  }
}
