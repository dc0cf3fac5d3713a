// A search shard's whole-catalog statistics kept as one snapshot (src/durable/searchShardObject.ts): the catalog counts
// and the table of every term's counts that the shards add up once per registry version and view (shardedSearch.ts,
// wholeStatistics), so that a shard constructed anew (evicted, or moved) reads them instead of asking every other
// shard of its version again and merging their tables. Bound as a part's snapshot is (partSnapshot.ts: the shard's
// name, the view, the code's fingerprint) and checked whole (a checksum) before anything is read.
import type { PartBinding } from "../tools/partSnapshot.ts";
import { TERM_STRIDE, TermTable } from "./catalogParts.ts";
import { FIELDS } from "./fields.ts";
import type { WholeStatistics } from "./shardedSearch.ts";
import { SnapshotError, SnapshotReader, SnapshotWriter, snapshotChecksum } from "./snapshotCodec.ts";

const MAGIC = "toolgate-whole-statistics";
export const WHOLE_SNAPSHOT_FORMAT = 1;

/** The snapshot's bytes and their checksum (kept beside them). */
export function encodeWholeSnapshot(binding: PartBinding, whole: WholeStatistics): { bytes: Uint8Array; checksum: string } {
  const out = new SnapshotWriter();
  out.text(head(binding));
  const { catalog } = whole;
  out.f64(Float64Array.of(catalog.toolCount, catalog.longestTerm, catalog.vectorCount));
  // Sums of lengths and of grid vectors: exact in doubles, not always in 32 bits.
  out.f64(Float64Array.from(catalog.fieldLengthSums));
  out.f64(Float64Array.from(catalog.vectorSum));
  const table = whole.table.entries;
  out.strings(table.terms);
  out.i32(table.counts);
  const bytes = out.finish();
  return { bytes, checksum: snapshotChecksum(bytes) };
}

/**
 * The statistics a snapshot holds. Throws SnapshotError when the bytes do not match their checksum, are of another
 * shard, view or code, or do not hold a table of TERM_STRIDE counts per term.
 */
export function decodeWholeSnapshot(bytes: Uint8Array, checksum: string, binding: PartBinding): WholeStatistics {
  if (snapshotChecksum(bytes) !== checksum) throw new SnapshotError("the whole statistics' snapshot does not match its checksum");
  const input = new SnapshotReader(bytes);
  if (input.text() !== head(binding)) throw new SnapshotError("the whole statistics' snapshot is of another shard, view or code");
  const [toolCount = 0, longestTerm = 0, vectorCount = 0, ...rest] = input.f64();
  const fieldLengthSums = Array.from(input.f64());
  const vectorSum = Array.from(input.f64());
  const terms = input.strings();
  const counts = input.i32();
  input.end();
  if (rest.length > 0 || fieldLengthSums.length !== FIELDS.length || counts.length !== terms.length * TERM_STRIDE) {
    throw new SnapshotError("the whole statistics' snapshot does not hold the counts it names");
  }
  return { catalog: { toolCount, fieldLengthSums, longestTerm, vectorSum, vectorCount }, table: new TermTable({ terms, counts }) };
}

function head(binding: PartBinding): string {
  return JSON.stringify([MAGIC, WHOLE_SNAPSHOT_FORMAT, binding.shard, binding.view, binding.fingerprint]);
}
