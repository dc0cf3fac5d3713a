import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { forEachSentence, hasCjk, MAX_SENTENCES, pushAsciiWord, pushWord, requestSentences, separatesTerms, tokenize } from "../../../src/core/search/text.ts";

describe("tokenize", () => {
  it("splits identifiers on _ - . camelCase and digits, keeping a camelCase word whole too", () => {
    expect(tokenize("get_weather-now.v2")).toEqual(["get", "weather", "now", "v", "2"]);
    expect(tokenize("createCalendarEvent")).toEqual(["create", "Calendar", "Event", "createCalendarEvent"]);
    expect(tokenize("HTTPServer utf8")).toEqual(["HTTP", "Server", "HTTPServer", "utf", "8"]);
  });

  it("splits Chinese runs into overlapping bigrams, a lone character into itself", () => {
    expect(tokenize("天气预报")).toEqual(["天气", "气预", "预报"]);
    expect(tokenize("查 天")).toEqual(["查", "天"]);
    expect(tokenize("使用MCP搜索")).toEqual(["使用", "MCP", "搜索"]);
  });

  it("folds accents and width variants, keeping case for the next step", () => {
    expect(tokenize("Café Zürich")).toEqual(["Cafe", "Zurich"]);
    expect(tokenize("ＡＰＩ key")).toEqual(["API", "key"]);
  });

  it("returns nothing for text without letters or digits", () => {
    expect(tokenize("")).toEqual([]);
    expect(tokenize(" -- _ ... ")).toEqual([]);
  });
});

/** The terms `push` splits `word` into. */
function split(push: (word: string, terms: string[]) => void, word: string): string[] {
  const terms: string[] = [];
  push(word, terms);
  return terms;
}

describe("pushAsciiWord", () => {
  it("splits an ASCII word exactly as the regular expressions of pushWord do", () => {
    for (const word of ["", "a", "A", "weather", "Weather", "HTTPServer", "getHTTPResponse", "utf8", "2fa", "v2beta3", "ABCd", "aBCd", "AAAb", "X1Y2"]) {
      expect(split(pushAsciiWord, word)).toEqual(split(pushWord, word));
    }
    const word = fc.stringMatching(/^[aAbB0-9]{0,10}$/u);
    fc.assert(
      fc.property(word, (w) => {
        expect(split(pushAsciiWord, w)).toEqual(split(pushWord, w));
      }),
      { numRuns: 3_000 },
    );
  });
});

describe("hasCjk", () => {
  it("tells Chinese, Japanese and Korean characters from others", () => {
    for (const text of ["天", "ひらがな", "カタカナ", "한국어", "a天"]) expect(hasCjk(text)).toBe(true);
    for (const text of ["", "weather", "café", "Ωmega", "١٢"]) expect(hasCjk(text)).toBe(false);
  });
});

/** `text` cut wherever `separatesTerms` says, as the index build cuts it. */
function pieces(text: string): string[] {
  const found: string[] = [];
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    if (i < text.length && !separatesTerms(text.charCodeAt(i))) continue;
    if (i > start) found.push(text.slice(start, i));
    start = i + 1;
  }
  return found;
}

