// The word-vector table for core code run under Node (the bench, bench/tuning.ts): Node cannot import the Worker's
// Data module, so the file is read here and handed to the core (src/core/search/wordVectors.ts), as the Worker hands
// over its bundled copy. Read now, decoded on first use: a Node process starts as an isolate does, bytes in memory.
import { readFileSync } from "node:fs";
import { provideWordVectors } from "../src/core/search/wordVectors.ts";

export const WORD_VECTORS_FILE = new URL("../src/core/search/wordVectors.bin", import.meta.url);

export function provideWordVectorsFromFile(): void {
  const bytes = readFileSync(WORD_VECTORS_FILE);
  provideWordVectors(() => bytes);
}
