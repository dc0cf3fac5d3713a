// The evidence of learning from calls: analyzed terms only, each principal capped, decay by half-life, minPrincipals
// distinct principals before a term counts, maxTermsPerTool per tool.
import { describe, expect, it } from "vitest";
import {
  decayed,
  evidenceTerms,
  foldEvidence,
  isEvidenceEvent,
  MAX_SEARCH_ID_LENGTH,
  MAX_SHOWN_ABOVE,
  MAX_TERMS_PER_EVENT,
  passedOver,
  PRINCIPAL_WEIGHT_CAP,
  reinforced,
  rowCounts,
  searchShares,
  type EvidenceEvent,
  type EvidenceRow,
  type LearningOptions,
} from "../../../src/core/learning/evidence.ts";
import { analyze } from "../../../src/core/search/analyze.ts";

const DAY = 86_400_000;
const OPTIONS: LearningOptions = { minPrincipals: 3, halfLifeDays: 10, maxTermsPerTool: 4 };

/** Rows as the learning object keeps them: one call per (principal, query), all at `at`. */
function rowsOf(calls: { principal: string; tool: string; query: string; at?: number }[]): EvidenceRow[] {
  const rows = new Map<string, EvidenceRow>();
  for (const { principal, tool, query, at = 0 } of calls) {
    for (const term of evidenceTerms(query)) {
      const key = JSON.stringify([tool, term, principal]);
      rows.set(key, reinforced(rows.get(key), { tool, term, principal }, at, OPTIONS.halfLifeDays));
    }
  }
  return [...rows.values()];
}

describe("evidenceTerms", () => {
  it("keeps the analyzed terms, each once, never the words as typed", () => {
    const terms = evidenceTerms("Converting currencies: convert the Currency, please!");
    expect(terms).toEqual([...new Set(analyze("Converting currencies: convert the Currency, please!"))]);
    expect(terms).not.toContain("Converting");
    expect(new Set(terms).size).toBe(terms.length);
  });

  it("keeps at most MAX_TERMS_PER_EVENT terms and no overlong one", () => {
    const long = Array.from({ length: 50 }, (_, i) => `word${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`).join(" ");
    expect(evidenceTerms(long)).toHaveLength(MAX_TERMS_PER_EVENT);
    expect(evidenceTerms(`${"x".repeat(80)} weather`)).toEqual(analyze("weather"));
  });
});

describe("evidenceTerms and numbers", () => {
  it("keeps no term of digits alone (dates, amounts, identifiers say which request, not which tool)", () => {
    expect(evidenceTerms("cancel appointment 90123456 on 2023-04-12 for 15 dollars")).toEqual(evidenceTerms("cancel appointment on for dollars"));
    expect(evidenceTerms("order 12 apples and 250 pears").some((term) => /^\d+$/.test(term))).toBe(false);
  });
});

describe("evidenceTerms and the words that say which request", () => {
  it("keeps no word written as a name (a capital letter, not starting a sentence), and keeps a sentence's first word", () => {
    const terms = evidenceTerms("Cancel my appointment with Dr. Smith for John Doe on October 10. Please hurry");
    expect(terms).toEqual(evidenceTerms("Cancel my appointment with for on. Please hurry"));
    for (const word of ["smith", "john", "doe", "octob"]) expect(terms.some((term) => term.startsWith(word))).toBe(false);
    expect(terms).toEqual(expect.arrayContaining([...analyze("cancel"), ...analyze("please")]));
  });

  it("keeps no word of letters and digits together (identifiers, user names, passwords)", () => {
    const terms = evidenceTerms("check my balance, username user1 and password pass123, card a1b2c3");
    expect(terms).toEqual(evidenceTerms("check my balance, username and password, card"));
    expect(terms).not.toContain("pass");
    expect(terms).not.toContain("user");
  });
});

