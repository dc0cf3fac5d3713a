// The data files the Worker bundles as Data modules, for core code run under Node (the bench, bench/tuning.ts): Node
// cannot import a Data module, so the files are read here and handed to the core, as the Worker hands over its
// bundled copies: the ranked mode's word vectors (src/core/search/wordVectors.ts) and the tokenizer's byte-pair ranks
// (src/core/tools/tokens.ts), and the warm-up snapshots a new isolate runs its code on (src/core/turn/warmUp.ts).
// Read now, decoded on first use: a Node process starts as an isolate does, bytes in memory.
import { readFileSync } from "node:fs";
import { provideWordVectors } from "../src/core/search/wordVectors.ts";
import { provideTokenRanks } from "../src/core/tools/tokens.ts";
import { provideWarmUpSnapshots } from "../src/core/turn/warmUp.ts";

const WORD_VECTORS_FILE = new URL("../src/core/search/wordVectors.bin", import.meta.url);
const TOKEN_RANKS_FILE = new URL("../src/core/tools/o200kRanks.bin", import.meta.url);

export function provideBundledDataFromFiles(): void {
  const wordVectorBytes = readFileSync(WORD_VECTORS_FILE);
  provideWordVectors(() => wordVectorBytes);
  const tokenRankBytes = readFileSync(TOKEN_RANKS_FILE);
  provideTokenRanks(() => tokenRankBytes);
  const warmUpBytes = {
    minisearch: readFileSync(new URL("../src/core/turn/warmUp.minisearch.bin", import.meta.url)),
    substring: readFileSync(new URL("../src/core/turn/warmUp.substring.bin", import.meta.url)),
  };
  provideWarmUpSnapshots((mode) => warmUpBytes[mode]);
}
