import { describe, expect, it } from "vitest";
import { createSearchIndex } from "../../../src/core/search/createIndex.ts";
import type { ToolDefinition } from "../../../src/core/types.ts";

const catalog: ToolDefinition[] = [
  { name: "get_weather", description: "Current conditions for a city.", parameters: { type: "object", properties: {} } },
  { name: "send_email", description: "Sends a message.", parameters: { type: "object", properties: {} } },
];

describe("createSearchIndex", () => {
  it("builds the substring index: any keyword inside a name or description", () => {
    const index = createSearchIndex("substring", catalog);
    expect(index.size).toBe(2);
    // "eath" is inside "weather": a substring match, not a word.
    expect(index.search("eath")).toEqual(["get_weather"]);
  });

  it("builds the MiniSearch index: words, stems, prefixes", () => {
    const index = createSearchIndex("minisearch", catalog);
    expect(index.size).toBe(2);
    expect(index.search("eath")).toEqual([]);
    expect(index.search("sending emails")).toEqual(["send_email"]);
  });

  it("refuses an unknown mode", () => {
    // As untyped input (parsed JSON) could carry it.
    expect(() => Reflect.apply(createSearchIndex, undefined, ["fulltext", catalog])).toThrow(/unknown search mode "fulltext"/u);
  });
});
