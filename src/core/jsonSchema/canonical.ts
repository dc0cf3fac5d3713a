// Canonical JSON: object keys sorted, so that two values JSON Schema calls equal (`enum`, `const`, `uniqueItems`)
// give the same string, and equality becomes a Set lookup instead of pairwise deep comparison.

/** A value nests deeper than the caller allows; thrown by canonicalJson. */
export class TooDeep extends Error {}

/**
 * The canonical JSON of `value`. `onNode` is called once per object or array and once per scalar (with its text
 * length), so that a caller can charge the work; `maxDepth` bounds the recursion (objects and arrays are one level).
 */
export function canonicalJson(value: unknown, maxDepth: number, onNode?: (characters: number) => void): string {
  return write(value, maxDepth, onNode);
}

function write(value: unknown, depthLeft: number, onNode: ((characters: number) => void) | undefined): string {
  if (typeof value !== "object" || value === null) {
    // -0 is written 0, as JSON Schema compares numbers by value. A value that is not JSON (undefined, a function)
    // gets a name no JSON text has.
    const text = JSON.stringify(value) ?? `\u0000${typeof value}`;
    onNode?.(text.length);
    return text;
  }
  if (depthLeft <= 0) throw new TooDeep();
  onNode?.(1);
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ",";
      out += write(value[i], depthLeft - 1, onNode);
    }
    return `${out}]`;
  }
  const entries = Object.entries(value).toSorted(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  let out = "{";
  for (let i = 0; i < entries.length; i++) {
    const [key, item] = entries[i] ?? ["", null];
    if (i > 0) out += ",";
    out += `${JSON.stringify(key)}:${write(item, depthLeft - 1, onNode)}`;
  }
  return `${out}}`;
}
