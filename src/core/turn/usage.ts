// Usage figures per principal (kept in its PrincipalObject, read by GET /v1/stats): turns, the tool tokens that would
// have been sent without the search layer and those sent (the saving), searches, executions by decision, last
// activity. Plain counting; the object stores the result.
import type { AuditDecision } from "../guard/audit.ts";

export interface UsageFigures {
  turns: number;
  /** Tool-list tokens of every visible tool, summed over the turns (what would have been sent). */
  tokensAll: number;
  /** Tool-list tokens actually sent. */
  tokensSent: number;
  searches: number;
  executions: Record<AuditDecision, number>;
  /** Epoch ms of the last counted request; 0 = never. */
  lastActivity: number;
}

/** One request's share. */
export interface UsageDelta {
  turns?: number;
  tokensAll?: number;
  tokensSent?: number;
  searches?: number;
  execution?: AuditDecision;
}

export function emptyUsage(): UsageFigures {
  return {
    turns: 0, tokensAll: 0, tokensSent: 0, searches: 0,
    executions: { allow: 0, deny: 0, confirm: 0, error: 0, rate_limited: 0 },
    lastActivity: 0,
  };
}

/** `figures` with `delta` added at `now` (a new object). */
export function addUsage(figures: UsageFigures, delta: UsageDelta, now: number): UsageFigures {
  const executions = { ...figures.executions };
  if (delta.execution !== undefined) executions[delta.execution] += 1;
  return {
    turns: figures.turns + (delta.turns ?? 0),
    tokensAll: figures.tokensAll + (delta.tokensAll ?? 0),
    tokensSent: figures.tokensSent + (delta.tokensSent ?? 0),
    searches: figures.searches + (delta.searches ?? 0),
    executions,
    lastActivity: Math.max(figures.lastActivity, now),
  };
}

/** The saving in percent of the tokens that would have been sent (0 when nothing was counted). */
export function savedPercent(figures: UsageFigures): number {
  if (figures.tokensAll <= 0) return 0;
  return Math.round(((figures.tokensAll - figures.tokensSent) / figures.tokensAll) * 10_000) / 100;
}

/** Two deltas as one (a batch); the last execution decision is kept only as counts. */
export interface UsageBatch {
  turns: number;
  tokensAll: number;
  tokensSent: number;
  searches: number;
  executions: Partial<Record<AuditDecision, number>>;
}

export function emptyBatch(): UsageBatch {
  return { turns: 0, tokensAll: 0, tokensSent: 0, searches: 0, executions: {} };
}

export function addToBatch(batch: UsageBatch, delta: UsageDelta): void {
  batch.turns += delta.turns ?? 0;
  batch.tokensAll += delta.tokensAll ?? 0;
  batch.tokensSent += delta.tokensSent ?? 0;
  batch.searches += delta.searches ?? 0;
  if (delta.execution !== undefined) batch.executions[delta.execution] = (batch.executions[delta.execution] ?? 0) + 1;
}

/** `figures` with a whole batch added at `now` (a new object). */
export function addBatch(figures: UsageFigures, batch: UsageBatch, now: number): UsageFigures {
  const executions = { ...figures.executions };
  for (const [decision, count] of Object.entries(batch.executions)) {
    if (isDecision(decision)) executions[decision] += count;
  }
  return {
    turns: figures.turns + batch.turns,
    tokensAll: figures.tokensAll + batch.tokensAll,
    tokensSent: figures.tokensSent + batch.tokensSent,
    searches: figures.searches + batch.searches,
    executions,
    lastActivity: Math.max(figures.lastActivity, now),
  };
}

const DECISIONS: readonly AuditDecision[] = ["allow", "deny", "confirm", "error", "rate_limited"];
function isDecision(value: string): value is AuditDecision {
  return DECISIONS.some((decision) => decision === value);
}
