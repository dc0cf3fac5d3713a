// What an upstream's schema says beyond its texts, cleaned as descriptions are: the model reads property names,
// `enum`, `const`, `default` and `examples` too, so a server could smuggle bidi or zero-width characters and forged
// banner markers through them. Values are cleaned (the tool then receives the clean value the model was shown); a
// property name cannot be renamed without breaking the tool, so a tool whose property names carry such characters is
// refused, with the reason.
import { cleanUntrustedText } from "../boundary/untrusted.ts";
import { isRecord } from "../records.ts";
import { forEachSchemaNode } from "../tools/toolTexts.ts";
import type { JsonSchema, Locale } from "../types.ts";

/** Keywords whose value is data the model reads (strings inside are cleaned). */
const DATA_KEYWORDS = ["enum", "const", "default", "examples"];
/** Keywords whose keys are property names. */
const NAME_MAP_KEYWORDS = ["properties", "dependentSchemas", "dependentRequired", "dependencies"];

function cleanValue(value: unknown, locale: Locale): unknown {
  if (typeof value === "string") return cleanUntrustedText(value, locale);
  if (Array.isArray(value)) return value.map((item) => cleanValue(item, locale));
  if (isRecord(value)) {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) copy[cleanUntrustedText(key, locale)] = cleanValue(item, locale);
    return copy;
  }
  return value;
}

/** A copy of `schema` with the strings of every `enum`, `const`, `default` and `examples` cleaned. */
export function cleanSchemaData(schema: JsonSchema, locale: Locale = "en"): JsonSchema {
  const copy: unknown = JSON.parse(JSON.stringify(schema));
  if (!isRecord(copy)) return schema;
  forEachSchemaNode(copy, (node) => {
    for (const key of DATA_KEYWORDS) if (Object.hasOwn(node, key)) node[key] = cleanValue(node[key], locale);
  });
  return copy;
}

/** The first property name (or `required` entry) that cleaning would change, shown escaped; undefined when none. */
export function hiddenPropertyName(schema: JsonSchema): string | undefined {
  let found: string | undefined;
  const check = (name: string): void => {
    if (found === undefined && cleanUntrustedText(name) !== name) found = name;
  };
  forEachSchemaNode(schema, (node) => {
    for (const keyword of NAME_MAP_KEYWORDS) {
      const map = node[keyword];
      if (isRecord(map)) for (const name of Object.keys(map)) check(name);
    }
    if (Array.isArray(node.required)) for (const name of node.required) if (typeof name === "string") check(name);
  });
  return found === undefined ? undefined : JSON.stringify(found).replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
