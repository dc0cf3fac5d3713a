import { describe, expect, it } from "vitest";
import { FIELD_BOOST, FIELDS, toolFieldParts, toolFieldTexts } from "../../../src/core/search/fields.ts";
import type { ToolDefinition } from "../../../src/core/types.ts";

const trip: ToolDefinition = {
  name: "book_trip",
  description: "Books a trip.",
  groups: ["travel", "booking"],
  parameters: {
    type: "object",
    properties: {
      city: { type: "string", description: "Destination city", title: "City" },
      mode: { type: "string", enum: ["train", "plane", 3] },
      when: {
        type: "object",
        properties: { date: { type: "string", description: "Day of travel", properties: { deep: { description: "too deep" } } } },
      },
      travellers: { type: "array", items: { type: "object", properties: { age: { type: "integer", description: "Years" } } } },
      flag: true,
    },
  },
};

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

describe("FIELD_BOOST", () => {
  it("boosts every field, the name most", () => {
    expect(Object.keys(FIELD_BOOST).toSorted()).toEqual([...FIELDS].toSorted());
    for (const field of FIELDS) expect(FIELD_BOOST[field]).toBeLessThanOrEqual(FIELD_BOOST.name);
  });
});
