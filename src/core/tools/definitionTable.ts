// A registry snapshot's definitions as a cold isolate reads them: what every request reads of every tool (its name,
// the name it had where it came from, its groups) up front, and the rest of each definition (description,
// parameters, guard fields, executor) as that tool's JSON text in UTF-8 without the fields held up front, packed on
// its own against a dictionary of the catalog's shared stretches (textPack.ts: under a third of the bytes at 10,000
// bench tools, about half on the real catalog; bytes a cold isolate streams before its first answer), unpacked,
// decoded and frozen the first time one of those fields is read. A first search reads a page of definitions, not
// 10,000: decoding them all (UTF-8 and JSON.parse of megabytes) and freezing them deeply was most of what a cold
// isolate paid before its first answer.
// Each definition is an ordinary frozen object with its fields as own enumerable properties in the order they were
// written (JSON.stringify, spreading and structured cloning see the same object as before); the fields decoded on
// use are accessors, one per field name, which find a definition's table by its prototype and its row by its name
// (nothing is kept per definition). A table's definitions share a prototype of their own (an empty frozen object over
// Object.prototype): it tells their table, and it keeps each table's object shapes apart. Without it, the definitions of every table after
// an isolate's first (a new registry version, another registry) took the first table's shapes with other accessors,
// which V8 answers by holding each object as a dictionary: five times the reading cost, and slower reads after.
// The definitions' texts are checked per chunk when decoded (snapshotCodec.ts, deferred sections).
import { collectBytes, type DeferredSection, SnapshotError, type SnapshotReader, type SnapshotWriter } from "../search/snapshotCodec.ts";
import { rememberCatalogNames } from "../search/catalogNames.ts";
import type { ToolDefinition } from "../types.ts";
import { deepFreeze } from "./toolRegistry.ts";
import { buildDictionary, TextPacker, unpackText } from "./textPack.ts";

/** Fields kept as values on every definition; every other field is decoded on first use. */
const EAGER = new Set(["name", "originalName", "groups"]);

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** The definitions of one snapshot: their texts, and each one decoded once read. */
interface Table {
  /** Checked per chunk when a definition is first decoded (snapshotCodec.ts, deferred sections). */
  bytes: DeferredSection<Uint8Array>;
  /** What the texts are packed against (textPack.ts), checked whole when a first definition is decoded. */
  dictionary: DeferredSection<Uint8Array>;
  offsets: Int32Array;
  decoded: (Readonly<Record<string, unknown>> | undefined)[];
  definitions: readonly ToolDefinition[];
  /** The row of a name: the reader's table of names (useRowLookup), else a map of every name made on first use. */
  rowOf: ((name: string) => number) | undefined;
  byName: Map<string, number> | undefined;
}

/**
 * The table a definition read from a snapshot belongs to, by its prototype (one per table): nothing is kept per
 * definition (a map entry per definition cost a cold isolate's first request a third of reading the table).
 */
const tablesByPrototype = new WeakMap<object, Table>();

/** The row of `definition` in `table`: found by its name, or (a name written twice) by identity; -1 for another. */
function rowIn(table: Table, definition: ToolDefinition): number {
  const { name } = definition;
  let row: number;
  if (table.rowOf) row = table.rowOf(name);
  else {
    if (table.byName === undefined) {
      const byName = new Map<string, number>();
      table.definitions.forEach((tool, at) => {
        if (!byName.has(tool.name)) byName.set(tool.name, at);
      });
      table.byName = byName;
    }
    row = table.byName.get(name) ?? -1;
  }
  return table.definitions[row] === definition ? row : table.definitions.indexOf(definition);
}

