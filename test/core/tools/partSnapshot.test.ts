// A search shard's part read back from its snapshot ranks exactly as the part built from the tools (a sharded search
// over restored parts answers as one index over the whole catalog), in both modes; a snapshot with a changed byte, or
// of another shard, view, mode or code, is refused (SnapshotError), never read.
import { describe, expect, it } from "vitest";
import { SEARCH_MODES } from "../../../src/core/config.ts";
import { catalogPart } from "../../../src/core/search/catalogParts.ts";
import { createSearchIndex } from "../../../src/core/search/createIndex.ts";
import { createIndexPart } from "../../../src/core/search/indexPart.ts";
import type { IndexPart } from "../../../src/core/search/indexPart.ts";
import { ShardedSearch, shardsInMemory } from "../../../src/core/search/shardedSearch.ts";
import { SnapshotError } from "../../../src/core/search/snapshotCodec.ts";
import { decodePartSnapshot, encodePartSnapshot, type PartBinding } from "../../../src/core/tools/partSnapshot.ts";
import { generatedCatalog, generatedQueries } from "../../support/generatedCatalog.ts";

const catalog = generatedCatalog(160, 5);
const tools = catalog.tools.map((tool, i) => (i % 4 === 0 ? { ...tool, groups: [`g${i % 3}`] } : tool));
const queries = ["", ...generatedQueries(catalog.words, 12, 9), "get the weather in paris", tools[3]?.name ?? ""];
const binding = (part: number): PartBinding => ({ shard: `minisearch/en/nodemo/e:3/${part}of3`, view: "", fingerprint: "f1" });

function restored(mode: (typeof SEARCH_MODES)[number], part: number): IndexPart {
  const { tools: partTools, positions } = catalogPart(tools, part, 3);
  const sealed = encodePartSnapshot(binding(part), { tools: partTools, positions, part: createIndexPart(mode, partTools, positions) });
  if (sealed === undefined) throw new Error("no snapshot written");
  const content = decodePartSnapshot(sealed.bytes, sealed.checksum, binding(part), mode);
  expect(content.positions).toEqual(positions);
  expect(content.tools.map((tool) => tool.name)).toEqual(partTools.map((tool) => tool.name));
  expect(content.tools.map((tool) => tool.groups)).toEqual(partTools.map((tool) => tool.groups));
  return content.part;
}

describe.each(SEARCH_MODES)("a search part's snapshot, %s", (mode) => {
  it("restores parts whose sharded ranking is the ranking of one index over the whole", { timeout: 60_000 }, async () => {
    const parts = [0, 1, 2].map((part) => restored(mode, part));
    const search = new ShardedSearch(mode, tools, shardsInMemory(parts));
    const single = createSearchIndex(mode, tools);
    for (const query of queries) {
      expect({ query, page: await search.searchPage(query, 10) }).toEqual({ query, page: single.searchPage(query, 10) });
      expect({ query, scored: await search.scored(query, 6) }).toEqual({ query, scored: single.scored(query, 6) });
    }
  });

  it("refuses a changed byte, another shard, view, mode or code", () => {
    const { tools: partTools, positions } = catalogPart(tools, 1, 3);
    const sealed = encodePartSnapshot(binding(1), { tools: partTools, positions, part: createIndexPart(mode, partTools, positions) });
    if (sealed === undefined) throw new Error("no snapshot written");
    const changed = sealed.bytes.slice();
    const at = Math.floor(changed.length / 2);
    changed[at] = (changed[at] ?? 0) ^ 1;
    expect(() => decodePartSnapshot(changed, sealed.checksum, binding(1), mode)).toThrow(SnapshotError);
    const other = mode === "minisearch" ? "substring" : "minisearch";
    for (const [wrong, wrongMode] of [
      [binding(2), mode],
      [{ ...binding(1), view: "*" }, mode],
      [{ ...binding(1), fingerprint: "f2" }, mode],
      [binding(1), other],
    ] as const) {
      expect(() => decodePartSnapshot(sealed.bytes, sealed.checksum, wrong, wrongMode)).toThrow(SnapshotError);
    }
  });
});
