import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Bm25Postings, withinOneEdit } from "../../../src/core/search/bm25Postings.ts";
import { OneEditIndex } from "../../../src/core/search/oneEditIndex.ts";
import { SnapshotReader, SnapshotWriter } from "../../../src/core/search/snapshotCodec.ts";
import type { ToolDefinition } from "../../../src/core/types.ts";

// A small alphabet, so that random words are often one edit apart; lengths from none to 7 (the short ones are where
// "same first or last letter" does not hold).
const word = fc.stringMatching(/^[abcé]{0,7}$/u);

describe("OneEditIndex", () => {
  it("visits every term one edit from a word (or the word itself), each once", () => {
    fc.assert(
      fc.property(fc.uniqueArray(word, { maxLength: 60 }), word, (terms, query) => {
        const index = new OneEditIndex();
        terms.forEach((term, id) => index.add(term, id));
        const visits = new Map<number, number>();
        index.forEachCandidate(query, (id) => visits.set(id, (visits.get(id) ?? 0) + 1));
        expect([...visits.values()].every((count) => count === 1)).toBe(true);
        const found = [...visits.keys()].filter((id) => withinOneEdit(query, terms[id] ?? "")).toSorted((a, b) => a - b);
        const expected = terms.flatMap((term, id) => (withinOneEdit(query, term) ? [id] : []));
        expect(found).toEqual(expected);
      }),
      { numRuns: 1_000 },
    );
  });

  it("reads only the terms of a near length that share the word's first or last letter", () => {
    const index = new OneEditIndex();
    const terms = ["weather", "weathers", "heather", "leather", "wether", "feathers", "whether", "forecast", "weath"];
    terms.forEach((term, id) => index.add(term, id));
    const visited: string[] = [];
    index.forEachCandidate("weather", (id) => visited.push(terms[id] ?? ""));
    // "forecast" (another length) and "feathers" (neither end letter) are never read; "weath" is two letters shorter.
    expect(visited.toSorted()).toEqual(["heather", "leather", "weather", "weathers", "wether", "whether"]);
  });
});

function tool(name: string, description: string): ToolDefinition {
  return { name, description, parameters: {} };
}

/** The fuzzy part of an expansion (term ids after the exact term and its prefixes), as the terms they are. */
function fuzzyTerms(postings: Bm25Postings, query: string): string[] {
  const { termIds } = postings.expand(query, false, true, 0.55, 0.3);
  return termIds.map((id) => postings.term(id)).filter((term) => term !== query);
}

/** Every word of the index one edit from `query` (not itself), sorted as expand orders them: the textbook way. */
function oneEditWords(postings: Bm25Postings, query: string): string[] {
  const words: string[] = [];
  for (let id = 0; id < postings.termCount; id++) {
    const term = postings.term(id);
    if (!term.includes(" ") && term !== query && withinOneEdit(query, term)) words.push(term);
  }
  return words.toSorted();
}

describe("Bm25Postings.expand with typos", () => {
  const letters = fc.stringMatching(/^[abdeo]{2,7}$/u);

  it("finds every word one edit away, built, restored from a snapshot and changed after", () => {
    fc.assert(
      fc.property(fc.array(fc.array(letters, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 12 }), fc.array(letters, { minLength: 1, maxLength: 5 }), (descriptions, queries) => {
        const tools = descriptions.map((words, i) => tool(`tool_${i}`, words.join(" ")));
        const built = new Bm25Postings(true);
        built.addTools(tools);
        const out = new SnapshotWriter();
        built.toSnapshot(out);
        const restored = new Bm25Postings(true);
        restored.restore(new SnapshotReader(out.finish()));
        for (const query of queries) {
          expect(fuzzyTerms(built, query)).toEqual(oneEditWords(built, query));
          expect(fuzzyTerms(restored, query)).toEqual(oneEditWords(built, query));
        }
        // Words added after the first typo looked up are found too (the index of them is kept up to date).
        const more = [tool("added", queries.map((query) => `${query}x x${query}`).join(" "))];
        built.addTools(more);
        restored.addTools(more);
        for (const query of queries) {
          expect(fuzzyTerms(built, query)).toEqual(oneEditWords(built, query));
          expect(fuzzyTerms(restored, query)).toEqual(oneEditWords(built, query));
        }
      }),
      { numRuns: 200 },
    );
  });
});
