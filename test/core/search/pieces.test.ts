import { describe, expect, it } from "vitest";
import { IntList } from "../../../src/core/search/intList.ts";
import { PieceTable } from "../../../src/core/search/pieces.ts";

/** The term ids `table` gives the pieces of `text`, in order. */
function termsOf(table: PieceTable, text: string): number[] {
  const into = new IntList(1);
  table.appendTerms(text, into);
  return Array.from(into.view());
}

/** A table whose analysis gives each new piece one id (its order of arrival), recording what it analyzed. */
function countingTable() {
  const analyzed: string[] = [];
  const table = new PieceTable((piece) => {
    analyzed.push(piece);
    return [analyzed.length - 1];
  });
  const ids = (text: string): number[] => termsOf(table, text);
  return { analyzed, ids };
}

describe("PieceTable", () => {
  it("cuts text at ASCII separators and analyzes each distinct piece once", () => {
    const { analyzed, ids } = countingTable();
    expect(ids("get_weather, get-weather.")).toEqual([0, 1, 0, 1]);
    expect(ids("  weather\tget\n")).toEqual([1, 0]);
    expect(analyzed).toEqual(["get", "weather"]);
  });

  it("keeps non-ASCII runs whole and tells pieces apart by every character", () => {
    const { analyzed, ids } = countingTable();
    expect(ids("天气预报 café cafe Café")).toEqual([0, 1, 2, 3]);
    expect(ids("cafe café")).toEqual([2, 1]);
    expect(analyzed).toEqual(["天气预报", "café", "cafe", "Café"]);
  });

  it("tells apart pieces whose hashes are equal", () => {
    // "Aa" and "BB" have the same polynomial hash (65·31 + 97 = 66·31 + 66).
    const { analyzed, ids } = countingTable();
    expect(ids("Aa BB AaBB BBAa Aa BB")).toEqual([0, 1, 2, 3, 0, 1]);
    expect(analyzed).toEqual(["Aa", "BB", "AaBB", "BBAa"]);
  });

  it("passes on every term of a piece in order, and nothing for a piece without terms", () => {
    const table = new PieceTable((piece) => (piece === "the" ? [] : Array.from(piece, (char) => char.charCodeAt(0))));
    expect(termsOf(table, "ab the ba")).toEqual([97, 98, 98, 97]);
  });

  it("finds every piece again after growing far past its first size", () => {
    const { analyzed, ids } = countingTable();
    const words = Array.from({ length: 20_000 }, (_, i) => `w${i.toString(36)}`);
    expect(ids(words.join(" "))).toEqual(words.map((_, i) => i));
    expect(ids(words.toReversed().join("/"))).toEqual(words.map((_, i) => words.length - 1 - i));
    expect(analyzed).toHaveLength(words.length);
  });

  it("handles empty text and text of separators only", () => {
    const { analyzed, ids } = countingTable();
    expect(ids("")).toEqual([]);
    expect(ids(" _-. \n")).toEqual([]);
    expect(analyzed).toEqual([]);
  });
});
