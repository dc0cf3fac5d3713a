// A starting point for the arguments box, built from a tool's JSON Schema, so that a person sees what to fill in.
import { isRecord } from "../core/records.ts";

function withinBounds(value: number, schema: Record<string, unknown>): number {
  const { minimum, maximum } = schema;
  if (typeof minimum === "number" && value < minimum) return minimum;
  if (typeof maximum === "number" && value > maximum) return maximum;
  return value;
}

/** A public page: fetch_url refuses local and private addresses, so the page's own origin would not do. */
const SAMPLE_URL = "https://example.com/";

function sampleText(property: string, schema: Record<string, unknown>): string {
  const key = property.toLowerCase();
  switch (schema["format"]) {
    case "email":
      return "ann@example.com";
    case "uri":
    case "url":
      return SAMPLE_URL;
    case "date-time":
      return new Date().toISOString();
    case "date":
      return new Date().toISOString().slice(0, 10);
  }
  if (key.includes("url") || key.includes("uri")) return SAMPLE_URL;
  if (key.includes("expression")) return "6 * 7";
  if (key === "to" || key.includes("email")) return "ann@example.com";
  if (key.includes("path") || key.includes("file")) return "notes/draft.txt";
  if (key.includes("subject")) return "Hello";
  if (key === "query") return "email";
  return "hello";
}

/** Values that make the demo tools do something visible; any other property gets a value of its type. */
function sampleFor(property: string, schema: Record<string, unknown>): unknown {
  if ("default" in schema) return schema["default"];
  const examples = schema["examples"];
  if (Array.isArray(examples) && examples.length > 0) return examples[0];
  const choices = schema["enum"];
  if (Array.isArray(choices) && choices.length > 0) return choices[0];
  switch (schema["type"]) {
    case "integer":
    case "number":
      return withinBounds(2, schema);
    case "boolean":
      return true;
    case "array": {
      const items = schema["items"];
      return isRecord(items) ? [sampleFor(property, items)] : [];
    }
    case "object":
      return {};
    default:
      return sampleText(property, schema);
  }
}

/** Required properties (or, when none is required, every property) with sample values. */
export function exampleArguments(parameters: Record<string, unknown>): Record<string, unknown> {
  const properties = isRecord(parameters["properties"]) ? parameters["properties"] : {};
  const required = Array.isArray(parameters["required"])
    ? parameters["required"].filter((name): name is string => typeof name === "string")
    : [];
  const names = required.length > 0 ? required : Object.keys(properties);
  const args: Record<string, unknown> = {};
  for (const name of names) {
    const schema = properties[name];
    args[name] = sampleFor(name, isRecord(schema) ? schema : {});
  }
  return args;
}
