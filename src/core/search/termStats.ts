// A ranked snapshot's statistics per term (Bm25Postings: its tool count, then per field its tool count, highest
// frequency, shortest and longest length), packed. Written as fixed records of 21 int32 they took 4.4 MB of a
// 10,000-tool snapshot, mostly zeros: 87 % of terms occur in one field, and the values are small. Here a term's record
// is a byte of which fields it writes (a field no tool ever held, with its values as a build starts them, is left
// out), then its values as unsigned LEB128 varints (the longest length as its difference from the shortest), read
// back exactly: any int32 goes through (a negative one as its 32 bits, in five bytes). Each record's bytes are found
// by the term's start and checked (its chunks) when first read.
import { SnapshotError, type DeferredSection, type SnapshotWriter } from "./snapshotCodec.ts";

/** A record's values, in order: the tool count, then per field its count, highest frequency, shortest and longest length. */
export function statWords(fieldCount: number): number {
  return 1 + 4 * fieldCount;
}

/** The shortest field length of a term and field no tool has held yet (what a field left out of a record reads). */
export const UNSEEN_LENGTH = 2 ** 30;
/** The chunks (checked when first read) of the records and of their starts: a search reads a few terms' records. */
const STAT_CHUNK_BYTES = 1024;
const STARTS_CHUNK_BYTES = 4096;
/** A varint of an int32 takes at most five bytes. */
const MAX_VARINT_BYTES = 5;
/** At most this many records are kept decoded (PackedTermStats.kept; then they start again). */
const MAX_KEPT_RECORDS = 1024;

/**
 * Writes `records` (`fieldCount`'s statWords per term, the layout PackedTermStats.record reads back) as two deferred
 * sections: each term's start in the packed bytes, then the bytes.
 */
export function writeTermStats(out: SnapshotWriter, records: Int32Array, fieldCount: number): void {
  const words = statWords(fieldCount);
  if (fieldCount > 8 || records.length % words !== 0) throw new RangeError("term statistics of more than 8 fields, or cut short");
  const terms = records.length / words;
  const starts = new Int32Array(terms + 1);
  // The most a record can take; the bytes are cut to what was written.
  const bytes = new Uint8Array(terms * (1 + words * MAX_VARINT_BYTES));
  let at = 0;
  const put = (value: number): void => {
    let rest = value >>> 0;
    while (rest >= 0x80) {
      bytes[at++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    bytes[at++] = rest;
  };
  for (let term = 0; term < terms; term++) {
    starts[term] = at;
    const record = term * words;
    let mask = 0;
    for (let field = 0; field < fieldCount; field++) {
      const count = records[record + 1 + field] ?? 0;
      const maxFrequency = records[record + 1 + fieldCount + field] ?? 0;
      const minLength = records[record + 1 + 2 * fieldCount + field] ?? 0;
      const maxLength = records[record + 1 + 3 * fieldCount + field] ?? 0;
      if (count !== 0 || maxFrequency !== 0 || minLength !== UNSEEN_LENGTH || maxLength !== 0) mask |= 1 << field;
    }
    bytes[at++] = mask;
    put(records[record] ?? 0);
    for (let field = 0; field < fieldCount; field++) {
      if ((mask & (1 << field)) === 0) continue;
      const minLength = records[record + 1 + 2 * fieldCount + field] ?? 0;
      put(records[record + 1 + field] ?? 0);
      put(records[record + 1 + fieldCount + field] ?? 0);
      put(minLength);
      put((records[record + 1 + 3 * fieldCount + field] ?? 0) - minLength);
    }
  }
  starts[terms] = at;
  out.deferredI32(starts, STARTS_CHUNK_BYTES);
  out.deferredU8(bytes.subarray(0, at), STAT_CHUNK_BYTES);
}

/** What writeTermStats wrote, read in place: a term's record decoded when asked for (the last one kept). */
export class PackedTermStats {
  readonly #starts: DeferredSection<Int32Array>;
  readonly #bytes: DeferredSection<Uint8Array>;
  readonly #fieldCount: number;
  readonly count: number;
  /** The record last decoded, and its term (a search asks for a term's values one after another). */
  readonly #record: Int32Array;
  #term = -1;
  /** Records decoded by kept(), by term. */
  readonly #kept = new Map<number, Int32Array>();

  /** Checks the sections' sizes: `termCount` starts and one more, the last the bytes' length. */
  constructor(starts: DeferredSection<Int32Array>, bytes: DeferredSection<Uint8Array>, termCount: number, fieldCount: number) {
    if (starts.values.length !== termCount + 1 || starts.at(0) !== 0 || starts.at(termCount) !== bytes.values.length) {
      throw new SnapshotError("the term statistics do not match the terms");
    }
    this.#starts = starts;
    this.#bytes = bytes;
    this.#fieldCount = fieldCount;
    this.count = termCount;
    this.#record = new Int32Array(statWords(fieldCount));
  }

  /**
   * Term `term`'s values as record() reads them, decoded once and kept (not to be changed): a query asks for a few
   * dozen terms' values, each several times over (held or not, IDF, back-off, its fields' statistics when scored), and
   * 180 decodes of a first prepare's 37 terms cost it about 0.5 ms. Throws as record() does. Bounded (MAX_KEPT_RECORDS).
   */
  kept(term: number): Int32Array {
    const known = this.#kept.get(term);
    if (known !== undefined) return known;
    const record = this.record(term).slice();
    if (this.#kept.size >= MAX_KEPT_RECORDS) this.#kept.clear();
    this.#kept.set(term, record);
    return record;
  }

  /**
   * Term `term`'s values (statWords' layout), valid until the next call; all 0 for a term out of range. Throws
   * SnapshotError when its bytes are corrupt or do not make one record.
   */
  record(term: number): Int32Array {
    if (term === this.#term) return this.#record;
    const record = this.#record;
    const fields = this.#fieldCount;
    record.fill(0);
    this.#term = -1;
    if (!(term >= 0 && term < this.count)) return record;
    const start = this.#starts.at(term);
    const end = this.#starts.at(term + 1);
    if (!(start >= 0 && start < end && end <= this.#bytes.values.length)) throw new SnapshotError("a term's statistics are out of place");
    this.#bytes.verify(start, end);
    const bytes = this.#bytes.values;
    let at = start + 1;
    const next = (): number => {
      let value = 0;
      for (let shift = 0; shift < 7 * MAX_VARINT_BYTES; shift += 7) {
        if (at >= end) break;
        const byte = bytes[at++] ?? 0;
        value += (byte & 0x7f) * 2 ** shift;
        if (byte < 0x80) return value | 0;
      }
      throw new SnapshotError("a term's statistics are cut short");
    };
    const mask = bytes[start] ?? 0;
    if (mask >>> fields !== 0) throw new SnapshotError("a term's statistics name a field the index does not have");
    record[0] = next();
    for (let field = 0; field < fields; field++) {
      if ((mask & (1 << field)) === 0) {
        record[1 + 2 * fields + field] = UNSEEN_LENGTH;
        continue;
      }
      record[1 + field] = next();
      record[1 + fields + field] = next();
      const minLength = next();
      record[1 + 2 * fields + field] = minLength;
      record[1 + 3 * fields + field] = (minLength + next()) | 0;
    }
    if (at !== end) throw new SnapshotError("a term's statistics run past their record");
    this.#term = term;
    return record;
  }
}
