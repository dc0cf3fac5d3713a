import * as fc from "fast-check";
import MiniSearch from "minisearch";
import { describe, expect, it } from "vitest";
import { measureRetrieval } from "../../../bench/metrics.ts";
import { analyze } from "../../../src/core/search/analyze.ts";
import { FIELDS, leadSentence, toolFieldTexts } from "../../../src/core/search/fields.ts";
import { createMiniSearchIndex, DEFAULT_TUNING } from "../../../src/core/search/minisearch.ts";
import { buildIndex, MINISEARCH_OPTIONS } from "../../support/miniSearchReference.ts";
import type { JsonSchema, ToolDefinition } from "../../../src/core/types.ts";
import { everyTestNeedsEvalData, evalMcpTools, evalMetaTool } from "../../evalData.ts";
import { tool } from "../../support/tools.ts";

const catalog: ToolDefinition[] = [
  tool("search_web", "Searches the internet and returns the best pages for a query."),
  tool("send_email", "Sends a message to one or more recipients.", {
    parameters: {
      type: "object",
      properties: { to: { type: "string", description: "Recipient address" }, subject: { type: "string" } },
    },
  }),
  tool("daily_digest", "Summarises the news of the day, including the weather in your city."),
  tool("get_weather", "Current conditions for a city.", {
    parameters: {
      type: "object",
      properties: { city: { type: "string" }, units: { type: "string", enum: ["metric", "imperial"] } },
    },
  }),
  tool("createCalendarEvent", "Adds an entry to a calendar.", {
    parameters: {
      type: "object",
      properties: {
        when: {
          type: "object",
          description: "When it happens",
          properties: { timezone: { type: "string", description: "An IANA zone such as Europe/Paris" } },
        },
      },
    },
  }),
  tool("read_file", "Reads the contents of a file from disk."),
  tool("ledger_post", "Records a transaction.", { groups: ["accounting"] }),
];

const names = (tools: readonly ToolDefinition[]): string[] => tools.map((t) => t.name);
const index = createMiniSearchIndex(catalog);
const top = (query: string, count = 1): string[] => index.search(query).slice(0, count);