describe("callers' profiles", () => {
  it("are made only for a tool that minPrincipals distinct principals called", () => {
    const two = rowsOf(["a", "b"].map((principal) => ({ principal, tool: "convert", query: "currency payroll" })));
    expect(foldEvidence(two, 0, OPTIONS, 1).profiles).toEqual({});
    const oneManyTimes = rowsOf(Array.from({ length: 20 }, (_, i) => ({ principal: "a", tool: "convert", query: `currency payroll word${"xyz"[i % 3]}` })));
    expect(foldEvidence(oneManyTimes, 0, OPTIONS, 1).profiles).toEqual({});
    const three = rowsOf(["a", "b", "c"].map((principal) => ({ principal, tool: "convert", query: `currency ${principal}pay` })));
    expect(foldEvidence(three, 0, OPTIONS, 1).profiles?.convert?.principals).toBe(3);
  });

  it("weigh each principal at most 1 / n, however many terms it brings, and keep only terms minPrincipals principals asked with", () => {
    const calls = [
      { principal: "a", tool: "convert", query: "currency" },
      { principal: "b", tool: "convert", query: "currency" },
      // One principal with many words: its share is spread over them, and the words no one else asked with stay out.
      { principal: "c", tool: "convert", query: "currency salary payroll invoice ledger bank" },
    ];
    const profile = foldEvidence(rowsOf(calls), 0, { ...OPTIONS, maxTermsPerTool: 32 }, 1).profiles?.convert;
    const currency = analyze("currency")[0] ?? "";
    expect(profile?.terms).toEqual([{ term: currency, weight: Number((1 / 3 + 1 / 3 + 1 / 18).toFixed(4)) }]);
    // Two principals asking with "bank" as well do not bring it in (three did not); a third does.
    const two = foldEvidence(rowsOf([...calls, { principal: "a", tool: "convert", query: "bank" }]), 0, { ...OPTIONS, maxTermsPerTool: 32 }, 1);
    expect(two.profiles?.convert?.terms.map(({ term }) => term)).toEqual([currency]);
    const three = foldEvidence(rowsOf([...calls, { principal: "a", tool: "convert", query: "bank" }, { principal: "b", tool: "convert", query: "bank" }]), 0, { ...OPTIONS, maxTermsPerTool: 32 }, 1);
    expect(three.profiles?.convert?.terms.map(({ term }) => term).toSorted()).toEqual([currency, analyze("bank")[0] ?? ""].toSorted());
    for (const learned of three.profiles?.convert?.terms ?? []) {
      expect(analyze("currency salary payroll invoice ledger bank")).toContain(learned.term);
    }
  });

  it("decay: a principal whose evidence no longer counts is not a caller", () => {
    const late = rowsOf([
      { principal: "a", tool: "convert", query: "currency", at: 0 },
      { principal: "b", tool: "convert", query: "currency", at: 60 * DAY },
      { principal: "c", tool: "convert", query: "currency", at: 60 * DAY },
    ]);
    expect(foldEvidence(late, 60 * DAY, OPTIONS, 1).profiles).toEqual({});
  });
});

describe("isEvidenceEvent", () => {
  it("takes a well-formed event and refuses malformed ones", () => {
    expect(isEvidenceEvent({ tool: "get_weather", terms: ["weather"], principal: "p", at: 1 })).toBe(true);
    expect(isEvidenceEvent({ tool: "bad name", terms: ["weather"], principal: "p", at: 1 })).toBe(false);
    expect(isEvidenceEvent({ tool: "t", terms: ["x".repeat(41)], principal: "p", at: 1 })).toBe(false);
    expect(isEvidenceEvent({ tool: "t", terms: Array.from({ length: MAX_TERMS_PER_EVENT + 1 }, (_, i) => `t${i}`), principal: "p", at: 1 })).toBe(false);
    expect(isEvidenceEvent({ tool: "t", terms: [], principal: "", at: 1 })).toBe(false);
    expect(isEvidenceEvent({ tool: "t", terms: [], principal: "p", at: Number.NaN })).toBe(false);
    expect(isEvidenceEvent(null)).toBe(false);
    expect(isEvidenceEvent({ tool: "t", terms: ["weather"], principal: "p", at: 1, search: "s-1" })).toBe(true);
    expect(isEvidenceEvent({ tool: "t", terms: ["weather"], principal: "p", at: 1, search: "" })).toBe(false);
    expect(isEvidenceEvent({ tool: "t", terms: ["weather"], principal: "p", at: 1, search: "s".repeat(MAX_SEARCH_ID_LENGTH + 1) })).toBe(false);
    expect(isEvidenceEvent({ tool: "t", terms: ["weather"], principal: "p", at: 1, search: 7 })).toBe(false);
    expect(isEvidenceEvent({ tool: "t", terms: ["weather"], principal: "p", at: 1, above: ["a", "b"] })).toBe(true);
    expect(isEvidenceEvent({ tool: "t", terms: ["weather"], principal: "p", at: 1, above: ["bad name"] })).toBe(false);
    expect(isEvidenceEvent({ tool: "t", terms: ["weather"], principal: "p", at: 1, above: Array.from({ length: MAX_SHOWN_ABOVE + 1 }, (_, i) => `a${i}`) })).toBe(false);
  });
});

