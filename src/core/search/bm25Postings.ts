// The ranked mode's own inverted index: BM25 over fields exactly as MiniSearch 7 scores it (its query path is
// replaced, not its formula), with postings a catalog change can update in place and statistics (document and field
// frequencies, field length sums) kept as integer counts, so that IDF and average lengths are computed at query time
// and an updated index scores exactly as a fresh build of the same catalog.
// Why not MiniSearch's own search: it allocates a result object per matching document and query term, and ranks every
// match; at 10,000 tools a 20-word query took 15 ms. Here scores accumulate in typed arrays and only the asked-for
// top k are ranked (MaxScore over per-term score bounds, topK.ts).
import type { ToolDefinition } from "../types.ts";
import { FieldTextsBuffer, FIELDS, isPhraseTerm, leadSentenceSpan, toolFieldPartsInto } from "./fields.ts";
import { IntList } from "./intList.ts";
import { CarriedOneEditIndex, type OneEditCandidates, OneEditIndex, oneEditTables } from "./oneEditIndex.ts";
import { PairTable } from "./pairTable.ts";
import { isPieceEnd } from "./pieces.ts";
import { PostingCollector } from "./postings.ts";
import { RunLists } from "./runLists.ts";
import { type DeferredSection, SnapshotError, type SnapshotReader, type SnapshotWriter } from "./snapshotCodec.ts";
import { PackedTermStats, statWords, UNSEEN_LENGTH, writeTermStats } from "./termStats.ts";
import { TermText, withinOneEditAt } from "./termText.ts";

const FIELD_COUNT = FIELDS.length;
/** Field ids fit in 3 bits of a posting's key (`slot * 8 + field`). */
export const FIELD_BITS = 8;
/**
 * A term's statistics as one record (termStats.ts, packed in a snapshot): its tool count, then per field its tool
 * count, highest frequency, shortest and longest length.
 */
const STAT_WORDS = statWords(FIELD_COUNT);
const STAT_FIELD_COUNT = 1;
const STAT_MAX_FREQUENCY = 1 + FIELD_COUNT;
const STAT_MIN_LENGTH = 1 + 2 * FIELD_COUNT;
const STAT_MAX_LENGTH = 1 + 3 * FIELD_COUNT;
/** At most this many of a frozen index's term lookups are remembered (then they start again). */
const MAX_FROZEN_LOOKUPS = 1024;
/** Chunks of a table read a few records at a time (the one-edit table) checked at once. */
const STAT_CHUNK_BYTES = 4096;
/** Chunks of the postings checked at once (a term's list is read whole: a rare term's is a few dozen bytes). */
const POSTING_CHUNK_BYTES = 4096;

export interface Bm25Params {
  k: number;
  b: number;
  d: number;
  /** A field's own length normalisation, by field id (FIELDS order); a field without one uses `b`. */
  bByField?: readonly (number | undefined)[];
}

/** A query term after expansion: the index terms it matches and how much each counts (MiniSearch's derived terms). */
export interface Expansion {
  /** Term ids, in MiniSearch's order of scoring: the term itself, then prefix matches, then fuzzy ones. */
  termIds: number[];
  weights: number[];
}

/** Levenshtein distance at most 1 between two strings (insert, delete or substitute one code unit). */
export function withinOneEdit(a: string, b: string): boolean {
  return withinOneEditAt(a, 0, a.length, b);
}

const NAME_FIELD = FIELDS.indexOf("name");
const DESCRIPTION_FIELD = FIELDS.indexOf("description");

/**
 * The words of the tools a build adds, read with their terms: the semantic half's (semantic.ts) word rows of each
 * tool's name and description. Tool i's are `rows[ends[i - 1] .. ends[i])`.
 */
export interface ToolWords {
  /** A piece of text (no ASCII separator in it) → its words, in order (asked once per distinct piece per build). */
  readonly of: (piece: string) => readonly number[];
  readonly rows: IntList;
  readonly ends: IntList;
}

/**
 * Slots are document ids that never get reused: a tool added later takes a higher slot, so every term's postings
 * stay sorted by slot when appended to. Catalog order (for ties) is kept apart, in `position`.
 */
export class Bm25Postings {
  /** Whether names and descriptions are also indexed by their pairs of adjacent terms (fields.ts, PHRASE_FIELDS). */
  readonly #phrases: boolean;
  /** How many times more a description's lead sentence is read (fields.ts, toolFieldPartsInto). */
  readonly #leadRepeats: number;

  constructor(phrases = false, leadRepeats = 0) {
    this.#phrases = phrases;
    this.#leadRepeats = leadRepeats;
  }

  /** Word → its term id; a pair of terms (fields.ts, phraseTerm) is found by its two words' ids in #pairIds instead. */
  readonly #termIds = new Map<string, number>();
  #pairIds = new PairTable();
  #terms: string[] = [];
  /**
   * Per term: `[slot * 8 + field, frequency, …]` sorted by key. A build's lists are runs of one buffer; a list that
   * tools are added to is copied whole (once per catalog change: no spare room is kept in any), a removal shifts the
   * rest of its list down in place.
   */
  readonly #postings = new RunLists();
  /** Per term: in how many live tools it occurs (any field). */
  readonly #toolCount = new IntList();
  /** Per term and field (`term * FIELD_COUNT + field`): in how many tools; the highest frequency and the field lengths seen (score bounds). */
  readonly #fieldCount = new IntList();
  readonly #maxFrequency = new IntList();
  readonly #minLength = new IntList();
  readonly #maxLength = new IntList();
  /** Terms sorted (UTF-16 order) for prefix ranges, and the terms added since (merged in at the next use). */
  #sorted: string[] = [];
  #unsorted: string[] = [];
  /** Term ids by length (what a snapshot keeps for fuzzy matching). */
  readonly #byLength = new Map<number, number[]>();
  /** The words by their lengths and end letters, for one-edit fuzzy matching: made at the first typo looked up. */
  #oneEdit: OneEditIndex | undefined;
  /** The length of the longest term ever interned (an upper bound of what is held: terms are never dropped). */
  #longestTermLength = 0;