describe("createMiniSearchIndex: ranking", () => {
  it("ranks a name match above a description match", () => {
    // daily_digest mentions the weather in its description; get_weather has it in its name.
    expect(index.search("weather")).toEqual(["get_weather", "daily_digest"]);
    expect(top("weather forecast")).toEqual(["get_weather"]);
  });

  it("finds forms of the words it indexed (stemming)", () => {
    expect(top("sending emails")).toEqual(["send_email"]);
    expect(top("searching the internet")).toEqual(["search_web"]);
  });

  it("splits names on underscores and camelCase", () => {
    expect(top("calendar event")).toEqual(["createCalendarEvent"]);
    expect(top("createcalendarevent")).toEqual(["createCalendarEvent"]);
    expect(top("file")).toEqual(["read_file"]);
  });

  it("indexes parameter names and descriptions, two levels deep, and enum values", () => {
    expect(top("recipient")).toEqual(["send_email"]);
    expect(top("timezone")).toEqual(["createCalendarEvent"]);
    expect(top("imperial units")).toEqual(["get_weather"]);
  });

  it("ignores stop words: a question finds what its content words find", () => {
    expect(index.search("how do I send an email to someone?")).toEqual(index.search("send email"));
    expect(index.search("the of and to")).toEqual([]);
  });

  it("corrects a typo in a longer word (fuzzy) and matches prefixes", () => {
    expect(top("wether")).toEqual(["get_weather"]);
    expect(top("calend")).toEqual(["createCalendarEvent"]);
    // Short words are never fuzzy: "fil" is a prefix of "file", "mile" is no typo of it.
    expect(index.search("mile")).toEqual([]);
  });

  it("puts a tool first when the query names it exactly", () => {
    expect(top("read_file")).toEqual(["read_file"]);
    expect(top("please run `send_email` now")).toEqual(["send_email"]);
  });

  it("puts first the earliest in catalog order of tools named alike but for case, also after an update", () => {
    const alike = [tool("Get_Weather", "Weather of a city."), tool("search_web", "Searches pages."), tool("get_weather", "Weather now.")];
    const alikeIndex = createMiniSearchIndex(alike);
    expect(alikeIndex.search("GET_WEATHER")[0]).toBe("Get_Weather");
    const moved = [alike[2], alike[1], alike[0]].filter((t) => t !== undefined);
    expect(alikeIndex.update?.(moved)?.search("GET_WEATHER")[0]).toBe("get_weather");
    expect(alikeIndex.update?.(moved.slice(1))?.search("GET_WEATHER")[0]).toBe("Get_Weather");
  });

  it("returns an empty or blank query as every tool in catalog order", () => {
    expect(index.search("")).toEqual(names(catalog));
    expect(index.search("  \t\n")).toEqual(names(catalog));
    expect(index.size).toBe(catalog.length);
  });

  it("returns names only, whatever the groups: group words are searchable, filtering is the caller's", () => {
    expect(index.search("accounting")).toEqual(["ledger_post"]);
    expect(index.search("transaction")).toEqual(["ledger_post"]);
  });

  it("keeps catalog order between equally good tools", () => {
    const twins = createMiniSearchIndex([tool("b_tool", "Converts units."), tool("a_tool", "Converts units.")]);
    expect(twins.search("convert units")).toEqual(["b_tool", "a_tool"]);
  });

  it("with idfScope \"tool\", weighs a word by how many tools hold it, not how many names hold it", () => {
    const tools = [
      tool("find_agency", "Marketing agencies by service and rating."),
      ...["hotels", "flights", "recipes", "jobs"].map((topic) => tool(`${topic}_search`, `Find ${topic} near you.`)),
      tool("harbour_timetables", "Ferry timetables for the harbour."),
      tool("island_timetables", "Ferry timetables for the island."),
    ];
    // The lexical half alone (semanticWeight 0): the word vectors would also tell a ferry from an agency.
    expect(createMiniSearchIndex(tools, { ...DEFAULT_TUNING, idfScope: "tool", semanticWeight: 0 }).search("find a ferry")[0]).toBe("harbour_timetables");
    // Counted per field (MiniSearch's IDF, the default), "find" is as rare as can be among names.
    expect(createMiniSearchIndex(tools, { ...DEFAULT_TUNING, idfScope: "field", semanticWeight: 0 }).search("find a ferry")[0]).toBe("find_agency");
  });

  it("with idfScope \"toolExceptName\", counts names per field and the other fields by whole tools", () => {
    // "city" is in eight descriptions and one tool's parameter names: per field, as rare as can be among parameters.
    const tools = [
      ...["hotels", "flights", "restaurants", "museums", "parks", "bars", "shops", "beaches"].map((topic) => tool(`${topic}_guide`, `The best ${topic} of any city.`)),
      tool("tour_booking", "Book a guided tour."),
      tool("walking_map", "Walking maps.", { parameters: { type: "object", properties: { city: { type: "string" } } } }),
    ];
    const lexical = { ...DEFAULT_TUNING, semanticWeight: 0 };
    expect(createMiniSearchIndex(tools, { ...lexical, idfScope: "field" }).search("city tour").slice(0, 2)).toEqual(["tour_booking", "walking_map"]);
    expect(createMiniSearchIndex(tools, { ...lexical, idfScope: "toolExceptName" }).search("city tour").slice(0, 2)).toEqual(["tour_booking", "hotels_guide"]);
    // In names it counts as "field" does: "find" stays rare among names (the test above).
    const ferries = [
      tool("find_agency", "Marketing agencies by service and rating."),
      ...["hotels", "flights", "recipes", "jobs"].map((topic) => tool(`${topic}_search`, `Find ${topic} near you.`)),
      tool("harbour_timetables", "Ferry timetables for the harbour."),
      tool("island_timetables", "Ferry timetables for the island."),
    ];
    expect(createMiniSearchIndex(ferries, { ...lexical, idfScope: "toolExceptName" }).search("find a ferry")[0]).toBe("find_agency");
    expect(createMiniSearchIndex(ferries, { ...lexical, idfScope: "tool" }).search("find a ferry")[0]).toBe("harbour_timetables");
  });

  it("with leadSentenceRepeats, counts the words of a description's first sentence more than the rest's", () => {
    const tools = [
      tool("doc_helper", "Translates documents between languages. Keeps the layout, fonts and images of the original file."),
      tool("file_converter", "Converts files between formats. It can also translate a document."),
    ];
    for (const semanticWeight of [0, DEFAULT_TUNING.semanticWeight]) {
      // Read once, the shorter description that mentions translating in passing comes first.
      expect(createMiniSearchIndex(tools, { ...DEFAULT_TUNING, semanticWeight, leadSentenceRepeats: 0 }).search("translate")).toEqual(["file_converter", "doc_helper"]);
      expect(createMiniSearchIndex(tools, { ...DEFAULT_TUNING, semanticWeight, leadSentenceRepeats: 1 }).search("translate")).toEqual(["doc_helper", "file_converter"]);
    }
    // A description of one sentence is read once.
    expect(leadSentence("Converts units.")).toBeUndefined();
    expect(leadSentence("Converts units. Fast.")).toBe("Converts units.");
    expect(leadSentence("... Converts units. Fast.")).toBe("Converts units.");
  });

  it("rejects an idfScope or a leadSentenceRepeats it does not know, naming it", () => {
    const units = [tool("a_tool", "Converts units.")];
    for (const leadSentenceRepeats of [-1, 0.5, 4, Number.NaN]) {
      expect(() => createMiniSearchIndex(units, { ...DEFAULT_TUNING, leadSentenceRepeats })).toThrow(/leadSentenceRepeats/);
    }
    const tuning = { ...DEFAULT_TUNING };
    // As a caller without types could pass it.
    Reflect.set(tuning, "idfScope", "names");
    expect(() => createMiniSearchIndex(units, tuning)).toThrow(/idfScope/);
  });

  it("with phraseWeight, ranks a tool that says two query words in a row above one that holds them apart", () => {
    const tools = [
      tool("sector_report", "Market data: market share, market trends, and the size, size and size of teams."),
      tool("sector_estimate", "Reports the market size of a product."),
      tool("unrelated", "Sends a message."),
    ];
    const lexical = { ...DEFAULT_TUNING, semanticWeight: 0, centralityExponent: 0, expansionWeight: 0 };
    // Word by word, sector_report holds "market" and "size" three times each.
    expect(createMiniSearchIndex(tools, { ...lexical, phraseWeight: 0 }).search("market size")[0]).toBe("sector_report");
    const phrased = createMiniSearchIndex(tools, { ...lexical, phraseWeight: 1 });
    expect(phrased.search("market size")[0]).toBe("sector_estimate");
    expect(phrased.search("the market size of smartphones")[0]).toBe("sector_estimate");
    // A pair is matched as written only: never as a prefix or a typo of a word, and it adds no tool of its own.
    expect(phrased.search("market")).toEqual(["sector_report", "sector_estimate"]);
    expect(phrased.search("size market")).toEqual(createMiniSearchIndex(tools, { ...lexical, phraseWeight: 0 }).search("size market"));
    // A pair does not count as a query word: a tool's relevance is its words'.
    expect(phrased.scored("market size", 2).map((match) => match.relevance)).toEqual(createMiniSearchIndex(tools, { ...lexical, phraseWeight: 0 }).scored("market size", 2).map((match) => match.relevance));
  });

  describe("what a request asks for, as against what it hands over", () => {
    const others = [
      tool("get_weather", "Current weather conditions for a city."),
      tool("send_email", "Sends an email message to recipients."),
      tool("search_web", "Searches the web for pages."),
      tool("translate_text", "Translates text between languages."),
      tool("read_file", "Reads a file from disk."),
      tool("stock_quote", "Gets the latest price of a stock."),
      tool("play_music", "Plays songs and playlists."),
      tool("order_food", "Orders food from nearby restaurants."),
    ];
    const firstTwo = (tools: ToolDefinition[], tuning: Partial<typeof DEFAULT_TUNING>, query: string): string[] =>
      createMiniSearchIndex([...tools, ...others], { ...DEFAULT_TUNING, ...tuning }).search(query).slice(0, 2);

    it("with quotedWeight, a word the request only quotes counts less than the words around it", () => {
      const tools = [tool("add_agenda", "Adds an entry to your agenda."), tool("book_meeting_room", "Books a meeting room for a meeting with colleagues.")];
      const query = 'Please add "Meeting with John about the meeting room" to my agenda';
      expect(firstTwo(tools, { quotedWeight: 1 }, query)).toEqual(["book_meeting_room", "add_agenda"]);
      expect(firstTwo(tools, {}, query)).toEqual(["add_agenda", "book_meeting_room"]);
      // A request quoted from end to end quotes no data: it ranks as without its quotes.
      const wholly = '"Can you book a meeting room for the team?"';
      expect(firstTwo(tools, {}, wholly)).toEqual(firstTwo(tools, {}, wholly.slice(1, -1)));
    });

    it("with questionRepeats (off by default), the questions of a request that also states things count more", () => {
      const tools = [tool("invoice_lookup", "Looks up an invoice."), tool("refund_request", "Requests a refund.")];
      expect(firstTwo(tools, {}, "I have the invoice here. Can I get a refund?")).toEqual(["invoice_lookup", "refund_request"]);
      expect(firstTwo(tools, { questionRepeats: 0.5 }, "I have the invoice here. Can I get a refund?")).toEqual(["refund_request", "invoice_lookup"]);
      // All questions: none is the ask more than another.
      const asked = "Can I see the invoice? Can I get a refund?";
      expect(firstTwo(tools, { questionRepeats: 0.5 }, asked)).toEqual(firstTwo(tools, {}, asked));
    });

    it("with loneDigitWeight, a lone digit counts less than a word", () => {
      const tools = [tool("tier_1_support", "Opens a support ticket."), tool("space_probes", "Images and footage from space probes and missions.")];
      expect(firstTwo(tools, { loneDigitWeight: 1 }, "footage from Voyager 1")).toEqual(["tier_1_support", "space_probes"]);
      expect(firstTwo(tools, {}, "footage from Voyager 1")).toEqual(["space_probes", "tier_1_support"]);
      // Numbers of two digits or more weigh as words do.
      expect(firstTwo(tools, {}, "tier 1 support")[0]).toBe("tier_1_support");
    });

    it("rejects weights out of range, naming them", () => {
      const units = [tool("a_tool", "Converts units.")];
      for (const value of [-0.1, 1.5, Number.NaN]) {
        expect(() => createMiniSearchIndex(units, { ...DEFAULT_TUNING, quotedWeight: value })).toThrow(/quotedWeight/);
        expect(() => createMiniSearchIndex(units, { ...DEFAULT_TUNING, loneDigitWeight: value })).toThrow(/loneDigitWeight/);
      }
      for (const value of [-1, Number.POSITIVE_INFINITY, Number.NaN]) {
        expect(() => createMiniSearchIndex(units, { ...DEFAULT_TUNING, questionRepeats: value })).toThrow(/questionRepeats/);
      }
    });
  });

  it("handles an empty catalog", () => {
    const empty = createMiniSearchIndex([]);
    expect(empty.size).toBe(0);
    expect(empty.search("")).toEqual([]);
    expect(empty.search("weather")).toEqual([]);
  });

  it("answers every query with distinct catalog names, and finds each tool by its own name first", () => {
    const identifier = fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,15}$/);
    fc.assert(
      fc.property(fc.uniqueArray(identifier, { minLength: 1, maxLength: 12 }), fc.array(fc.string(), { maxLength: 4 }), (toolNames, words) => {
        const tools = toolNames.map((name, i) => tool(name, `Tool ${i}: ${words.join(" ")}`));
        const built = createMiniSearchIndex(tools);
        for (const query of [...words, ...toolNames]) {
          const found = built.search(query);
          expect(new Set(found).size).toBe(found.length);
          for (const name of found) expect(toolNames).toContain(name);
        }
        for (const name of toolNames) expect(built.search(name)[0]).toBe(name);
      }),
      { numRuns: 40 },
    );
  });
});