/** A call of `tool` by `principal` from the search `search` (none: a search of its own). */
function event(tool: string, principal: string, search?: string): EvidenceEvent {
  return { tool, terms: ["ledger"], principal, at: 1, ...(search === undefined ? {} : { search }) };
}

describe("searchShares", () => {
  it("splits one search's call among the tools called from it, per principal; an event without a search weighs one call", () => {
    const shares = searchShares([event("a", "p", "s1"), event("b", "p", "s1"), event("c", "p", "s1"), event("a", "q", "s1"), event("a", "p", "s2"), event("b", "p")]);
    expect(shares.map(({ event: { tool, principal }, share }) => [tool, principal, share])).toEqual([
      ["a", "p", 1 / 3], ["b", "p", 1 / 3], ["c", "p", 1 / 3], ["a", "q", 1], ["a", "p", 1], ["b", "p", 1],
    ]);
  });

  it("counts a tool called twice from one search once, and shares with the tools of that search given earlier", () => {
    const shares = searchShares([event("a", "p", "s1"), event("a", "p", "s1"), event("b", "p", "s1")], (principal, search) => principal === "p" && search === "s1" ? 2 : 0);
    expect(shares.map(({ share }) => share)).toEqual([1 / 4, 0, 1 / 4]);
  });

  it("a principal's weight per (tool, term) stays capped however many searches teach it", () => {
    let row: EvidenceRow | undefined;
    const key = { tool: "a", term: "ledger", principal: "p" };
    for (let i = 0; i < 10; i++) row = reinforced(row, key, 0, 30, 1 / 3);
    expect(row?.weight).toBe(PRINCIPAL_WEIGHT_CAP);
    expect(reinforced(undefined, key, 0, 30, 1 / 3).weight).toBeCloseTo(1 / 3);
  });
});

/** A call of `tool` from `search`, which showed `above` above it. */
function shown(tool: string, principal: string, search: string | undefined, above: string[]): EvidenceEvent {
  return { ...event(tool, principal, search), above };
}

/** A principal's evidence against tool `a` for `term` (half a call). */
function againstA(principal: string, term: string): EvidenceRow {
  return { tool: "a", term, principal, weight: 0.5, at: 0, passedOver: true };
}

describe("passedOver", () => {

  it("names each tool shown above a called one that its search did not call, with the call's share", () => {
    const shares = searchShares([shown("c", "p", "s1", ["a", "b"]), shown("b", "p", "s1", ["a"]), shown("b", "q", "s2", ["a"])]);
    expect(passedOver(shares).map(({ tool, principal, share }) => [tool, principal, share])).toEqual([
      ["a", "p", 1 / 2], ["a", "p", 1 / 2], ["a", "q", 1],
    ]);
  });

  it("an event without a search, or without the tools above it, passes nothing over but what it names", () => {
    expect(passedOver(searchShares([shown("b", "p", undefined, ["a", "b"]), event("c", "p")])).map(({ tool }) => tool)).toEqual(["a"]);
  });

  it("folds apart from the learned terms: a term counts against a tool only with minPrincipals principals", () => {
    const state = foldEvidence([againstA("p", "trip"), againstA("q", "trip"), againstA("r", "trip"), againstA("p", "plan"), againstA("q", "plan")], 0, OPTIONS, 1);
    expect(state.tools).toEqual({});
    expect(state.profiles).toEqual({});
    expect(state.passedOver).toEqual({ a: [{ term: "trip", weight: 1.5, principals: 3 }] });
    expect(foldEvidence([againstA("p", "trip")], 0, OPTIONS, 1).passedOver).toBeUndefined();
  });
});

