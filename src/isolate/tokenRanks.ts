// The tokenizer's byte-pair ranks (src/core/tools/tokenRanks.ts), bundled with the Worker as a Data module (wrangler.toml's
// [[rules]]: the file's bytes, in memory from the isolate's start) and handed to the core, which decodes them when it
// first counts tokens (a cold isolate whose registry snapshot carries its counts never does).
import { provideTokenRanks } from "../core/tools/tokens.ts";
import tokenRanksFile from "../core/tools/o200kRanks.bin";

/** Called once, when the Worker's module loads (src/index.ts): costs nothing until the first count. */
export function provideBundledTokenRanks(): void {
  provideTokenRanks(() => tokenRanksFile);
}