// The real catalog: 527 MCP tools, 61 of them described in Chinese.
const mcpCatalog: ToolDefinition[] = evalMcpTools.map((t) => ({
  name: `${t.server.replaceAll(/[^A-Za-z0-9]+/gu, "_").replaceAll(/^_+|_+$/gu, "")}__${t.name}`,
  description: t.description,
  parameters: t.inputSchema,
}));

describe("createMiniSearchIndex on the 527 real MCP tools", () => {
  everyTestNeedsEvalData();
  const real = createMiniSearchIndex(mcpCatalog);
  const descriptionOf = new Map(mcpCatalog.map((t) => [t.name, t.description]));

  it("finds Chinese descriptions with a Chinese query", () => {
    const recipes = real.search("推荐菜谱").slice(0, 3);
    expect(recipes[0]).toBe("HowToCook_MCP_Server__mcp_howtocook_recommendMeals");
    for (const name of recipes) expect(descriptionOf.get(name)).toContain("菜谱");
    expect(real.search("必应搜索")[0]).toBe("Bing_CN_MCP__bing_search");
  });

  it("finds English tools by what they do", () => {
    expect(real.search("weather forecast")[0]).toMatch(/weather/u);
    expect(real.search("current stock price")[0]).toBe("MCP_Yahoo_Finance__get_current_stock_price");
  });
});

