// Writes src/core/turn/warmUp.<mode>.bin, the registry snapshots a new isolate warms its code on at its start
// (src/core/turn/warmUp.ts): every eighth tool of the demo catalog, per search mode. Run it again whenever the
// snapshot format, the index, the demo catalog or the bundled data change:
//
//   node scripts/warmUpSnapshots.ts
//
// test/core/turn/warmUp.test.ts fails, naming this script, while the files differ from what it would write.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { provideBundledDataFromFiles } from "../bench/bundledData.ts";
import { demoCatalog } from "../src/catalog/demo.ts";
import { SEARCH_MODES } from "../src/core/config.ts";
import { warmUpSnapshotBytes } from "../src/core/turn/warmUp.ts";

provideBundledDataFromFiles();
for (const mode of SEARCH_MODES) {
  const file = fileURLToPath(new URL(`../src/core/turn/warmUp.${mode}.bin`, import.meta.url));
  const bytes = await warmUpSnapshotBytes(mode, demoCatalog());
  writeFileSync(file, bytes);
  console.log(JSON.stringify({ mode, file, bytes: bytes.length }));
}
