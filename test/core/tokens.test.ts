import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import { countTokens } from "../../src/core/tokens.ts";

describe("countTokens", () => {
  it("counts real o200k_base tokens, not characters", () => {
    expect(countTokens("")).toBe(0);
    expect(countTokens("hello world")).toBe(2);
    const sentence = "Search the available tools by keyword and get their full definitions.";
    expect(countTokens(sentence)).toBe(encode(sentence).length);
    expect(countTokens(sentence)).toBeLessThan(sentence.length / 2);
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
});
