// Counting usage without a round trip on the hot path: each isolate sums the counts per principal and sends the sum
// to the principal's object once per `usageFlushMs` (one RPC per batch, after the answer, through the waitUntil of
// the request that opened the batch); a failure is logged, never the caller's problem. An isolate that dies holds at
// most one batch (under usageFlushMs of counts).
import { receiptLine } from "../core/guard/audit.ts";
import type { DiscoveryReceipt } from "../core/guard/audit.ts";
import { addToBatch, emptyBatch } from "../core/turn/usage.ts";
import type { UsageBatch, UsageDelta } from "../core/turn/usage.ts";
import { principalStub } from "../durable/stubs.ts";
import type { Call } from "./stage.ts";

const batches = new Map<string, UsageBatch>();

export function countUsage(call: Call, delta: UsageDelta): void {
  const { ctx } = call;
  if (ctx === undefined) return;
  const principalId = call.principal.id;
  const open = batches.get(principalId);
  if (open) {
    addToBatch(open, delta);
    return;
  }
  const batch = emptyBatch();
  addToBatch(batch, delta);
  batches.set(principalId, batch);
  const delayMs = call.settings.config.usageFlushMs;
  const flush = async (): Promise<void> => {
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (batches.get(principalId) === batch) batches.delete(principalId);
    try {
      await principalStub(call.env, principalId).recordUsage(batch, Date.now());
    } catch (error) {
      console.error(`usage not recorded: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  ctx.waitUntil(flush());
}

/** The Analytics Engine dataset binding's name (optional: absent means off). */
export const ANALYTICS_BINDING = "USAGE_ANALYTICS";

interface AnalyticsDataset {
  writeDataPoint(point: { blobs?: string[]; doubles?: number[]; indexes?: string[] }): void;
}

function analyticsOf(env: Env): AnalyticsDataset | undefined {
  const binding: unknown = Reflect.get(env, ANALYTICS_BINDING);
  if (typeof binding !== "object" || binding === null || !("writeDataPoint" in binding)) return undefined;
  const write: unknown = binding.writeDataPoint;
  if (typeof write !== "function") return undefined;
  return { writeDataPoint: (point) => { Reflect.apply(write, binding, [point]); } };
}

/**
 * One Analytics Engine data point per model turn (prepare), when the binding is configured: index = the principal;
 * blobs = [principal, catalog kind]; doubles = [visible, sent, tokensAll, tokensSent, withheldByGate].
 */
export function turnDataPoint(
  call: Call,
  turn: { catalog: string; visible: number; sent: number; tokensAll: number; tokensSent: number; withheldByGate: number },
): void {
  const dataset = analyticsOf(call.env);
  if (!dataset) return;
  try {
    dataset.writeDataPoint({
      indexes: [call.principal.id.slice(0, 96)],
      blobs: [call.principal.id, turn.catalog],
      doubles: [turn.visible, turn.sent, turn.tokensAll, turn.tokensSent, turn.withheldByGate],
    });
  } catch (error) {
    console.error(`analytics data point not written: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** What a turn (POST prepare, MCP tools/list) offered: the receipt's figures but who and when. */
export type TurnFigures = Omit<DiscoveryReceipt, "principalId" | "sessionId" | "durationMs">;

/**
 * One model turn, wherever it was prepared: counted in the usage figures, one Analytics Engine data point, and the
 * discovery receipt (one structured audit line: what the model was shown and what was kept from it).
 */
export function recordTurn(call: Call, sessionId: string, turn: TurnFigures, startedMs: number): void {
  countUsage(call, { turns: 1, tokensAll: turn.tokensAll, tokensSent: turn.tokensSent });
  turnDataPoint(call, turn);
  console.log(receiptLine({ ...turn, principalId: call.principal.id, sessionId, durationMs: Date.now() - startedMs }));
}
