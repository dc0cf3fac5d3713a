import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { withinOneEdit } from "../../../src/core/search/bm25Postings.ts";
import { TermText } from "../../../src/core/search/termText.ts";

/** A TermText of `terms` (end to end, with their starts), as a restored index reads its terms. */
function termText(terms: readonly string[]): TermText {
  const starts = new Int32Array(terms.length + 1);
  terms.forEach((term, id) => {
    starts[id + 1] = (starts[id] ?? 0) + term.length;
  });
  return new TermText(terms.join(""), starts);
}

const word = fc.stringMatching(/^[abc\u00e9]{0,6}$/u);

describe("TermText", () => {
  it("reads, compares and matches each term in place as its string would", () => {
    fc.assert(
      fc.property(fc.array(word, { maxLength: 12 }), word, (terms, value) => {
        const text = termText(terms);
        // Ids out of range read as "".
        for (let id = -1; id <= terms.length; id++) {
          const term = terms[id] ?? "";
          expect(text.at(id)).toBe(term);
          expect(text.lengthOf(id)).toBe(term.length);
          expect(text.withinOneEdit(id, value)).toBe(withinOneEdit(term, value));
          if (id < 0 || id >= terms.length) continue;
          expect(Math.sign(text.compare(id, value))).toBe(term < value ? -1 : term > value ? 1 : 0);
          expect(text.startsWith(id, value)).toBe(term.startsWith(value));
        }
        expect(text.all()).toEqual(terms);
      }),
      { numRuns: 1_000 },
    );
  });

  it("finds where a value falls among ids sorted by their terms", () => {
    fc.assert(
      fc.property(fc.uniqueArray(word, { maxLength: 20 }), word, (terms, value) => {
        const text = termText(terms);
        const sorted = Int32Array.from(terms.keys()).toSorted((a, b) => ((terms[a] ?? "") < (terms[b] ?? "") ? -1 : 1));
        const expected = Array.from(sorted).findIndex((id) => (terms[id] ?? "") >= value);
        expect(text.lowerBound(sorted, value)).toBe(expected === -1 ? sorted.length : expected);
      }),
      { numRuns: 1_000 },
    );
  });
});
