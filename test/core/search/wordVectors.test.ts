import { describe, expect, it, vi } from "vitest";
import { demoCatalog } from "../../../src/catalog/demo.ts";
import { Bm25Postings } from "../../../src/core/search/bm25Postings.ts";
import { nearListsOf, nearWords, SemanticVectors, toolWords } from "../../../src/core/search/semantic.ts";
import { decodeWordVectors, EMBEDDING_DIMENSIONS, encodeWordVectors, wordVectors, type WordVectorSource, type WordVectorTable } from "../../../src/core/search/wordVectors.ts";
import wordVectorsFile from "../../../src/core/search/wordVectors.bin";

/**
 * SHA-256 of the former TypeScript table's content (EMBEDDING_WORDS, then EMBEDDING_SCALES as little-endian float64,
 * then EMBEDDING_VECTORS' bytes), as src/core/search/embeddings.ts held it at commit ddda315: the binary file holds
 * exactly that table.
 */
const FORMER_TABLE_SHA256 = "9c0785612384b3222dcf1c031f1b0e669f13075e6096e8d0982cabcb8735127e";

/**
 * The semantic half on the demo catalog with the former table: per query, the three tools of the highest cosine, and
 * the cosines (float32, exact). Any change to a word's vector moves these.
 */
const DEMO_COSINES: Readonly<Record<string, [string, number][]>> = {
  "celebrate our anniversary": [["delete_event", 0.5951672196388245], ["create_event", 0.44329139590263367], ["get_event", 0.41829803586006165]],
  "will it rain tomorrow": [["get_current_weather", 0.6732210516929626], ["get_weather_forecast", 0.6162318587303162], ["get_air_quality", 0.4063909649848938]],
  "how is the market doing": [["get_stock_quote", 0.7890999913215637], ["get_crypto_price", 0.7247428894042969], ["convert_currency", 0.6890502572059631]],
  "cook something tonight": [["get_current_weather", 0.3820635676383972], ["add_chat_reaction", 0.3767390251159668], ["find_free_slots", 0.3525870740413666]],
  "send the report to my boss": [["send_payment", 0.37728413939476013], ["create_draft", 0.3357141613960266], ["respond_to_invitation", 0.26860931515693665]],
  "find a cheap flight to Tokyo": [["get_directions", 0.5396894812583923], ["find_free_slots", 0.5022274851799011], ["get_price_history", 0.4716764986515045]],
  "what time is it in London": [["get_price_history", 0.45664677023887634], ["search_nearby_places", 0.4393307566642761], ["get_directions", 0.40799635648727417]],
  "translate this letter into French": [["read_email", 0.4420469403266907], ["respond_to_invitation", 0.4306498169898987], ["fetch_url", 0.3830355107784271]],
  "summarize the news": [["news_search", 0.7012946009635925], ["read_chat_messages", 0.3658168613910675], ["add_chat_reaction", 0.356350302696228]],
  "convert dollars to euros": [["convert_currency", 0.6538945436477661], ["send_payment", 0.5420825481414795], ["get_crypto_price", 0.5406838655471802]],
  "look up a word": [["read_email", 0.5088520646095276], ["read_chat_messages", 0.3763923943042755], ["read_file", 0.36472225189208984]],
  "play some music": [["move_email", 0.35962945222854614], ["create_event", 0.3425348997116089], ["delete_event", 0.34005776047706604]],
};

/** nearWords with the former table: the five nearest of a few words, and their cosines. */
const NEAR_WORDS: Readonly<Record<string, [string, number][]>> = {
  laptop: [["computers", 0.7483066916465759], ["phones", 0.7345742583274841], ["computer", 0.7008920907974243], ["pc", 0.6984452605247498], ["phone", 0.6142194271087646]],
  rain: [["winds", 0.7744397521018982], ["snow", 0.7447511553764343], ["wind", 0.7251436710357666], ["storm", 0.7002992630004883], ["temperatures", 0.6597745418548584]],
  invoice: [],
  celebrate: [["celebration", 0.8228433132171631], ["celebrated", 0.7685387134552002], ["occasion", 0.7321829199790955], ["birthday", 0.6935640573501587], ["anniversary", 0.6828520894050598]],
};

