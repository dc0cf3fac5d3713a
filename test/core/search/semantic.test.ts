import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createMiniSearchIndex, DEFAULT_TUNING } from "../../../src/core/search/minisearch.ts";
import { Bm25Postings } from "../../../src/core/search/bm25Postings.ts";
import { wordVectors } from "../../../src/core/search/wordVectors.ts";
import { BELOW_FLOOR, embeddingWords, nearWords, SemanticVectors, toolWords } from "../../../src/core/search/semantic.ts";
import type { ToolDefinition } from "../../../src/core/types.ts";
import { tool } from "../../support/tools.ts";

const catalog = [
  tool("gift_ideas", "Suggests presents for birthdays, weddings and holidays."),
  tool("get_weather", "Current conditions and forecast for a city."),
  tool("send_email", "Sends a message to one or more recipients."),
  tool("stock_quote", "Latest share prices from the stock exchange."),
  tool("translate_text", "Translates text between languages."),
  tool("read_file", "Reads the contents of a file from disk."),
  tool("recipe_search", "Finds cooking recipes by ingredient."),
];
const LEXICAL = { ...DEFAULT_TUNING, semanticWeight: 0 };
/** Tools about something else, beside the few a test compares. */
const UNRELATED = [tool("stock_quotes", "Share prices and market news for listed companies."), tool("music_player", "Play songs, albums and playlists by artist.")];

/** The semantic vectors of `tools`, as an index build makes them (their words read with their terms). */
function vectorsOf(tools: readonly ToolDefinition[]): SemanticVectors {
  const words = toolWords();
  new Bm25Postings().addTools(tools, words);
  const vectors = new SemanticVectors();
  vectors.add(words);
  return vectors;
}