function tableOf(definition: ToolDefinition): Table | undefined {
  const prototype: unknown = Object.getPrototypeOf(definition);
  return typeof prototype === "object" && prototype !== null ? tablesByPrototype.get(prototype) : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Interns values by their JSON as they come: one table of distinct values and, per item, its value's place (-1: none). */
export class Interner<T> {
  readonly table: T[] = [];
  readonly ids: number[] = [];
  readonly #byKey = new Map<string, number>();

  add(item: T | undefined): void {
    if (item === undefined) {
      this.ids.push(-1);
      return;
    }
    const key = JSON.stringify(item);
    let id = this.#byKey.get(key);
    if (id === undefined) {
      id = this.table.length;
      this.table.push(item);
      this.#byKey.set(key, id);
    }
    this.ids.push(id);
  }

  clear(): void {
    this.table.length = 0;
    this.ids.length = 0;
    this.#byKey.clear();
  }
}

/** Interns values by their JSON: one table of distinct values and, per item, its value's place in the table (-1: none). */
export function interned<T>(items: readonly (T | undefined)[]): { table: T[]; ids: Int32Array } {
  const interner = new Interner<T>();
  for (const item of items) interner.add(item);
  return { table: interner.table, ids: Int32Array.from(interner.ids) };
}

/** What readDefinitions reads, in its order: per row the eager fields, then every definition's text and where it ends. */
interface DefinitionColumnsOut {
  names: readonly string[];
  originalNames: readonly (readonly [number, string])[];
  groups: { table: readonly (readonly string[])[]; ids: Int32Array };
  keys: { table: readonly string[][]; ids: Int32Array };
  dictionary: Uint8Array;
  /** The definitions' packed texts one after another, the same on every call (deferredU8Pieces). */
  texts: () => Iterable<Uint8Array>;
  /** Where each text starts, and the last one ends (filled by the time the snapshot is laid out). */
  offsets: Int32Array;
}

/** The definition texts' chunks, each checked when a definition in it is first decoded. */
const DEFINITION_CHUNK_BYTES = 4096;

function writeColumns(out: SnapshotWriter, columns: DefinitionColumnsOut): void {
  out.strings(columns.names);
  out.text(JSON.stringify(columns.originalNames));
  out.text(JSON.stringify(columns.groups.table));
  out.i32(columns.groups.ids);
  out.text(JSON.stringify(columns.keys.table));
  out.i32(columns.keys.ids);
  out.deferredU8(columns.dictionary);
  // In chunks of 4 KiB, not 64: a first search's answer decodes a few definitions, and checked a 64 KiB chunk for each
  // (a cold isolate's first checks of 64 KiB in JS cost it about 1 ms more than of the few KiB it reads).
  out.deferredU8Pieces(columns.texts, DEFINITION_CHUNK_BYTES);
  out.i32(columns.offsets);
}

/** A definition's text as a snapshot holds it before packing: its JSON (UTF-8) without the fields held as columns. */
function textOf(definition: ToolDefinition | undefined): Uint8Array {
  if (definition === undefined) return new Uint8Array(0);
  const { name: _name, originalName: _originalName, groups: _groups, ...rest } = definition;
  return encoder.encode(JSON.stringify(rest));
}

/** The packed texts a writer keeps between its two passes, at most (the bench catalog packs 50,000 tools into 9.4 MB). */
const PACKED_KEPT_BYTES = 16 * 1024 * 1024;

/** Texts the dictionary is made from: rows spread evenly over the catalog (buildDictionary reads a bounded prefix). */
const DICTIONARY_SAMPLES = 1024;

function dictionaryOf(count: number, textAt: (row: number) => Uint8Array): Uint8Array {
  const samples = Math.min(count, DICTIONARY_SAMPLES);
  return buildDictionary((function* () {
    for (let i = 0; i < samples; i++) yield textAt(Math.floor((i * count) / samples));
  })());
}

/**
 * Writes `definitions` (validated ones: plain JSON values) for readDefinitions; `keptBytes`: how many bytes of packed
 * texts the first pass keeps for the second (the same bytes written either way).
 */
export function writeDefinitions(out: SnapshotWriter, definitions: readonly ToolDefinition[], keptBytes = PACKED_KEPT_BYTES): void {
  // Each text made and packed when the snapshot is gone over (twice: its checksums, then its layout), never all the
  // texts held at once. The packed ones are kept from the first pass for the second while they fit in `keptBytes`
  // (packing each text twice made the 50,000-tool snapshot 45 % more CPU to write); past it they are packed again.
  const offsets = new Int32Array(definitions.length + 1);
  const dictionary = dictionaryOf(definitions.length, (row) => textOf(definitions[row]));
  const packer = new TextPacker(dictionary);
  let kept: Uint8Array[] | undefined = [];
  let packedBytes = 0;
  let passes = 0;
  writeColumns(out, {
    names: definitions.map((definition) => definition.name),
    originalNames: definitions.flatMap((definition, row) => (definition.originalName === undefined ? [] : [[row, definition.originalName] as const])),
    groups: interned(definitions.map((definition) => definition.groups)),
    keys: interned(definitions.map((definition) => Object.keys(definition))),
    dictionary,
    *texts() {
      const first = passes++ === 0;
      const packed = first ? undefined : kept;
      if (packed !== undefined && packed.length === definitions.length) {
        yield* packed;
        return;
      }
      for (let row = 0; row < definitions.length; row++) {
        const text = packer.pack(textOf(definitions[row]));
        offsets[row + 1] = (offsets[row] ?? 0) + text.length;
        if (first && kept !== undefined) {
          packedBytes += text.length;
          if (packedBytes <= keptBytes) kept.push(text);
          else kept = undefined;
        }
        yield text;
      }
    },
    offsets,
  });
}

/**
 * Definitions taken a page at a time and kept as writeDefinitions writes them (each page's texts in one buffer, the
 * eager fields by row), so that the definitions themselves are not held: what a writer that validates page by page
 * keeps (registrySnapshot.ts, PagedRegistrySnapshot). `write` writes writeDefinitions' bytes for them; the snapshot
 * it is written into can be laid out once only: each page's buffer is let go as it is laid out.
 */
export class DefinitionPages {
  readonly names: string[] = [];
  readonly #originalNames: [number, string][] = [];
  readonly #groups = new Interner<readonly string[]>();
  readonly #keys = new Interner<string[]>();
  /** Each page's texts, unpacked until `write` packs them (one page at a time), then packed until laid out. */
  readonly #pages: (Uint8Array | undefined)[] = [];
  /** Where each text starts in its page, and the page's end. */
  readonly #pageOffsets: Int32Array[] = [];

  add(definitions: readonly ToolDefinition[]): void {
    const texts = definitions.map((definition) => textOf(definition));
    const offsets = new Int32Array(definitions.length + 1);
    const page = new Uint8Array(texts.reduce((sum, text) => sum + text.length, 0));
    let at = 0;
    definitions.forEach((definition, i) => {
      const text = texts[i] ?? new Uint8Array(0);
      page.set(text, at);
      at += text.length;
      offsets[i + 1] = at;
      if (definition.originalName !== undefined) this.#originalNames.push([this.names.length, definition.originalName]);
      this.names.push(definition.name);
      this.#groups.add(definition.groups);
      this.#keys.add(Object.keys(definition));
    });
    this.#pages.push(page);
    this.#pageOffsets.push(offsets);
  }

  /** The text of `row` (unpacked: before `write`), found through the pages' sizes. */
  #textAt(row: number): Uint8Array {
    let first = 0;
    for (let at = 0; at < this.#pages.length; at++) {
      const offsets = this.#pageOffsets[at] ?? new Int32Array(1);
      const inPage = row - first;
      if (inPage < offsets.length - 1) return (this.#pages[at] ?? new Uint8Array(0)).subarray(offsets[inPage] ?? 0, offsets[inPage + 1] ?? 0);
      first += offsets.length - 1;
    }
    return new Uint8Array(0);
  }

  write(out: SnapshotWriter): void {
    const pages = this.#pages;
    const dictionary = dictionaryOf(this.names.length, (row) => this.#textAt(row));
    // Packed once, a page at a time (each page's unpacked texts let go as it is packed).
    const packer = new TextPacker(dictionary);
    const offsets = new Int32Array(this.names.length + 1);
    let row = 0;
    pages.forEach((page, at) => {
      const pageOffsets = this.#pageOffsets[at] ?? new Int32Array(1);
      const packed: Uint8Array[] = [];
      for (let i = 0; i + 1 < pageOffsets.length; i++, row++) {
        const text = packer.pack((page ?? new Uint8Array(0)).subarray(pageOffsets[i] ?? 0, pageOffsets[i + 1] ?? 0));
        packed.push(text);
        offsets[row + 1] = (offsets[row] ?? 0) + text.length;
      }
      pages[at] = collectBytes({ byteLength: (offsets[row] ?? 0) - (offsets[row - packed.length] ?? 0), pieces: () => packed });
    });
    this.#pageOffsets.length = 0;
    let passes = 0;
    writeColumns(out, {
      names: this.names,
      originalNames: this.#originalNames,
      groups: { table: this.#groups.table, ids: Int32Array.from(this.#groups.ids) },
      keys: { table: this.#keys.table, ids: Int32Array.from(this.#keys.ids) },
      dictionary,
      // Gone over for the checksums, then laid out: each page let go once laid out.
      texts: function* () {
        const laidOut = ++passes > 1;
        for (let at = 0; at < pages.length; at++) {
          const page = pages[at];
          if (page === undefined) throw new Error("a page of definitions was laid out already");
          yield page;
          if (laidOut) pages[at] = undefined;
        }
      },
      offsets,
    });
  }

  /** Lets go of the columns by row once written (`write` encoded them); the pages go as they are laid out. */
  releaseColumns(): void {
    this.names.length = 0;
    this.#originalNames.length = 0;
    this.#groups.clear();
    this.#keys.clear();
  }
}

function parsedJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new SnapshotError(`the snapshot's ${what} do not parse`);
  }
}

function stringLists(value: unknown, what: string): (readonly string[])[] {
  if (!Array.isArray(value)) throw new SnapshotError(`the snapshot's ${what} are malformed`);
  return (value as unknown[]).map((list) => {
    if (!Array.isArray(list)) throw new SnapshotError(`the snapshot's ${what} are malformed`);
    const strings: string[] = [];
    for (const item of list as unknown[]) {
      if (typeof item !== "string") throw new SnapshotError(`the snapshot's ${what} are malformed`);
      strings.push(item);
    }
    return Object.freeze(strings);
  });
}

/**
 * A definition as writeDefinitions wrote it (validated then, its text checked by the snapshot's chunk checksum when decoded): only
 * its name is looked at, since reading any other field would decode it.
 */
function isWrittenDefinition(value: Record<string, unknown>): value is Record<string, unknown> & ToolDefinition {
  return typeof value["name"] === "string";
}

/** The definition in `row` of `table`, decoded and deeply frozen on first use. */
function decodedRow(table: Table, row: number): Readonly<Record<string, unknown>> {
  const known = table.decoded[row];
  if (known !== undefined) return known;
  const start = table.offsets[row] ?? 0;
  const end = table.offsets[row + 1] ?? 0;
  // Checked here (a corrupt chunk throws SnapshotError), bounded by the reader: anything else is a writer's fault.
  table.bytes.verify(start, end);
  const dictionary = table.dictionary.verifyAll();
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(unpackText(table.bytes.values.subarray(start, end), dictionary)));
  } catch (error) {
    // Checked bytes that do not unpack to JSON: a writer's fault, refused as a snapshot's (never served half-read).
    throw error instanceof SnapshotError ? error : new SnapshotError(`the snapshot's definition ${row} does not decode`);
  }
  if (!isRecord(value)) throw new SnapshotError(`the snapshot's definition ${row} is not an object`);
  const frozen = deepFreeze(value);
  table.decoded[row] = frozen;
  return frozen;
}

