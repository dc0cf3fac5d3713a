// `node --expose-gc bench/viewIndexes.ts`: what a search index per group view costs (core/tools/visibleCatalog.ts:
// every caller's search and auto-discovery run over an index of the tools its groups show). For a synthetic catalog
// of each size, half of it in one group: the build time of the view's index (median of 5) and the heap one cached
// index holds, per mode, beside the same for the whole catalog (the one index per version before views). One JSON summary on stdout. Not a test: figures depend on the machine and its load.
import { SEARCH_MODES } from "../src/core/config.ts";
import { createSearchIndex } from "../src/core/search/createIndex.ts";
import type { SearchIndex } from "../src/core/search/types.ts";
import { visibleCatalog } from "../src/core/tools/visibleCatalog.ts";
import type { ToolDefinition } from "../src/core/types.ts";
import { generatedCatalog } from "../test/support/generatedCatalog.ts";

if (typeof globalThis.gc !== "function") throw new Error("run with node --expose-gc");

function heap(): number {
  globalThis.gc?.();
  globalThis.gc?.();
  return process.memoryUsage().heapUsed;
}

function median(values: number[]): number {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

const rows: Record<string, unknown>[] = [];
for (const size of [1_000, 10_000]) {
  // Every other tool in group "a", the rest in "b": a caller of "a" sees half of the catalog.
  const tools: ToolDefinition[] = generatedCatalog(size, 7).tools.map((tool, i) => ({ ...tool, groups: [i % 2 === 0 ? "a" : "b"] }));
  for (const [label, view] of [["whole catalog", tools], ["view of group a", visibleCatalog(tools, ["a"])]] as const) for (const mode of SEARCH_MODES) {
    const times: number[] = [];
    for (let run = 0; run < 5; run++) {
      const started = performance.now();
      createSearchIndex(mode, view);
      times.push(performance.now() - started);
    }
    const kept: SearchIndex[] = [];
    const before = heap();
    for (let i = 0; i < 4; i++) kept.push(createSearchIndex(mode, view));
    const held = (heap() - before) / kept.length;
    rows.push({ tools: size, indexed: label, indexedTools: view.length, mode, buildMsMedian: Math.round(median(times) * 10) / 10, heapMiBPerIndex: Math.round((held / 2 ** 20) * 100) / 100 });
    kept.length = 0;
  }
}
process.stdout.write(`${JSON.stringify({ viewIndexes: rows }, null, 2)}\n`);
