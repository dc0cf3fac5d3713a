import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkPattern, MAX_PATTERN_SIZE, Pattern, PatternError } from "../../../src/core/jsonSchema/regex.ts";

/** Why a pattern is refused, or "" when it is accepted. */
function refusal(source: string): string {
  try {
    checkPattern(source);
    return "";
  } catch (error) {
    if (error instanceof PatternError) return error.message;
    throw error;
  }
}

/** Whether the pattern matches `text` as ECMAScript's RegExp with the u flag does, and as our RE2 translation does. */
function bothEngines(source: string, text: string): [boolean, boolean] {
  return [new RegExp(source, "u").test(text), new Pattern(source).test(text)];
}

const TOOL_PATTERNS = [
  "^[a-z]+$", "^[A-Z]{3}$", "^[a-z0-9_+-]{1,64}$", "^[A-Za-z0-9.^=-]{1,20}$", "^AS\\d+$", "^[GDZTKOFS]*$",
  "^\\d{5}(-\\d{4})?$", "^\\w+@\\w+\\.\\w+$", "^\\S+$", "^[^\\s]+$", "\\s", "^\\p{L}+$", "^[\\p{L}\\p{N} _-]+$",
  "^[\\u4e00-\\u9fa5]+$", "^\\p{Script=Han}+$", "^\\p{Lu}\\p{Ll}*$", "^.{2,4}$", "^[^]$", "^(?<year>\\d{4})-(?:0[1-9]|1[0-2])$",
  "^#[0-9a-fA-F]{6}$", "^\\p{ASCII}+$", "^[\\P{ASCII}a]+$", "^https?://[^\\s/$.?#].[^\\s]*$", "^\\u{1F600}+$", "^[\\x41-\\x5A]+$", "^\\bword\\b$", "^a\\/b$",
  "^[\\b]$", "^\\cJ$", "^\\t\\v\\f$", "^$", "^[\\w.-]+$", "^\\P{L}*$", "(?:ab|cd)+e?", "^\\p{Letter}+$",
] as const;

const SAMPLE_TEXTS = [
  "", "abc", "ABC", "USD", "a-b_c+d", "AAPL", "0700.HK", "AS13335", "GDZ", "12345", "12345-6789", "1234-5678", "a@b.c",
  "no space", "tab\there", "nbsp\u00a0here", "line\u2028sep", "bom\ufeff", "vt\u000bhere", "crlf\r\n", "Ünïcödé", "中文",
  "中a", "Straße", "😀😀", "😀", "\ud83d", "2024-07", "2024-13", "#a1B2c3", "https://example.com/x", "word", "a/b", "\b",
  "\n", "\t\u000b\f", "ab", "é", "abcde", "abcdcde", "ΑΒΓ", "١٢٣",
] as const;

