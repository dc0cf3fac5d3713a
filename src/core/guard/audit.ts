// The audit line of one tool execution (docs/DESIGN.md, "Flows"): who ran what, in which session, with which outcome and how long it
// took. Never the arguments' values (nor their names: a model can put data in a key). The Worker logs the line with
// console.log, so it lands in Workers Logs / `wrangler tail` as one JSON object per execution.
import { ANONYMOUS_PRINCIPAL_ID } from "./authority.ts";
import type { GuardDecision, ToolResult } from "../types.ts";

/**
 * allow: ran (or was handed to the client); deny: refused by the guard; confirm: held for the user's approval;
 * error: a tool error (unknown or gated tool, invalid arguments, executor failure); rate_limited: refused before the
 * registry was reached.
 */
export type AuditDecision = "allow" | "deny" | "confirm" | "error" | "rate_limited";

export interface AuditEntry {
  /** The verified principal's id; undefined = anonymous. */
  principalId: string | undefined;
  sessionId: string | undefined;
  /** The tool name as the caller asked for it (it may not exist). */
  tool: string;
  decision: AuditDecision;
  durationMs: number;
  /** A short machine-readable reason (e.g. `level`, `banned`, `denied`, `timeout`); never free text from outside. */
  reason?: string;
  /** Epoch ms of the call; defaults to none (Workers Logs timestamps every line). */
  at?: number;
}

/** Longest text field kept in a line, so that a hostile tool name cannot flood the logs. */
const MAX_FIELD = 128;

function cap(value: string): string {
  return value.length > MAX_FIELD ? `${value.slice(0, MAX_FIELD)}…` : value;
}

/** The audit entry as one line of JSON (JSON.stringify escapes line breaks, so a line cannot be forged). */
export function auditLine(entry: AuditEntry): string {
  const line: Record<string, string | number> = {
    type: "audit",
    event: "execute",
    principal: cap(entry.principalId ?? ANONYMOUS_PRINCIPAL_ID),
    session: cap(entry.sessionId ?? ""),
    tool: cap(entry.tool),
    decision: entry.decision,
    durationMs: Math.max(0, Math.round(entry.durationMs)),
  };
  if (entry.reason !== undefined) line.reason = cap(entry.reason);
  if (entry.at !== undefined) line.at = new Date(entry.at).toISOString();
  return JSON.stringify(line);
}

/** The decision a call's result stands for: a guard's denial is `deny`, any other failure `error`. */
export function auditDecisionOf(result: ToolResult, decision?: GuardDecision): AuditDecision {
  if (decision?.kind === "deny") return "deny";
  if (result.confirmation) return "confirm";
  return result.isError ? "error" : "allow";
}

/** What one `prepare` gave the model and kept from it: the "discovery receipt". */
export interface DiscoveryReceipt {
  principalId: string | undefined;
  sessionId: string;
  /** `registry` (the registry's tools visible to the caller) or `client` (the request's own tools). */
  catalog: "registry" | "client";
  /** The registry's `epoch:version`, or the client catalog's hash. */
  catalogVersion: string;
  /** Tools this turn could use (after the group gate). */
  visible: number;
  /** Tools sent to the model (search_tools included). */
  sent: number;
  /** Registry tools the group gate kept from this caller (0 for a client catalog). */
  withheldByGate: number;
  tokensAll: number;
  tokensSent: number;
  durationMs: number;
}

/** The receipt as one audit line of JSON (`event: "prepare"`), no tool names, no message text. */
export function receiptLine(receipt: DiscoveryReceipt): string {
  return JSON.stringify({
    type: "audit",
    event: "prepare",
    principal: cap(receipt.principalId ?? ANONYMOUS_PRINCIPAL_ID),
    session: cap(receipt.sessionId),
    catalog: receipt.catalog,
    catalogVersion: cap(receipt.catalogVersion),
    visible: receipt.visible,
    sent: receipt.sent,
    withheldByGate: receipt.withheldByGate,
    tokensAll: receipt.tokensAll,
    tokensSent: receipt.tokensSent,
    durationMs: Math.max(0, Math.round(receipt.durationMs)),
  });
}
