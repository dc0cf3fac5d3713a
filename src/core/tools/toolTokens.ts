// Token counts of tool lists without re-tokenizing the catalog on every turn. Each definition's count (its JSON in a
// shape) is kept with the definition object itself (a WeakMap: it lives exactly as long as the definition, so memory
// follows the catalogs in use, and a changed tool is a new definition object with a count of its own). A list's
// count is then the sum of its tools' counts plus what joining them changes, which is exact: see seamTokens.
import { toShape } from "./shapes.ts";
import type { ToolShape } from "./shapes.ts";
import { countTokens } from "./tokens.ts";
import type { ToolDefinition } from "../types.ts";

/** One tool's JSON text in one shape: its tokens, and the runs of punctuation it starts and ends with. */
interface Counted {
  tokens: number;
  head: string;
  tail: string;
  /** Whether the text starts as the seam rule expects (a punctuation run of two or more, as `{"` is). */
  seamable: boolean;
  /** The last seam this text's tail made with a comma and a head: most tools of a list start alike (`{"`). */
  lastComma?: { head: string; tokens: number };
}

const counted = new WeakMap<ToolDefinition, Partial<Record<ToolShape, Counted>>>();

/** Neither white space, a letter nor a number: what o200k's pre-tokenizer joins into one run of punctuation. */
const PUNCTUATION = /^[^\s\p{L}\p{N}]$/u;

function isPunctuation(char: string): boolean {
  return PUNCTUATION.test(char);
}

/** The runs of punctuation `text` starts and ends with, as seams join them (seamTokens). */
function edges(text: string): Omit<Counted, "tokens"> {
  let head = 0;
  while (head < text.length && isPunctuation(text.charAt(head))) head++;
  let tail = text.length;
  while (tail > head && isPunctuation(text.charAt(tail - 1))) tail--;
  // The pre-tokenizer's ` ?[^\s\p{L}\p{N}]+` takes one plain space before a run of punctuation into it.
  if (tail > head && text.charAt(tail - 1) === " ") tail--;
  // A single punctuation mark before a letter is read with the letters (`[^\r\n\p{L}\p{N}]?\p{L}+`): no such seam.
  const seamable = head >= 2 && tail > head;
  return { head: text.slice(0, head), tail: text.slice(tail), seamable };
}

function describe(text: string): Counted {
  return { tokens: countTokens(text), ...edges(text) };
}

function countedTool(tool: ToolDefinition, shape: ToolShape): Counted {
  let shapes = counted.get(tool);
  if (!shapes) {
    shapes = {};
    counted.set(tool, shapes);
  }
  const known = shapes[shape];
  if (known) return known;
  const carried = carriedCount?.(tool, shape);
  if (carried !== undefined) {
    const taken: Counted = { ...carried };
    shapes[shape] = taken;
    return taken;
  }
  const fresh = describe(JSON.stringify(toShape(tool, shape)));
  shapes[shape] = fresh;
  return fresh;
}

/** What a tool's count in a shape keeps (a registry snapshot carries it, so that a cold isolate counts nothing again). */
export interface ToolTokenCount {
  tokens: number;
  head: string;
  tail: string;
  seamable: boolean;
}

/** Counts made elsewhere (a registry snapshot's), looked up the first time a tool is counted in a shape here. */
let carriedCount: ((tool: ToolDefinition, shape: ToolShape) => ToolTokenCount | undefined) | undefined;

/**
 * Where counts made elsewhere are found (registrySnapshot.ts: the snapshot a definition was read from), so that
 * nothing is done per tool until it is counted. The lookup vouches that a count it gives is of that very definition.
 */
export function carryToolTokenCounts(lookup: (tool: ToolDefinition, shape: ToolShape) => ToolTokenCount | undefined): void {
  carriedCount = lookup;
}

/** The count of a tool in a shape, counted now if it was not yet. */
export function toolTokenCount(tool: ToolDefinition, shape: ToolShape): ToolTokenCount {
  const { tokens, head, tail, seamable } = countedTool(tool, shape);
  return { tokens, head, tail, seamable };
}

/** Whether the tool was counted in `shape` already (in this isolate). */
export function hasToolTokenCount(tool: ToolDefinition, shape: ToolShape): boolean {
  return counted.get(tool)?.[shape] !== undefined;
}

/**
 * Takes a count made elsewhere for this definition (toolTokenCount's, read from a registry snapshot): toolTokens and
 * toolListTokens then answer with it. The caller vouches that it is the count of this very definition and shape.
 */
export function rememberToolTokenCount(tool: ToolDefinition, shape: ToolShape, count: ToolTokenCount): void {
  let shapes = counted.get(tool);
  if (!shapes) {
    shapes = {};
    counted.set(tool, shapes);
  }
  shapes[shape] ??= { ...count };
}

/** Tokens of one tool's JSON in `shape` (what a client's model is sent for it), counted once per definition object. */
export function toolTokens(tool: ToolDefinition, shape: ToolShape): number {
  return countedTool(tool, shape).tokens;
}

const SEAM_CAPACITY = 512;
const seams = new Map<string, number>();

