// Every test file's setup (vitest.config.ts): the Worker's own shell hands the core its bundled data (Data modules, as
// in `wrangler dev` and a deployment): the word-vector table and the tokenizer's ranks, for the tests that reach the
// core without the Worker's entry.
import { provideBundledTokenRanks } from "../../src/isolate/tokenRanks.ts";
import { provideBundledWordVectors } from "../../src/isolate/wordVectors.ts";

provideBundledWordVectors();
provideBundledTokenRanks();