describe("separatesTerms", () => {
  it("is true for every ASCII character but letters and digits, and for nothing else", () => {
    for (let code = 0; code < 0x80; code++) expect(separatesTerms(code)).toBe(/[^A-Za-z0-9]/u.test(String.fromCharCode(code)));
    for (const code of [0x80, 0xa0, 0xe9, 0x2014, 0x3000, 0x5929, 0xd83d, 0xff01, 0xffff]) expect(separatesTerms(code)).toBe(false);
  });

  it("cuts text where tokenizing it piece by piece gives the terms of the whole", () => {
    // Accents and combining marks next to separators, compatibility forms that fold to ASCII, CJK, astral and lone
    // surrogates: the cases where folding or CJK handling could look across a cut.
    const tricky = fc.constantFrom(
      "a", "Z", "7", "é", "e\u0301", "\u0301", "\u0338", "<", "=", "_", "-", ".", " ", "\t", "\n", "/", "'",
      "天", "气", "ひ", "カ", "한", "ﬁ", "½", "℀", "Ａ", "１", "\u00a0", "\u3000", "ß", "İ", "😀", "\ud800",
      "Get", "HTTP", "Server", "utf8", "camelCase", "ID",
    );
    const text = fc.array(fc.oneof(tricky, fc.string({ unit: "binary", maxLength: 4 })), { maxLength: 24 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(text, (sample) => {
        expect(pieces(sample).flatMap((piece) => tokenize(piece))).toEqual(tokenize(sample));
      }),
      { numRuns: 500 },
    );
  });
});

/** The sentences as a split on the sentence-end expression cuts them: the reference (it tries every space of a run again: quadratic). */
function sentencesByExpression(text: string): string[] {
  return text.split(/(?<=[.!?;])\s+|(?<=[。！？；])\s*|\s*\n\s*/u).filter((part) => /[\p{L}\p{N}]/u.test(part));
}

describe("requestSentences", () => {
  it("cuts a request after . ! ? ; followed by white space, at line breaks and after CJK sentence ends", () => {
    expect(requestSentences("Find my flight. Then book a hotel")).toEqual(["Find my flight.", "Then book a hotel"]);
    expect(requestSentences("Is it late?  Wake me at 7!\nThanks; bye")).toEqual(["Is it late?", "Wake me at 7!", "Thanks;", "bye"]);
    expect(requestSentences("明天会下雨吗？帮我订酒店。")).toEqual(["明天会下雨吗？", "帮我订酒店。"]);
  });

  it("keeps a request of one sentence whole, and does not cut inside numbers, versions or names", () => {
    expect(requestSentences("Convert 3.5 km to miles with node.js v2.1")).toEqual(["Convert 3.5 km to miles with node.js v2.1"]);
    expect(requestSentences("send_email")).toEqual(["send_email"]);
  });

  it("leaves out pieces without a letter or digit", () => {
    expect(requestSentences("Hello. ... ? Bye.")).toEqual(["Hello.", "Bye."]);
    expect(requestSentences("  ?! ")).toEqual([]);
  });

  it(`reads at most ${MAX_SENTENCES} sentences, the last holding the rest (a pasted text costs a bounded number of passes)`, () => {
    const many = Array.from({ length: 30 }, (_, i) => `Sentence ${i}.`);
    const sentences = requestSentences(many.join(" "));
    expect(sentences).toHaveLength(MAX_SENTENCES);
    expect(sentences.slice(0, -1)).toEqual(many.slice(0, MAX_SENTENCES - 1));
    expect(sentences.at(-1)).toBe(many.slice(MAX_SENTENCES - 1).join(" "));
  });

  it("cuts exactly where the sentence-end expression splits, in one pass (a long run of spaces costs its length)", () => {
    const textPieces = fc.constantFrom("a", "bc", "7", "é", "天", ".", "!", "?", ";", "。", "！", "；", " ", "  ", "\t", "\n", " \n ", "\u00a0", "-", "…");
    fc.assert(
      fc.property(fc.array(textPieces, { maxLength: 40 }), (parts) => {
        const text = parts.join("");
        const sentences: string[] = [];
        forEachSentence(text, (sentence) => sentences.push(sentence) > 0);
        expect(sentences).toEqual(sentencesByExpression(text));
      }),
      { numRuns: 3_000 },
    );
    const spaces = `a${" ".repeat(200_000)}b. c`;
    expect(requestSentences(spaces)).toEqual([`a${" ".repeat(200_000)}b.`, "c"]);
  });

  it("stops where its visitor says", () => {
    const seen: string[] = [];
    forEachSentence("One. Two. Three.", (sentence) => seen.push(sentence) < 2);
    expect(seen).toEqual(["One.", "Two."]);
  });

  it("loses no word: the sentences joined hold the request's words in order", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        expect(tokenize(requestSentences(text).join(" "))).toEqual(tokenize(text));
      }),
    );
  });
});
