// (Test support: the MiniSearch index the reference ranking uses.) Fills a MiniSearch index's inverted index (term → field id → document short id → term frequency) straight from
// collected postings.
// MiniSearch.loadJS, its public way in, takes that index as one plain object per term and field, keyed by document
// id, and copies each into a Map (Object.keys, parseInt and Map.set for every posting). Building those objects and
// having them copied took about 160 ms of a 350 ms build at 10,000 tools; making the Maps directly takes about 40.
// The Maps go into the index's radix tree with its public `SearchableMap.set`; only reaching that tree reads a member
// MiniSearch keeps private (`_index` in 7.2, the pinned version). The tests check that the result equals what
// MiniSearch's own addAll builds, so an upgrade that changes these internals fails them; without `_index` the build
// throws.
import type MiniSearch from "minisearch";
import type { PostingsByTerm } from "../../src/core/search/postings.ts";

/** Term → field id → document short id → occurrences of the term in that field. */
export type FieldTermData = Map<number, Map<number, number>>;

interface TermTree {
  set(term: string, data: FieldTermData): unknown;
}

function termTreeOf(index: MiniSearch): TermTree {
  const tree: unknown = Reflect.get(index, "_index");
  if (typeof tree === "object" && tree !== null && "set" in tree && typeof tree.set === "function") {
    const set = tree.set;
    return { set: (term, data) => Reflect.apply(set, tree, [term, data]) };
  }
  throw new Error("minisearch: no term index where version 7 keeps it (`_index`); see test/support/termIndex.ts");
}

/** Adds every term of `postings` to `index`, which must hold the documents already (loaded with an empty index). */
export function fillTermIndex(index: MiniSearch, postings: PostingsByTerm): void {
  const tree = termTreeOf(index);
  const { terms, starts, order, postingField, postingTool, postingCount } = postings;
  for (let termId = 0; termId < terms.length; termId++) {
    const data: FieldTermData = new Map();
    let fieldId = -1;
    let frequencies = new Map<number, number>();
    for (let k = starts[termId] ?? 0, end = starts[termId + 1] ?? 0; k < end; k++) {
      const posting = order[k] ?? 0;
      const postingFieldId = postingField[posting] ?? 0;
      if (postingFieldId !== fieldId) {
        fieldId = postingFieldId;
        const known = data.get(fieldId);
        if (known) frequencies = known;
        else {
          frequencies = new Map();
          data.set(fieldId, frequencies);
        }
      }
      frequencies.set(postingTool[posting] ?? 0, postingCount[posting] ?? 0);
    }
    tree.set(terms[termId] ?? "", data);
  }
}
