// The fields a tool is indexed by, how much each counts, and their text.
import { isRecord } from "../records.ts";
import type { ToolDefinition } from "../types.ts";
import { forEachSentence } from "./text.ts";

export const FIELDS = ["name", "description", "parameterNames", "parameterDescriptions", "groups"] as const;
export type FieldName = (typeof FIELDS)[number];

/** The fields whose texts tools share most (the tools of one server describe the same parameters alike), by id. */
export const SHARED_TEXT_FIELDS: ReadonlySet<number> = new Set([FIELDS.indexOf("parameterNames"), FIELDS.indexOf("parameterDescriptions")]);

/**
 * The fields whose adjacent terms are also indexed as pairs ("market size" in getCountryMarketSize) when the ranking
 * searches pairs (RankingTuning.phraseWeight > 0): a query that says two words in a row finds the tools that do, above
 * those that hold them apart.
 */
export const PHRASE_FIELDS: ReadonlySet<number> = new Set([FIELDS.indexOf("name"), FIELDS.indexOf("description")]);

/** The index term of two adjacent terms: a space never occurs inside a term, so no word is mistaken for a pair. */
export function phraseTerm(first: string, second: string): string {
  return `${first} ${second}`;
}

/** Whether an index term is a pair of terms (phraseTerm). */
export function isPhraseTerm(term: string): boolean {
  return term.includes(" ");
}

/** How much a match in each field counts: the name says most about what a tool does. */
export const FIELD_BOOST: Readonly<Record<FieldName, number>> = {
  name: 2.5,
  description: 1,
  parameterNames: 0.4,
  parameterDescriptions: 0.3,
  groups: 1,
};

/** How many levels of nested properties (and array items) the parameter fields read. */
const PARAMETER_DEPTH = 2;

const NAME_FIELD = FIELDS.indexOf("name");
const DESCRIPTION_FIELD = FIELDS.indexOf("description");
const PARAMETER_NAMES_FIELD = FIELDS.indexOf("parameterNames");
const PARAMETER_TEXTS_FIELD = FIELDS.indexOf("parameterDescriptions");
const GROUPS_FIELD = FIELDS.indexOf("groups");

/** Collects parameter names and texts (descriptions, titles, string enum values), `depth` levels deep. */
function collectParameters(schema: unknown, depth: number, into: FieldTextsBuffer): void {
  if (!isRecord(schema)) return;
  const properties = schema.properties;
  if (!isRecord(properties)) return;
  for (const name in properties) {
    if (!Object.hasOwn(properties, name)) continue;
    into.push(PARAMETER_NAMES_FIELD, name);
    const property = properties[name];
    if (!isRecord(property)) continue;
    if (typeof property.description === "string") into.push(PARAMETER_TEXTS_FIELD, property.description);
    if (typeof property.title === "string") into.push(PARAMETER_TEXTS_FIELD, property.title);
    if (Array.isArray(property.enum)) {
      for (const value of property.enum) if (typeof value === "string") into.push(PARAMETER_TEXTS_FIELD, value);
    }
    if (depth > 1) {
      collectParameters(property, depth - 1, into);
      collectParameters(property.items, depth - 1, into);
    }
  }
}

const NO_PROPERTIES: Readonly<Record<string, unknown>> = Object.freeze({});

/** What collectParameters walks of a schema: its `properties` object (none for anything else). */
function propertiesOf(schema: unknown): Readonly<Record<string, unknown>> {
  if (!isRecord(schema)) return NO_PROPERTIES;
  const properties = schema.properties;
  return isRecord(properties) ? properties : NO_PROPERTIES;
}

/** A string-valued key of a property, as collectParameters reads it (undefined when it collects nothing). */
function textOf(property: Readonly<Record<string, unknown>>, key: "description" | "title"): string | undefined {
  const value = property[key];
  return typeof value === "string" ? value : undefined;
}

/** Whether two `enum`s hold the same strings in the same order (collectParameters reads only those). */
function sameEnumTexts(a: unknown, b: unknown): boolean {
  const left: readonly unknown[] = Array.isArray(a) ? a : [];
  const right: readonly unknown[] = Array.isArray(b) ? b : [];
  let j = 0;
  for (const value of left) {
    if (typeof value !== "string") continue;
    while (j < right.length && typeof right[j] !== "string") j++;
    if (right[j] !== value) return false;
    j++;
  }
  while (j < right.length && typeof right[j] !== "string") j++;
  return j === right.length;
}

/**
 * Whether collectParameters collects the same names and texts from two schemas, walking both at once without
 * collecting: a fresh copy of a tool (read again from storage) is compared in what the index reads of it only. Keys
 * a property lacks on both sides are not walked (most have no enum, items or nested properties).
 */