async function sha256(...parts: Uint8Array[]): Promise<string> {
  const bytes = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...digest].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

function littleEndian(scales: Float64Array): Uint8Array {
  const bytes = new Uint8Array(8 * scales.length);
  const view = new DataView(bytes.buffer);
  scales.forEach((scale, d) => view.setFloat64(8 * d, scale, true));
  return bytes;
}

function nearestFive(word: string): [string, number][] {
  return nearWords(word).slice(0, 5).map((found): [string, number] => [found.word, found.cosine]);
}

function smallTable(words: string[]): WordVectorSource {
  const table = {
    words,
    scales: Float64Array.from({ length: EMBEDDING_DIMENSIONS }, (_, d) => 0.01 * (d + 1)),
    values: Int8Array.from({ length: words.length * EMBEDDING_DIMENSIONS }, (_, i) => ((i * 37) % 255) - 127),
  };
  return { ...table, near: nearListsOf({ count: words.length, ...table }) };
}

/** What the file holds of a table: its words, scales, int8 rows and near lists, as the encoder takes them. */
function sourceOf(table: WordVectorTable): WordVectorSource {
  const lists = Array.from({ length: table.count }, (_, row) => [...table.near(row)]);
  const starts = new Uint32Array(table.count + 1);
  lists.forEach((list, row) => {
    starts[row + 1] = (starts[row] ?? 0) + list.length;
  });
  return { words: table.words(), scales: table.scales, values: table.values, near: { starts, rows: Uint16Array.from(lists.flat()) } };
}

