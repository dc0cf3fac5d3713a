import MiniSearch from "minisearch";
import { describe, expect, it } from "vitest";
import type { PostingsByTerm } from "../../../src/core/search/postings.ts";
import { fillTermIndex } from "../../support/termIndex.ts";

const OPTIONS = { fields: ["title", "text"], tokenize: (text: string) => text.split(" "), processTerm: (term: string) => term };

/** Two documents: 0 = {title: "red fox", text: "fox fox"}, 1 = {title: "blue", text: "red"}. */
function documentsOnly(): MiniSearch {
  return MiniSearch.loadJS(
    {
      documentCount: 2,
      nextId: 2,
      documentIds: { 0: 0, 1: 1 },
      fieldIds: { title: 0, text: 1 },
      fieldLength: { 0: [2, 1], 1: [1, 1] },
      averageFieldLength: [1.5, 1],
      storedFields: {},
      dirtCount: 0,
      index: [],
      serializationVersion: 2,
    },
    OPTIONS,
  );
}

// Postings in catalog order (tool, then field); grouped by term through `order` and `starts`.
const postings: PostingsByTerm = {
  terms: ["red", "fox", "blue"],
  //                 0: red t0  1: fox t0  2: fox x0  3: blue t1  4: red x1
  postingField: Int32Array.of(0, 0, 1, 0, 1),
  postingTool: Int32Array.of(0, 0, 0, 1, 1),
  postingCount: Int32Array.of(1, 1, 2, 1, 1),
  order: Int32Array.of(0, 4, 1, 2, 3),
  starts: Int32Array.of(0, 2, 4, 5),
};

describe("fillTermIndex", () => {
  it("builds the index MiniSearch's addAll builds from the same documents", () => {
    const index = documentsOnly();
    fillTermIndex(index, postings);
    const reference = new MiniSearch(OPTIONS);
    reference.addAll([
      { id: 0, title: "red fox", text: "fox fox" },
      { id: 1, title: "blue", text: "red" },
    ]);
    expect(index.toJSON()).toEqual(reference.toJSON());
    expect(index.termCount).toBe(3);
    expect(index.search("fox").map((result) => result.id)).toEqual([0]);
    expect(index.search("re", { prefix: true }).map((result) => result.id)).toEqual(reference.search("re", { prefix: true }).map((result) => result.id));
    expect(index.search("re", { prefix: true })).toHaveLength(2);
  });

  it("refuses an index whose term tree is not where MiniSearch 7 keeps it", () => {
    const index = documentsOnly();
    Reflect.deleteProperty(index, "_index");
    expect(() => fillTermIndex(index, postings)).toThrow(/no term index/u);
  });
});
