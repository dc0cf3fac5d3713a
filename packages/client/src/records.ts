// The one test that narrows parsed JSON to a plain object, for every module of the client (which may take only types
// from the core, so it cannot share core/records.ts).
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