describe("the minisearch mode's semantic half (word vectors)", () => {
  const index = createMiniSearchIndex(catalog);

  it("finds a tool that shares no word with the query", () => {
    expect(index.search("celebrate our anniversary")[0]).toBe("gift_ideas");
    expect(index.search("will it rain tomorrow")[0]).toBe("get_weather");
    // The lexical half alone finds nothing.
    expect(createMiniSearchIndex(catalog, LEXICAL).search("celebrate our anniversary")).toEqual([]);
    expect(createMiniSearchIndex(catalog, LEXICAL).search("will it rain tomorrow")).toEqual([]);
  });

  it("finds nothing for words it does not know, or stop words only", () => {
    expect(index.search("xyzzy plugh")).toEqual([]);
    expect(index.search("the of and to")).toEqual([]);
  });

  it("gives a tool found through its vector alone no relevance (auto-discovery's floor keeps it out)", () => {
    expect(index.scored("will it rain tomorrow", 3)).toEqual([{ name: "get_weather", relevance: 0 }]);
  });

  it("ranks the same on every build, and after an update as a fresh build", () => {
    const queries = ["celebrate our anniversary", "how is the market doing", "cook something tonight", "send the report"];
    const again = createMiniSearchIndex(catalog);
    for (const query of queries) expect(again.search(query)).toEqual(index.search(query));
    const next = [...catalog.slice(1), tool("party_planner", "Organises celebrations and events.")];
    const updated = createMiniSearchIndex(catalog).update?.(next);
    expect(updated).toBeDefined();
    const fresh = createMiniSearchIndex(next);
    for (const query of queries) expect(updated?.search(query)).toEqual(fresh.search(query));
  });

  it("after any sequence of updates, scores every tool exactly as a fresh build", { timeout: 60_000 }, () => {
    // English words (the table knows them), so that tools and queries have vectors, and most matches are through them.
    const words = "weather rain forecast city email message letter invoice payment bank money stock market price share file folder disk photo image music song video movie ticket flight hotel travel recipe cooking food doctor health calendar meeting party gift birthday translate language news sport game map route traffic".split(" ");
    const text = fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 6 }).map((list) => list.join(" "));
    const change = fc.record({ remove: fc.nat(), add: fc.boolean(), description: text });
    let made = 0;
    fc.assert(
      fc.property(fc.array(text, { minLength: 2, maxLength: 20 }), fc.array(fc.array(change, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 4 }), fc.array(text, { minLength: 1, maxLength: 4 }), (descriptions, versions, queries) => {
        let tools = descriptions.map((description, i) => tool(`tool_${i}`, description));
        let patched = createMiniSearchIndex(tools);
        for (const changes of versions) {
          const next = [...tools];
          for (const step of changes) {
            if (step.add || next.length === 0) next.push(tool(`added_${made++}`, step.description));
            else next.splice(step.remove % next.length, 1);
          }
          const updated = patched.update?.(next);
          expect(updated).toBeDefined();
          if (!updated) return;
          patched = updated;
          tools = next;
          const fresh = createMiniSearchIndex(tools);
          for (const query of queries) expect(patched.scored(query, Infinity)).toEqual(fresh.scored(query, Infinity));
        }
      }),
      { numRuns: 50 },
    );
  });

  it("ranks a page of a few tools as the head of the whole ranking, whatever its size and filter (a page reads few cosines)", { timeout: 60_000 }, () => {
    const words = "weather rain forecast city email message letter invoice payment bank money stock market price share file folder disk photo image music song video movie ticket flight hotel travel recipe cooking food party gift birthday".split(" ");
    const text = fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 6 }).map((list) => list.join(" "));
    // Requests of one to three sentences: a page mixes the whole's cosine with its sentences'.
    const request = fc.array(text, { minLength: 1, maxLength: 3 }).map((sentences) => sentences.map((sentence) => `${sentence}.`).join(" "));
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 30 }), request, fc.integer({ min: 0, max: 8 }), fc.integer({ min: 1, max: 3 }), (descriptions, query, count, every) => {
        const tools = descriptions.map((description, i) => tool(`tool_${i}`, description));
        const built = createMiniSearchIndex(tools);
        const accept = (name: string): boolean => Number(name.slice(5)) % every === 0;
        const whole = built.searchPage(query, Infinity, accept);
        expect(built.searchPage(query, count, accept)).toEqual({ names: whole.names.slice(0, count), total: whole.total });
        expect(built.scored(query, count, accept)).toEqual(built.scored(query, Infinity, accept).slice(0, count));
      }),
      { numRuns: 500 },
    );
    // A query that matches well (its page takes no tool through its vector alone) and one that matches through vectors only.
    for (const query of ["What will the weather be tomorrow? Also find the latest stock price.", "celebrate our anniversary", "will it rain tomorrow"]) {
      for (const count of [1, 2, 3]) expect(index.scored(query, count)).toEqual(index.scored(query, Infinity).slice(0, count));
    }
  });

  it("weighs a query word off the query's topic less in the lexical half (centralityExponent)", () => {
    const withMenu = [...catalog, tool("options_menu", "Lists the options of a settings menu.")];
    const query = "give me options: is rain in the forecast";
    const vectors = vectorsOf(withMenu);
    const [rain = 0, options = 0] = vectors.wordCentralities(vectors.queryVector(query), ["rain", "options"]);
    expect(rain).toBeGreaterThan(options);
    // Near words left out ("rain" would also find "weather"): the centrality alone.
    const alone = { ...DEFAULT_TUNING, expansionWeight: 0, toolCentralityExponent: 0 };
    expect(createMiniSearchIndex(withMenu, alone).search(query)[0]).toBe("get_weather");
    // Without it, "options" (in that tool's name and description) outweighs "forecast", and the menu comes first.
    expect(createMiniSearchIndex(withMenu, { ...alone, centralityExponent: 0 }).search(query)[0]).toBe("options_menu");
  });

  it("reads a word the catalog lacks as its near words that it holds (expansionWeight)", () => {
    const near = nearWords("rain");
    expect(near.map((entry) => entry.word)).toContain("weather");
    expect(near.length).toBeLessThanOrEqual(20);
    const cosines = near.map((entry) => entry.cosine);
    expect(cosines).toEqual(cosines.toSorted((a, b) => b - a));
    expect(Math.min(...cosines)).toBeGreaterThanOrEqual(0.55);
    expect(nearWords("xyzzy")).toEqual([]);
    // Both tools hold "city"; no tool holds "rain", whose near word "weather" one of them holds.
    const cities = [tool("city_news", "Latest news for any city."), tool("weather_station", "Weather data for any city.")];
    expect(createMiniSearchIndex(cities).search("rain in the city")).toEqual(["weather_station", "city_news"]);
    expect(createMiniSearchIndex(cities, { ...DEFAULT_TUNING, expansionWeight: 0 }).search("rain in the city")).toEqual(["city_news", "weather_station"]);
  });

  it("also searches a query word the catalog holds as its near words, which order the tools that match a query word (knownExpansionWeight)", () => {
    // Both Paris tools hold "paris" and texts as long; one also says "wind", a near word of "weather" (which the quiz
    // holds). The tool-side centrality is left out: it weighs "paris" by each text, which this test is not about.
    const tools = [
      tool("paris_guide", "Museums and parks in Paris, day by day, for the week ahead."),
      tool("paris_outlook", "Rain and wind in Paris, day by day, for the week ahead."),
      tool("weather_quiz", "Trivia questions about famous storms and weather."),
    ];
    const tuning = { ...DEFAULT_TUNING, toolCentralityExponent: 0 };
    const ranked = (knownExpansionWeight: number): string[] => createMiniSearchIndex(tools, { ...tuning, knownExpansionWeight }).search("weather in paris");
    expect(ranked(0).slice(0, 3)).toEqual(["weather_quiz", "paris_guide", "paris_outlook"]);
    expect(ranked(0.1).slice(0, 3)).toEqual(["weather_quiz", "paris_outlook", "paris_guide"]);
    // Near words alone match nothing: they find no tool the ranking would not find without them.
    expect(ranked(0.1).toSorted()).toEqual(ranked(0).toSorted());
  });

  it("rejects a knownExpansionWeight that is negative or not finite, naming it", () => {
    for (const knownExpansionWeight of [-0.1, Number.NaN, Infinity]) {
      expect(() => createMiniSearchIndex(catalog, { ...DEFAULT_TUNING, knownExpansionWeight })).toThrow(/knownExpansionWeight/);
    }
  });

  it("weighs a description's hit by how central the query word is to that tool (toolCentralityExponent)", () => {
    const tools = [
      tool("sky_report", "Weather forecast: rain, snow, wind, storms, humidity and temperature for any place, hour by hour and for the next ten days, with alerts."),
      tool("travel_desk", "Hotel bookings, with the weather."),
      ...UNRELATED,
    ];
    // Near words of "weather" (rain, wind) left out: the report holds them, and they alone would put it first.
    const withoutIt = { ...DEFAULT_TUNING, toolCentralityExponent: 0, knownExpansionWeight: 0 };
    for (const query of ["weather", "what is the weather", "weather today"]) {
      // Without it, the short text that mentions the weather in passing outranks the long one about nothing else.
      expect(createMiniSearchIndex(tools, withoutIt).search(query)[0]).toBe("travel_desk");
      expect(createMiniSearchIndex(tools).search(query).slice(0, 2)).toEqual(["sky_report", "travel_desk"]);
    }
  });

  it("weighs a name's hit by how central the query word is to that tool (nameCentralityExponent)", () => {
    // The cosine's own weight near 0: only the lexical half orders, and the shorter name would come first.
    const lexicalOrder = { ...DEFAULT_TUNING, semanticWeight: 1e-6, knownExpansionWeight: 0 };
    const cases = [
      { tools: [tool("weather_rooms", "Hotel rooms and bookings for travellers."), tool("weather_station_pro", "Rain, wind and temperature forecasts.")], query: "weather tomorrow" },
      { tools: [tool("book_trips", "Flights and hotels for your trips."), tool("book_reading_list", "Novels, authors and reading recommendations.")], query: "a good book" },
    ];
    for (const { tools, query } of cases) {
      const [passing, about] = tools.map((entry) => entry.name);
      expect(createMiniSearchIndex([...tools, ...UNRELATED], { ...lexicalOrder, nameCentralityExponent: 0 }).search(query).slice(0, 2)).toEqual([passing, about]);
      expect(createMiniSearchIndex([...tools, ...UNRELATED], { ...lexicalOrder, nameCentralityExponent: 1 }).search(query).slice(0, 2)).toEqual([about, passing]);
    }
  });

  it("weighs a back-off prefix's hit by the centrality of the word it was cut from (backoffCentrality)", () => {
    // No tool holds "surfaces": it backs off to "surf", which a surf report holds; "surfaces" is not what it is about.
    const tools = [
      tool("wave_report", "Today's surf, tides and swell."),
      tool("floor_care", "Cleaning products for floors and carpets."),
      ...UNRELATED,
    ];
    expect(createMiniSearchIndex(tools, { ...DEFAULT_TUNING, backoffCentrality: false }).search("clean surfaces").slice(0, 2)).toEqual(["wave_report", "floor_care"]);
    expect(createMiniSearchIndex(tools, { ...DEFAULT_TUNING, backoffCentrality: true }).search("clean surfaces").slice(0, 2)).toEqual(["floor_care", "wave_report"]);
  });

  it("rejects a nameCentralityExponent out of range or a backoffCentrality that is not a boolean, naming it", () => {
    for (const nameCentralityExponent of [-1, Number.NaN, Infinity]) {
      expect(() => createMiniSearchIndex(catalog, { ...DEFAULT_TUNING, nameCentralityExponent })).toThrow(/nameCentralityExponent/);
    }
    for (const backoffCentrality of [1, "yes", undefined]) {
      // As a caller without types could pass it.
      const tuning = { ...DEFAULT_TUNING };
      Reflect.set(tuning, "backoffCentrality", backoffCentrality);
      expect(() => createMiniSearchIndex(catalog, tuning)).toThrow(/backoffCentrality/);
    }
  });

  it("rejects a toolCentralityExponent or a field's b out of range, naming it", () => {
    for (const toolCentralityExponent of [-1, Number.NaN, Infinity]) {
      expect(() => createMiniSearchIndex(catalog, { ...DEFAULT_TUNING, toolCentralityExponent })).toThrow(/toolCentralityExponent/);
    }
    for (const b of [-0.1, 1.5, Number.NaN]) {
      expect(() => createMiniSearchIndex(catalog, { ...DEFAULT_TUNING, fieldB: { description: b } })).toThrow(/fieldB\.description/);
    }
  });

  describe("a request of several sentences (requestSentences)", () => {
    const office = [...catalog, tool("team_calendar", "Shows the meetings of your team this week."), tool("report_builder", "Builds quarterly business reports from sales figures.")];
    // Near words at 0.1 (not the default 0.2): at 0.2 "rain" → weather finds get_weather lexically, whatever the cosine.
    const wholeRequestOnly = { ...DEFAULT_TUNING, sentenceShare: 0, sentenceCentrality: false, toolCentralityExponent: 0, expansionWeight: 0.1 };

    it("scores a tool by its best sentence too (sentenceShare): a second ask's tool is not lost in the blend", () => {
      const query = "Cook dinner for my team tonight. Will it rain tomorrow?";
      // get_weather shares no word with the request: only its cosine finds it.
      const before = createMiniSearchIndex(office, wholeRequestOnly).search(query);
      expect(before.indexOf("gift_ideas")).toBeLessThan(before.indexOf("get_weather"));
      const after = createMiniSearchIndex(office, { ...wholeRequestOnly, sentenceShare: 0.5 }).search(query);
      expect(after.indexOf("get_weather")).toBeLessThan(after.indexOf("gift_ideas"));
      expect(createMiniSearchIndex(office).search(query).indexOf("get_weather")).toBeLessThan(after.indexOf("gift_ideas"));
    });

    it("weighs each word's centrality in its own sentence (sentenceCentrality): a short second ask keeps its words' weight", () => {
      const query = "Birthday, wedding and holiday presents. Read the file contents.";
      expect(createMiniSearchIndex(office, wholeRequestOnly).search(query)[0]).toBe("gift_ideas");
      expect(createMiniSearchIndex(office, { ...wholeRequestOnly, sentenceCentrality: true }).search(query)[0]).toBe("read_file");
    });

    it("ranks a request of one sentence as the whole request does", () => {
      const ranked = createMiniSearchIndex(office);
      const whole = createMiniSearchIndex(office, { ...wholeRequestOnly, toolCentralityExponent: DEFAULT_TUNING.toolCentralityExponent });
      for (const query of ["cook dinner for my team tonight and tell me whether it will rain", "read the file contents", "quarterly sales report for the team"]) {
        expect(ranked.search(query)).toEqual(whole.search(query));
      }
    });

    it("rejects a sentenceShare outside 0..1, naming it", () => {
      for (const sentenceShare of [-0.1, 1.5, Number.NaN]) {
        expect(() => createMiniSearchIndex(catalog, { ...DEFAULT_TUNING, sentenceShare })).toThrow(/sentenceShare/);
      }
    });
  });

  it("rejects a semanticWeight that is negative or not finite, naming it", () => {
    for (const semanticWeight of [-0.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => createMiniSearchIndex(catalog, { ...DEFAULT_TUNING, semanticWeight })).toThrow(/semanticWeight/);
    }
  });

  it("reads identifiers as words, without digits, lone letters or stop words", () => {
    expect(embeddingWords("showWeatherForecast v2 for the_city")).toEqual(["show", "weather", "forecast", "city"]);
  });

  it("reads a tool's words with its terms, in one pass, as its name and description read whole give them", () => {
    const table = wordVectors().words();
    const known = new Set(table);
    const piece = fc.constantFrom("weather", "Forecast", "getWeather", "HTTPServer", "utf8", "café", "天气", "v2", "the", "x", "Zorivex:", "JSONData", "ünïcode", "ABC", "rain", "2fa", "");
    const joined = fc
      .array(fc.tuple(piece, fc.constantFrom(" ", "_", "", "-", ".", "/", "é")), { maxLength: 8 })
      .map((parts) => parts.map(([word, separator]) => word + separator).join(""));
    fc.assert(
      fc.property(fc.array(fc.record({ name: joined, description: joined }), { minLength: 1, maxLength: 6 }), (texts) => {
        const words = toolWords();
        new Bm25Postings().addTools(texts.map(({ name, description }) => ({ name, description, parameters: { type: "object", properties: { city: { type: "string", description: "weather" } } } })), words);
        const ends = words.ends.view();
        const rows = words.rows.view();
        expect(ends.length).toBe(texts.length);
        texts.forEach(({ name, description }, i) => {
          const read = Array.from(rows.subarray(i === 0 ? 0 : (ends[i - 1] ?? 0), ends[i] ?? 0), (row) => table[row]);
          expect(read).toEqual(embeddingWords(`${name} ${description}`).filter((word) => known.has(word)));
        });
      }),
      { numRuns: 300 },
    );
  });
});