describe("decay", () => {
  it("halves a weight every half-life and never grows it", () => {
    expect(decayed(1, 0, 10 * DAY, 10)).toBeCloseTo(0.5);
    expect(decayed(1, 0, 30 * DAY, 10)).toBeCloseTo(0.125);
    expect(decayed(1, 10 * DAY, 0, 10)).toBe(1);
  });

  it("a row stops counting once decayed below the floor", () => {
    expect(rowCounts({ weight: 1, at: 0 }, 40 * DAY, 10)).toBe(true);
    expect(rowCounts({ weight: 1, at: 0 }, 50 * DAY, 10)).toBe(false);
  });

  it("old evidence weighs less when folded, and drops out after enough half-lives", () => {
    const calls = ["a", "b", "c"].map((principal) => ({ principal, tool: "convert", query: "currency payroll", at: 0 }));
    const fresh = foldEvidence(rowsOf(calls), 0, OPTIONS, 1).tools.convert;
    const older = foldEvidence(rowsOf(calls), 10 * DAY, OPTIONS, 2).tools.convert;
    expect(fresh?.[0]?.weight).toBeCloseTo(3);
    expect(older?.[0]?.weight).toBeCloseTo(1.5);
    expect(foldEvidence(rowsOf(calls), 60 * DAY, OPTIONS, 3).tools).toEqual({});
  });
});

describe("caps and minPrincipals", () => {
  it("a principal's weight is capped: many calls from one weigh as one", () => {
    const many = Array.from({ length: 20 }, () => ({ principal: "a", tool: "convert", query: "currency" }));
    const rows = rowsOf([...many, { principal: "b", tool: "convert", query: "currency" }, { principal: "c", tool: "convert", query: "currency" }]);
    expect(Math.max(...rows.map((row) => row.weight))).toBe(PRINCIPAL_WEIGHT_CAP);
    expect(foldEvidence(rows, 0, OPTIONS, 1).tools.convert).toEqual([{ term: analyze("currency")[0], weight: 3, principals: 3 }]);
  });

  it("a term counts only with minPrincipals distinct principals", () => {
    const two = rowsOf(["a", "b"].map((principal) => ({ principal, tool: "convert", query: "currency" })));
    expect(foldEvidence(two, 0, OPTIONS, 1).tools).toEqual({});
    const oneTwentyTimes = rowsOf(Array.from({ length: 20 }, () => ({ principal: "a", tool: "convert", query: "currency" })));
    expect(foldEvidence(oneTwentyTimes, 0, OPTIONS, 1).tools).toEqual({});
    expect(foldEvidence(two, 0, { ...OPTIONS, minPrincipals: 2 }, 1).tools.convert).toHaveLength(1);
    // A principal whose evidence decayed below the floor is not counted.
    const late = rowsOf([
      { principal: "a", tool: "convert", query: "currency", at: 0 },
      { principal: "b", tool: "convert", query: "currency", at: 60 * DAY },
      { principal: "c", tool: "convert", query: "currency", at: 60 * DAY },
    ]);
    expect(foldEvidence(late, 60 * DAY, OPTIONS, 1).tools).toEqual({});
  });

  it("keeps maxTermsPerTool terms per tool, heaviest first, deterministically", () => {
    const calls = [
      ...["a", "b", "c", "d", "e"].map((principal) => ({ principal, tool: "convert", query: "currency exchange" })),
      ...["a", "b", "c"].map((principal) => ({ principal, tool: "convert", query: "payroll salary money bank rate" })),
    ];
    const terms = foldEvidence(rowsOf(calls), 0, OPTIONS, 1).tools.convert ?? [];
    expect(terms).toHaveLength(OPTIONS.maxTermsPerTool);
    expect(terms.slice(0, 2).map((term) => term.weight)).toEqual([5, 5]);
    expect(terms.map((term) => term.term)).toEqual(foldEvidence(rowsOf(calls).toReversed(), 0, OPTIONS, 1).tools.convert?.map((term) => term.term));
  });

  it("keeps tools apart and carries the version and time it was folded", () => {
    const calls = ["a", "b", "c"].flatMap((principal) => [
      { principal, tool: "convert", query: "currency" },
      { principal, tool: "forecast", query: "weather" },
    ]);
    const state = foldEvidence(rowsOf(calls), 5, OPTIONS, 7);
    expect(state.version).toBe(7);
    expect(state.appliedAt).toBe(5);
    expect(Object.keys(state.tools).toSorted()).toEqual(["convert", "forecast"]);
    expect(state.tools.forecast?.map((term) => term.term)).toEqual(analyze("weather"));
  });
});
