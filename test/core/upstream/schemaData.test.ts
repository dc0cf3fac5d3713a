// Cleaning an upstream schema's data (src/core/upstream/schemaData.ts): enum, const, default and examples cleaned as
// descriptions are; property names that hide characters found.
import { describe, expect, it } from "vitest";
import { cleanSchemaData, hiddenPropertyName } from "../../../src/core/upstream/schemaData.ts";

describe("cleanSchemaData", () => {
  it("strips bidi and zero-width characters from enum, const, default and examples, however deep", () => {
    const schema = {
      type: "object",
      properties: {
        a: { type: "string", enum: ["x\u202Ey", "plain"], default: "z\u200Bz" },
        b: { type: "array", items: { const: "q\u2066r", examples: [{ "k\u200B": "v\u202E" }] } },
      },
    };
    expect(cleanSchemaData(schema)).toEqual({
      type: "object",
      properties: {
        a: { type: "string", enum: ["xy", "plain"], default: "zz" },
        b: { type: "array", items: { const: "qr", examples: [{ k: "v" }] } },
      },
    });
    // A copy: the given schema is left as it was.
    expect(schema.properties.a.enum[0]).toBe("x\u202Ey");
  });
});

describe("hiddenPropertyName", () => {
  it("names the first property name (or required entry) that cleaning would change, escaped", () => {
    expect(hiddenPropertyName({ type: "object", properties: { to: { type: "string" } }, required: ["to"] })).toBeUndefined();
    expect(hiddenPropertyName({ type: "object", properties: { x: { type: "object", properties: { "t\u200Bo": {} } } } })).toBe('"t\\u200bo"');
    expect(hiddenPropertyName({ type: "object", required: ["a\u202Eb"] })).toBe('"a\\u202eb"');
  });
});
