// The design documents' rule: split the query on white space; a tool matches when any keyword is a
// case-insensitive substring of its name or description. Ranked: more distinct keywords first, a name match
// above a description match, ties in catalog order.
import type { ToolDefinition } from "../types.ts";
import type { SearchIndex } from "./types.ts";

export function createSubstringIndex(_tools: readonly ToolDefinition[]): SearchIndex {
  throw new Error("not implemented");
}
