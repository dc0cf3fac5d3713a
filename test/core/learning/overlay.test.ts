// The learned overlay: scored beside an index of either mode, moving ranks only; the index's pages and totals kept.
import { describe, expect, it } from "vitest";
import { SEARCH_MODES, type SearchMode } from "../../../src/core/config.ts";
import type { LearnedState } from "../../../src/core/learning/evidence.ts";
import { evidenceTerms } from "../../../src/core/learning/evidence.ts";
import { DEFAULT_LEARNING_TUNING, LearnedOverlay, ownTerms, withLearning } from "../../../src/core/learning/overlay.ts";
import { analyze } from "../../../src/core/search/analyze.ts";
import { createSearchIndex } from "../../../src/core/search/createIndex.ts";
import type { SearchIndex } from "../../../src/core/search/types.ts";
import type { ToolDefinition } from "../../../src/core/types.ts";

const tool = (name: string, description: string): ToolDefinition => ({ name, description, parameters: { type: "object" } });
const CATALOG = [
  tool("currency_convert", "Convert an amount of money from one currency to another."),
  tool("payroll_report", "Monthly payroll report of salaries."),
  tool("weather_forecast", "Weather forecast for a city."),
  ...Array.from({ length: 7 }, (_, i) => tool(`filler_${i}`, `Filler ${i} files a record.`)),
];

function stateOf(tools: Record<string, string>, principals = 3, version = 1): LearnedState {
  return {
    version,
    appliedAt: 1,
    tools: Object.fromEntries(Object.entries(tools).map(([name, query]) => [name, evidenceTerms(query).map((term) => ({ term, weight: principals, principals }))])),
  };
}

describe("withLearning", () => {
  it.each(SEARCH_MODES)("moves a learned tool first for a request its own text does not match (%s)", (mode) => {
    const index = createSearchIndex(mode, CATALOG);
    expect(index.search("payroll spreadsheet")).not.toContain("currency_convert");
    const learned = withLearning(index, new LearnedOverlay(stateOf({ currency_convert: "payroll spreadsheet" })));
    const page = learned.searchPage("payroll spreadsheet", 5);
    expect(page.names[0]).toBe("currency_convert");
    expect(page.names).toContain("payroll_report");
    // The learned match joins the total.
    expect(page.total).toBe(index.searchPage("payroll spreadsheet", 5).total + 1);
    expect(learned.search("payroll spreadsheet")).toEqual(learned.searchPage("payroll spreadsheet", Infinity).names);
  });

  it.each(SEARCH_MODES)("leaves a request no learned term matches exactly as the index ranks it (%s)", (mode) => {
    const index = createSearchIndex(mode, CATALOG);
    const learned = withLearning(index, new LearnedOverlay(stateOf({ currency_convert: "payroll spreadsheet" })));
    for (const query of ["weather", "filler record", "", "money"]) expect(learned.searchPage(query, 3)).toEqual(index.searchPage(query, 3));
  });

  it("keeps what accept refuses out, and counts only what it keeps", () => {
    const index = createSearchIndex("minisearch", CATALOG);
    const learned = withLearning(index, new LearnedOverlay(stateOf({ currency_convert: "payroll spreadsheet", filler_1: "payroll spreadsheet" })));
    const page = learned.searchPage("payroll spreadsheet", 10, (name) => name !== "currency_convert");
    expect(page.names).not.toContain("currency_convert");
    expect(page.names).toContain("filler_1");
    expect(page.total).toBe(page.names.length);
  });

  it("pages cut the fused ranking: page after page is the whole ranking", () => {
    const index = createSearchIndex("minisearch", CATALOG);
    const learned = withLearning(index, new LearnedOverlay(stateOf({ filler_3: "record payroll", filler_5: "record payroll" })));
    const all = learned.searchPage("filler record payroll", Infinity);
    expect(learned.searchPage("filler record payroll", 4).names).toEqual(all.names.slice(0, 4));
    expect(all.total).toBe(all.names.length);
  });

  it("an empty overlay is the index itself; scored stays the index's own (learned terms never show)", () => {
    const index = createSearchIndex("minisearch", CATALOG);
    expect(withLearning(index, new LearnedOverlay({ version: 3, appliedAt: 0, tools: {} }))).toBe(index);
    expect(withLearning(index, undefined)).toBe(index);
    const learned = withLearning(index, new LearnedOverlay(stateOf({ currency_convert: "payroll spreadsheet" })));
    expect(learned.scored("payroll spreadsheet", 5)).toEqual(index.scored("payroll spreadsheet", 5));
  });

  it("a term weighs less the more tools learned it, and more the more principals taught it (saturating)", () => {
    const overlay = new LearnedOverlay({
      version: 1,
      appliedAt: 0,
      tools: {
        a: evidenceTerms("payroll").map((term) => ({ term, weight: 3, principals: 3 })),
        b: evidenceTerms("payroll").map((term) => ({ term, weight: 30, principals: 30 })),
      },
    });
    const matches = overlay.match("payroll", 10);
    expect(matches.get("b")).toBeGreaterThan(matches.get("a") ?? 0);
    expect(matches.get("b")).toBeLessThanOrEqual(1);
    expect(overlay.version).toBe(1);
  });
});

