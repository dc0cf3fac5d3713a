// The learned state this isolate ranks with (docs/search.md, "Learning from calls"): read from the learning object at
// most once per `registryVersionTtlMs` (the same staleness bound as the registry's), rebuilt into an overlay only when
// its version moves, so that a search never waits on the learning object but for that one check. An owner's apply or
// reset hands its new state to the isolate that served it at once.
import type { LearningConfig } from "../core/config.ts";
import type { LearnedState } from "../core/learning/evidence.ts";
import { LearnedOverlay } from "../core/learning/overlay.ts";
import { learningStub } from "../durable/stubs.ts";
import type { Settings } from "./settings.ts";

interface Held {
  overlay: LearnedOverlay;
  checkedAt: number;
}

let held: Held | undefined;
/** The check in flight, shared by the searches that need it meanwhile. */
let checking: Promise<LearnedOverlay> | undefined;

/** The overlay of the latest learned state this isolate knows; undefined when learning is off. */
export async function currentLearning(env: Env, settings: Settings): Promise<LearnedOverlay | undefined> {
  if (!settings.config.learning.enabled) return undefined;
  const now = Date.now();
  if (held !== undefined && now - held.checkedAt < settings.config.registryVersionTtlMs) return held.overlay;
  checking ??= check(env).finally(() => {
    checking = undefined;
  });
  return checking;
}

async function check(env: Env): Promise<LearnedOverlay> {
  const known = held?.overlay.version ?? -1;
  const answer = await learningStub(env).stateSince(known);
  if ("tools" in answer) adoptLearnedState(answer);
  else if (held !== undefined) held.checkedAt = Date.now();
  return held?.overlay ?? new LearnedOverlay({ version: answer.version, appliedAt: 0, tools: {} });
}

/** Takes `state` as this isolate's: the learning object's answer, or the owner's apply or reset served here. */
export function adoptLearnedState(state: LearnedState): void {
  held = { overlay: new LearnedOverlay(state), checkedAt: Date.now() };
}

/** The options the learning object folds with (the configuration's, less the switch). */
export function learningOptions(config: { learning: LearningConfig }): LearningConfig {
  return { ...config.learning };
}

/** Forgets the held state (tests). */
export function resetIsolateLearning(): void {
  held = undefined;
  checking = undefined;
}
