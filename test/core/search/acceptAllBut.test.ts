import { describe, expect, it } from "vitest";
import { acceptAllBut, rejectedNames } from "../../../src/core/search/acceptAllBut.ts";
import { createSubstringIndex } from "../../../src/core/search/substring.ts";
import { tool } from "../../support/tools.ts";

const catalog = [
  tool("send_email", "send an email to a contact"),
  tool("search_tools", "search the catalog for a tool"),
  tool("read_email", "read an email from the inbox"),
  tool("send_email", "send an email again (a repeated name)"),
  tool("stock_price", "the current price of a stock"),
  tool("archive_email", "archive an email"),
];

describe("acceptAllBut", () => {
  it("keeps every name but those given, copied when made", () => {
    const names = new Set(["search_tools"]);
    const accept = acceptAllBut(names);
    names.add("read_email");
    expect(accept("search_tools")).toBe(false);
    expect(accept("read_email")).toBe(true);
    expect([...(rejectedNames(accept) ?? [])]).toEqual(["search_tools"]);
  });

  it("says nothing of another filter", () => {
    expect(rejectedNames((name) => name !== "search_tools")).toBeUndefined();
  });

  it("gives a substring index's page and total exactly as the same filter written as a plain function", () => {
    const index = createSubstringIndex(catalog);
    const cases: string[][] = [[], ["search_tools"], ["send_email"], ["read_email", "archive_email", "not_a_tool"], catalog.map((entry) => entry.name)];
    // Past the names an index looks up one by one: the filter is asked of each match instead, with the same answer.
    cases.push([...Array.from({ length: 12 }, (_, i) => `absent_${i}`), "stock_price"]);
    for (const rejected of cases) {
      for (const query of ["email", "a", "send an email", "price of a stock", "nothing-matches-this"]) {
        for (const count of [0, 1, 2, 10]) {
          const plain = index.searchPage(query, count, (name) => !rejected.includes(name));
          expect(index.searchPage(query, count, acceptAllBut(rejected)), `${query} / ${count} / ${rejected.join()}`).toEqual(plain);
          const scored = index.scored(query, count, (name) => !rejected.includes(name));
          expect(index.scored(query, count, acceptAllBut(rejected))).toEqual(scored);
        }
      }
    }
  });

  it("counts only the live tools of an updated substring index", () => {
    const index = createSubstringIndex(catalog);
    const next = [...catalog.slice(0, 2), ...catalog.slice(3), tool("read_email", "read an email, the new version")];
    const updated = index.update?.(next) ?? createSubstringIndex(next);
    for (const rejected of [["read_email"], ["send_email", "search_tools"]]) {
      const plain = updated.searchPage("email", 2, (name) => !rejected.includes(name));
      expect(updated.searchPage("email", 2, acceptAllBut(rejected))).toEqual(plain);
    }
  });
});
