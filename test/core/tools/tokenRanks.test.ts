import packageRanks from "gpt-tokenizer/bpeRanks/o200k_base";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it, vi } from "vitest";
import bundledRanks from "../../../src/core/tools/o200kRanks.bin";
import { decodeTokenRanks, encodeTokenRanks } from "../../../src/core/tools/tokenRanks.ts";

describe("the bundled o200k_base ranks", () => {
  it("decode to exactly gpt-tokenizer's table: every rank, text or bytes, in order", () => {
    const decoded = decodeTokenRanks(bundledRanks);
    expect(decoded.length).toBe(packageRanks.length);
    // Compared rank by rank, the first difference named (one toEqual over 200,000 entries would print them all).
    const firstDifference = packageRanks.findIndex((expected, rank) => {
      const actual = decoded[rank];
      return typeof expected === "string" ? actual !== expected : !Array.isArray(actual) || actual.length !== expected.length || actual.some((byte, i) => byte !== expected[i]);
    });
    expect(firstDifference).toBe(-1);
    const texts = decoded.filter((rank) => typeof rank === "string").length;
    const byteRanks = decoded.length - texts;
    // Both kinds are there (about 1,600 ranks are bytes that are not UTF-8 on their own).
    expect(texts).toBeGreaterThan(190_000);
    expect(byteRanks).toBeGreaterThan(1_000);
  });

  it("count as gpt-tokenizer counts (the setup hands the bundled file to the core)", async () => {
    const { countTokens } = await import("../../../src/core/tools/tokens.ts");
    for (const text of ["hello world", "按关键词搜索可用工具，取得完整定义。", "emoji 🦀🦀 and ¿qué? ﻿BOM", "\u00ff\u00fe bytes"]) {
      expect(countTokens(text)).toBe(encode(text).length);
    }
  });
});

describe("encodeTokenRanks and decodeTokenRanks", () => {
  it("round-trip texts (a leading byte-order mark, emoji, CJK, the empty text) and byte ranks", () => {
    const ranks = ["\uFEFFstart", "a", "", "🦀", "北京", [0xe5, 0x8c], [0xff], "tail"];
    expect(decodeTokenRanks(encodeTokenRanks(ranks))).toEqual(ranks);
    // Long enough for a two-byte length.
    const long = ["x".repeat(300), Array.from({ length: 200 }, (_, i) => i)];
    expect(decodeTokenRanks(encodeTokenRanks(long))).toEqual(long);
  });

  it("refuse a table that would not decode to itself: holes, values that are not bytes, lone surrogates", () => {
    const holed: string[] = [];
    holed[0] = "a";
    holed[2] = "b";
    expect(() => encodeTokenRanks(holed)).toThrow(/token ranks: rank 1 is a hole/);
    expect(() => encodeTokenRanks(["a", [256]])).toThrow(/rank 1 holds 256, not a byte/);
    expect(() => encodeTokenRanks(["\uD800"])).toThrow(/rank 0's text is not valid UTF-16/);
  });

  it("refuse damaged tables with a clear error, never a wrong table", () => {
    const good = encodeTokenRanks(["alpha", "beta", [0xff, 0xfe]]);
    expect(() => decodeTokenRanks(good.subarray(0, 8))).toThrow(/token ranks: the table is truncated/);
    const wrongMagic = good.slice();
    wrongMagic[0] = 0x58;
    expect(() => decodeTokenRanks(wrongMagic)).toThrow(/token ranks: not a TGR1 table/);
    const hugeCount = good.slice();
    new DataView(hugeCount.buffer).setUint32(4, 0xffff_ffff, true);
    expect(() => decodeTokenRanks(hugeCount)).toThrow(/entry count is past the table's size/);
    expect(() => decodeTokenRanks(good.subarray(0, good.length - 1))).toThrow(/do not fill the table/);
    const extra = new Uint8Array(good.length + 1);
    extra.set(good);
    expect(() => decodeTokenRanks(extra)).toThrow(/do not fill the table/);
    const badText = good.slice();
    badText[12] = 6 << 1;
    expect(() => decodeTokenRanks(badText)).toThrow(/lengths do not add up/);
    const badUtf8 = good.slice();
    badUtf8[15] = 0xff;
    expect(() => decodeTokenRanks(badUtf8)).toThrow(TypeError);
  });
});

describe("countTokens without ranks", () => {
  it("says which call is missing, in a core no shell provided ranks to", async () => {
    vi.resetModules();
    const fresh = await import("../../../src/core/tools/tokens.ts");
    expect(() => fresh.countTokens("hello world")).toThrow(/token ranks: none provided; the shell that runs the core calls provideTokenRanks/);
    fresh.provideTokenRanks(() => bundledRanks);
    expect(fresh.countTokens("hello world")).toBe(2);
    expect(fresh.tokenizerBuilt()).toBe(true);
    vi.resetModules();
  });
});
