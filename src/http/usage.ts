// Counting usage without a round trip on the hot path: the principal object is told after the answer
// (ctx.waitUntil); a failure is logged, never the caller's problem.
import type { UsageDelta } from "../core/usage.ts";
import { principalStub } from "../durable/stubs.ts";
import type { Call } from "./stage.ts";

export function countUsage(call: Call, delta: UsageDelta): void {
  if (call.ctx === undefined) return;
  const recorded = principalStub(call.env, call.principal.id)
    .recordUsage(delta, Date.now())
    .catch((error: unknown) => {
      console.error(`usage not recorded: ${error instanceof Error ? error.message : String(error)}`);
    });
  call.ctx.waitUntil(recorded);
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
