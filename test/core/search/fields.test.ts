import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FIELD_BOOST, FIELDS, leadSentence, sameFieldTexts, toolFieldParts, toolFieldTexts } from "../../../src/core/search/fields.ts";
import { requestSentences } from "../../../src/core/search/text.ts";
import type { ToolDefinition } from "../../../src/core/types.ts";

const tripProperties: Record<string, unknown> = {
  city: { type: "string", description: "Destination city", title: "City" },
  mode: { type: "string", enum: ["train", "plane", 3] },
  when: {
    type: "object",
    properties: { date: { type: "string", description: "Day of travel", properties: { deep: { description: "too deep" } } } },
  },
  travellers: { type: "array", items: { type: "object", properties: { age: { type: "integer", description: "Years" } } } },
  flag: true,
};
const trip: ToolDefinition = {
  name: "book_trip",
  description: "Books a trip.",
  groups: ["travel", "booking"],
  parameters: { type: "object", properties: tripProperties },
};

/** A fresh copy of `trip` with its parameters' properties changed by `change`. */
function tripWith(change: Partial<Record<string, unknown>>): ToolDefinition {
  return structuredClone({ ...trip, parameters: { type: "object", properties: { ...tripProperties, ...change } } });
}

describe("toolFieldTexts", () => {
  it("collects parameter names, descriptions, titles and string enum values two levels deep, items included", () => {
    expect(toolFieldTexts(trip)).toEqual({
      name: "book_trip",
      description: "Books a trip.",
      parameterNames: "city mode when date travellers age flag",
      parameterDescriptions: "Destination city City train plane Day of travel Years",
      groups: "travel booking",
    });
  });

  it("gives empty fields for a tool without parameters or groups, and for a schema that is not an object", () => {
    const texts = toolFieldTexts({ name: "ping", description: "", parameters: { type: "object" } });
    expect(texts).toEqual({ name: "ping", description: "", parameterNames: "", parameterDescriptions: "", groups: "" });
  });
});

describe("toolFieldParts", () => {
  it("gives each field's texts in FIELDS order, which joined with spaces are the field's text", () => {
    const parts = toolFieldParts(trip);
    expect(parts).toEqual([
      ["book_trip"],
      ["Books a trip."],
      ["city", "mode", "when", "date", "travellers", "age", "flag"],
      ["Destination city", "City", "train", "plane", "Day of travel", "Years"],
      ["travel", "booking"],
    ]);
    const texts = toolFieldTexts(trip);
    FIELDS.forEach((field, fieldId) => expect(parts[fieldId]?.join(" ")).toBe(texts[field]));
  });

  it("reads only a schema's own properties", () => {
    const inherited: Record<string, unknown> = { own: { description: "Own" } };
    Object.setPrototypeOf(inherited, { hidden: { description: "inherited" } });
    const parts = toolFieldParts({ name: "t", description: "", parameters: { type: "object", properties: inherited } });
    expect(parts[2]).toEqual(["own"]);
    expect(parts[3]).toEqual(["Own"]);
  });
});

describe("sameFieldTexts", () => {
  it("holds for a fresh copy, and for a change the fields do not read", () => {
    expect(sameFieldTexts(trip, structuredClone(trip))).toBe(true);
    expect(sameFieldTexts(trip, { ...structuredClone(trip), parameters: { type: "object", properties: tripProperties, required: ["city"] } })).toBe(true);
    expect(sameFieldTexts(trip, tripWith({ city: { type: "number", description: "Destination city", title: "City" } }))).toBe(true);
  });

  it("fails for a change of any text the fields read, or of its order", () => {
    const changed: ToolDefinition[] = [
      { ...trip, description: "Books a journey." },
      { ...trip, groups: ["travel"] },
      { ...trip, groups: ["booking", "travel"] },
      tripWith({ city: { type: "string", description: "Destination city", title: "Town" } }),
      tripWith({ mode: { type: "string", enum: ["train", 3, "plane", "ship"] } }),
      tripWith({ extra: {} }),
      tripWith({ travellers: { type: "array", items: { type: "object", properties: { age: { type: "integer", description: "Age" } } } } }),
    ];
    for (const tool of changed) expect(sameFieldTexts(trip, tool)).toBe(false);
    const [city, ...rest] = Object.entries(tripProperties);
    expect(sameFieldTexts(trip, { ...trip, parameters: { type: "object", properties: Object.fromEntries([...rest, ...(city ? [city] : [])]) } })).toBe(false);
  });

  it("says two tools are the same only when their field texts are (random schemas)", () => {
    const text = fc.constantFrom("a", "b", "a b");
    const leaf = fc.record({ description: fc.option(text, { nil: undefined }), enum: fc.option(fc.array(fc.oneof(text, fc.integer({ min: 0, max: 1 })), { maxLength: 2 }), { nil: undefined }) }, { requiredKeys: [] });
    const schema = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: "small" }, leaf, fc.record({ properties: fc.dictionary(fc.constantFrom("x", "y"), tie("node"), { maxKeys: 2 }), items: fc.option(tie("node"), { nil: undefined }) }, { requiredKeys: [] })),
    })).node;
    fc.assert(
      fc.property(schema, schema, (a, b) => {
        const left: ToolDefinition = { name: "t", description: "", parameters: { type: "object", properties: { p: a } } };
        const right: ToolDefinition = { name: "t", description: "", parameters: { type: "object", properties: { p: b } } };
        const same = JSON.stringify(toolFieldParts(left)) === JSON.stringify(toolFieldParts(right));
        // Same texts whenever it says so (it may say "changed" more often: a text moved to another property).
        expect(!sameFieldTexts(left, right) || same).toBe(true);
        expect(sameFieldTexts(left, structuredClone(left))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe("FIELD_BOOST", () => {
  it("boosts every field, the name most", () => {
    expect(Object.keys(FIELD_BOOST).toSorted()).toEqual([...FIELDS].toSorted());
    for (const field of FIELDS) expect(FIELD_BOOST[field]).toBeLessThanOrEqual(FIELD_BOOST.name);
  });
});

describe("leadSentence", () => {
  it("is the first of a description's sentences as requestSentences cuts them, when it has more than one", () => {
    const characters = fc.constantFrom("a", "Z", "7", " ", "  ", "\t", "\n", ".", "!", "?", ";", "。", "；", "-", "é");
    fc.assert(
      fc.property(fc.array(characters, { maxLength: 40 }), (chars) => {
        const text = chars.join("");
        const sentences = requestSentences(text);
        expect(leadSentence(text)).toBe(sentences.length > 1 ? sentences[0] : undefined);
      }),
      { numRuns: 2_000 },
    );
  });

  it("cuts a description with a long run of spaces as requestSentences does", () => {
    const spaces = `a${" ".repeat(4_000)}b. c`;
    expect(leadSentence(spaces)).toBe(`a${" ".repeat(4_000)}b.`);
    expect(leadSentence(`${" ".repeat(4_000)}b`)).toBeUndefined();
  });
});
