// The postings of a catalog: one per distinct (term, field, tool), gathered in flat typed arrays while the tools are
// analyzed, so that the index can be built from them in one pass per term. Each distinct piece of text (pieces.ts)
// is analyzed once per isolate (SharedPieces), as analyze.ts's terms are.
import { processTerm } from "./analyze.ts";
import { PairTable } from "./pairTable.ts";
import { FIELDS, PHRASE_FIELDS, phraseTerm, SHARED_TEXT_FIELDS } from "./fields.ts";
import { IntList } from "./intList.ts";
import { PieceTable } from "./pieces.ts";
import { tokenize } from "./text.ts";

/** Postings grouped by term: term `t`'s postings are `order[starts[t]]` … `order[starts[t + 1] - 1]`. */
export interface PostingsByTerm {
  readonly terms: readonly string[];
  readonly starts: Int32Array;
  readonly order: Int32Array;
  readonly postingField: Int32Array;
  readonly postingTool: Int32Array;
  readonly postingCount: Int32Array;
}

/**
 * Texts of the fields tools share (SHARED_TEXT_FIELDS) this long or longer are analyzed once per build and looked up
 * after that; a shorter one costs less to scan than to look up, and names and descriptions seldom repeat.
 */
const REPEATED_TEXT_LENGTH = 16;

/** Ints per term in PostingCollector's #termState, and where each of them is. */
const TERM_STATE = 4;
const LAST_SLOT = 0;
const LAST_POSTING = 1;
const TOOL_COUNT = 2;
const POSTING_COUNT = 3;

/**
 * A table of pieces is kept per isolate (per reader of words) while it holds at most this many pieces and characters:
 * a later build (a new catalog version, an update's added tools) finds its pieces analyzed and their words read. A
 * build starts on a new table once the last one is past either bound, so one build's pieces are never dropped midway.
 */
const SHARED_PIECES_LIMIT = 100_000;
const SHARED_CHARS_LIMIT = 1_000_000;

/**
 * The pieces of the texts an isolate has indexed, each analyzed once into terms known by an isolate-wide id (`words`:
 * id → term), and (with a reader of words) its words read once.
 */
class SharedPieces {
  readonly pieces: PieceTable;
  /** Term of each id, and the id of each term. */
  readonly terms: string[] = [];
  readonly #ids = new Map<string, number>();

  constructor(words: ((piece: string) => readonly number[]) | undefined) {
    this.pieces = new PieceTable((piece) => this.#analyze(piece), words);
  }

  get full(): boolean {
    return this.pieces.size > SHARED_PIECES_LIMIT || this.pieces.charCount > SHARED_CHARS_LIMIT;
  }

  #analyze(piece: string): number[] {
    const ids: number[] = [];
    for (const token of tokenize(piece)) {
      const term = processTerm(token);
      if (!term) continue;
      let id = this.#ids.get(term);
      if (id === undefined) {
        id = this.terms.push(term) - 1;
        this.#ids.set(term, id);
      }
      ids.push(id);
    }
    return ids;
  }
}

/** The isolate's tables of pieces, by reader of words (undefined: none): in practice one or two readers. */
const sharedPieces = new Map<((piece: string) => readonly number[]) | undefined, SharedPieces>();
const MAX_READERS = 4;

/** The table of pieces a new collector reads with `words`: the isolate's, or a new one once it is full. */
function piecesFor(words: ((piece: string) => readonly number[]) | undefined): SharedPieces {
  const known = sharedPieces.get(words);
  if (known !== undefined && !known.full) return known;
  if (known === undefined && sharedPieces.size >= MAX_READERS) sharedPieces.clear();
  const fresh = new SharedPieces(words);
  sharedPieces.set(words, fresh);
  return fresh;
}

/**
 * Collects one posting per distinct (term, field, tool) of a catalog, in catalog order, in flat typed arrays: the
 * garbage collector has next to nothing to trace while a large catalog is analyzed.
 */