describe("the tool's own terms and its callers' profile", () => {
  const definitions = new Map(CATALOG.map((definition) => [definition.name, definition]));
  const definitionOf = (name: string): ToolDefinition | undefined => definitions.get(name);

  it("a learned term the tool's own text holds counts ownTermShare of one it lacks", () => {
    const state = stateOf({ currency_convert: "currency spreadsheet", payroll_report: "currency spreadsheet" });
    const overlay = new LearnedOverlay(state);
    const [currency] = analyze("currency");
    expect(ownTerms(CATALOG[0] ?? tool("x", ""))).toContain(currency);
    const plain = overlay.match("currency", CATALOG.length);
    expect(plain.get("currency_convert")).toBeCloseTo(plain.get("payroll_report") ?? 0);
    const own = overlay.match("currency", CATALOG.length, definitionOf);
    expect(own.get("currency_convert") ?? 0).toBeLessThan(own.get("payroll_report") ?? 0);
    // A term neither tool's text holds counts alike for both.
    const lacking = overlay.match("spreadsheet", CATALOG.length, definitionOf);
    expect(lacking.get("currency_convert")).toBeCloseTo(lacking.get("payroll_report") ?? 0);
  });

  it.each(SEARCH_MODES)("a learned term another tool of the index's head holds counts explainedShare for a tool that lacks it (%s)", (mode) => {
    // payroll_report's own text holds "payroll"; filler_1 learned it (a request for both reached it).
    const state = stateOf({ filler_1: "payroll salaries" });
    const overlay = new LearnedOverlay(state);
    const alone = overlay.match("payroll", CATALOG.length, definitionOf);
    const placed = overlay.match("payroll", CATALOG.length, definitionOf, ["payroll_report"]);
    expect(placed.get("filler_1") ?? 0).toBeGreaterThan(0);
    expect(placed.get("filler_1") ?? 0).toBeLessThan(alone.get("filler_1") ?? 0);
    // In full again when explainedShare is 1.
    const full = new LearnedOverlay(state, { ...DEFAULT_LEARNING_TUNING, explainedShare: 1 });
    expect(full.match("payroll", CATALOG.length, definitionOf, ["payroll_report"]).get("filler_1")).toBeCloseTo(alone.get("filler_1") ?? 0);
    // Through the ranking: the tool whose own text names the request stays above the one that only learned its word.
    const index = createSearchIndex(mode, CATALOG);
    expect(index.searchPage("payroll", 1).names).toEqual(["payroll_report"]);
    // (At learned weight 2: at the default 4, three principals' word passes even the tool that holds it.)
    const atWeight2 = new LearnedOverlay(state, { ...DEFAULT_LEARNING_TUNING, weight: 2 });
    const learned = withLearning(index, atWeight2, definitionOf).searchPage("payroll", 3).names;
    expect(learned[0]).toBe("payroll_report");
    expect(learned).toContain("filler_1");
    const unguarded = withLearning(index, new LearnedOverlay(state, { ...DEFAULT_LEARNING_TUNING, weight: 2, explainedShare: 1 }), definitionOf).searchPage("payroll", 3).names;
    expect(unguarded[0]).toBe("filler_1");
  });

  it.each(SEARCH_MODES)("a profile finds its tool for words no caller used, and only near it (%s)", (mode) => {
    const index = createSearchIndex(mode, CATALOG);
    const profiles = {
      filler_3: { principals: 5, terms: evidenceTerms("holiday vacation travel trip hotel").map((term) => ({ term, weight: 0.2 })) },
      filler_4: { principals: 5, terms: evidenceTerms("guitar piano music song").map((term) => ({ term, weight: 0.25 })) },
    };
    const state: LearnedState = { version: 1, appliedAt: 0, tools: {}, profiles };
    // The profile's signal alone, wherever it lifts its tool (the default lifts only into the first places).
    const learned = withLearning(index, new LearnedOverlay(state, { ...DEFAULT_LEARNING_TUNING, learnedPlaces: { substring: Infinity, minisearch: Infinity } }), definitionOf, mode);
    // No caller said "tourism" or "resort", and no tool's text holds them.
    for (const [query, profiled] of [["tourism resort", "filler_3"], ["violin concert", "filler_4"]] as const) {
      expect(index.searchPage(query, 3).names).not.toContain(profiled);
      expect(learned.searchPage(query, 3).names).toContain(profiled);
      // The other profile is not near: it stays where the index put it.
      const other = profiled === "filler_3" ? "filler_4" : "filler_3";
      expect(learned.searchPage(query, 3).names.includes(other)).toBe(index.searchPage(query, 3).names.includes(other));
    }
    // A request near no profile ranks as the index ranks it.
    expect(learned.searchPage("weather forecast", 3)).toEqual(index.searchPage("weather forecast", 3));
    // Profiles off: nothing moves.
    const off = withLearning(index, new LearnedOverlay(state, { ...DEFAULT_LEARNING_TUNING, vectorWeight: 0 }), definitionOf);
    expect(off).toBe(index);
  });
});

