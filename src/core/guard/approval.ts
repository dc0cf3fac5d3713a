// What a confirmation binds and what its approver is shown (docs/DESIGN.md, "The guard"): the execution guard hashes
// `canonicalJson` with SHA-256 (core/digest.ts); the ledger (core/guard/grants.ts) only compares the digests it is given.
//
// - `canonicalJson` is the one encoding an approval is bound to: object keys sorted (UTF-16 code-unit order, as
//   Array.prototype.sort does), no white space, strings as JSON.stringify writes them (lone surrogates escaped, so two
//   different strings never encode alike). Two argument objects that mean the same JSON encode byte for byte alike,
//   whatever their key order; any other difference gives another encoding.
// - `previewArguments` is what the approver reads: the arguments in their own key order, bounded so that a huge or
//   deep call cannot drown the approval card or hide its tail. Every cut shows a visible mark (`…[+123 chars]`,
//   `…[+4 items]`, a key `…[+2 keys]`, `…[object of 7 keys]`), so nothing is left out silently. The marks are part of
//   the HTTP contract for the approver, not model-facing prose, so they are not in locale.ts. A character that would
//   change how the text looks without showing itself (bidi controls, zero-width characters: core/boundary/hiddenCharacters.ts) is
//   shown as a marker (`⟦U+202E⟧`), and `hiddenCharacters` names the arguments that hold one; the call still runs
//   with its arguments exactly as they came (the approval is bound to `canonicalJson` of those).
import type { JsonValue, ToolDefinition } from "../types.ts";
import { pathsWithHiddenCharacters, revealHidden } from "../boundary/hiddenCharacters.ts";

/** Longest string (value, key or description line) shown whole, in UTF-16 code units. */
export const PREVIEW_MAX_STRING = 200;
/** Most array items shown per array. */
export const PREVIEW_MAX_ITEMS = 20;
/** Most keys shown per object. */
export const PREVIEW_MAX_KEYS = 30;
/** Deepest container shown with its content (the arguments object is depth 0). */
export const PREVIEW_MAX_DEPTH = 6;
/** Most values shown in all (past it, containers show only what fits and mark the rest). */
export const PREVIEW_MAX_NODES = 300;
/** Deepest nesting `canonicalJson` encodes; deeper arguments cannot be approved (the guard fails closed). */
export const CANONICAL_MAX_DEPTH = 256;

/** What the approver is shown, next to the confirmation's id, capability, mode and expiry. */
export interface ApprovalView {
  /** The tool's name. */
  tool: string;
  /** The first non-empty line of its description, bounded. */
  description: string;
  /** The call's arguments, bounded for display, hidden characters shown as markers. */
  arguments: JsonValue;
  /** The paths of the arguments that hold hidden characters; absent when none does. */
  hiddenCharacters?: string[];
}

export function canonicalJson(value: unknown): string {
  return encode(value, 0);
}

function encode(value: unknown, depth: number): string {
  if (depth > CANONICAL_MAX_DEPTH) throw new Error(`the arguments nest deeper than ${CANONICAL_MAX_DEPTH} levels`);
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "number":
      // As JSON.stringify (and so every executor) writes it: NaN and ±Infinity are null, -0 is 0.
      return Number.isFinite(value) ? JSON.stringify(value) : "null";
    case "object": {
      if (Array.isArray(value)) {
        const items: unknown[] = value;
        return `[${items.map((item) => (isAbsent(item) ? "null" : encode(item, depth + 1))).join(",")}]`;
      }
      const entries = Object.entries(value).filter(([, item]) => !isAbsent(item));
      entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${encode(item, depth + 1)}`).join(",")}}`;
    }
    default:
      throw new Error(`the arguments hold a ${typeof value}, which is not JSON`);
  }
}

/** What JSON.stringify leaves out of an object (and writes as null in an array). */
function isAbsent(value: unknown): boolean {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

/** `text` cut to `max` UTF-16 code units (never inside a surrogate pair), with a mark saying how much is left out. */
export function cutString(text: string, max = PREVIEW_MAX_STRING): string {
  if (text.length <= max) return text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…[+${text.length - end} chars]`;
}

/** The first non-empty line of a description, trimmed and bounded. */
export function firstLine(description: string): string {
  const line = description.split(/\r\n|[\n\r\u2028\u2029]/).map((part) => part.trim()).find((part) => part !== "");
  return cutString(revealHidden(line ?? ""));
}

interface Budget {
  nodes: number;
}

/** The arguments as the approver sees them (see the module comment for the bounds). */
export function previewArguments(args: Record<string, unknown>): JsonValue {
  return preview(args, 0, { nodes: PREVIEW_MAX_NODES });
}

function preview(value: unknown, depth: number, budget: Budget): JsonValue {
  budget.nodes -= 1;
  if (value === null) return null;
  switch (typeof value) {
    case "string":
      return cutString(revealHidden(value));
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : null;
    case "object":
      break;
    default:
      return null;
  }
  if (Array.isArray(value)) {
    const items: unknown[] = value;
    if (depth >= PREVIEW_MAX_DEPTH && items.length > 0) return `…[list of ${items.length} items]`;
    const shown: JsonValue[] = [];
    for (const item of items) {
      if (shown.length >= PREVIEW_MAX_ITEMS || budget.nodes <= 0) break;
      shown.push(preview(item, depth + 1, budget));
    }
    if (shown.length < items.length) shown.push(`…[+${items.length - shown.length} items]`);
    return shown;
  }
  const entries = Object.entries(value).filter(([, item]) => !isAbsent(item));
  if (depth >= PREVIEW_MAX_DEPTH && entries.length > 0) return `…[object of ${entries.length} keys]`;
  // A Map, then Object.fromEntries: a key such as "__proto__" stays an own key and never touches the prototype.
  const shown = new Map<string, JsonValue>();
  for (const [key, item] of entries) {
    if (shown.size >= PREVIEW_MAX_KEYS || budget.nodes <= 0) break;
    const shownKey = cutString(revealHidden(key));
    // Two long keys may cut to the same text: the later one counts as left out rather than overwrite the first.
    if (!shown.has(shownKey)) shown.set(shownKey, preview(item, depth + 1, budget));
  }
  const left = entries.length - shown.size;
  if (left > 0) {
    let markKey = `…[+${left} keys]`;
    while (shown.has(markKey)) markKey = `…${markKey}`;
    shown.set(markKey, null);
  }
  return Object.fromEntries(shown);
}

/** The approver's view of one call. */
export function approvalView(definition: ToolDefinition, args: Record<string, unknown>): ApprovalView {
  const hidden = pathsWithHiddenCharacters(args);
  return {
    tool: definition.name,
    description: firstLine(definition.description),
    arguments: previewArguments(args),
    ...(hidden.length > 0 ? { hiddenCharacters: hidden } : {}),
  };
}