describe("checkPattern: ECMAScript syntax in, RE2 syntax out", () => {
  it("accepts the patterns real tools use and agrees with JavaScript on them, character classes and Unicode included", () => {
    for (const source of TOOL_PATTERNS) {
      expect({ source, refusal: refusal(source) }).toEqual({ source, refusal: "" });
      for (const text of SAMPLE_TEXTS) {
        const [js, re2] = bothEngines(source, text);
        expect({ source, text, re2 }).toEqual({ source, text, re2: js });
      }
    }
  });

  it("spells out JavaScript's \\s, \\S and . where RE2's differ (no-break space, vertical tab, carriage return)", () => {
    expect(bothEngines("^\\s$", "\u00a0")).toEqual([true, true]);
    expect(bothEngines("^\\s$", "\u000b")).toEqual([true, true]);
    expect(bothEngines("^\\S$", "\u3000")).toEqual([false, false]);
    expect(bothEngines("^[\\S]$", "\ufeff")).toEqual([false, false]);
    expect(bothEngines("^[^\\S]$", "\u2028")).toEqual([true, true]);
    expect(bothEngines("^.$", "\r")).toEqual([false, false]);
    expect(bothEngines("^.$", "😀")).toEqual([true, true]);
  });

  it("refuses what RE2 cannot run in linear time, saying why", () => {
    expect(refusal("^(a)\\1$")).toMatch(/backreference/);
    expect(refusal("^(?<x>a)\\k<x>$")).toMatch(/named backreference/);
    expect(refusal("^(?=.*\\d)\\w+$")).toMatch(/lookahead or lookbehind/);
    expect(refusal("^(?!admin)\\w+$")).toMatch(/lookahead or lookbehind/);
    expect(refusal("(?<=\\$)\\d+")).toMatch(/lookahead or lookbehind/);
    expect(refusal("(?<!-)\\d+")).toMatch(/lookahead or lookbehind/);
    expect(refusal("\\p{Script_Extensions=Latin}")).toMatch(/Unicode property/);
    expect(refusal("\\p{Script=Latn}")).toMatch(/Unicode property/);
  });

  it("refuses what is not ECMAScript syntax, even where RE2 would take it", () => {
    for (const source of ["(", "[", "a{2,1}", "(?i)a", "\\z", "(?P<n>a)", "[[:alpha:]]", "\\Q.\\E", "[\\d-x]", "\\-"]) {
      expect({ source, refusal: refusal(source) }).toEqual({ source, refusal: expect.stringMatching(/not a valid regular expression/) });
    }
  });

  it("refuses repetition past RE2's limit of 1,000 (nested counts multiplied) and programs past the size cap", () => {
    expect(refusal("a{900}")).toBe("");
    expect(refusal("a{1001}")).toMatch(/repeats more than 1000/);
    expect(refusal("(a{10}){50}")).toBe("");
    expect(refusal("(a{10}){101}")).toMatch(/repeats more than 1000/);
    expect(refusal("(?:(?:a{10}){10}){11}")).toMatch(/repeats more than 1000/);
    expect(refusal("[a-z]{600}[a-z]{600}")).toMatch(new RegExp(`at most ${MAX_PATTERN_SIZE}\\)$`));
    expect(refusal("^.{1,1000}$")).toMatch(/too complex/);
  });

  it("estimates the program size from above, so that a test's cost is charged before it runs", () => {
    for (const source of ["^[a-z]{3}$", "(a|aa){1,100}$", "^.{1,100}$", "(?:ab|cd){3,7}x*", "^\\d{5}(-\\d{4})?$", "(?:(?:a|b){5}c){20}"]) {
      const pattern = new Pattern(source);
      pattern.compile();
      expect({ source, steps: pattern.steps(1) <= Math.max(pattern.estimatedSize, 8) * 1.1 }).toEqual({ source, steps: true });
    }
  });

  it("matches in linear time what backtracks exponentially in JavaScript", () => {
    const pattern = new Pattern("^(a+)+$");
    expect(pattern.test(`${"a".repeat(10_000)}!`)).toBe(false);
    expect(pattern.test("a".repeat(10_000))).toBe(true);
  });

  it("property: where the pattern is accepted, RE2 compiles it and answers as JavaScript does", () => {
    const literal = fc.constantFrom("a", "b", "z", "0", "-", "_", " ", "é", "中", "😀", "\\.", "\\-", "\\/");
    const escape = fc.constantFrom("\\d", "\\D", "\\w", "\\W", "\\s", "\\S", "\\u0041", "\\u{1F600}", "\\x61", "\\p{L}", "\\P{L}", "\\p{Lu}", "\\p{Script=Han}", "\\b", ".");
    const classItem = fc.constantFrom("a-c", "0-9", "\\s", "\\S", "\\d", "\\w", "_", "\\-", "é", "\\u4e00-\\u9fa5", "\\p{L}", "😀");
    const charClass = fc.tuple(fc.boolean(), fc.array(classItem, { minLength: 1, maxLength: 3 }))
      .map(([negated, items]) => `[${negated ? "^" : ""}${items.join("")}]`);
    const quantifier = fc.constantFrom("", "", "*", "+", "?", "{2}", "{1,3}", "{0,}", "*?", "+?");
    // The oracle is JavaScript's backtracking engine, whose cost grows exponentially with nested quantifiers: groups nest
    // at most two deep and texts stay short, or a rare draw takes seconds in RegExp itself (not in the code under test).
    const { pattern } = fc.letrec<{ pattern: string; piece: string; group: string }>((tie) => ({
      piece: fc.tuple(fc.oneof({ depthSize: "small", maxDepth: 2 }, literal, escape, charClass, tie("group")), quantifier).map(([atom, q]) => (atom === "\\b" ? atom : atom + q)),
      group: fc.tuple(fc.constantFrom("(", "(?:", "(?<g>"), tie("pattern")).map(([open, inner]) => `${open}${inner})`),
      pattern: fc.array(fc.array(tie("piece"), { minLength: 1, maxLength: 3 }).map((pieces) => pieces.join("")), { minLength: 1, maxLength: 2 })
        .map((alternatives) => alternatives.join("|")),
    }));
    const anchored = fc.tuple(fc.boolean(), pattern, fc.boolean()).map(([start, body, end]) => `${start ? "^" : ""}${body}${end ? "$" : ""}`);
    const text = fc.array(fc.constantFrom("a", "b", "c", "z", "A", "0", "9", "-", "_", " ", "\t", "\n", "\r", "\u000b", "\u00a0", "\u2028", "é", "中", "😀", "\ud83d"), { maxLength: 8 })
      .map((units) => units.join(""));
    fc.assert(fc.property(anchored, fc.array(text, { minLength: 1, maxLength: 5 }), (source, texts) => {
      // Named groups repeat their name when the generator nests them: not valid ECMAScript, so not our concern.
      fc.pre(refusal(source) === "");
      for (const sample of texts) {
        const [js, re2] = bothEngines(source, sample);
        expect({ source, sample, re2 }).toEqual({ source, sample, re2: js });
      }
    }), { numRuns: 300 });
  });
});
