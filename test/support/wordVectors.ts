// Every test file's setup (vitest.config.ts): the Worker's own shell hands the core its bundled word-vector table (a
// Data module, as in `wrangler dev` and a deployment), for the tests that reach the core without the Worker's entry.
import { provideBundledWordVectors } from "../../src/isolate/wordVectors.ts";

provideBundledWordVectors();
