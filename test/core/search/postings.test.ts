import { describe, expect, it } from "vitest";
import { PostingCollector } from "../../../src/core/search/postings.ts";

/** Each term's postings as "field:tool×count", in the order `byTerm` gives them. */
function postingsOf(collector: PostingCollector): Record<string, string[]> {
  const { terms, starts, order, postingField, postingTool, postingCount } = collector.byTerm();
  return Object.fromEntries(
    terms.map((term, termId) => {
      const postings: string[] = [];
      for (let k = starts[termId] ?? 0; k < (starts[termId + 1] ?? 0); k++) {
        const posting = order[k] ?? 0;
        postings.push(`${postingField[posting]}:${postingTool[posting]}×${postingCount[posting]}`);
      }
      return [term, postings];
    }),
  );
}

describe("PostingCollector", () => {
  it("counts each term once per field of a tool, across the field's texts, and says how many were new", () => {
    const collector = new PostingCollector();
    expect(collector.addText("send_email", 0, 0)).toBe(2);
    expect(collector.addText("Sends an email, emails and more emails.", 0, 1)).toBe(2);
    expect(collector.addText("to subject", 0, 2)).toBe(1);
    expect(collector.addText("subject email", 0, 2)).toBe(1);
    expect(collector.addText("Emails the team", 1, 1)).toBe(2);
    expect(collector.terms).toEqual(["send", "email", "subject", "team"]);
    expect(postingsOf(collector)).toEqual({
      send: ["0:0×1", "1:0×1"],
      email: ["0:0×1", "1:0×3", "2:0×1", "1:1×1"],
      subject: ["2:0×2"],
      team: ["1:1×1"],
    });
  });

  it("counts in how many tools each term occurs", () => {
    const collector = new PostingCollector();
    collector.addText("weather weather", 0, 0);
    collector.addText("weather report", 0, 1);
    collector.addText("Weather", 2, 1);
    expect(collector.documentFrequency()).toEqual(new Map([["weather", 2], ["report", 1]]));
  });

  it("counts a long parameter text seen before exactly as the first time (it is analyzed once)", () => {
    const shared = "The city whose weather to report, e.g. Paris";
    const once = new PostingCollector();
    const twice = new PostingCollector();
    for (const collector of [once, twice]) {
      expect(collector.addText(shared, 0, 3)).toBe(4);
      expect(collector.addText("city city", 0, 3)).toBe(0);
    }
    expect(twice.addText(shared, 1, 3)).toBe(4);
    expect(twice.addText(`${shared} city`, 1, 3)).toBe(0);
    expect(postingsOf(twice)).toEqual({
      citi: ["3:0×3", "3:1×3"],
      weather: ["3:0×1", "3:1×2"],
      report: ["3:0×1", "3:1×2"],
      pari: ["3:0×1", "3:1×2"],
    });
    expect(postingsOf(once)).toEqual({ citi: ["3:0×3"], weather: ["3:0×1"], report: ["3:0×1"], pari: ["3:0×1"] });
  });

  it("numbers its terms in its own order of first occurrence, whatever texts other collectors read before", () => {
    const first = new PostingCollector();
    first.addText("weather report in Paris", 0, 1);
    first.addText("forecast_city", 0, 0);
    // The isolate's pieces are analyzed already: a later collector still gives ids in the order its texts hold terms.
    const later = new PostingCollector();
    later.addText("cityForecast", 0, 0);
    later.addText("Paris weather, unknown-word report", 0, 1);
    later.addText("weather report in Paris", 1, 1);
    expect(later.terms).toEqual(["citi", "forecast", "cityforecast", "pari", "weather", "unknown", "word", "report"]);
    expect(postingsOf(later)).toEqual({
      citi: ["0:0×1"],
      forecast: ["0:0×1"],
      cityforecast: ["0:0×1"],
      pari: ["1:0×1", "1:1×1"],
      weather: ["1:0×1", "1:1×1"],
      unknown: ["1:0×1"],
      word: ["1:0×1"],
      report: ["1:0×1", "1:1×1"],
    });
    expect(first.terms).toEqual(["weather", "report", "pari", "forecast", "citi"]);
  });

  it("reads alike once the isolate's table of pieces is past its bound and a collector starts a new one", () => {
    // More distinct pieces than an isolate keeps (100,000): the next collector reads with a new table.
    const many = new PostingCollector();
    const words = Array.from({ length: 100_001 }, (_, i) => `w${i.toString(36)}`);
    expect(many.addText(words.join(" "), 0, 1)).toBe(many.terms.length);
    for (let round = 0; round < 2; round++) {
      const collector = new PostingCollector();
      collector.addText("weather report, w1 weather", 0, 1);
      collector.addText("Report", 1, 1);
      expect(collector.terms).toEqual(["weather", "report", "1"]);
      expect(postingsOf(collector)).toEqual({ weather: ["1:0×2"], report: ["1:0×1", "1:1×1"], 1: ["1:0×1"] });
    }
  });

  it("has nothing to index for stop words and separators", () => {
    const collector = new PostingCollector();
    expect(collector.addText("the of and -- ...", 0, 1)).toBe(0);
    expect(collector.terms).toEqual([]);
    expect(collector.byTerm().starts).toEqual(Int32Array.of(0));
  });
});
