// Learning from calls, on the request side (docs/search.md, "Learning from calls"): a search of the registry keeps its
// analyzed terms in the session (with the tools it showed); a registry tool's call that the guard let run and that ran
// asks the session, after the answer, which search showed the tool, and adds that evidence to this isolate's batch.
// A batch goes to the learning object in one RPC, at most `usageFlushMs` after its first event (the usage figures'
// window; or at once when full), through the waitUntil of the request that opened it: nothing of it is on a
// request's path, and a failure is logged. An isolate that dies loses at most that batch.
import type { EvidenceEvent } from "../core/learning/evidence.ts";
import { evidenceTerms } from "../core/learning/evidence.ts";
import { learningStub, sessionStub } from "../durable/stubs.ts";
import { learningOptions } from "../isolate/learningCache.ts";
import type { Call } from "./stage.ts";

/** A batch this full is sent at once. */
export const LEARNING_BATCH_EVENTS = 200;

let batch: EvidenceEvent[] = [];
let sending: Promise<void> | undefined;
/** Evidence still being gathered (the session's answer awaited), so that the owner's apply can wait for it. */
const gathering = new Set<Promise<void>>();

/** The terms a registry search teaches the tools it shows, when learning is on (else undefined: nothing is kept). */
export function searchLearnTerms(call: Call, query: string): string[] | undefined {
  if (!call.settings.config.learning.enabled) return undefined;
  const terms = evidenceTerms(query);
  return terms.length > 0 ? terms : undefined;
}

/**
 * A registry tool's call ran with the guard's allowance: when a search of this session showed the tool, its terms are
 * evidence, gathered and sent after the answer. Does nothing when learning is off or the face has no waitUntil.
 */
export function learnFromCall(call: Call, sessionId: string, tool: string): void {
  const { ctx } = call;
  if (!call.settings.config.learning.enabled || ctx === undefined) return;
  const principal = call.principal.id;
  const work = (async () => {
    try {
      const found = await sessionStub(call.env, principal, sessionId).foundTerms(tool);
      if (found === null || found.terms.length === 0) return;
      batch.push({
        tool, terms: found.terms, principal, at: Date.now(),
        ...(found.search === undefined ? {} : { search: found.search }), ...(found.above === undefined ? {} : { above: found.above }),
      });
      await flushSoon(call);
    } catch (error) {
      console.error(`learning: evidence not recorded: ${error instanceof Error ? error.message : String(error)}`);
    }
  })();
  gathering.add(work);
  void work.finally(() => gathering.delete(work));
  ctx.waitUntil(work);
}

function flushSoon(call: Call): Promise<void> {
  const delayMs = call.settings.config.usageFlushMs;
  if (batch.length >= LEARNING_BATCH_EVENTS || delayMs === 0) return send(call);
  sending ??= (async () => {
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    sending = undefined;
    await send(call);
  })();
  return sending;
}

async function send(call: Call): Promise<void> {
  const events = batch;
  batch = [];
  if (events.length === 0) return;
  try {
    await learningStub(call.env).record(events, learningOptions(call.settings.config));
  } catch (error) {
    console.error(`learning: ${events.length} evidence events not recorded: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Sends what this isolate has gathered now (the owner's apply folds it too). */
export async function flushLearning(call: Call): Promise<void> {
  await Promise.allSettled(gathering);
  await send(call);
}