describe("the word-vector table (wordVectors.bin, a Data module)", () => {
  it("is bundled as its bytes and holds the former TypeScript table exactly", async () => {
    expect(wordVectorsFile).toBeInstanceOf(ArrayBuffer);
    const table = decodeWordVectors(wordVectorsFile);
    expect(table.count).toBe(15_000);
    expect(table.words().slice(0, 5)).toEqual(["the", "of", "to", "and", "in"]);
    expect(table.values.length).toBe(15_000 * EMBEDDING_DIMENSIONS);
    const content = await sha256(new TextEncoder().encode(table.words().join(" ")), littleEndian(table.scales), new Uint8Array(table.values.buffer, table.values.byteOffset, table.values.length));
    expect(content).toBe(FORMER_TABLE_SHA256);
  });

  it("is the table the core decodes on first use (provided by the Worker's shell)", () => {
    const table = wordVectors();
    expect(table).toBe(wordVectors());
    expect(table.words()).toEqual(decodeWordVectors(wordVectorsFile).words());
  });

  it("finds every word in place, and no other", () => {
    const table = decodeWordVectors(wordVectorsFile);
    const words = table.words();
    words.forEach((word, row) => {
      if (table.rowOf(word) !== row || table.word(row) !== word) throw new Error(`${word} (row ${row}) is not found in place`);
    });
    for (const absent of ["", "zzzzzzzzzz", "a", "laptopx", "Laptop", "the ", "天气", "aaaa"]) expect(table.rowOf(absent)).toBe(-1);
  });

  it("carries the near words this code works out from its rows (a sample: the lists of the first 300 words)", () => {
    const table = decodeWordVectors(wordVectorsFile);
    const sample = nearListsOf(table, 300);
    for (let row = 0; row < 300; row++) expect([row, ...table.near(row)]).toEqual([row, ...sample.rows.subarray(sample.starts[row], sample.starts[row + 1])]);
  });

  it("writes back to the same bytes (one encoding per table)", () => {
    const file = new Uint8Array(wordVectorsFile);
    const written = encodeWordVectors(sourceOf(decodeWordVectors(file)));
    expect(written.length).toBe(file.length);
    // Compared byte by byte here: expect's deep equality takes seconds over 840 kB.
    expect(written.findIndex((byte, i) => byte !== file[i])).toBe(-1);
  });

  it("ranks the demo catalog by meaning exactly as the former table did", () => {
    const tools = demoCatalog();
    const words = toolWords();
    new Bm25Postings().addTools(tools, words);
    const vectors = new SemanticVectors();
    vectors.add(words);
    const top3 = (query: string): [string, number][] => {
      const cosines = vectors.cosines(vectors.queryVector(query));
      return tools.map((tool, slot): [string, number] => [tool.name, cosines?.[slot] ?? 0])
        .toSorted((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .slice(0, 3);
    };
    expect(Object.fromEntries(Object.keys(DEMO_COSINES).map((query) => [query, top3(query)]))).toEqual(DEMO_COSINES);
    expect(Object.fromEntries(Object.keys(NEAR_WORDS).map((word) => [word, nearestFive(word)]))).toEqual(NEAR_WORDS);
  });
});

describe("the word-vector format", () => {
  it("round-trips a table", () => {
    const table = smallTable(["alpha", "beta", "gamma"]);
    const decoded = decodeWordVectors(encodeWordVectors(table));
    expect(decoded.words()).toEqual(table.words);
    expect(decoded.scales).toEqual(table.scales);
    expect([...decoded.values]).toEqual([...table.values]);
    expect(table.words.map((word) => decoded.rowOf(word))).toEqual([0, 1, 2]);
    expect(sourceOf(decoded).near).toEqual(table.near);
    // Read where the bytes do not start at a multiple of 4 (a Node Buffer may): the same table.
    const bytes = encodeWordVectors(table);
    const shifted = new Uint8Array(bytes.length + 1);
    shifted.set(bytes, 1);
    expect(decodeWordVectors(shifted.subarray(1)).words()).toEqual(table.words);
  });

  it("refuses bytes that are not a table, saying why", () => {
    const good = encodeWordVectors(smallTable(["alpha", "beta"]));
    const changed = (at: number, byte: number): Uint8Array => {
      const copy = good.slice();
      copy[at] = byte;
      return copy;
    };
    expect(() => decodeWordVectors(good.subarray(0, 10))).toThrow("too short for the header");
    expect(() => decodeWordVectors(changed(0, 0x58))).toThrow("no TGWV magic");
    expect(() => decodeWordVectors(changed(4, 1))).toThrow("format version 1");
    expect(() => decodeWordVectors(changed(8, 3))).toThrow("not the");
    expect(() => decodeWordVectors(changed(8, 0))).toThrow("0 words");
    expect(() => decodeWordVectors(changed(12, 47))).toThrow("47 dimensions");
    expect(() => decodeWordVectors(good.subarray(0, good.length - 1))).toThrow("not the");
    // The words' starts (after the header, the scales, the words' length and their 11 bytes padded to 12) do not end
    // where the words do: the byte length matches, the words do not.
    const starts = 16 + 8 * EMBEDDING_DIMENSIONS + 4 + 12;
    const cut = encodeWordVectors(smallTable(["alpha", "bexta"]));
    expect(cut[starts + 8]).toBe(12);
    cut[starts + 8] = 7;
    expect(() => decodeWordVectors(cut)).toThrow("words of 7 bytes, not the 12");
  });

  it("refuses to write a table that does not fit the format", () => {
    expect(() => encodeWordVectors({ ...smallTable(["a"]), scales: new Float64Array(3) })).toThrow("3 scales");
    expect(() => encodeWordVectors({ ...smallTable(["a"]), values: new Int8Array(5) })).toThrow("5 values for 1 words");
    expect(() => encodeWordVectors(smallTable(["two words"]))).toThrow("not a printable ASCII word");
    expect(() => encodeWordVectors(smallTable(["same", "same"]))).toThrow("a word is there twice");
    const table = smallTable(["alpha", "beta"]);
    expect(() => encodeWordVectors({ ...table, near: { starts: Uint32Array.of(0, 1, 1), rows: Uint16Array.of(2) } })).toThrow("near lists do not fit");
    expect(() => encodeWordVectors({ ...table, near: { starts: Uint32Array.of(0, 1), rows: Uint16Array.of(1) } })).toThrow("near lists do not fit");
  });

  it("says so when no shell provided the table", async () => {
    vi.resetModules();
    const fresh = await import("../../../src/core/search/wordVectors.ts");
    expect(() => fresh.wordVectors()).toThrow("none provided");
    vi.resetModules();
  });
});