describe("withLearning and learnedPlaces", () => {
  const query = "files a record of invoices";
  const term = analyze("invoices")[0] ?? "";
  /** The page with filler_6 learning "invoices" at `weight`, in `places` first places (the default's when not said). */
  const page = (index: SearchIndex, weight: number, places?: number, mode?: SearchMode): string[] => {
    const state: LearnedState = { version: 1, appliedAt: 1, tools: { filler_6: [{ term, weight, principals: 3 }] } };
    const tuning = places === undefined ? DEFAULT_LEARNING_TUNING : { ...DEFAULT_LEARNING_TUNING, learnedPlaces: { substring: places, minisearch: places } };
    return withLearning(index, new LearnedOverlay(state, tuning), undefined, mode).searchPage(query, 10).names;
  };

  it.each(SEARCH_MODES)("moves a learned tool only into the first two places; every other tool keeps the index's order (%s)", (mode) => {
    const index = createSearchIndex(mode, CATALOG);
    const before = index.searchPage(query, 10).names;
    expect(before.indexOf("filler_6")).toBeGreaterThan(2);
    // A small learned part: with no limit it moves its tool up by a few places, not into the first two...
    const unlimited = page(index, 0.3, Infinity, mode).indexOf("filler_6");
    expect(unlimited).toBeLessThan(before.indexOf("filler_6"));
    expect(unlimited).toBeGreaterThanOrEqual(2);
    // ...and within two places it moves nothing: the page is the index's.
    expect(page(index, 0.3, 2, mode)).toEqual(before);
    // A part that passes the index's second tool joins the first two; the rest keep the index's order.
    for (const [weight, place] of [[1, 1], [3, 0]] as const) {
      const moved = page(index, weight, 2, mode);
      expect(moved.indexOf("filler_6")).toBe(place);
      expect(moved.filter((name) => name !== "filler_6").slice(2)).toEqual(before.filter((name) => name !== "filler_6").slice(2));
    }
  });

  it("by default a learned tool joins the first five of the ranked index's page, the first two of the substring index's", () => {
    const ranked = createSearchIndex("minisearch", CATALOG);
    const before = ranked.searchPage(query, 10).names;
    expect(before.indexOf("filler_6")).toBeGreaterThan(4);
    // A part that passes the ranked index's fifth tool, not its second: it joins the first five, below the second...
    const moved = page(ranked, 0.2, undefined, "minisearch");
    expect(moved.indexOf("filler_6")).toBeGreaterThanOrEqual(2);
    expect(moved.indexOf("filler_6")).toBeLessThan(5);
    // ...and every tool after the first five keeps the index's order.
    expect(moved.filter((name) => name !== "filler_6").slice(5)).toEqual(before.filter((name) => name !== "filler_6").slice(5));
    // A smaller part that passes none of the first five moves nothing.
    expect(page(ranked, 0.05, undefined, "minisearch")).toEqual(before);
    // The same part in the substring mode's first two places moves nothing; an index whose mode is not said is held
    // to those.
    expect(page(ranked, 0.2, undefined, "substring")).toEqual(before);
    expect(page(ranked, 0.2)).toEqual(before);
    const substring = createSearchIndex("substring", CATALOG);
    expect(page(substring, 0.3, undefined, "substring")).toEqual(substring.searchPage(query, 10).names);
    expect(DEFAULT_LEARNING_TUNING.learnedPlaces).toEqual({ substring: 2, minisearch: 5 });
  });
});

