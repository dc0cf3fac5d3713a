// A search shard's part kept as one snapshot (src/durable/searchShardObject.ts): the part's definitions as the
// registry validated them, their places in the whole catalog, and the part's index (indexPart.ts), so that a shard
// that was evicted, or a second one of the same name, reads its part instead of reading every registry row and
// analyzing its tools again. Bound to the shard's name (registry version, mode, locale, part), the view (the groups
// it shows) and the code's fingerprint (registrySnapshot.ts), and checked whole (a checksum) before anything is read.
import type { SearchMode } from "../config.ts";
import { createIndexPart, type IndexPart } from "../search/indexPart.ts";
import { SnapshotError, SnapshotReader, SnapshotWriter, snapshotChecksum } from "../search/snapshotCodec.ts";
import type { ToolDefinition } from "../types.ts";
import { readDefinitions, writeDefinitions } from "./definitionTable.ts";

const MAGIC = "toolgate-search-part";
export const PART_SNAPSHOT_FORMAT = 3;

/** What a part's snapshot is of: the shard object's name, the view's key and the code's fingerprint. */
export interface PartBinding {
  shard: string;
  view: string;
  fingerprint: string;
}

export interface PartContent {
  tools: readonly ToolDefinition[];
  positions: readonly number[];
  part: IndexPart;
}

/** The snapshot's bytes and their checksum (kept beside them), or undefined when the part's index writes none. */
export function encodePartSnapshot(binding: PartBinding, content: PartContent): { bytes: Uint8Array; checksum: string } | undefined {
  const out = new SnapshotWriter();
  out.text(head(binding, content.part.mode));
  writeDefinitions(out, content.tools);
  out.i32(Int32Array.from(content.positions));
  if (!content.part.toSnapshot(out)) return undefined;
  const bytes = out.finish();
  return { bytes, checksum: snapshotChecksum(bytes) };
}

/**
 * The part a snapshot holds, read without analyzing a tool. Throws SnapshotError when the bytes do not match their
 * checksum, or are of another shard, view, mode or code.
 */
export function decodePartSnapshot(bytes: Uint8Array, checksum: string, binding: PartBinding, mode: SearchMode): PartContent {
  if (snapshotChecksum(bytes) !== checksum) throw new SnapshotError("the part's snapshot does not match its checksum");
  const input = new SnapshotReader(bytes);
  if (input.text() !== head(binding, mode)) throw new SnapshotError("the snapshot is of another shard, view, mode or code");
  const tools = readDefinitions(input);
  const positions = Array.from(input.i32());
  if (positions.length !== tools.length) throw new SnapshotError("the snapshot holds another number of positions than tools");
  const part = createIndexPart(mode, tools, positions, input);
  input.end();
  return { tools, positions, part };
}

function head(binding: PartBinding, mode: SearchMode): string {
  return JSON.stringify([MAGIC, PART_SNAPSHOT_FORMAT, mode, binding.shard, binding.view, binding.fingerprint]);
}
