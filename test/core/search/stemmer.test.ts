import { describe, expect, it } from "vitest";
import { isStopWord, stem } from "../../../src/core/search/stemmer.ts";

describe("stem", () => {
  it("conflates the forms of a word (Porter, plus -ial and -yze)", () => {
    expect(stem("sending")).toBe(stem("send"));
    expect(stem("emails")).toBe(stem("email"));
    expect(stem("forecasting")).toBe("forecast");
    for (const word of ["connected", "connecting", "connection", "connections"]) expect(stem(word)).toBe("connect");
    expect(stem("financial")).toBe(stem("finance"));
    expect(stem("analyze")).toBe(stem("analysis"));
    expect(stem("summary")).toBe(stem("summarize"));
  });

  it("leaves short words and words that are not plain lower-case ASCII as they are", () => {
    for (const word of ["bus", "ies", "utf8", "cafés", "天气", "Running", "e-mails"]) expect(stem(word)).toBe(word);
    expect(stem("buses")).toBe("buse");
  });
});

describe("isStopWord", () => {
  it("knows the SMART list, split at apostrophes, less the words that name things tools handle", () => {
    for (const word of ["the", "could", "please", "looking", "doesn", "ve", "second"]) expect(isStopWord(word)).toBe(true);
    for (const word of ["name", "value", "sent", "novel", "course", "changes", "example", "greetings", "zero", "weather"]) expect(isStopWord(word)).toBe(false);
  });

  it("expects lower case", () => {
    expect(isStopWord("The")).toBe(false);
  });
});