  /**
   * Per slot: `[term * 8 + field, frequency, …]` (what removing it must undo, and how a candidate is rescored); the
   * slots added together are runs of one buffer; a removed slot has none.
   */
  readonly #forward = new RunLists();
  /** Per slot and field: its length (distinct terms). */
  readonly #fieldLength = new IntList();
  readonly #lengthSum: number[] = FIELDS.map(() => 0);
  #live = 0;
  /**
   * A restored index, while nothing changes it: its terms, postings and forward lists read in place from the
   * snapshot's bytes (no map of terms, no list per term or slot made up front). The first change thaws it into the
   * fields above (#thaw), which every other index uses.
   */
  #frozen: FrozenPostings | undefined;
  /**
   * The frozen index's term lookups made so far (-1: not held): a query asks for its terms several times (held or
   * not, IDF, back-off, near words), and each lookup is a binary search over the snapshot's terms. Bounded.
   */
  readonly #frozenIds = new Map<string, number>();

  get longestTermLength(): number {
    return this.#longestTermLength;
  }

  get liveCount(): number {
    return this.#live;
  }

  get slotCount(): number {
    return this.#frozen ? this.#frozen.slots : this.#forward.length;
  }

  isLive(slot: number): boolean {
    const frozen = this.#frozen;
    return frozen ? slot >= 0 && slot < frozen.slots && frozen.removed[slot] !== 1 : this.#forward.has(slot);
  }

