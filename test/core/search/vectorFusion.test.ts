import { describe, expect, it } from "vitest";
import { createSearchIndex } from "../../../src/core/search/createIndex.ts";
import { embeddingText, packVector } from "../../../src/core/search/toolVectors.ts";
import { FUSION_DEPTH, withQueryVector } from "../../../src/core/search/vectorFusion.ts";
import type { ToolDefinition } from "../../../src/core/types.ts";
import { hashedEmbedding } from "../../fixtures/hashedEmbeddings.ts";
import { tool } from "../../support/tools.ts";

function pack(text: string): Int8Array {
  const vector = packVector(hashedEmbedding(text));
  if (vector === undefined) throw new Error(`no vector for ${text}`);
  return vector;
}

const fillers = Array.from({ length: 80 }, (_, i) => tool(`filler_${i}`, `Handles ledger entry number ${i} of the accounts.`));
const catalog: ToolDefinition[] = [
  tool("car_rental", "Rent a car for a road trip."),
  tool("book_finder", "Find a book in the library by its title."),
  tool("paint_mixer", "Mix two paint colours."),
  tool("rental_history", "Lists past rentals of skis and boards."),
  ...fillers,
];
const vectors = new Map(catalog.map((t) => [t.name, pack(embeddingText(t))]));

/** The index fused with the vector of `meaning` (the query's own text by default). */
function fused(meaning: string, of: readonly ToolDefinition[] = catalog, held = vectors): ReturnType<typeof withQueryVector> {
  return withQueryVector(createSearchIndex("minisearch", of), of, held, pack(meaning));
}

const accept = (name: string): boolean => name !== "car_rental" && !name.endsWith("_7");

describe("withQueryVector", () => {
  it("ranks a tool found only by its vector, which the lexical ranking misses", () => {
    const lexical = createSearchIndex("minisearch", catalog);
    expect(lexical.search("vroomcart")).not.toContain("car_rental");
    expect(fused("vroomcart").searchPage("vroomcart", 5).names[0]).toBe("car_rental");
  });

  it("moves a tool the vector ranks first above the lexical ranking's first", () => {
    const lexical = createSearchIndex("minisearch", catalog);
    expect(lexical.searchPage("rentals", 2).names).toEqual(["rental_history", "car_rental"]);
    // A query vector that means a car: the car rental, second lexically, comes first.
    expect(fused("vroomcart").searchPage("rentals", 2).names).toEqual(["car_rental", "rental_history"]);
  });

  it("keeps a tool the query names first", () => {
    expect(fused("paint_mixer vroomcart").searchPage("paint_mixer vroomcart", 3).names[0]).toBe("paint_mixer");
  });

  it("answers a blank query as the lexical index does (catalog order)", () => {
    const lexical = createSearchIndex("minisearch", catalog);
    expect(fused("vroomcart").searchPage("", 10)).toEqual(lexical.searchPage("", 10));
  });

  it("pages consistently: a shorter page is the head of a longer one, and the total counts every candidate once", () => {
    const index = fused("rent a car for a road trip");
    const long = index.searchPage("rent a car for a road trip", Infinity);
    expect(long.names.length).toBe(long.total);
    expect(new Set(long.names).size).toBe(long.names.length);
    for (const count of [1, 3, 10, FUSION_DEPTH, FUSION_DEPTH + 5]) {
      const page = index.searchPage("rent a car for a road trip", count);
      expect(page.names).toEqual(long.names.slice(0, count));
      expect(page.total).toBe(long.total);
    }
    expect(index.search("rent a car for a road trip")).toEqual(long.names);
  });

  it("returns only the tools accept keeps, from either ranking", () => {
    const page = fused("vroomcart").searchPage("vroomcart", Infinity, accept);
    expect(page.names.every(accept)).toBe(true);
    expect(page.total).toBe(page.names.length);
  });

  it("ranks a tool without a vector by the lexical ranking alone", () => {
    const partial = new Map([...vectors].filter(([name]) => name !== "book_finder"));
    expect(fused("library book title", catalog, partial).searchPage("library book title", 5).names).toContain("book_finder");
    expect(fused("blorptome", catalog).searchPage("blorptome", 1).names).toEqual(["book_finder"]);
    expect(fused("blorptome", catalog, partial).searchPage("blorptome", 5).names).not.toContain("book_finder");
  });

  it("scores the tools of its ranking with their lexical relevance", () => {
    const index = fused("vroomcart");
    const scored = index.scored("rentals", 2);
    expect(scored.map((match) => match.name)).toEqual(["car_rental", "rental_history"]);
    for (const match of scored) expect(match.relevance).toBeGreaterThan(0);
    expect(index.scored("", 2)).toEqual([]);
  });
});
