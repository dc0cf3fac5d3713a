// Narrowing untyped input (parsed JSON, a tool list, a schema) to a plain object: the one test, used wherever the core,
// the Worker, the page, the tests and the scripts read such input.

/** A non-null object that is not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The first key of `input` that `known` does not list (undefined when there is none): each caller throws its own error. */
export function firstUnknownKey(input: Record<string, unknown>, known: readonly string[]): string | undefined {
  return Object.keys(input).find((key) => !known.includes(key));
}