/** The accessor of field `key` (one per field name, shared by every table's definitions: it finds their table). */
function lazyField(key: string): PropertyDescriptor {
  const get = function (this: ToolDefinition): unknown {
    const table = tableOf(this);
    const row = table === undefined ? -1 : rowIn(table, this);
    return table === undefined || row === -1 ? undefined : decodedRow(table, row)[key];
  };
  return { enumerable: true, get };
}

/** The accessors by field name, made once per isolate. */
const lazyFields = new Map<string, PropertyDescriptor>();

const GROUPS = 0;
const ORIGINAL_NAME = 1;

/** How a list of fields is set on a definition after its name, in order: the eager ones' values, the others' accessors. */
interface FieldPlan {
  fields: readonly (typeof GROUPS | typeof ORIGINAL_NAME | { key: string; descriptor: PropertyDescriptor })[];
  hasGroups: boolean;
  hasOriginalName: boolean;
}

/** The plan of `keys` (the fields of definition `row`, first met there); SnapshotError when they cannot be a definition's. */
function planOf(keys: readonly string[] | undefined, row: number): FieldPlan {
  if (keys === undefined || keys[0] !== "name") throw new SnapshotError(`the snapshot's definition ${row} does not match its fields`);
  const fields: FieldPlan["fields"][number][] = [];
  for (let k = 1; k < keys.length; k++) {
    const key = keys[k] ?? "";
    if (key === "groups") fields.push(GROUPS);
    else if (key === "originalName") fields.push(ORIGINAL_NAME);
    else if (EAGER.has(key)) throw new SnapshotError(`the snapshot's definition ${row} names ${key} twice`);
    else {
      let descriptor = lazyFields.get(key);
      if (descriptor === undefined) {
        descriptor = lazyField(key);
        lazyFields.set(key, descriptor);
      }
      fields.push({ key, descriptor });
    }
  }
  return { fields, hasGroups: keys.includes("groups"), hasOriginalName: keys.includes("originalName") };
}