export class PostingCollector {
  /** Every term seen, by id: in order of first occurrence. */
  readonly terms: string[] = [];
  /** The isolate's pieces (their terms by isolate-wide id), and per such id this collector's term id + 1 (0: none yet). */
  readonly #shared: SharedPieces;
  #localIds = new Int32Array(1024);
  /** The term ids of a short text being added, and of its pairs (scratch). */
  readonly #textTerms = new IntList();
  readonly #textPairs = new IntList();
  /** Longer texts → their run of term ids (run r is `runTerms[runEnds[r - 1] .. runEnds[r])`), analyzed once. */
  readonly #runOfText = new Map<string, number>();
  readonly #runEnds = new IntList();
  readonly #runTerms = new IntList();
  /**
   * Per term, TERM_STATE ints side by side: the slot (tool × field) and posting it was last seen in, how many tools
   * hold it, and its number of postings. Every term occurrence reads them: one place in memory, not four lists.
   */
  #termState = new Int32Array(TERM_STATE * 1024);
  // Per posting: its term, slot (tool × FIELDS.length + field) and frequency.
  readonly #postingTerm = new IntList();
  readonly #postingSlot = new IntList();
  readonly #postingCount = new IntList();

  /**
   * `words`: a second reading of each piece of text (the semantic half's word rows, semantic.ts), which addText
   * gives out where asked: the tools' texts are scanned once for both halves.
   */
  constructor(words?: (piece: string) => readonly number[], phrases = false) {
    this.#shared = piecesFor(words);
    this.#phrases = phrases;
  }

  /** Whether the fields of PHRASE_FIELDS also record their pairs of adjacent terms (phraseTerm). */
  readonly #phrases: boolean;
  /** (term id, next term id) → the pair's term id. */
  readonly #pairIds = new PairTable();

  /**
   * Per term: the ids of the two terms a pair is made of (pairFirst -1 for a word). A pair is known by its two ids
   * (#pairIds), never looked up by its text: a build meets tens of thousands of pairs, and hashing each one's text
   * cost it a tenth of its time.
   */
  readonly #pairFirst = new IntList();
  readonly #pairSecond = new IntList();

