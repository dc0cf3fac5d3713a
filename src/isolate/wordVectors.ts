// The word-vector table of the ranked mode (src/core/search/wordVectors.ts), bundled with the Worker as a Data module
// (wrangler.toml's [[rules]]: the file's bytes, in memory from the isolate's start, an ArrayBuffer) and handed to the
// core, which decodes it on the first search that needs it.
import { provideWordVectors } from "../core/search/wordVectors.ts";
import wordVectorsFile from "../core/search/wordVectors.bin";

/** Called once, when the Worker's module loads (src/index.ts): costs nothing until the table's first use. */
export function provideBundledWordVectors(): void {
  provideWordVectors(() => wordVectorsFile);
}