describe("withLearning and names", () => {
  it.each(SEARCH_MODES)("a request that names a tool still finds it first, whatever was learned (%s)", (mode) => {
    const index = createSearchIndex(mode, CATALOG);
    const learned = withLearning(index, new LearnedOverlay(stateOf({ currency_convert: "payroll report weather forecast", filler_2: "payroll report" }, 30)));
    for (const query of ["payroll_report", "payroll report", "weather_forecast"]) {
      expect(learned.searchPage(query, 3).names[0]).toBe(index.searchPage(query, 3).names[0]);
    }
  });
});

/** A state in which three principals passed `name` over for `query`'s terms. */
function against(name: string, query: string): LearnedState {
  return { version: 1, appliedAt: 1, tools: {}, passedOver: { [name]: evidenceTerms(query).map((term) => ({ term, weight: 1.5, principals: 3 })) } };
}

describe("withLearning and the evidence against a tool", () => {
  const definitions = new Map(CATALOG.map((definition) => [definition.name, definition]));
  const definitionOf = (name: string): ToolDefinition | undefined => definitions.get(name);

  it.each(SEARCH_MODES)("lowers a tool passed over for the request's words below the next; nothing joins the page (%s)", (mode) => {
    const index = createSearchIndex(mode, CATALOG);
    const query = "payroll report files record";
    const before = index.searchPage(query, 10);
    const first = before.names[0] ?? "";
    const learned = withLearning(index, new LearnedOverlay(against(first, "files record ledger spreadsheet")), definitionOf).searchPage(query, 10);
    expect(learned.names.slice(0, 2)).toEqual([before.names[1], first]);
    expect(learned.names.toSorted()).toEqual(before.names.toSorted());
    expect(learned.total).toBe(before.total);
    // A tool the index did not match, passed over, stays out; at passedOverWeight 0 the evidence is not read.
    expect(withLearning(index, new LearnedOverlay(against("weather_forecast", query)), definitionOf).searchPage(query, 10)).toEqual(before);
    expect(withLearning(index, new LearnedOverlay(against(first, query), { ...DEFAULT_LEARNING_TUNING, passedOverWeight: 0 }), definitionOf)).toBe(index);
  });

  it("counts a term less when the tool's own text holds it, and less again when other tools learned it", () => {
    const overlay = new LearnedOverlay(against("payroll_report", "payroll ledger"));
    const part = (query: string, state?: LearnedState): number =>
      (state === undefined ? overlay : new LearnedOverlay(state)).match(query, CATALOG.length, definitionOf).get("payroll_report") ?? 0;
    expect(part("ledger")).toBeLessThan(0);
    expect(part("payroll")).toBeLessThan(0);
    expect(part("payroll")).toBeGreaterThan(part("ledger"));
    const learnedByOthers: LearnedState = { ...against("payroll_report", "payroll ledger"), tools: { filler_1: [{ term: "ledger", weight: 3, principals: 3 }] } };
    expect(part("ledger", learnedByOthers)).toBeGreaterThan(part("ledger"));
  });
});
