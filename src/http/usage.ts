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
