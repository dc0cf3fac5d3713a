// The isolate's start (src/index.ts): the warm-up snapshots handed to the core (Data modules, as the word vectors
// are: src/isolate/wordVectors.ts), and the configured search mode's code run once on its snapshot
// (src/core/turn/warmUp.ts), unless the configuration turns it off (`warmUp: false`).
import { provideWarmUpSnapshots, warmUp, type WarmUpOutcome } from "../core/turn/warmUp.ts";
import minisearchSnapshot from "../core/turn/warmUp.minisearch.bin";
import substringSnapshot from "../core/turn/warmUp.substring.bin";
import { loadSettings } from "./settings.ts";

/** Called once, when the Worker's module loads: the bytes are in memory already, read only by warmUpIsolate. */
export function provideBundledWarmUpSnapshots(): void {
  provideWarmUpSnapshots((mode) => (mode === "minisearch" ? minisearchSnapshot : substringSnapshot));
}

/**
 * Warms the configured search mode's code at the isolate's start: its outcome, or undefined when nothing ran (turned
 * off, or settings that do not load: left to the first request to report). Never throws: a warm-up that fails is
 * logged, and the isolate starts without it.
 */
export async function warmUpIsolate(env: object): Promise<WarmUpOutcome | undefined> {
  let mode;
  try {
    const loaded = loadSettings(env);
    if (!loaded.ok || !loaded.settings.config.warmUp) return undefined;
    mode = loaded.settings.config.searchMode;
  } catch {
    return undefined;
  }
  const outcome = await warmUp(mode);
  if (!outcome.ok) console.warn(`the isolate started without its warm-up: ${outcome.reason}`);
  return outcome;
}