/** A new empty object whose prototype is `prototype`. */
function objectOver(prototype: object): Record<string, unknown> {
  const made: unknown = Object.create(prototype);
  if (!isRecord(made)) throw new TypeError("Object.create made no object");
  return made;
}

/**
 * The definitions writeDefinitions wrote, in order (a frozen list): frozen, with name, originalName and groups as values and the
 * other fields decoded on first use. Throws SnapshotError when the sections do not fit together.
 */
export function readDefinitions(input: SnapshotReader): readonly ToolDefinition[] {
  const names = input.strings();
  const count = names.length;
  const originals = new Map<number, string>();
  const pairs = parsedJson(input.text(), "original names");
  if (!Array.isArray(pairs)) throw new SnapshotError("the snapshot's original names are malformed");
  for (const pair of pairs as unknown[]) {
    if (!Array.isArray(pair) || typeof pair[0] !== "number" || typeof pair[1] !== "string") throw new SnapshotError("the snapshot's original names are malformed");
    originals.set(pair[0], pair[1]);
  }
  const groupLists = stringLists(parsedJson(input.text(), "group lists"), "group lists");
  const groupIds = input.i32();
  const keyLists = stringLists(parsedJson(input.text(), "field lists"), "field lists");
  const keyIds = input.i32();
  const dictionary = input.deferredU8("definition dictionary");
  const bytes = input.deferredU8("definition texts");
  const offsets = input.i32();
  if (groupIds.length !== count || keyIds.length !== count || offsets.length !== count + 1 || offsets[0] !== 0 || offsets[count] !== bytes.values.length) {
    throw new SnapshotError("the snapshot's definition sections do not match");
  }
  for (let row = 0; row < count; row++) {
    if ((offsets[row + 1] ?? 0) < (offsets[row] ?? 0)) throw new SnapshotError("the snapshot's definition offsets are out of order");
  }
  const definitions: ToolDefinition[] = [];
  const table: Table = { bytes, dictionary, offsets, decoded: [], definitions, rowOf: undefined, byName: undefined };
  const prototype = Object.freeze({});
  tablesByPrototype.set(prototype, table);
  // Per distinct list of fields (a handful), worked out on its first row: no look-up per field and row.
  const plans: (FieldPlan | undefined)[] = [];
  for (let row = 0; row < count; row++) {
    const keyId = keyIds[row] ?? -1;
    const plan = plans[keyId] ?? planOf(keyLists[keyId], row);
    plans[keyId] = plan;
    const groups = groupLists[groupIds[row] ?? -1];
    const name = names[row] ?? "";
    const originalName = originals.size === 0 ? undefined : originals.get(row);
    if (plan.hasGroups !== (groups !== undefined) || plan.hasOriginalName !== (originalName !== undefined)) {
      throw new SnapshotError(`the snapshot's definition ${row} does not match its fields`);
    }
    const definition = objectOver(prototype);
    definition["name"] = name;
    const { fields } = plan;
    for (let k = 0; k < fields.length; k++) {
      const field = fields[k];
      if (field === GROUPS) definition["groups"] = groups;
      else if (field === ORIGINAL_NAME) definition["originalName"] = originalName;
      else if (field !== undefined) Object.defineProperty(definition, field.key, field.descriptor);
    }
    Object.freeze(definition);
    if (isWrittenDefinition(definition)) definitions.push(definition);
  }
  // An index over these very definitions takes their names from this list (no copy of every name out of them).
  rememberCatalogNames(Object.freeze(definitions), Object.freeze(names));
  return definitions;
}

/** Where a definition read by readDefinitions is in its snapshot (undefined for any other definition). */
export function snapshotRow(definition: ToolDefinition): { table: object; row: number } | undefined {
  const table = tableOf(definition);
  const row = table === undefined ? -1 : rowIn(table, definition);
  return table === undefined || row === -1 ? undefined : { table, row };
}

/**
 * Finds the rows of the table `definition` was read with by `rowOf` (a name's row, as the reader's table of names
 * gives it: registrySnapshot.ts) rather than by a map of every name made here.
 */
export function useRowLookup(definition: ToolDefinition, rowOf: (name: string) => number): void {
  const table = tableOf(definition);
  if (table !== undefined) table.rowOf = rowOf;
}
