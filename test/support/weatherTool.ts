// A small tool with every kind of argument rule, for the definition and argument tests.
export const weatherParameters = {
  type: "object",
  properties: {
    city: { type: "string" },
    days: { type: "integer", minimum: 1 },
    unit: { enum: ["c", "f"] },
    note: { anyOf: [{ type: "string" }, { type: "null" }] },
  },
  required: ["city"],
  additionalProperties: false,
};
export const weather = { name: "weather", description: "Get the weather of a city", parameters: weatherParameters };
