// An index's snapshot and back (SearchIndex.toSnapshot, snapshotCodec.ts): a cold isolate reads the index of a
// registry version instead of analyzing every tool again. The one place that knows which index restores which mode.
import type { SearchMode } from "../config.ts";
import type { ToolDefinition } from "../types.ts";
import { restoreMiniSearchIndex } from "./minisearch.ts";
import { SnapshotError, type SnapshotReader, type SnapshotWriter } from "./snapshotCodec.ts";
import { restoreSubstringIndex } from "./substring.ts";
import type { SearchIndex } from "./types.ts";

const RESTORERS: Readonly<Record<SearchMode, (tools: readonly ToolDefinition[], snapshot: SnapshotReader) => SearchIndex>> = {
  substring: restoreSubstringIndex,
  minisearch: (tools, snapshot) => restoreMiniSearchIndex(tools, snapshot),
};

/** Writes `index` into `out`; false when the index cannot (a patched substring index: build one for the snapshot). */
export function writeIndexSnapshot(index: SearchIndex, out: SnapshotWriter): boolean {
  return index.toSnapshot?.(out) === true;
}

/**
 * The index of a mode over `tools` from what an index of that mode over the same tools wrote: nothing analyzed again.
 * Throws SnapshotError when the snapshot does not fit the tools or the mode.
 */
export function restoreSearchIndex(mode: SearchMode, tools: readonly ToolDefinition[], snapshot: SnapshotReader): SearchIndex {
  const restore = RESTORERS[mode] as ((tools: readonly ToolDefinition[], snapshot: SnapshotReader) => SearchIndex) | undefined;
  if (!restore) throw new SnapshotError(`unknown search mode ${JSON.stringify(mode)}`);
  const index = restore(tools, snapshot);
  snapshot.end();
  return index;
}