  termId(term: string): number | undefined {
    const frozen = this.#frozen;
    if (frozen) {
      const known = this.#frozenIds.get(term);
      if (known !== undefined) return known === -1 ? undefined : known;
      const found = frozenTermId(frozen, term);
      if (this.#frozenIds.size >= MAX_FROZEN_LOOKUPS) this.#frozenIds.clear();
      this.#frozenIds.set(term, found ?? -1);
      return found;
    }
    const id = this.#termIds.get(term);
    if (id !== undefined || !isPhraseTerm(term)) return id;
    const space = term.indexOf(" ");
    const first = this.#termIds.get(term.slice(0, space));
    const second = this.#termIds.get(term.slice(space + 1));
    if (first === undefined || second === undefined) return undefined;
    const pair = this.#pairIds.get(first, second);
    return pair === -1 ? undefined : pair;
  }

  /** In how many live tools `term` occurs (0 for a term never seen, or no longer held). */
  toolFrequency(term: string): number {
    const id = this.termId(term);
    return id === undefined ? 0 : this.toolFrequencyOf(id);
  }

  /**
   * Adds tools at new slots (`firstSlot`, `firstSlot + 1`, …); returns the first slot. `words`: also reads the words
   * of each tool's name and description, in that order, in the same pass (ToolWords).
   */
  addTools(tools: readonly ToolDefinition[], words?: ToolWords): number {
    this.#thaw();
    const firstSlot = this.#forward.length;
    const collector = new PostingCollector(words?.of, this.#phrases);
    const lengths = new Int32Array(tools.length * FIELD_COUNT);
    // Plain loops: a callback per tool and field costs a build at 10,000 tools a sixth of its time.
    const parts = new FieldTextsBuffer();
    for (let tool = 0; tool < tools.length; tool++) {
      const definition = tools[tool] ?? { name: "", description: "", parameters: {} };
      // The lead sentence is a span of the description: where it starts and ends between pieces (as good as always),
      // its terms are the description's there, repeated without reading it again; elsewhere it is read as a text.
      const lead = this.#leadRepeats > 0 ? leadSentenceSpan(definition.description) : undefined;
      const repeatSpan = lead !== undefined && isPieceEnd(definition.description, lead.start) && isPieceEnd(definition.description, lead.end);
      toolFieldPartsInto(definition, parts, repeatSpan ? 0 : this.#leadRepeats);
      for (let field = 0; field < FIELD_COUNT; field++) {
        let distinct = 0;
        const wordsInto = field === NAME_FIELD || field === DESCRIPTION_FIELD ? words?.rows : undefined;
        if (repeatSpan && field === DESCRIPTION_FIELD) {
          distinct = collector.addTextRepeatingSpan(definition.description, tool, field, wordsInto, lead.start, lead.end, this.#leadRepeats);
        } else {
          const texts = parts.texts[field] ?? [];
          for (let i = 0, count = parts.counts[field] ?? 0; i < count; i++) distinct += collector.addText(texts[i] ?? "", tool, field, wordsInto);
        }
        lengths[tool * FIELD_COUNT + field] = distinct;
      }
      words?.ends.push(words.rows.length);
    }
    for (let i = 0; i < lengths.length; i++) {
      const length = lengths[i] ?? 0;
      this.#fieldLength.push(length);
      const field = i % FIELD_COUNT;
      this.#lengthSum[field] = (this.#lengthSum[field] ?? 0) + length;
    }
    // Local term ids → global ones. In an index that holds no term yet (a build) they are the same: every term is
    // new, each takes the next id, and the collector's table of pairs is this index's.
    const localTerms = collector.terms;
    const globalIds = new Int32Array(localTerms.length);
    const pairs = collector.pairs();
    const fresh = this.#terms.length === 0;
    if (fresh) this.#pairIds = collector.pairTable();
    for (let local = 0; local < localTerms.length; local++) {
      const term = localTerms[local] ?? "";
      // A pair's terms come before it.
      const first = pairs.first[local] ?? -1;
      if (fresh) globalIds[local] = first === -1 ? this.#addWord(term) : this.#newTerm(term);
      else globalIds[local] = first === -1 ? this.#intern(term) : this.#internPair(globalIds[first] ?? 0, globalIds[pairs.second[local] ?? 0] ?? 0, term);
    }
    // The new terms' statistics per field, all at once (no term is added below: the views stay valid).
    const cells = this.#terms.length * FIELD_COUNT;
    this.#fieldCount.padTo(cells, 0);
    this.#maxFrequency.padTo(cells, 0);
    this.#minLength.padTo(cells, UNSEEN_LENGTH);
    this.#maxLength.padTo(cells, 0);
    const fieldCount = this.#fieldCount.view();
    const maxFrequency = this.#maxFrequency.view();
    const minLength = this.#minLength.view();
    const maxLength = this.#maxLength.view();
    const { postingTerm, postingSlot, postingCount } = collector.postings();
    const postingTotal = postingTerm.length;
    // One pass over the postings in catalog order: each tool's forward list (postings come tool by tool: one run of
    // them, in one buffer), and each term's list (the run `starts` gives it, in catalog order).
    const forward = new Int32Array(2 * postingTotal);
    const lists = new Int32Array(2 * postingTotal);
    const starts = collector.termStarts();
    const next = starts.slice(0, globalIds.length);
    for (let p = 0; p < postingTotal; p++) {
      const local = postingTerm[p] ?? 0;
      const term = globalIds[local] ?? 0;
      const toolSlot = postingSlot[p] ?? 0;
      const tool = Math.floor(toolSlot / FIELD_COUNT);
      const field = toolSlot - tool * FIELD_COUNT;
      const frequency = postingCount[p] ?? 0;
      forward[2 * p] = term * FIELD_BITS + field;
      forward[2 * p + 1] = frequency;
      const k = next[local] ?? 0;
      next[local] = k + 1;
      lists[2 * k] = (firstSlot + tool) * FIELD_BITS + field;
      lists[2 * k + 1] = frequency;
    }
    // Then each term's statistics from its list: term by term, its cells side by side (in catalog order, a build's
    // terms take their ids in order: one pass through the statistics, not four places in memory per posting).
    for (let local = 0; local < globalIds.length; local++) {
      const term = globalIds[local] ?? 0;
      for (let at = 2 * (starts[local] ?? 0), end = 2 * (starts[local + 1] ?? 0); at < end; at += 2) {
        const key = lists[at] ?? 0;
        const field = key % FIELD_BITS;
        const frequency = lists[at + 1] ?? 0;
        const cell = term * FIELD_COUNT + field;
        fieldCount[cell] = (fieldCount[cell] ?? 0) + 1;
        const length = lengths[((key - field) / FIELD_BITS - firstSlot) * FIELD_COUNT + field] ?? 0;
        if (frequency > (maxFrequency[cell] ?? 0)) maxFrequency[cell] = frequency;
        if (length < (minLength[cell] ?? 0)) minLength[cell] = length;
        if (length > (maxLength[cell] ?? 0)) maxLength[cell] = length;
      }
    }
    let run = 0;
    for (let tool = 0; tool < tools.length; tool++) {
      let end = run;
      // Postings come tool by tool: this tool's run ends at the next tool's first slot.
      while (end < postingTotal && (postingSlot[end] ?? 0) < (tool + 1) * FIELD_COUNT) end++;
      this.#forward.push(forward, 2 * run, 2 * end);
      run = end;
    }
    const toolCounts = collector.toolCounts();
    for (let local = 0; local < globalIds.length; local++) {
      const term = globalIds[local] ?? 0;
      const from = 2 * (starts[local] ?? 0);
      const to = 2 * (starts[local + 1] ?? 0);
      if (this.#postings.end(term) === this.#postings.start(term)) this.#postings.set(term, lists, from, to);
      else this.#postings.append(term, lists.subarray(from, to));
      this.#toolCount.set(term, this.#toolCount.at(term) + (toolCounts[local] ?? 0));
    }
    this.#live += tools.length;
    return firstSlot;
  }

  /** Removes the tool at `slot` (a no-op for a slot already removed). */
  removeSlot(slot: number): void {
    this.#thaw();
    if (!this.#forward.has(slot)) return;
    const forward = this.#forward.view(slot);
    const counted = new Set<number>();
    for (let i = 0; i < forward.length; i += 2) {
      const key = forward[i] ?? 0;
      const term = Math.floor(key / FIELD_BITS);
      const field = key % FIELD_BITS;
      const at = findKey(this.#postings.buffer(term), this.#postings.start(term), this.#postings.end(term), slot * FIELD_BITS + field);
      if (at >= 0) this.#postings.remove(term, at, 2);
      const cell = term * FIELD_COUNT + field;
      this.#fieldCount.set(cell, this.#fieldCount.at(cell) - 1);
      // The tool counted once per term, whatever the number of fields holding it.
      if (!counted.has(term)) {
        counted.add(term);
        this.#toolCount.set(term, this.#toolCount.at(term) - 1);
      }
    }
    for (let field = 0; field < FIELD_COUNT; field++) {
      this.#lengthSum[field] = (this.#lengthSum[field] ?? 0) - this.#fieldLength.at(slot * FIELD_COUNT + field);
    }
    this.#forward.set(slot, undefined, 0, 0);
    this.#live--;
  }

  /** The id of a word, added if new. */
  #intern(term: string): number {
    return this.#termIds.get(term) ?? this.#addWord(term);
  }

  /** The id of a word the index does not hold, added. */
  #addWord(term: string): number {
    const id = this.#newTerm(term);
    this.#termIds.set(term, id);
    if (term.length > this.#longestTermLength) this.#longestTermLength = term.length;
    const byLength = this.#byLength.get(term.length);
    if (byLength) byLength.push(id);
    else this.#byLength.set(term.length, [id]);
    this.#oneEdit?.add(term, id);
    this.#unsorted.push(term);
    return id;
  }

  /**
   * The id of the pair of the words `first` and `second` (its text `term`), added if new. A pair is matched only as
   * itself: never as a prefix, a typo or a back-off.
   */
  #internPair(first: number, second: number, term: string): number {
    const known = this.#pairIds.get(first, second);
    if (known !== -1) return known;
    const id = this.#newTerm(term);
    this.#pairIds.set(first, second, id);
    return id;
  }

  /** A new term's id, with no postings. */
  #newTerm(term: string): number {
    const id = this.#terms.push(term) - 1;
    this.#postings.push(NO_POSTINGS, 0, 0);
    this.#toolCount.push(0);
    // Its statistics per field are appended by addTools, for every new term at once.
    return id;
  }

  /**
   * Writes the whole state (snapshotCodec.ts): the terms, each term's postings and statistics, each slot's forward
   * list and field lengths (a removed slot as none), the sorted terms. `restore` reads it back into an empty instance.
   */
  toSnapshot(out: SnapshotWriter): void {
    this.#thaw();
    // The terms end to end, and where each starts: a restored index reads them in place (termText.ts).
    const termStarts = new Int32Array(this.#terms.length + 1);
    let termEnd = 0;
    this.#terms.forEach((term, id) => {
      termStarts[id] = termEnd;
      termEnd += term.length;
    });
    termStarts[this.#terms.length] = termEnd;
    out.text(this.#terms.join(""));
    out.i32(termStarts);
    out.int(this.#longestTermLength);
    const postingStarts = new Int32Array(this.#postings.length + 1);
    let total = 0;
    for (let term = 0; term < this.#postings.length; term++) {
      postingStarts[term] = total;
      total += this.#postings.end(term) - this.#postings.start(term);
    }
    postingStarts[this.#postings.length] = total;
    const postings = new Int32Array(total);
    for (let term = 0; term < this.#postings.length; term++) postings.set(this.#postings.view(term), postingStarts[term] ?? 0);
    out.i32(postingStarts);
    // In chunks of POSTING_CHUNK_BYTES: a first search reads a few dozen terms' lists, most of them short, and each
    // checked the whole 64 KiB chunk it lies in (800 KB checked in JS for a 10,000-tool index's first search).
    out.deferredI32(postings, POSTING_CHUNK_BYTES);
    writeTermStats(out, this.#statRecords(), FIELD_COUNT);
    out.i32(Int32Array.from(this.#sortedTerms(), (term) => this.#termIds.get(term) ?? -1));
    // The terms fuzzy matching looks at, by length (lengthStarts[n] .. lengthStarts[n + 1] in lengthOrder: length n).
    const lengthStarts = new Int32Array(this.#longestTermLength + 2);
    const lengthOrder: number[] = [];
    for (let length = 0; length <= this.#longestTermLength; length++) {
      lengthStarts[length] = lengthOrder.length;
      for (const id of this.#byLength.get(length) ?? []) lengthOrder.push(id);
    }
    lengthStarts[this.#longestTermLength + 1] = lengthOrder.length;
    // Each length's ids by first code unit, and by last: the one-edit table a restored index reads in place.
    const oneEdit = oneEditTables(lengthStarts, lengthOrder, (id) => this.#terms[id] ?? "");
    out.i32(lengthStarts);
    out.i32(oneEdit.order);
    out.deferredI32(oneEdit.firsts, STAT_CHUNK_BYTES);
    out.deferredI32(oneEdit.lastOrder, STAT_CHUNK_BYTES);
    out.deferredU32(oneEdit.lastKeys, STAT_CHUNK_BYTES);
    // Every term (pairs of words too), sorted: a restored index looks terms up here instead of in a map.
    out.i32(Int32Array.from([...this.#terms.keys()].toSorted((a, b) => compareStrings(this.#terms[a] ?? "", this.#terms[b] ?? ""))));
    // No forward lists (they are the postings inverted: a restored index derives them when first read), only which
    // slots are removed.
    const removed: number[] = [];
    for (let slot = 0; slot < this.#forward.length; slot++) if (!this.#forward.has(slot)) removed.push(slot);
    out.i32(Int32Array.from(removed));
    out.i32(this.#fieldLength.view());
    out.f64(Float64Array.from(this.#lengthSum));
    out.int(this.#live);
  }

  /** Every term's statistics as one record per term (STAT_WORDS), for a snapshot. */
  #statRecords(): Int32Array {
    const terms = this.#terms.length;
    const records = new Int32Array(terms * STAT_WORDS);
    for (let term = 0; term < terms; term++) {
      const record = term * STAT_WORDS;
      records[record] = this.#toolCount.at(term);
      for (let field = 0; field < FIELD_COUNT; field++) {
        const cell = term * FIELD_COUNT + field;
        records[record + STAT_FIELD_COUNT + field] = this.#fieldCount.at(cell);
        records[record + STAT_MAX_FREQUENCY + field] = this.#maxFrequency.at(cell);
        records[record + STAT_MIN_LENGTH + field] = this.#minLength.at(cell);
        records[record + STAT_MAX_LENGTH + field] = this.#maxLength.at(cell);
      }
    }
    return records;
  }

  /**
   * Reads what toSnapshot wrote into this instance, which must be new (nothing added yet): in place, frozen until the
   * first change (#frozen). Checks the sections' sizes and order; the postings' and statistics' bytes are checked per
   * chunk when first read.
   */
  restore(input: SnapshotReader): void {
    if (this.#terms.length > 0 || this.#forward.length > 0 || this.#frozen) throw new Error("restore needs an empty Bm25Postings");
    // A string per term is made only when a search hands it on (termText.ts); the text's length is checked against
    // the last start (a lone surrogate written as U+FFFD keeps its length).
    const text = input.text();
    const termStarts = input.i32();
    const termCount = termStarts.length - 1;
    if (termCount < 0 || termStarts[0] !== 0 || termStarts[termCount] !== text.length) throw new SnapshotError("the terms do not match their starts");
    const terms = new TermText(text, termStarts);
    this.#longestTermLength = input.int();
    const postingStarts = input.i32();
    const postings = input.deferredI32("postings");
    if (postingStarts.length !== termCount + 1 || (postingStarts[0] ?? 0) !== 0 || (postingStarts[termCount] ?? 0) !== postings.values.length) {
      throw new SnapshotError("the postings do not match the terms");
    }
    // Read in place, each record's chunk checked when first read (a first search reads a few terms').
    const stats = new PackedTermStats(input.deferredI32("term statistic starts"), input.deferredU8("term statistics"), termCount, FIELD_COUNT);
    const sortedIds = input.i32();
    const lengthStarts = input.i32();
    const lengthOrder = input.i32();
    const oneEdit = new CarriedOneEditIndex(lengthStarts, lengthOrder, input.deferredI32("one-edit firsts"), input.deferredI32("one-edit lasts"), input.deferredU32("one-edit keys"));
    const lookupIds = input.i32();
    if (lookupIds.length !== termCount || sortedIds.length > termCount || lengthStarts.length !== this.#longestTermLength + 2 || (lengthStarts[lengthStarts.length - 1] ?? 0) !== lengthOrder.length) {
      throw new SnapshotError("the sorted terms do not match the terms");
    }
    // Their sizes are checked, not each id (a pass over every term): the checksum vouches for the bytes, and an id out
    // of range reads as no term ("" and no postings), never out of bounds.
    const removedSlots = input.i32();
    const fieldLength = input.i32();
    if (fieldLength.length % FIELD_COUNT !== 0) throw new SnapshotError("the field lengths do not match the slots");
    const slots = fieldLength.length / FIELD_COUNT;
    const removed = new Uint8Array(slots);
    for (const slot of removedSlots) {
      if (!(slot >= 0 && slot < slots)) throw new SnapshotError("a removed slot is out of range");
      removed[slot] = 1;
    }
    this.#fieldLength.replace(fieldLength);
    const sums = input.f64();
    if (sums.length !== FIELD_COUNT) throw new SnapshotError("the field length sums do not match the fields");
    sums.forEach((sum, field) => {
      this.#lengthSum[field] = sum;
    });
    this.#live = input.int();
    this.#frozen = { terms, oneEdit, postingStarts, postings, stats, sortedIds, lookupIds, lengthStarts, lengthOrder, slots, removed, forward: undefined };
  }

  /**
   * Makes a restored index's state the changeable one the build makes (a map of terms, a list per term and per slot,
   * copied out of the snapshot's bytes, every chunk of them checked first): before the first change.
   */
  #thaw(): void {
    const frozen = this.#frozen;
    if (!frozen) return;
    const postings = frozen.postings.verifyAll().slice();
    const forward = frozen.forward ?? invertPostings(postings, frozen.postingStarts, frozen.slots);
    // The statistics' records back into the lists a build keeps (one per statistic): every record read, and the
    // one-edit table checked, before anything changes (a corrupt byte anywhere throws here, the index still frozen).
    const stats = frozen.stats;
    const termCount = stats.count;
    const toolCount = new Int32Array(termCount);
    const fieldCount = new Int32Array(termCount * FIELD_COUNT);
    const maxFrequency = new Int32Array(termCount * FIELD_COUNT);
    const minLength = new Int32Array(termCount * FIELD_COUNT);
    const maxLength = new Int32Array(termCount * FIELD_COUNT);
    for (let term = 0; term < termCount; term++) {
      const record = stats.record(term);
      toolCount[term] = record[0] ?? 0;
      for (let field = 0; field < FIELD_COUNT; field++) {
        const cell = term * FIELD_COUNT + field;
        fieldCount[cell] = record[STAT_FIELD_COUNT + field] ?? 0;
        maxFrequency[cell] = record[STAT_MAX_FREQUENCY + field] ?? 0;
        minLength[cell] = record[STAT_MIN_LENGTH + field] ?? 0;
        maxLength[cell] = record[STAT_MAX_LENGTH + field] ?? 0;
      }
    }
    frozen.oneEdit.verifyAll();
    this.#terms = frozen.terms.all();
    this.#frozen = undefined;
    this.#frozenIds.clear();
    this.#toolCount.replace(toolCount);
    this.#fieldCount.replace(fieldCount);
    this.#maxFrequency.replace(maxFrequency);
    this.#minLength.replace(minLength);
    this.#maxLength.replace(maxLength);
    const { postingStarts, slots, removed } = frozen;
    const pairs: number[] = [];
    for (let id = 0; id < this.#terms.length; id++) {
      const term = this.#terms[id] ?? "";
      if (isPhraseTerm(term)) pairs.push(id);
      else this.#termIds.set(term, id);
      this.#postings.push(postings, postingStarts[id] ?? 0, postingStarts[id + 1] ?? 0);
    }
    // Pairs once every word is known (a pair's words are terms of the index: a build interns them first).
    for (const id of pairs) {
      const term = this.#terms[id] ?? "";
      const space = term.indexOf(" ");
      const first = this.#termIds.get(term.slice(0, space));
      const second = this.#termIds.get(term.slice(space + 1));
      if (first !== undefined && second !== undefined) this.#pairIds.set(first, second, id);
    }
    for (let length = 0; length + 1 < frozen.lengthStarts.length; length++) {
      const ids = Array.from(frozen.lengthOrder.subarray(frozen.lengthStarts[length] ?? 0, frozen.lengthStarts[length + 1] ?? 0));
      if (ids.length > 0) this.#byLength.set(length, ids);
    }
    this.#sorted = Array.from(frozen.sortedIds, (id) => this.#terms[id] ?? "");
    for (let slot = 0; slot < slots; slot++) {
      if (removed[slot] === 1) this.#forward.push(undefined, 0, 0);
      else this.#forward.push(forward.values, forward.starts[slot] ?? 0, forward.starts[slot + 1] ?? 0);
    }
  }

  /** The terms `term` matches: itself (weight 1), longer terms it starts (`prefixWeight`), terms one edit away (`fuzzyWeight`). */
  expand(term: string, prefix: boolean, fuzzy: boolean, prefixWeight: number, fuzzyWeight: number): Expansion {
    const termIds: number[] = [];
    const weights: number[] = [];
    const frozen = this.#frozen;
    if (frozen) return this.#expandFrozen(frozen, term, prefix, fuzzy, prefixWeight, fuzzyWeight);
    const own = this.termId(term);
    if (own !== undefined) {
      termIds.push(own);
      weights.push(1);
    }
    if (prefix) {
      const sorted = this.#sortedTerms();
      for (let at = lowerBound(sorted, term); at < sorted.length; at++) {
        const candidate = sorted[at] ?? "";
        if (!candidate.startsWith(term)) break;
        const distance = candidate.length - term.length;
        if (distance === 0) continue;
        termIds.push(this.#termIds.get(candidate) ?? 0);
        // MiniSearch's prefix weight: it fades as the match grows longer than the query term.
        weights.push((prefixWeight * candidate.length) / (candidate.length + 0.3 * distance));
      }
    }
    if (fuzzy) {
      const found: string[] = [];
      this.#oneEditIndex().forEachCandidate(term, (id) => {
        const candidate = this.#terms[id] ?? "";
        // The term itself is not a fuzzy match, and a prefix match counts as a prefix match only.
        if (candidate === term || (prefix && candidate.startsWith(term))) return;
        if (withinOneEdit(term, candidate)) found.push(candidate);
      });
      for (const candidate of found.toSorted()) {
        termIds.push(this.#termIds.get(candidate) ?? 0);
        weights.push((fuzzyWeight * candidate.length) / (candidate.length + 1));
      }
    }
    return { termIds, weights };
  }

  /** expand over a frozen index: the same terms in the same order, found in the snapshot's sorted and by-length tables. */
  #expandFrozen(frozen: FrozenPostings, term: string, prefix: boolean, fuzzy: boolean, prefixWeight: number, fuzzyWeight: number): Expansion {
    const terms = frozen.terms;
    const termIds: number[] = [];
    const weights: number[] = [];
    // The lookups a query made already (held or not, IDF) are remembered.
    const own = this.termId(term);
    if (own !== undefined) {
      termIds.push(own);
      weights.push(1);
    }
    if (prefix) {
      const sorted = frozen.sortedIds;
      for (let at = terms.lowerBound(sorted, term); at < sorted.length; at++) {
        const id = sorted[at] ?? 0;
        if (!terms.startsWith(id, term)) break;
        const length = terms.lengthOf(id);
        const distance = length - term.length;
        if (distance === 0) continue;
        termIds.push(id);
        weights.push((prefixWeight * length) / (length + 0.3 * distance));
      }
    }
    if (fuzzy) {
      const found: { candidate: string; id: number }[] = [];
      // Compared in place: a string is made of a match only (a typo's candidates are a few hundred terms).
      this.#oneEditIndex().forEachCandidate(term, (id) => {
        if (terms.compare(id, term) === 0 || (prefix && terms.startsWith(id, term))) return;
        if (terms.withinOneEdit(id, term)) found.push({ candidate: terms.at(id), id });
      });
      found.sort((a, b) => compareStrings(a.candidate, b.candidate));
      for (const { candidate, id } of found) {
        termIds.push(id);
        weights.push((fuzzyWeight * candidate.length) / (candidate.length + 1));
      }
    }
    return { termIds, weights };
  }

  /** #oneEdit, made from the words held when first needed; a restored index's is its snapshot's, read in place. */
  #oneEditIndex(): OneEditCandidates {
    if (this.#frozen) return this.#frozen.oneEdit;
    if (this.#oneEdit) return this.#oneEdit;
    const index = new OneEditIndex();
    for (const ids of this.#byLength.values()) for (const id of ids) index.add(this.#terms[id] ?? "", id);
    this.#oneEdit = index;
    return index;
  }

  #sortedTerms(): string[] {
    const added = this.#unsorted;
    if (added.length === 0) return this.#sorted;
    // A few new terms (a catalog change) are inserted one by one; many (a build) sorted all at once.
    if (added.length > 64) this.#sorted = this.#sorted.concat(added).toSorted();
    else for (const term of added) this.#sorted.splice(lowerBound(this.#sorted, term), 0, term);
    this.#unsorted = [];
    return this.#sorted;
  }

  /** Whether the tool at `slot` holds any of `termIds` (in any field). */
  holdsAnyTerm(slot: number, termIds: ReadonlySet<number>): boolean {
    if (this.#frozen) {
      // Each term's postings searched for the slot's keys (a few terms, a few tools: no forward lists derived).
      for (const termId of termIds) {
        const postings = this.postingsOf(termId);
        const at = lowerBoundKey(postings, slot * FIELD_BITS);
        if (at < postings.length && (postings[at] ?? 0) < (slot + 1) * FIELD_BITS) return true;
      }
      return false;
    }
    const forward = this.forwardOf(slot);
    for (let p = 0; p < forward.length; p += 2) {
      if (termIds.has(Math.floor((forward[p] ?? 0) / FIELD_BITS))) return true;
    }
    return false;
  }

  postingsOf(termId: number): Int32Array {
    const frozen = this.#frozen;
    if (!frozen) return this.#postings.view(termId);
    const start = frozen.postingStarts[termId];
    const end = frozen.postingStarts[termId + 1];
    if (start === undefined || end === undefined) return NO_POSTINGS;
    frozen.postings.verify(start, end);
    return frozen.postings.values.subarray(start, end);
  }

  /**
   * The buffer the postings of `termId` lie in, from postingStart to postingEnd: postingsOf without making a view
   * (a search reads a list per term it expands to).
   */
  postingBuffer(termId: number): Int32Array {
    const frozen = this.#frozen;
    if (!frozen) return this.#postings.buffer(termId);
    const start = frozen.postingStarts[termId];
    const end = frozen.postingStarts[termId + 1];
    if (start === undefined || end === undefined) return NO_POSTINGS;
    frozen.postings.verify(start, end);
    return frozen.postings.values;
  }

  postingStart(termId: number): number {
    const frozen = this.#frozen;
    if (!frozen) return this.#postings.start(termId);
    return frozen.postingStarts[termId + 1] === undefined ? 0 : (frozen.postingStarts[termId] ?? 0);
  }

  postingEnd(termId: number): number {
    const frozen = this.#frozen;
    if (!frozen) return this.#postings.end(termId);
    return frozen.postingStarts[termId] === undefined ? 0 : (frozen.postingStarts[termId + 1] ?? 0);
  }

  /**
   * The tool at `slot`'s `[term * 8 + field, frequency, …]` (a built index's in the order it read them; a restored
   * one's by term, then field: no reader depends on the order). A restored index derives every slot's from its
   * postings at the first call (once, O(postings)).
   */
  forwardOf(slot: number): Int32Array {
    const frozen = this.#frozen;
    if (!frozen) return this.#forward.view(slot);
    if (!this.isLive(slot)) return NO_POSTINGS;
    frozen.forward ??= invertPostings(frozen.postings.verifyAll(), frozen.postingStarts, frozen.slots);
    return frozen.forward.values.subarray(frozen.forward.starts[slot] ?? 0, frozen.forward.starts[slot + 1] ?? 0);
  }

  /** How many live tools hold `termId`, in any field. */
  toolFrequencyOf(termId: number): number {
    const frozen = this.#frozen;
    return frozen ? (frozen.stats.kept(termId)[0] ?? 0) : this.#toolCount.at(termId);
  }

  /** How many live tools hold `termId` in `field` (BM25's document frequency, per field as MiniSearch counts it). */
  fieldFrequency(termId: number, field: number): number {
    const frozen = this.#frozen;
    return frozen ? (frozen.stats.kept(termId)[STAT_FIELD_COUNT + field] ?? 0) : this.#fieldCount.at(termId * FIELD_COUNT + field);
  }

  fieldLength(slot: number, field: number): number {
    return this.#fieldLength.at(slot * FIELD_COUNT + field);
  }

  /** Every slot's field lengths, `slot * FIELD_COUNT + field` (fieldLength's; valid until the next change). */
  fieldLengths(): Int32Array {
    return this.#fieldLength.view();
  }

  /** The sum of every live tool's length in `field` (a sharded catalog adds its parts': shardedSearch.ts). */
  fieldLengthSum(field: number): number {
    return this.#lengthSum[field] ?? 0;
  }

  /** How many terms have been interned (ids 0 … termCount − 1; a term no live tool holds any more counts 0). */
  get termCount(): number {
    return this.#frozen ? this.#frozen.terms.count : this.#terms.length;
  }

  /** The term of `termId`. */
  term(termId: number): string {
    return this.#frozen ? this.#frozen.terms.at(termId) : (this.#terms[termId] ?? "");
  }

  averageFieldLength(field: number): number {
    return this.#live === 0 ? 0 : (this.#lengthSum[field] ?? 0) / this.#live;
  }

  /** The highest frequency of `termId` in `field`, and the shortest and longest such field, over the tools ever added. */
  fieldBounds(termId: number, field: number): { maxFrequency: number; minLength: number; maxLength: number } {
    const frozen = this.#frozen;
    if (frozen) {
      const record = frozen.stats.kept(termId);
      return { maxFrequency: record[STAT_MAX_FREQUENCY + field] ?? 0, minLength: record[STAT_MIN_LENGTH + field] ?? 0, maxLength: record[STAT_MAX_LENGTH + field] ?? 0 };
    }
    const cell = termId * FIELD_COUNT + field;
    return { maxFrequency: this.#maxFrequency.at(cell), minLength: this.#minLength.at(cell), maxLength: this.#maxLength.at(cell) };
  }
}

const NO_POSTINGS = new Int32Array(0);

/** A restored index's state as the snapshot holds it (Bm25Postings.restore; the postings and forward lists checked when read). */
interface FrozenPostings {
  /** Every term, read in place. */
  terms: TermText;
  /** The words' one-edit table, carried. */
  oneEdit: CarriedOneEditIndex;
  postingStarts: Int32Array;
  postings: DeferredSection<Int32Array>;
  /** Per term, its statistics' record (STAT_WORDS), packed. */
  stats: PackedTermStats;
  /** Term ids in UTF-16 order of their terms: those prefix and fuzzy matching look at, every term (look-ups). */
  sortedIds: Int32Array;
  lookupIds: Int32Array;
  /** The ids of sortedIds' terms by length (lengthStarts[n] .. lengthStarts[n + 1] in lengthOrder: length n). */
  lengthStarts: Int32Array;
  lengthOrder: Int32Array;
  /** How many slots, and per slot 1 for a removed one. */
  slots: number;
  removed: Uint8Array;
  /** Every slot's forward list (slot s's: values[starts[s] .. starts[s + 1]]), derived when first read (forwardOf). */
  forward: { starts: Int32Array; values: Int32Array } | undefined;
}

/**
 * The forward lists of `slots` slots, from the postings (`postingStarts[t] .. postingStarts[t + 1]`: term t's): each
 * slot's `[term * 8 + field, frequency, …]` by term, then field. Two passes over the postings; a key whose slot is out
 * of range is left out, and starts out of order throw (bounded for any input).
 */
function invertPostings(postings: Int32Array, postingStarts: Int32Array, slots: number): { starts: Int32Array; values: Int32Array } {
  const starts = new Int32Array(slots + 1);
  for (let at = 0; at < postings.length; at += 2) {
    const slot = Math.floor((postings[at] ?? 0) / FIELD_BITS);
    if (slot >= 0 && slot < slots) starts[slot + 1] = (starts[slot + 1] ?? 0) + 2;
  }
  for (let slot = 0; slot < slots; slot++) starts[slot + 1] = (starts[slot + 1] ?? 0) + (starts[slot] ?? 0);
  const next = starts.slice(0, slots);
  const values = new Int32Array(starts[slots] ?? 0);
  let previous = 0;
  for (let term = 0; term + 1 < postingStarts.length; term++) {
    const start = postingStarts[term] ?? 0;
    const end = postingStarts[term + 1] ?? 0;
    if (start !== previous || end < start || end > postings.length) throw new SnapshotError("the postings are out of order");
    previous = end;
    for (let at = start; at < end; at += 2) {
      const key = postings[at] ?? 0;
      const slot = Math.floor(key / FIELD_BITS);
      if (!(slot >= 0 && slot < slots)) continue;
      const k = next[slot] ?? 0;
      next[slot] = k + 2;
      values[k] = term * FIELD_BITS + (key - slot * FIELD_BITS);
      values[k + 1] = postings[at + 1] ?? 0;
    }
  }
  return { starts, values };
}

/** The first index (even) of `list`, `[key, value, …]` sorted by key, whose key is not below `key`. */
function lowerBoundKey(list: Int32Array, key: number): number {
  let low = 0;
  let high = list.length >>> 1;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((list[middle * 2] ?? 0) < key) low = middle + 1;
    else high = middle;
  }
  return low * 2;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The id of `term` in a frozen index (binary search over every term, sorted), or undefined. */
function frozenTermId(frozen: FrozenPostings, term: string): number | undefined {
  const at = frozen.terms.lowerBound(frozen.lookupIds, term);
  const id = frozen.lookupIds[at];
  if (id !== undefined && frozen.terms.compare(id, term) === 0) return id;
  return undefined;
}

/** Index (in `list`) of the pair whose key is `key` in `list[start .. end)`, `[key, value, …]` sorted by key, or -1. */
function findKey(list: Int32Array, start: number, end: number, key: number): number {
  let low = 0;
  let high = (end - start) / 2;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((list[start + middle * 2] ?? 0) < key) low = middle + 1;
    else high = middle;
  }
  const at = start + low * 2;
  return at < end && list[at] === key ? at : -1;
}

/** The first index of `sorted` whose string is not below `value`. */
export function lowerBound(sorted: readonly string[], value: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] ?? "") < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Slot of a posting key, and its field. */
export function keySlot(key: number): number {
  return Math.floor(key / FIELD_BITS);
}

export function keyField(key: number): number {
  return key % FIELD_BITS;
}