describe("SemanticVectors.cosinesAtLeast", () => {
  const words = "weather rain forecast city email message letter invoice payment bank money stock market price share file folder disk photo image music song video movie ticket flight hotel travel recipe cooking food doctor health calendar meeting party gift birthday translate language news sport game map route traffic".split(" ");
  const text = fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 8 }).map((picked) => picked.join(" "));
  // Requests of one to five sentences: alone, two, three (each read in one pass) and more than three.
  const request = fc.array(text, { minLength: 1, maxLength: 5 });

  it("gives every slot marked exact, and every cosine at the floor or more, mixedCosinesInto's cosine to the last bit", { timeout: 60_000 }, () => {
    let belowFound = 0;
    fc.assert(
      // The floor: one tool's own cosine (so that one sits right at it), nudged a little or not, or any.
      fc.property(fc.array(text, { minLength: 1, maxLength: 40 }), request, fc.nat(), fc.constantFrom(0, 1e-6, -1e-6, Number.NaN), fc.double({ min: 0, max: 1, noNaN: true }), fc.array(fc.boolean(), { maxLength: 40 }), (descriptions, sentences, at, nudge, share, marks) => {
        const vectors = vectorsOf(descriptions.map((description, i) => tool(`tool_${i}`, description)));
        const vector = vectors.queryVector(sentences.join(". "));
        if (vector === undefined) return;
        const parts = sentences.length < 2 ? [] : sentences.flatMap((sentence) => vectors.queryVector(sentence) ?? []);
        const expected = new Float32Array(vectors.slotCount);
        vectors.mixedCosinesInto(vector, parts, share, expected);
        const floor = Number.isNaN(nudge) ? 0.3 : (expected[at % expected.length] ?? 0) + nudge;
        const exact = Uint8Array.from({ length: vectors.slotCount }, (_, slot) => (marks[slot] === true ? 1 : 0));
        const found = new Float32Array(vectors.slotCount).fill(Number.NaN);
        const above = new Int32Array(vectors.slotCount + 2).fill(-1);
        const count = vectors.cosinesAtLeast(vector, parts, share, floor, exact, found, above);
        // Listed, in slot order: exactly the slots not marked exact whose cosine is the floor or more.
        expect(Array.from(above.subarray(0, count))).toEqual([...expected.keys()].filter((slot) => exact[slot] !== 1 && (expected[slot] ?? 0) >= floor));
        // Read exactly: a marked slot, a cosine at the floor or more. Else the cosine, or BELOW_FLOOR (then surely below).
        const wrong = [...expected.keys()].filter((slot) => {
          const cosine = expected[slot] ?? 0;
          if (found[slot] === BELOW_FLOOR) belowFound++;
          return exact[slot] === 1 || cosine >= floor ? !Object.is(found[slot], cosine) : found[slot] !== cosine && found[slot] !== BELOW_FLOOR;
        });
        expect(wrong).toEqual([]);
      }),
      { numRuns: 400 },
    );
    // The bound did prove some cosines below the floor (else this test would not exercise it).
    expect(belowFound).toBeGreaterThan(20);
  });

  it("refuses outputs with room for fewer slots than it holds", () => {
    const vectors = vectorsOf(["weather forecast", "email message", "stock price"].map((description, i) => tool(`tool_${i}`, description)));
    const vector = vectors.queryVector("weather");
    if (vector === undefined) throw new Error("the query has no vector");
    const slots = vectors.slotCount;
    const exact = new Uint8Array(slots);
    expect(() => vectors.cosinesAtLeast(vector, [], 0, 0.3, exact, new Float32Array(slots), new Int32Array(slots - 1))).toThrow(RangeError);
    expect(() => vectors.cosinesAtLeast(vector, [], 0, 0.3, exact, new Float32Array(slots - 1), new Int32Array(slots))).toThrow(RangeError);
    // Five sentences take mixedCosinesInto's path, and list alike.
    const parts = ["weather", "email", "stock", "price", "message"].flatMap((word) => vectors.queryVector(word) ?? []);
    expect(() => vectors.cosinesAtLeast(vector, parts, 0.5, 0.3, exact, new Float32Array(slots), new Int32Array(slots - 1))).toThrow(RangeError);
  });
});
