import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isLoneDigit, isQuestion, questionsAmongStatements, withoutQuoted } from "../../../src/core/search/requestFocus.ts";
import { requestSentences } from "../../../src/core/search/text.ts";

describe("withoutQuoted", () => {
  it("blanks double-quoted, curly-quoted and single-quoted spans, keeping the words around them", () => {
    expect(withoutQuoted('Add "Meeting with John" to my agenda').split(/\s+/)).toEqual(["Add", "to", "my", "agenda"]);
    expect(withoutQuoted("Add “Team lunch” at noon").split(/\s+/)).toEqual(["Add", "at", "noon"]);
    expect(withoutQuoted("Check the user 'emma007' and the token 't0k3n579'.").split(/\s+/)).toEqual(["Check", "the", "user", "and", "the", "token", "."]);
  });

  it("leaves apostrophes alone: they open no quotation", () => {
    const text = "I'm sure the users' files aren't lost, it's Tom's";
    expect(withoutQuoted(text)).toBe(text);
  });

  it("keeps a request that is one quotation from end to end: its quotes only frame it", () => {
    const text = ' "Can you find recent news about climate change?" ';
    expect(withoutQuoted(text)).toBe(text);
  });

  it("leaves an unclosed quote and text without quotes as they are", () => {
    expect(withoutQuoted('a "dangling quote')).toBe('a "dangling quote');
    fc.assert(
      // Opening curly quotes that never close, apostrophes inside words, any spacing: nothing is quoted.
      fc.property(fc.string({ unit: fc.constantFrom("a", "b", " ", ".", "?", "\n", "“", "a'b") }), (text) => {
        expect(withoutQuoted(text)).toBe(text);
      }),
    );
  });

  it("takes time linear in the text, however its quotes are placed", () => {
    for (const text of ['"'.repeat(200_000), ` '${"a ".repeat(100_000)}`, `"${"x".repeat(200_000)}`, "' ".repeat(100_000)]) {
      const started = performance.now();
      withoutQuoted(text);
      expect(performance.now() - started).toBeLessThan(1_000);
    }
  });
});

describe("questionsAmongStatements", () => {
  it("returns the questions of a request that also states things", () => {
    const sentences = requestSentences("My username is foo and my password is bar. Can you delete my account? Thanks.");
    expect(questionsAmongStatements(sentences)).toEqual(["Can you delete my account?"]);
  });

  it("returns none when every sentence is a question, or none is", () => {
    expect(questionsAmongStatements(requestSentences("Can you add a meeting? Can you set an alarm?"))).toEqual([]);
    expect(questionsAmongStatements(requestSentences("Add a meeting. Set an alarm."))).toEqual([]);
    expect(questionsAmongStatements([])).toEqual([]);
  });

  it("reads a sentence ending in a full-width question mark as a question", () => {
    expect(isQuestion("明天天气怎么样？")).toBe(true);
    expect(isQuestion("Is it raining?  ")).toBe(true);
    expect(isQuestion("It is raining.")).toBe(false);
  });
});

describe("isLoneDigit", () => {
  it("holds for one digit only", () => {
    expect(["0", "1", "9"].map(isLoneDigit)).toEqual([true, true, true]);
    expect(["10", "a", "", "v2", "٣"].map(isLoneDigit)).toEqual([false, false, false, false, false]);
  });
});
