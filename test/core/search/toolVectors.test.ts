import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { embeddingText, MAX_EMBEDDED_CHARS, packVector, similarity, vectorDigest } from "../../../src/core/search/toolVectors.ts";
import { tool } from "../../support/tools.ts";

describe("embeddingText", () => {
  it("holds the name's words, the description and the parameters with theirs", () => {
    const text = embeddingText(tool("getWeather_now", "Current weather for a city.", {
      parameters: { type: "object", properties: { city: { type: "string", description: "The city's name" }, units: { type: "string" } } },
    }));
    expect(text).toBe("get weather now\nCurrent weather for a city.\ncity: The city's name\nunits");
  });

  it("is capped", () => {
    expect(embeddingText(tool("long", "word ".repeat(2_000))).length).toBe(MAX_EMBEDDED_CHARS);
  });
});

describe("vectorDigest", () => {
  it("is stable and changes with the text or the provider", () => {
    const digest = vectorDigest("workers-ai:@cf/baai/bge-m3", "a text");
    expect(digest).toMatch(/^[0-9a-f]{16}$/);
    expect(vectorDigest("workers-ai:@cf/baai/bge-m3", "a text")).toBe(digest);
    expect(vectorDigest("workers-ai:@cf/baai/bge-m3", "a text.")).not.toBe(digest);
    expect(vectorDigest("openai-compatible:text-embedding-3-small", "a text")).not.toBe(digest);
  });
});

const norm = (v: number[]): number => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));

describe("packVector and similarity", () => {
  it("packs to unit length, one byte a dimension, and keeps the cosine within about 1%", () => {
    fc.assert(fc.property(
      fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 256, maxLength: 256 }),
      fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 256, maxLength: 256 }),
      (a, b) => {
        const pa = packVector(a);
        const pb = packVector(b);
        fc.pre(pa !== undefined && pb !== undefined);
        if (pa === undefined || pb === undefined) return;
        const dot = a.reduce((sum, x, i) => sum + x * (b[i] ?? 0), 0);
        expect(Math.abs(similarity(pa, pb) - dot / (norm(a) * norm(b)))).toBeLessThan(0.02);
      },
    ), { numRuns: 50 });
  });

  it("gives no vector for an empty, zero or non-finite one", () => {
    expect(packVector([])).toBeUndefined();
    expect(packVector([0, 0])).toBeUndefined();
    expect(packVector([1, Number.NaN])).toBeUndefined();
    expect(packVector([1, Number.POSITIVE_INFINITY])).toBeUndefined();
  });

  it("compares vectors of other dimensions as unrelated", () => {
    const a = packVector([1, 0]);
    const b = packVector([1, 0, 0]);
    expect(a && b ? similarity(a, b) : Number.NaN).toBe(0);
    expect(a ? similarity(a, a) : 0).toBeCloseTo(1, 5);
  });
});
