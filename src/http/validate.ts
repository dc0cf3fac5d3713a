// Field readers for request bodies and query strings: each failure is a 400 that names the field.
import { ID_PATTERN } from "../core/ids.ts";
import { firstUnknownKey, isRecord } from "../core/records.ts";
import { badField, HttpError } from "./errors.ts";

export type JsonObject = Record<string, unknown>;

/** `prefix` + `key` as a readable path (`tools[2]` + `name` → `tools[2].name`). */
export function fieldPath(prefix: string, key: string): string {
  return prefix === "" ? key : `${prefix}.${key}`;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `${typeof value} ${JSON.stringify(value)}`.slice(0, 80);
}

/** A request URL's `?a=b` parameters, each at most once, none unknown. */
export function queryParams(url: string, allowed: readonly string[]): Map<string, string> {
  const params = new Map<string, string>();
  for (const [key, value] of new URL(url).searchParams) {
    if (!allowed.includes(key)) throw badField(key, `unknown query parameter; allowed: ${allowed.join(", ")}`);
    if (params.has(key)) throw badField(key, "given more than once");
    params.set(key, value);
  }
  return params;
}

export function expectObject(value: unknown, field: string): JsonObject {
  if (!isRecord(value)) throw badField(field, `must be an object, got ${describe(value)}`);
  return value;
}

/** Rejects any key not in `allowed`, so that a typo never silently falls back to a default. */
export function rejectUnknownFields(object: JsonObject, allowed: readonly string[], prefix = ""): void {
  const unknown = firstUnknownKey(object, allowed);
  if (unknown !== undefined) throw badField(fieldPath(prefix, unknown), `unknown field; allowed: ${allowed.join(", ")}`);
}

export interface StringRule {
  maxLength?: number;
  pattern?: RegExp;
  /** Says what the pattern means, for the error message. */
  patternText?: string;
  allowEmpty?: boolean;
}

function checkString(value: unknown, field: string, rule: StringRule): string {
  if (typeof value !== "string") throw badField(field, `must be a string, got ${describe(value)}`);
  if (!rule.allowEmpty && value.length === 0) throw badField(field, "must not be empty");
  if (rule.maxLength !== undefined && value.length > rule.maxLength) {
    throw badField(field, `must be at most ${rule.maxLength} characters`);
  }
  if (rule.pattern && !rule.pattern.test(value)) throw badField(field, `must match ${rule.patternText ?? rule.pattern.source}`);
  return value;
}

export function requiredString(object: JsonObject, key: string, prefix: string, rule: StringRule = {}): string {
  const field = fieldPath(prefix, key);
  if (!(key in object)) throw badField(field, "is required");
  return checkString(object[key], field, rule);
}

export function optionalString(object: JsonObject, key: string, prefix: string, rule: StringRule = {}): string | undefined {
  if (object[key] === undefined) return undefined;
  return checkString(object[key], fieldPath(prefix, key), rule);
}

export function optionalInteger(object: JsonObject, key: string, prefix: string, min: number, max: number): number | undefined {
  const value = object[key];
  if (value === undefined) return undefined;
  const field = fieldPath(prefix, key);
  if (typeof value !== "number" || !Number.isInteger(value)) throw badField(field, `must be an integer, got ${describe(value)}`);
  if (value < min || value > max) throw badField(field, `must be from ${min} to ${max}`);
  return value;
}

export function requiredBoolean(object: JsonObject, key: string, prefix: string): boolean {
  const field = fieldPath(prefix, key);
  if (!(key in object)) throw badField(field, "is required");
  const value = object[key];
  if (typeof value !== "boolean") throw badField(field, `must be true or false, got ${describe(value)}`);
  return value;
}

export function requiredArray(object: JsonObject, key: string, prefix: string, maxItems: number): unknown[] {
  const field = fieldPath(prefix, key);
  if (!(key in object)) throw badField(field, "is required");
  return checkArray(object[key], field, maxItems);
}

export function optionalArray(object: JsonObject, key: string, prefix: string, maxItems: number): unknown[] | undefined {
  if (object[key] === undefined) return undefined;
  return checkArray(object[key], fieldPath(prefix, key), maxItems);
}

function checkArray(value: unknown, field: string, maxItems: number): unknown[] {
  if (!Array.isArray(value)) throw badField(field, `must be an array, got ${describe(value)}`);
  if (value.length > maxItems) {
    throw new HttpError(413, "too_many_items", `${field}: must have at most ${maxItems} items, got ${value.length}`);
  }
  return value;
}

export function optionalStringArray(
  object: JsonObject,
  key: string,
  prefix: string,
  maxItems: number,
  rule: StringRule = {},
): string[] | undefined {
  const items = optionalArray(object, key, prefix, maxItems);
  if (items === undefined) return undefined;
  const field = fieldPath(prefix, key);
  return items.map((item, index) => checkString(item, `${field}[${index}]`, rule));
}

/** Whether `value` is one of `allowed` (a type guard over a list of string literals). */
export function isOneOf<T extends string>(allowed: readonly T[], value: unknown): value is T {
  return allowed.some((item) => item === value);
}

export function optionalOneOf<T extends string>(
  object: JsonObject,
  key: string,
  prefix: string,
  allowed: readonly T[],
): T | undefined {
  const value = object[key];
  if (value === undefined) return undefined;
  if (!isOneOf(allowed, value)) {
    throw badField(fieldPath(prefix, key), `must be one of ${allowed.join(", ")}, got ${describe(value)}`);
  }
  return value;
}

/** A session id from the path: 400 `invalid_session_id` unless it matches the pattern. */
export function requireSessionId(value: string | undefined): string {
  if (value === undefined || !ID_PATTERN.test(value)) {
    throw new HttpError(400, "invalid_session_id", `the session id must match ${ID_PATTERN.source}`);
  }
  return value;
}
