// A shard's whole-catalog statistics kept as a snapshot read back as they were written (catalog counts and every
// term's counts); a changed byte, or a snapshot of another shard, view or code, is refused.
import { describe, expect, it } from "vitest";
import { catalogPart } from "../../../src/core/search/catalogParts.ts";
import { createIndexPart } from "../../../src/core/search/indexPart.ts";
import { wholeStatistics } from "../../../src/core/search/shardedSearch.ts";
import { SnapshotError } from "../../../src/core/search/snapshotCodec.ts";
import { decodeWholeSnapshot, encodeWholeSnapshot } from "../../../src/core/search/wholeSnapshot.ts";
import { generatedCatalog } from "../../support/generatedCatalog.ts";

const binding = { shard: "minisearch/en/nodemo/e:3/0of3", view: "", fingerprint: "code" };

function statisticsOf(mode: "minisearch" | "substring") {
  const tools = generatedCatalog(120, 5).tools;
  return wholeStatistics(Array.from({ length: 3 }, (_, shard) => {
    const { tools: partTools, positions } = catalogPart(tools, shard, 3);
    const part = createIndexPart(mode, partTools, positions);
    return { catalog: part.catalog(), table: part.termTable() };
  }));
}

describe("whole statistics snapshots", () => {
  it.each(["minisearch", "substring"] as const)("read back what was written (%s)", (mode) => {
    const whole = statisticsOf(mode);
    const sealed = encodeWholeSnapshot(binding, whole);
    const read = decodeWholeSnapshot(sealed.bytes, sealed.checksum, binding);
    expect(read.catalog).toEqual(whole.catalog);
    expect(read.table.size).toBe(whole.table.size);
    expect(read.table.entries.terms).toEqual(whole.table.entries.terms);
    expect(Array.from(read.table.entries.counts)).toEqual(Array.from(whole.table.entries.counts));
  });

  it("refuse a changed byte, and a snapshot of another shard, view or code", () => {
    const whole = statisticsOf("minisearch");
    expect(whole.table.size).toBeGreaterThan(100);
    const sealed = encodeWholeSnapshot(binding, whole);
    const changed = sealed.bytes.slice();
    changed[changed.length - 3] = (changed[changed.length - 3] ?? 0) ^ 0x01;
    expect(() => decodeWholeSnapshot(changed, sealed.checksum, binding)).toThrow(SnapshotError);
    for (const other of [{ ...binding, shard: "minisearch/en/nodemo/e:4/0of3" }, { ...binding, view: "*" }, { ...binding, fingerprint: "newer" }]) {
      expect(() => decodeWholeSnapshot(sealed.bytes, sealed.checksum, other)).toThrow(SnapshotError);
    }
  });
});