  #pairId(first: number, second: number): number {
    let id = this.#pairIds.get(first, second);
    if (id === -1) {
      // A term never holds a space (fields.ts, phraseTerm): no word has this text, and no other pair.
      id = this.#newTerm(phraseTerm(this.terms[first] ?? "", this.terms[second] ?? ""), first, second);
      this.#pairIds.set(first, second, id);
    }
    return id;
  }

  /** (first term id, second term id) → the pair's term id, for every pair recorded: the collector's own table. */
  pairTable(): PairTable {
    return this.#pairIds;
  }

  /** Per term: the first and second term ids of a pair (first: -1 for a word). Views, valid until the next addText. */
  pairs(): { first: Int32Array; second: Int32Array } {
    return { first: this.#pairFirst.view(), second: this.#pairSecond.view() };
  }

  /**
   * Records the terms of `text` in a field of a tool (a field's texts may come in several calls); returns how many
   * terms were new to that field. `wordsInto`: where the words of its pieces go, in order (such a text is read
   * piece by piece, even in a field tools share).
   */
  addText(text: string, toolId: number, fieldId: number, wordsInto?: IntList): number {
    let terms = this.#textTerms;
    let from = 0;
    let to = 0;
    if (wordsInto || text.length < REPEATED_TEXT_LENGTH || !SHARED_TEXT_FIELDS.has(fieldId)) {
      terms.clear();
      this.#appendTerms(text, terms, wordsInto, 0, text.length);
      to = terms.length;
    } else {
      terms = this.#runTerms;
      let run = this.#runOfText.get(text);
      if (run === undefined) {
        this.#appendTerms(text, terms, undefined, 0, text.length);
        run = this.#runEnds.push(terms.length);
        this.#runOfText.set(text, run);
      }
      from = run === 0 ? 0 : this.#runEnds.at(run - 1);
      to = this.#runEnds.at(run);
    }
    return this.#addTerms(terms, from, to, toolId, fieldId);
  }

  /**
   * addText of a text read piece by piece, then of `text[start .. end)` (ends of pieces: isPieceEnd) `repeats` times
   * more, without reading that span again: its terms and pairs are the text's there, its words too (pushed into
   * `wordsInto` again). A description's lead sentence (fields.ts, leadSentenceSpan) is read so.
   */
  addTextRepeatingSpan(text: string, toolId: number, fieldId: number, wordsInto: IntList | undefined, start: number, end: number, repeats: number): number {
    const terms = this.#textTerms;
    terms.clear();
    this.#appendTerms(text, terms, wordsInto, 0, start);
    const spanFrom = terms.length;
    const wordsFrom = wordsInto?.length ?? 0;
    this.#appendTerms(text, terms, wordsInto, start, end);
    const spanTo = terms.length;
    const wordsTo = wordsInto?.length ?? 0;
    this.#appendTerms(text, terms, wordsInto, end, text.length);
    const pairs = this.#textPairs;
    pairs.clear();
    const added = this.#addTerms(terms, 0, terms.length, toolId, fieldId, pairs);
    // Every term and pair of the span is already in this field of this tool: each only adds to its frequency.
    const slot = toolId * FIELDS.length + fieldId;
    for (let repeat = 0; repeat < repeats; repeat++) {
      for (let i = spanFrom; i < spanTo; i++) this.#add(terms.at(i), toolId, slot);
      // The pair of terms i - 1 and i is the text's pair i - 1.
      if (pairs.length > 0) for (let i = spanFrom + 1; i < spanTo; i++) this.#add(pairs.at(i - 1), toolId, slot);
      if (wordsInto) for (let k = wordsFrom; k < wordsTo; k++) wordsInto.push(wordsInto.at(k));
    }
    return added;
  }

  /**
   * Records `terms[from .. to)` (and their pairs) in a field of a tool; returns how many were new to that field.
   * `pairsInto`: where the ids of the pairs go, in order (none when the field records no pairs).
   */
  #addTerms(terms: IntList, from: number, to: number, toolId: number, fieldId: number, pairsInto?: IntList): number {
    const slot = toolId * FIELDS.length + fieldId;
    let added = 0;
    for (let i = from; i < to; i++) if (this.#add(terms.at(i), toolId, slot)) added++;
    // Pairs are evidence on top of the words: they do not lengthen the field (its BM25 length stays its words').
    if (this.#phrases && PHRASE_FIELDS.has(fieldId)) {
      for (let i = from + 1; i < to; i++) {
        const pair = this.#pairId(terms.at(i - 1), terms.at(i));
        pairsInto?.push(pair);
        this.#add(pair, toolId, slot);
      }
    }
    return added;
  }

  /**
   * Appends to `into` the term ids of `text[from .. to)` (PieceTable.appendTerms, ends of pieces), this collector's:
   * a term new to it takes the next id, in the order the texts give them.
   */
  #appendTerms(text: string, into: IntList, wordsInto: IntList | undefined, from: number, to: number): void {
    const start = into.length;
    this.#shared.pieces.appendTerms(text, into, wordsInto, from, to);
    const terms = this.#shared.terms;
    if (terms.length > this.#localIds.length) {
      const grown = new Int32Array(Math.max(2 * this.#localIds.length, terms.length));
      grown.set(this.#localIds);
      this.#localIds = grown;
    }
    const localIds = this.#localIds;
    for (let i = start; i < into.length; i++) {
      const shared = into.at(i);
      let local = (localIds[shared] ?? 0) - 1;
      if (local === -1) {
        local = this.#newTerm(terms[shared] ?? "", -1, -1);
        localIds[shared] = local + 1;
      }
      into.set(i, local);
    }
  }

  /** A new term's id (first and second: a pair's terms, or -1). */
  #newTerm(term: string, first: number, second: number): number {
    const termId = this.terms.push(term) - 1;
    this.#pairFirst.push(first);
    this.#pairSecond.push(second);
    const at = termId * TERM_STATE;
    if (at + TERM_STATE > this.#termState.length) {
      const grown = new Int32Array(2 * this.#termState.length);
      grown.set(this.#termState);
      this.#termState = grown;
    }
    this.#termState[at + LAST_SLOT] = -1;
    this.#termState[at + LAST_POSTING] = -1;
    this.#termState[at + TOOL_COUNT] = 0;
    this.#termState[at + POSTING_COUNT] = 0;
    return termId;
  }

  /** Records one occurrence of a term in a slot (tool × field); true when it starts a new posting. */
  #add(termId: number, toolId: number, slot: number): boolean {
    const state = this.#termState;
    const at = termId * TERM_STATE;
    if (state[at + LAST_SLOT] === slot) {
      const posting = state[at + LAST_POSTING] ?? 0;
      this.#postingCount.set(posting, this.#postingCount.at(posting) + 1);
      return false;
    }
    const last = state[at + LAST_SLOT] ?? -1;
    state[at + LAST_SLOT] = slot;
    state[at + LAST_POSTING] = this.#postingTerm.push(termId);
    state[at + POSTING_COUNT] = (state[at + POSTING_COUNT] ?? 0) + 1;
    const toolSlots = toolId * FIELDS.length;
    this.#postingSlot.push(slot);
    this.#postingCount.push(1);
    // The term's last slot was another tool's (or none): one tool more holds it.
    if (last < toolSlots || last >= toolSlots + FIELDS.length) state[at + TOOL_COUNT] = (state[at + TOOL_COUNT] ?? 0) + 1;
    return true;
  }

  /** Term → in how many tools it occurs (any field). */
  documentFrequency(): Map<string, number> {
    const frequencies = new Map<string, number>();
    const counts = this.toolCounts();
    this.terms.forEach((term, termId) => frequencies.set(term, counts[termId] ?? 0));
    return frequencies;
  }

  /**
   * Every posting in the order recorded (tool by tool, field by field): its term, slot (tool × FIELDS.length + field)
   * and frequency.
   */
  postings(): { postingTerm: Int32Array; postingSlot: Int32Array; postingCount: Int32Array } {
    return { postingTerm: this.#postingTerm.view(), postingSlot: this.#postingSlot.view(), postingCount: this.#postingCount.view() };
  }

  /** Term → in how many tools it occurs (any field), by term id. */
  toolCounts(): Int32Array {
    const counts = new Int32Array(this.terms.length);
    for (let termId = 0; termId < counts.length; termId++) counts[termId] = this.#termState[termId * TERM_STATE + TOOL_COUNT] ?? 0;
    return counts;
  }

  /** Where each term's postings start when grouped by term (term t's: `starts[t] .. starts[t + 1]`), from their counts. */
  termStarts(): Int32Array {
    const termCount = this.terms.length;
    const starts = new Int32Array(termCount + 1);
    const state = this.#termState;
    for (let termId = 0; termId < termCount; termId++) starts[termId + 1] = (starts[termId] ?? 0) + (state[termId * TERM_STATE + POSTING_COUNT] ?? 0);
    return starts;
  }

  /** The postings grouped by term (a counting sort: catalog order stays within each term). */
  byTerm(): PostingsByTerm {
    const termCount = this.terms.length;
    const postingTerm = this.#postingTerm.view();
    const starts = this.termStarts();
    const next = starts.slice(0, termCount);
    const order = new Int32Array(postingTerm.length);
    postingTerm.forEach((termId, posting) => {
      const position = next[termId] ?? 0;
      order[position] = posting;
      next[termId] = position + 1;
    });
    const postingTool = this.#postingSlot.view().map((slot) => Math.floor(slot / FIELDS.length));
    const postingField = this.#postingSlot.view().map((slot, posting) => slot - (postingTool[posting] ?? 0) * FIELDS.length);
    return { terms: this.terms, starts, order, postingField, postingTool, postingCount: this.#postingCount.view() };
  }
}