/** The index MiniSearch's own addAll builds from the analyzed field texts, serialized. */
function referenceIndex(tools: readonly ToolDefinition[]) {
  const reference = new MiniSearch(MINISEARCH_OPTIONS);
  reference.addAll(
    tools.map((t, id) => {
      const texts = toolFieldTexts(t);
      return { id, ...Object.fromEntries(FIELDS.map((field) => [field, analyze(texts[field]).join(" ")])) };
    }),
  );
  return reference.toJSON();
}

function assertSameIndex(tools: readonly ToolDefinition[]): void {
  const built = buildIndex(tools).index.toJSON();
  const expected = referenceIndex(tools);
  const sortIndex = (entries: typeof expected.index) => entries.toSorted(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  expect(sortIndex(built.index)).toEqual(sortIndex(expected.index));
  expect(built.fieldLength).toEqual(expected.fieldLength);
  expect(built.documentIds).toEqual(expected.documentIds);
  expect(built.fieldIds).toEqual(expected.fieldIds);
  expect(built.documentCount).toBe(expected.documentCount);
  built.averageFieldLength.forEach((average, field) => expect(average).toBeCloseTo(expected.averageFieldLength[field] ?? Number.NaN, 9));
}

describe("buildIndex", () => {
  it("builds exactly the index MiniSearch's addAll builds from the same terms", () => {
    const chinese = mcpCatalog.filter((t) => /\p{Script=Han}/u.test(t.description)).slice(0, 20);
    assertSameIndex([...catalog, ...mcpCatalog.slice(0, 60), ...chinese]);
  });

  it("builds the addAll index for any texts: punctuation, marks, CJK, repeated words, nested parameters", () => {
    const word = fc.constantFrom(
      "weather", "Weather", "get_weather", "getWeather", "HTTPServer", "utf8", "the", "a", "e-mail", "Café", "re\u0301sume\u0301s",
      "天气预报", "查", "ｗｅａｔｈｅｒ", "½", "x.y/z", "(note)", "it's", "\t", "\n", "—", "2fa", "IDs",
    );
    const text = fc.array(fc.oneof(word, fc.string({ unit: "binary", maxLength: 6 })), { maxLength: 12 }).map((words) => words.join(" "));
    const parameters: fc.Arbitrary<JsonSchema> = fc
      .dictionary(fc.oneof(word, fc.string({ maxLength: 5 })), fc.record({ type: fc.constant("string"), description: text }), { maxKeys: 3 })
      .map((properties) => ({ type: "object", properties: { ...properties, nested: { type: "object", description: "Nested", properties } } }));
    const toolArbitrary = fc.record({ name: fc.oneof(word, fc.string({ maxLength: 12 })), description: text, parameters, groups: fc.array(word, { maxLength: 2 }) });
    fc.assert(
      fc.property(fc.array(toolArbitrary, { minLength: 1, maxLength: 8 }), (tools) => assertSameIndex(tools)),
      { numRuns: 60 },
    );
  });

  it("counts in how many tools each term occurs", () => {
    const { documentFrequency } = buildIndex(catalog);
    expect(documentFrequency.get("weather")).toBe(2);
    expect(documentFrequency.get("calendar")).toBe(1);
    expect(documentFrequency.has("the")).toBe(false);
  });
});

describe("retrieval quality on MetaTool (the bench's targets)", () => {
  everyTestNeedsEvalData();
  // 2,497 searches, most with words seen for the first time (their near words are worked out once: semantic.ts).
  it("reaches nDCG@10 ≥ 0.657 and success@5 ≥ 0.759 over every query whose tools are all in the catalog", { timeout: 90_000 }, () => {
    const { tools, queries } = evalMetaTool;
    const metaIndex = createMiniSearchIndex(tools.map((t) => tool(t.name, t.description)));
    const quality = measureRetrieval((query) => metaIndex.search(query), queries, new Set(tools.map((t) => t.name)));
    expect(quality.queries).toBe(queries.length);
    expect(quality.ndcgAt10).toBeGreaterThanOrEqual(0.657);
    expect(quality.successAt5).toBeGreaterThanOrEqual(0.759);
    expect(quality.recallAt5).toBeGreaterThanOrEqual(0.65);
  });
});