function sameParameterTexts(a: unknown, b: unknown, depth: number): boolean {
  if (a === b) return true;
  const properties = propertiesOf(a);
  const otherProperties = propertiesOf(b);
  const names = Object.keys(properties);
  const otherNames = Object.keys(otherProperties);
  if (names.length !== otherNames.length) return false;
  for (let i = 0; i < names.length; i++) {
    const name = names[i] ?? "";
    if (name !== otherNames[i]) return false;
    const value = properties[name];
    const otherValue = otherProperties[name];
    if (value === otherValue) continue;
    const property = isRecord(value) ? value : NO_PROPERTIES;
    const other = isRecord(otherValue) ? otherValue : NO_PROPERTIES;
    if (textOf(property, "description") !== textOf(other, "description") || textOf(property, "title") !== textOf(other, "title")) return false;
    if ((property.enum !== undefined || other.enum !== undefined) && !sameEnumTexts(property.enum, other.enum)) return false;
    if (depth <= 1) continue;
    if ((property.properties !== undefined || other.properties !== undefined) && !sameParameterTexts(property, other, depth - 1)) return false;
    if ((property.items !== undefined || other.items !== undefined) && !sameParameterTexts(property.items, other.items, depth - 1)) return false;
  }
  return true;
}

/** Whether two tools give the same texts in every indexed field (toolFieldParts), compared without collecting them. */
export function sameFieldTexts(a: ToolDefinition, b: ToolDefinition): boolean {
  if (a === b) return true;
  if (a.name !== b.name || a.description !== b.description) return false;
  const groups = a.groups ?? [];
  const otherGroups = b.groups ?? [];
  if (groups.length !== otherGroups.length) return false;
  for (let i = 0; i < groups.length; i++) if (groups[i] !== otherGroups[i]) return false;
  return sameParameterTexts(a.parameters, b.parameters, PARAMETER_DEPTH);
}

/**
 * The texts of each indexed field of a tool, by field id (in FIELDS order). A field's text is its texts joined with
 * spaces; the index reads them one by one, which analyzes the same (a space always separates terms).
 */
export function toolFieldParts(tool: ToolDefinition): (readonly string[])[] {
  const buffer = new FieldTextsBuffer();
  toolFieldPartsInto(tool, buffer);
  return buffer.texts.map((texts, field) => texts.slice(0, buffer.counts[field] ?? 0));
}

/** One array of texts per field, in FIELDS order. */
type FieldParts = [name: string[], description: string[], parameterNames: string[], parameterDescriptions: string[], groups: string[]];

/**
 * The texts of one tool's fields, refilled tool after tool by an index build: field f's are `texts[f][0 .. counts[f])`
 * (past that, an earlier tool's). Refilled in place: emptying an array (`length = 0`) drops its storage, and a build
 * of 10,000 tools then allocated 50,000 small arrays.
 */
export class FieldTextsBuffer {
  readonly texts: FieldParts = [[], [], [], [], []];
  readonly counts = new Int32Array(FIELDS.length);

  push(field: number, text: string): void {
    const texts = this.texts[field];
    if (texts === undefined) return;
    const count = this.counts[field] ?? 0;
    texts[count] = text;
    this.counts[field] = count + 1;
  }
}

/**
 * A description's first sentence when it has more than one, else undefined: what the tool is, before how, with what
 * and for whom ("A pre-trained ConvBERT model for feature extraction. It was trained on …"). Cut as requestSentences
 * cuts a request (forEachSentence: one pass, so a description of 4,000 spaces costs no more than its length), and
 * no further than the second sentence's start.
 */
export function leadSentence(description: string): string | undefined {
  const span = leadSentenceSpan(description);
  return span === undefined ? undefined : description.slice(span.start, span.end);
}

/** Where leadSentence lies in `description` (`description.slice(start, end)` is it), or undefined when it has none. */
export function leadSentenceSpan(description: string): { start: number; end: number } | undefined {
  let span: { start: number; end: number } | undefined;
  let more = false;
  forEachSentence(description, (sentence, start) => {
    if (span === undefined) {
      span = { start, end: start + sentence.length };
      return true;
    }
    more = true;
    return false;
  });
  return more ? span : undefined;
}

/**
 * toolFieldParts into `into` (emptied first): an index build reuses the same arrays for every tool rather than
 * allocating five per tool. `leadRepeats`: the description's lead sentence (leadSentence) is read that many times
 * more (RankingTuning.leadSentenceRepeats), so its words count more in the description than the rest's.
 */
export function toolFieldPartsInto(tool: ToolDefinition, into: FieldTextsBuffer, leadRepeats = 0): void {
  into.counts.fill(0);
  into.push(NAME_FIELD, tool.name);
  into.push(DESCRIPTION_FIELD, tool.description);
  const lead = leadRepeats > 0 ? leadSentence(tool.description) : undefined;
  if (lead !== undefined) for (let i = 0; i < leadRepeats; i++) into.push(DESCRIPTION_FIELD, lead);
  collectParameters(tool.parameters, PARAMETER_DEPTH, into);
  for (const group of tool.groups ?? []) into.push(GROUPS_FIELD, group);
}

/** The text of each indexed field of a tool (not yet analyzed). */
export function toolFieldTexts(tool: ToolDefinition): Record<FieldName, string> {
  const [name = [], description = [], parameterNames = [], parameterDescriptions = [], groups = []] = toolFieldParts(tool);
  return {
    name: name.join(" "),
    description: description.join(" "),
    parameterNames: parameterNames.join(" "),
    parameterDescriptions: parameterDescriptions.join(" "),
    groups: groups.join(" "),
  };
}
