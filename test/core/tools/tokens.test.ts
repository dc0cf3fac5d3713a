import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import { countTokens, rememberTokenCount, tokenMemoKey } from "../../../src/core/tools/tokens.ts";

describe("countTokens", () => {
  it("counts real o200k_base tokens, not characters", () => {
    expect(countTokens("")).toBe(0);
    expect(countTokens("hello world")).toBe(2);
    const sentence = "Search the available tools by keyword and get their full definitions.";
    expect(countTokens(sentence)).toBe(encode(sentence).length);
    expect(countTokens(sentence)).toBeLessThan(sentence.length / 2);
  });

  it("answers a long text with a count taken by its key (a registry snapshot's), without counting it", () => {
    const text = `search_tools names: ${Array.from({ length: 200 }, (_, i) => `tool_${i}`).join(",")}`;
    rememberTokenCount(tokenMemoKey(text), 12_345);
    expect(countTokens(text)).toBe(12_345);
    // A count already known is not replaced, and a text of another content has another key.
    rememberTokenCount(tokenMemoKey(text), 1);
    expect(countTokens(text)).toBe(12_345);
    expect(tokenMemoKey(`${text.slice(0, -1)}!`)).not.toBe(tokenMemoKey(text));
  });

  it("counts Chinese text", () => {
    const text = "按关键词搜索可用工具，取得完整定义（名称、说明、参数）。";
    expect(countTokens(text)).toBe(encode(text).length);
    expect(countTokens(text)).toBeGreaterThan(5);
  });

  it("counts special-token text as the plain text it is, without throwing", () => {
    const text = "a tool description that mentions <|endoftext|> and <|im_start|>";
    expect(countTokens(text)).toBeGreaterThan(countTokens("a tool description that mentions  and "));
    expect(() => encode(text)).toThrow(/special token/i);
  });

  it("gives the exact count for long texts, remembered or not, and never confuses two texts of one length", () => {
    const long = JSON.stringify(Array.from({ length: 300 }, (_, i) => ({ name: `tool_${i}`, description: `Does thing ${i}` })));
    const other = long.replaceAll("Does", "Says");
    expect(other.length).toBe(long.length);
    const first = countTokens(long);
    expect(first).toBe(encode(long).length);
    expect(countTokens(long)).toBe(first);
    expect(countTokens(other)).toBe(encode(other).length);
    expect(countTokens(other)).not.toBe(0);
    // Many distinct long texts: the memo stays bounded and every answer stays exact.
    for (let i = 0; i < 80; i++) {
      const text = `${long}${"x".repeat(i)}`;
      expect(countTokens(text)).toBe(encode(text).length);
    }
    expect(countTokens(long)).toBe(first);
  });

  it("counts a long run without spaces (CJK, emoji, punctuation) in linear time, nearly exactly", () => {
    // One pre-token of 40,000 CJK characters took about a minute uncut (byte-pair encoding is quadratic in a
    // pre-token's length: 5,000 / 10,000 / 20,000 characters took 1.0 / 3.6 / 16.5 s here); cut, it takes well under a
    // second on a quiet machine. The bound sits far from both so that a loaded machine does not fail it.
    const cjk = Array.from({ length: 40_000 }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7919) % 20_000))).join("");
    const emoji = "😀".repeat(20_000);
    const started = performance.now();
    const cjkTokens = countTokens(cjk);
    const emojiTokens = countTokens(emoji);
    expect(performance.now() - started).toBeLessThan(15_000);
    // Cut every 256 characters: each piece is counted for real, so the total stays within a token per cut.
    const pieces = Math.ceil(cjk.length / 256);
    const sample = cjk.slice(0, 256 * 4);
    expect(countTokens(sample)).toBeGreaterThanOrEqual(encode(sample).length - 4);
    expect(countTokens(sample)).toBeLessThanOrEqual(encode(sample).length + 4);
    expect(cjkTokens).toBeGreaterThan(cjk.length / 2);
    expect(cjkTokens).toBeLessThan(cjk.length * 2 + pieces);
    expect(emojiTokens).toBeGreaterThan(0);
    // Runs shorter than the cut are counted whole, exactly.
    const words = `${"b".repeat(255)} `.repeat(20);
    expect(countTokens(words)).toBe(encode(words).length);
  }, 30_000);
});
