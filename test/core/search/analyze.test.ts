import { describe, expect, it } from "vitest";
import { analyze, processTerm } from "../../../src/core/search/analyze.ts";

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
