import { describe, expect, it } from "vitest";
import { analyze, pertainsTo, processTerm } from "../../../src/core/search/analyze.ts";
import { PERTAINYM_PAIRS } from "../../../src/core/search/pertainyms.ts";
import { stem } from "../../../src/core/search/stemmer.ts";

describe("analyze", () => {
  it("drops English stop words and lone letters, keeps digits", () => {
    expect(analyze("Could you please tell me the weather in a city")).toEqual(["weather", "citi"]);
    expect(analyze("the of and to")).toEqual([]);
    expect(analyze("mp 3 s")).toEqual(["mp", "3"]);
  });

  it("folds accents so that either spelling matches", () => {
    expect(analyze("Café Zürich")).toEqual(analyze("cafe zurich"));
  });

  it("lower-cases and stems identifiers and keeps CJK bigrams and lone CJK characters", () => {
    expect(analyze("sendEmails")).toEqual(["send", "email", "sendemail"]);
    expect(analyze("查 天气预报")).toEqual(["查", "天气", "气预", "预报"]);
  });
});

describe("pertainsTo", () => {
  it("reads a relational adjective or adverb as the word it pertains to, other words as themselves", () => {
    expect(pertainsTo("legal")).toBe("law");
    expect(pertainsTo("medical")).toBe("medicine");
    expect(pertainsTo("legally")).toBe("law");
    expect(pertainsTo("analytic")).toBe("analysis");
    expect(pertainsTo("weather")).toBe("weather");
    expect(pertainsTo("constructor")).toBe("constructor");
  });

  it("holds plain lower-case pairs that the stemmer alone does not conflate", () => {
    const words = PERTAINYM_PAIRS.split(" ");
    expect(words.length % 2).toBe(0);
    expect(words.length).toBeGreaterThan(1000);
    for (let i = 0; i < words.length; i += 2) {
      const [word = "", base = ""] = words.slice(i, i + 2);
      expect(word).toMatch(/^[a-z]+$/);
      expect(base).toMatch(/^[a-z]+$/);
      expect(stem(word)).not.toBe(stem(base));
    }
  });

  it("lets a query's adjective find a tool named for the noun, and the other way round", () => {
    expect(analyze("legal advice")).toEqual(analyze("law advice"));
    expect(analyze("MedicineTool")).toContain(processTerm("medical"));
  });
});

describe("processTerm", () => {
  it("gives the same answer again (it is cached)", () => {
    for (const term of ["Connections", "THE", "x", "7", "天", "Connections"]) {
      expect(processTerm(term)).toBe(processTerm(term));
    }
    expect(processTerm("Connections")).toBe("connect");
    expect(processTerm("THE")).toBeNull();
    expect(processTerm("x")).toBeNull();
    expect(processTerm("7")).toBe("7");
    expect(processTerm("天")).toBe("天");
  });
});