/**
 * What joining two texts at a seam adds to the sum of their counts. o200k's pre-tokenizer reads a run of punctuation
 * (`}}}` ending one tool, `,` and `{"` starting the next) as one piece, and byte-pair encoding never crosses pieces:
 * the rest of both texts is read as it is alone. So the joined count is the parts' counts, minus the two pieces at
 * the seam counted apart, plus the one piece they become. Few distinct seams exist (a bounded memo keeps them).
 */
function seamTokens(left: string, glue: string, right: string): number {
  const key = `${left}\u0000${glue}\u0000${right}`;
  const known = seams.get(key);
  if (known !== undefined) return known;
  const delta = countTokens(left + glue + right) - countTokens(left) - countTokens(right);
  if (seams.size >= SEAM_CAPACITY) seams.clear();
  seams.set(key, delta);
  return delta;
}

/** At most this many seams worked out for a snapshot (seamsOf): the distinct heads times the distinct tails. */
const MAX_CARRIED_SEAMS = 256;

/**
 * The seams a list of `tools` in `shape` can have, in any order (every tail before every head, the list's opening
 * before each head, its closing after each tail) with what each adds: for a registry snapshot, so that a cold
 * isolate counts a turn's list without building the tokenizer. `others`: texts of the same shape a list may hold
 * besides the tools (the meta-tools' definitions). None when there would be more than a few hundred.
 */
export function seamsOf(tools: readonly ToolDefinition[], shape: ToolShape, others: readonly string[] = []): [string, number][] {
  const heads = new Set<string>();
  const tails = new Set<string>();
  for (const part of [...tools.map((tool) => countedTool(tool, shape)), ...others.map(edges)]) {
    if (!part.seamable) continue;
    heads.add(part.head);
    tails.add(part.tail);
  }
  if (heads.size * tails.size > MAX_CARRIED_SEAMS) return [];
  const seamsFound: [string, number][] = [];
  const add = (left: string, glue: string, right: string): void => {
    seamsFound.push([`${left}\u0000${glue}\u0000${right}`, seamTokens(left, glue, right)]);
  };
  for (const head of heads) add("", "[", head);
  for (const tail of tails) {
    add(tail, "]", "");
    for (const head of heads) add(tail, ",", head);
  }
  return seamsFound;
}

/** Takes seams worked out elsewhere (seamsOf, carried by a registry snapshot): the caller vouches for them. */
export function rememberSeams(carried: readonly (readonly [string, number])[]): void {
  for (const [key, tokens] of carried) {
    if (seams.size >= SEAM_CAPACITY) return;
    seams.set(key, tokens);
  }
}

/** seamTokens(left.tail, ",", head), remembered on `left` for the head it last met. */
function commaSeam(left: Counted, head: string): number {
  if (left.lastComma?.head === head) return left.lastComma.tokens;
  const tokens = seamTokens(left.tail, ",", head);
  left.lastComma = { head, tokens };
  return tokens;
}

/**
 * Tokens of `JSON.stringify(tools.map((tool) => toShape(tool, shape)))`, the list a model is sent, from the tools'
 * own counts: the same number as counting that text whole, at the cost of one map look-up per tool once counted.
 */
export function toolListTokens(tools: readonly ToolDefinition[], shape: ToolShape): number {
  if (tools.length === 0) return countTokens("[]");
  // A frozen list (a catalog as the registry hands it out) cannot change: its sum is kept with it.
  const frozen = Object.isFrozen(tools);
  const kept = frozen ? listTokens.get(tools)?.get(shape) : undefined;
  if (kept !== undefined) return kept;
  const total = summedTokens(tools, shape);
  if (frozen) {
    let byShape = listTokens.get(tools);
    if (!byShape) {
      byShape = new Map();
      listTokens.set(tools, byShape);
    }
    byShape.set(shape, total);
  }
  return total;
}

const listTokens = new WeakMap<readonly ToolDefinition[], Map<ToolShape, number>>();

/** Takes the count of a frozen list in a shape made elsewhere (a registry snapshot's, for the same tools in order). */
export function rememberToolListTokens(tools: readonly ToolDefinition[], shape: ToolShape, total: number): void {
  if (!Object.isFrozen(tools)) return;
  let byShape = listTokens.get(tools);
  if (!byShape) {
    byShape = new Map();
    listTokens.set(tools, byShape);
  }
  byShape.set(shape, total);
}

function summedTokens(tools: readonly ToolDefinition[], shape: ToolShape): number {
  const parts = tools.map((tool) => countedTool(tool, shape));
  // A text the seam rule does not cover (never one of the four shapes, which all start with `{"`): counted whole.
  if (parts.some((part) => !part.seamable)) return countTokens(JSON.stringify(tools.map((tool) => toShape(tool, shape))));
  let total = 0;
  let previous: Counted | undefined;
  for (const part of parts) {
    total += part.tokens + (previous ? commaSeam(previous, part.head) : seamTokens("", "[", part.head));
    previous = part;
  }
  return previous ? total + seamTokens(previous.tail, "]", "") : total;
}
