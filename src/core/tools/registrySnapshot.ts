// What a registry version needs to serve searches, as one blob a cold isolate reads instead of rebuilding: the
// definitions as validated (in registry order, with their contexts and the revisions that wrote them), their token
// counts, and the search index of one mode (indexSnapshot.ts). Bound to the registry version (epoch and version), the
// mode and a fingerprint of the code that made it (format, locale, demo catalog, ranking tuning, and an index built
// over a fixed probe catalog: analysis that changes changes it); its sections read up front checked by their SHA-256
// digest (Web Crypto's, native) before anything is read, its large sections (definition texts, postings, forward
// lists, term statistics, the substring index's lists) per chunk when first read (snapshotCodec.ts, deferred sections).
// A snapshot that fails any of these is refused (SnapshotError), never served: the caller rebuilds from the texts.
import type { SearchMode } from "../config.ts";
import { createSearchIndex } from "../search/createIndex.ts";
import { restoreSearchIndex, writeIndexSnapshot } from "../search/indexSnapshot.ts";
import { DEFAULT_TUNING } from "../search/minisearch.ts";
import { sameDigest, sha256Bytes } from "../digest.ts";
import type { BytesDigest } from "../digest.ts";
import { collectBytes, HEADER_BYTES, snapshotChecksum, SnapshotError, SnapshotReader, SnapshotWriter, textsChecksum } from "../search/snapshotCodec.ts";
import type { ByteStream } from "../search/snapshotCodec.ts";
import type { SearchIndex } from "../search/types.ts";
import type { Locale, ToolDefinition } from "../types.ts";
import { TOOL_SHAPES } from "./shapes.ts";
import type { ToolShape } from "./shapes.ts";
import { countTokens, rememberTokenCount, tokenMemoKey } from "./tokens.ts";
import { carryToolTokenCounts, hasToolTokenCount, rememberSeams, seamsOf, toolTokenCount } from "./toolTokens.ts";
import { DefinitionPages, interned, Interner, readDefinitions, snapshotRow, useRowLookup, writeDefinitions } from "./definitionTable.ts";
import type { ValidatedTable } from "./toolRegistry.ts";

/** Changes whenever the layout below changes: older snapshots are then refused by every isolate. */
export const REGISTRY_SNAPSHOT_FORMAT = 9;
const MAGIC = "toolgate registry snapshot";
/**
 * The same layout without the index (a registry searched through shards: src/isolate/shardedSearches.ts). Its own
 * magic, so that a reader of indexed snapshots (code before it) refuses it by its header, before reading its body.
 */
const MAGIC_WITHOUT_INDEX = "toolgate registry snapshot without index";
/** Token counts always carried (prepare's default shape); other shapes when the writer had counted every tool in them. */
const ALWAYS_COUNTED: readonly ToolShape[] = ["openai"];
const OTHER_SHAPES: readonly ToolShape[] = ["responses", "anthropic", "mcp"];

export interface SnapshotTool {
  definition: ToolDefinition;
  context: string;
  /** The registry version that wrote the stored tool; -1 for a tool that is not stored (the demo catalog). */
  revision: number;
}

export interface SnapshotSkippedTool {
  name: string;
  revision: number;
  error: string;
}

/** What a snapshot is bound to: a reader asks for exactly this, and gets this or nothing. */
export interface SnapshotBinding {
  epoch: string;
  version: number;
  mode: SearchMode;
  fingerprint: string;
}

export interface RegistrySnapshotContent extends SnapshotBinding {
  tools: SnapshotTool[];
  skipped: SnapshotSkippedTool[];
  /** The search index of `mode`; none for a registry searched through shards (its isolates hold no index). */
  index?: SearchIndex;
  /**
   * false: carry the token counts of the shapes every tool was counted in already and count none here (a sharded
   * registry's writer would tokenize 100,000 tools within one request); the default carries `openai` always.
   */
  countTools?: boolean;
  /**
   * Texts whose token counts the snapshot carries (written only; read back into countTokens' memo): what a cold
   * isolate's first turn counts besides the tools: the meta-tools' definitions (search_tools naming them all), in the
   * openai shape (the seams carried join them to the tools).
   */
  countedTexts?: readonly string[];
  /**
   * Per view (the tools a caller holding `groups` sees, as ToolRegistry.getDefinitions lists them), what a turn
   * works out from every tool of it (core/turn/prepare.ts, catalogFigures), so that a cold isolate's first turn does
   * not go over every tool.
   */
  views?: readonly SnapshotView[];
}

export interface SnapshotView {
  groups: readonly string[];
  compactNames: string;
  openaiTokens: number;
  /** The count of a first turn's search_tools text over the view, per template (prepare.ts, catalogFigures). */
  searchTools?: readonly SnapshotTextCount[];
}

/** A text's count in the openai shape (as toolTokenCount gives it), found by `template` and the list it names. */
export interface SnapshotTextCount {
  template: string;
  tokens: number;
  head: string;
  tail: string;
  seamable: boolean;
}

function isTextCount(value: unknown): value is SnapshotTextCount {
  return isRecord(value) && typeof value["template"] === "string" && typeof value["tokens"] === "number" && typeof value["head"] === "string"
    && typeof value["tail"] === "string" && typeof value["seamable"] === "boolean";
}

function isSnapshotView(value: unknown): value is SnapshotView {
  const searchTools = isRecord(value) ? value["searchTools"] : undefined;
  return isRecord(value) && Array.isArray(value["groups"]) && (value["groups"] as unknown[]).every((group) => typeof group === "string")
    && typeof value["compactNames"] === "string" && typeof value["openaiTokens"] === "number"
    && (searchTools === undefined || (Array.isArray(searchTools) && (searchTools as unknown[]).every(isTextCount)));
}

const PROBE_TOOLS: readonly ToolDefinition[] = [
  {
    name: "get_weather_forecast",
    description: "Returns tomorrow's weather forecast (temperature, rain, wind) for a city; 天气预报.",
    parameters: { type: "object", properties: { city: { type: "string", description: "The city's name" } }, required: ["city"] },
    groups: ["weather"],
  },
  {
    name: "sendEmailMessage",
    description: "Sends an e-mail with attachments to several recipients; drafts are saved automatically.",
    parameters: { type: "object", properties: { to: { type: "array", items: { type: "string" } }, subject: { type: "string" } } },
  },
  {
    name: "db.query-rows",
    description: "Runs a read-only SQL query over the analytics database and paginates the resulting rows.",
    parameters: { type: "object", properties: { sql: { type: "string" }, page: { type: "integer", minimum: 1 } } },
    groups: ["data", "reports"],
  },
];

/**
 * The checksum of the probe catalog's index snapshot, per mode, as this code writes it: what analysis and index
 * layout the code has. Kept as a constant so that a cold isolate does not analyze and index the probe catalog (and
 * compile that code path) before it may ask for its snapshot; `probeIndexChecksum` computes it again, and
 * test/core/tools/registrySnapshot.test.ts fails until a change of analysis updates it here (the snapshots of the code
 * before are then refused by the fingerprint).
 */
export const PROBE_INDEX_CHECKSUMS: Readonly<Record<SearchMode, string>> = {
  substring: "9b6508fca7b28b20",
  minisearch: "466466d0813fc810",
};

/** The checksum of an index of `mode` over the probe catalog, computed (PROBE_INDEX_CHECKSUMS holds the code's). */
export function probeIndexChecksum(mode: SearchMode): string {
  const probe = new SnapshotWriter();
  if (!writeIndexSnapshot(createSearchIndex(mode, PROBE_TOOLS), probe)) throw new Error(`the ${mode} index writes no snapshot`);
  return snapshotChecksum(probe.finish());
}

const fingerprints = new Map<string, string>();

/**
 * The fingerprint of the code that makes and reads snapshots of `mode` for a registry of `locale` (with the demo
 * catalog or not): the format, the tuning and the probe index's checksum (PROBE_INDEX_CHECKSUMS), once per isolate.
 */
export function snapshotFingerprint(mode: SearchMode, locale: Locale, demoCatalog: boolean): string {
  const key = `${mode}\u0000${locale}\u0000${String(demoCatalog)}`;
  const known = fingerprints.get(key);
  if (known !== undefined) return known;
  const fingerprint = textsChecksum([
    JSON.stringify([MAGIC, REGISTRY_SNAPSHOT_FORMAT, mode, locale, demoCatalog, PROBE_INDEX_CHECKSUMS[mode]]),
    JSON.stringify(DEFAULT_TUNING, (_, value: unknown) => (value instanceof Set ? [...(value as Set<unknown>)] : value)),
  ]);
  fingerprints.set(key, fingerprint);
  return fingerprint;
}

/**
 * The snapshot of a registry version, or undefined when its index cannot write one (a patched substring index: the
 * caller may build a fresh one). Counts every tool's tokens in the shapes it carries (those not counted yet), and
 * `countedTexts`' tokens (a first prepare's meta-tool texts: registryCache.ts).
 */
export async function encodeRegistrySnapshot(content: RegistrySnapshotContent): Promise<Uint8Array | undefined> {
  const sealed = unsignedSnapshot(content);
  if (sealed === undefined) return undefined;
  // Laid out before the digest is awaited: the index (the cache's) may be changed meanwhile; its bytes are taken now.
  const bytes = collectBytes(sealed.stream);
  bytes.set(await sha256Bytes(sealed.sections), sealed.digestAt);
  return bytes;
}

/**
 * encodeRegistrySnapshot's bytes, in pieces made as they are asked for (byteParts): the definitions' texts, most of
 * a snapshot without an index, are encoded once for their checksums and again as they are handed on, so that the
 * writer never holds them whole. The definitions must not change until the last piece is taken.
 */
export async function registrySnapshotStream(content: RegistrySnapshotContent): Promise<ByteStream | undefined> {
  const sealed = unsignedSnapshot(content);
  return sealed === undefined ? undefined : await signed(sealed);
}

/** registrySnapshotStream's pieces, their digest not yet worked out (SealedSnapshot). */
function unsignedSnapshot(content: RegistrySnapshotContent): SealedSnapshot | undefined {
  const body = new SnapshotWriter();
  const { tools } = content;
  const definitions = tools.map((tool) => tool.definition);
  writeDefinitions(body, definitions);
  writeToolColumns(body, definitions.map((definition) => definition.name), interned(tools.map((tool) => tool.context)), Int32Array.from(tools, (tool) => tool.revision));
  const always = content.countTools === false ? [] : ALWAYS_COUNTED;
  const shapes = [...always, ...[...ALWAYS_COUNTED, ...OTHER_SHAPES].filter((shape) => !always.includes(shape) && definitions.every((tool) => hasToolTokenCount(tool, shape)))];
  return sealedSnapshot(body, content, shapes, definitions);
}

/** What every snapshot holds per tool after its definitions: where each name is, its context, its revision. */
function writeToolColumns(body: SnapshotWriter, names: readonly string[], contexts: { table: readonly string[]; ids: Int32Array }, revisions: Int32Array): void {
  // Where each name is: a cold isolate finds a tool by name without a map of every name (SnapshotTools.rowOf).
  body.i32(nameSlots(names));
  body.strings(contexts.table);
  body.i32(contexts.ids);
  body.i32(revisions);
}

/**
 * A snapshot laid out but for the SHA-256 digest of its sections read up front: `digest` (zeros until `signed` fills
 * it) is the piece its stream hands out for it, at byte `digestAt` of the whole.
 */
interface SealedSnapshot {
  stream: ByteStream;
  sections: Uint8Array;
  digest: Uint8Array;
  digestAt: number;
}

/** The SHA-256 digest's bytes in a snapshot (the section after the header). */
const DIGEST_BYTES = 32;

/** `sealed`'s stream, its digest worked out (asynchronously: Web Crypto's native digest). */
async function signed(sealed: SealedSnapshot): Promise<ByteStream> {
  sealed.digest.set(await sha256Bytes(sealed.sections));
  return sealed.stream;
}

/**
 * The rest of a snapshot after its tools (the skipped tools, the token counts of `shapes`, counted texts, seams, views
 * and index), then its header and the place of its digest: the snapshot in pieces, or undefined when the index cannot
 * write one.
 */
function sealedSnapshot(body: SnapshotWriter, content: Omit<RegistrySnapshotContent, "tools">, shapes: readonly ToolShape[], definitions: readonly ToolDefinition[]): SealedSnapshot | undefined {
  body.text(JSON.stringify(content.skipped));
  body.strings(shapes);
  for (const shape of shapes) {
    const counts = definitions.map((tool) => toolTokenCount(tool, shape));
    body.i32(Int32Array.from(counts, (count) => count.tokens));
    writeInterned(body, counts.map((count) => count.head));
    writeInterned(body, counts.map((count) => count.tail));
    body.u8(Uint8Array.from(counts, (count) => (count.seamable ? 1 : 0)));
  }
  const texts = content.countedTexts ?? [];
  body.strings(texts.map((text) => tokenMemoKey(text)));
  body.i32(Int32Array.from(texts, (text) => countTokens(text)));
  // What joining the tools' texts into a list adds (toolTokens.ts, seams): a first turn's list counted without the tokenizer.
  body.text(JSON.stringify(shapes.includes("openai") ? seamsOf(definitions, "openai", texts) : []));
  body.text(JSON.stringify(content.views ?? []));
  if (content.index !== undefined && !writeIndexSnapshot(content.index, body)) return undefined;
  const { sections, deferred } = body.finishSections();
  const out = new SnapshotWriter();
  const { epoch, version, mode, fingerprint } = content;
  out.text(JSON.stringify({ magic: content.index === undefined ? MAGIC_WITHOUT_INDEX : MAGIC, format: REGISTRY_SNAPSHOT_FORMAT, epoch, version, mode, fingerprint }));
  // The digest's section: its bytes past its 8-byte head (out holds no deferred area, so its stream starts with its sections).
  const digestAt = out.byteLength + HEADER_BYTES;
  const digest = new Uint8Array(DIGEST_BYTES);
  out.u8(digest);
  out.u8(sections);
  // Checked per chunk when read (the deferred sections' checksums are in `sections`, under the digest above).
  out.u8Stream(deferred);
  return { stream: out.stream(), sections, digest, digestAt };
}

/**
 * The snapshot of a registry searched through shards, made as its tools are read a page at a time (`add`: the tools
 * of a page, as validated), so that the writer never holds every definition: only the snapshot's bytes of them (their
 * texts, a page per buffer) and the columns by row. `finish` lays it out in one buffer, the same bytes
 * registrySnapshotStream writes for these tools without an index and with `countTools: false` when none of them was
 * counted (none here: these definitions were just validated, so it carries no token counts), letting each page go as
 * it is laid out; a registry is then read from that buffer as a cold isolate reads it. Once only.
 */
export class PagedRegistrySnapshot {
  readonly #definitions = new DefinitionPages();
  readonly #contexts = new Interner<string>();
  readonly #revisions: number[] = [];
  #finished = false;

  add(tools: readonly SnapshotTool[]): void {
    if (this.#finished) throw new Error("the snapshot was laid out already");
    this.#definitions.add(tools.map((tool) => tool.definition));
    for (const { context, revision } of tools) {
      this.#contexts.add(context);
      this.#revisions.push(revision);
    }
  }

  get size(): number {
    return this.#revisions.length;
  }

  async finish(binding: SnapshotBinding, skipped: SnapshotSkippedTool[]): Promise<Uint8Array> {
    if (this.#finished) throw new Error("the snapshot was laid out already");
    this.#finished = true;
    const body = new SnapshotWriter();
    this.#definitions.write(body);
    writeToolColumns(body, this.#definitions.names, { table: this.#contexts.table, ids: Int32Array.from(this.#contexts.ids) }, Int32Array.from(this.#revisions));
    // Encoded now: only the pages' texts are left to lay out (each let go as it is).
    this.#definitions.releaseColumns();
    this.#contexts.clear();
    this.#revisions.length = 0;
    const sealed = sealedSnapshot(body, { ...binding, skipped, countTools: false }, [], []);
    if (sealed === undefined) throw new Error("a snapshot without an index was not written");
    return collectBytes(await signed(sealed));
  }
}

/** Strings that repeat (contexts, the punctuation a tool's JSON starts and ends with): each distinct one once. */
function writeInterned(out: SnapshotWriter, values: readonly string[]): void {
  const { table, ids } = interned(values);
  out.strings(table);
  out.i32(ids);
}

/** Lookups of a snapshot's tools by name through its table (SnapshotTools.rowOf) before a map of every name is made. */
const LOOKUPS_BEFORE_MAP = 64;

/** A name's hash (FNV-1a over its UTF-16 code units): where nameSlots puts it. */
function nameHash(name: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/**
 * An open-addressing table of the definitions' rows by their names' hashes (row + 1; 0 is empty), at least twice as
 * many places as names (a power of two), each name at its hash or the next free place after it.
 */
function nameSlots(names: readonly string[]): Int32Array {
  let size = 2;
  while (size < names.length * 2) size *= 2;
  const slots = new Int32Array(size);
  names.forEach((name, row) => {
    let at = nameHash(name) & (size - 1);
    while (slots[at] !== 0) at = (at + 1) & (size - 1);
    slots[at] = row + 1;
  });
  return slots;
}

/** What writeInterned wrote: the table and each value's place in it (a place checked when read: internedAt). */
function readInterned(input: SnapshotReader, count: number, what: string): Interned {
  const table = input.strings();
  const ids = input.i32();
  if (ids.length !== count) throw new SnapshotError(`the snapshot's ${what} do not match its tools`);
  return { table, ids, what };
}

interface Interned {
  table: string[];
  ids: Int32Array;
  what: string;
}

/** Row `row`'s value of what readInterned read; SnapshotError when its place is not in the table (no pass up front). */
function internedAt(values: Interned, row: number): string {
  const value = values.table[values.ids[row] ?? -1];
  if (value === undefined) throw new SnapshotError(`the snapshot's ${values.what} are malformed`);
  return value;
}

/**
 * A snapshot's tools as read (ToolRegistry.registerTable): their definitions in registry order (each decoded on first
 * use: definitionTable.ts), and by row, when asked, a tool's context and revision; a tool by name through the table of
 * rows by name hash the writer made (nameSlots). Nothing is made per tool up front.
 */
export class SnapshotTools implements ValidatedTable {
  readonly definitions: readonly ToolDefinition[];
  readonly #contexts: Interned;
  readonly #revisions: Int32Array;
  readonly #slots: Int32Array;
  /**
   * Lookups so far, then a map of every name, from the LOOKUPS_BEFORE_MAP-th on: a search checks every name it ranks
   * (thousands for a common word), where one pass of the engine's own string hashing into a map costs less than
   * hashing each name here; a call or a page looks up a few.
   */
  #lookups = 0;
  #rows: Map<string, number> | undefined;

  constructor(definitions: readonly ToolDefinition[], contexts: Interned, revisions: Int32Array, slots: Int32Array) {
    const size = slots.length;
    if (contexts.ids.length !== definitions.length || revisions.length !== definitions.length || size < definitions.length * 2 || (size & (size - 1)) !== 0) {
      throw new SnapshotError("the snapshot's tool lists do not match");
    }
    this.definitions = definitions;
    this.#contexts = contexts;
    this.#revisions = revisions;
    this.#slots = slots;
  }

  contextOf(row: number): string {
    return internedAt(this.#contexts, row);
  }

  /** The registry version that wrote the stored tool of `row`; -1 for one that is not stored (the demo catalog). */
  revisionOf(row: number): number {
    return this.#revisions[row] ?? -1;
  }

  rowOf(name: string): number {
    if (this.#rows !== undefined) return this.#rows.get(name) ?? -1;
    if (++this.#lookups > LOOKUPS_BEFORE_MAP) {
      const rows = new Map<string, number>();
      this.definitions.forEach((definition, row) => rows.set(definition.name, row));
      this.#rows = rows;
      return rows.get(name) ?? -1;
    }
    const slots = this.#slots;
    const mask = slots.length - 1;
    // At most one probe per place (places out of range, which no writer makes, are passed over).
    for (let probes = 0, at = nameHash(name) & mask; probes < slots.length; probes++, at = (at + 1) & mask) {
      const row = (slots[at] ?? 0) - 1;
      if (row === -1) return -1;
      if (this.definitions[row]?.name === name) return row;
    }
    return -1;
  }

  /** Every tool as encodeRegistrySnapshot took it (a pass over every tool: tests, and a writer). */
  list(): SnapshotTool[] {
    return this.definitions.map((definition, row) => ({ definition, context: this.contextOf(row), revision: this.revisionOf(row) }));
  }
}

/** A snapshot as decodeRegistrySnapshot reads it: its tools as a table rather than an object per tool. */
export interface DecodedRegistrySnapshot extends Omit<RegistrySnapshotContent, "tools" | "index"> {
  tools: SnapshotTools;
  index: SearchIndex;
}

/** A snapshot of either kind as read: with its index, or without one (a sharded registry's). */
export type DecodedSnapshot = DecodedRegistrySnapshot | (Omit<DecodedRegistrySnapshot, "index"> & { index?: undefined });

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}


function isSkippedTool(value: unknown): value is SnapshotSkippedTool {
  return isRecord(value) && typeof value["name"] === "string" && typeof value["revision"] === "number" && typeof value["error"] === "string";
}

/** The binding a snapshot says it has (its header), without reading its body. */
function header(input: SnapshotReader): SnapshotBinding & { indexed: boolean } {
  let value: unknown;
  try {
    value = JSON.parse(input.text());
  } catch {
    throw new SnapshotError("the snapshot's header does not parse");
  }
  const indexed = isRecord(value) && value["magic"] === MAGIC;
  if (!isRecord(value) || (!indexed && value["magic"] !== MAGIC_WITHOUT_INDEX)) throw new SnapshotError("not a registry snapshot");
  if (value["format"] !== REGISTRY_SNAPSHOT_FORMAT) throw new SnapshotError(`snapshot format ${String(value["format"])}, not ${REGISTRY_SNAPSHOT_FORMAT}`);
  const { epoch, version, mode, fingerprint } = value;
  if (typeof epoch !== "string" || typeof version !== "number" || (mode !== "substring" && mode !== "minisearch") || typeof fingerprint !== "string") {
    throw new SnapshotError("the snapshot's header is incomplete");
  }
  return { epoch, version, mode, fingerprint, indexed };
}

/** A snapshot's token counts of one shape, by row of its definitions (definitionTable.ts). */
interface CarriedCounts {
  tokens: Int32Array;
  heads: Interned;
  tails: Interned;
  seamable: Uint8Array;
}

/** Per definition table read, its token counts by shape: found when a tool is first counted, not set per tool. */
const carriedCounts = new WeakMap<object, ReadonlyMap<ToolShape, CarriedCounts>>();

carryToolTokenCounts((tool, shape) => {
  const at = snapshotRow(tool);
  const counts = at === undefined ? undefined : carriedCounts.get(at.table)?.get(shape);
  if (at === undefined || counts === undefined) return undefined;
  const { row } = at;
  return {
    tokens: counts.tokens[row] ?? 0,
    head: internedAt(counts.heads, row),
    tail: internedAt(counts.tails, row),
    seamable: counts.seamable[row] === 1,
  };
});

/**
 * The registry version a snapshot holds, read back, when it is exactly `expected` (version, mode, fingerprint) and
 * whole (the SHA-256 digest of the sections read up front, worked out by `digest`: Web Crypto's unless given); else
 * SnapshotError, naming why: a stale or corrupt snapshot is never served. The definitions are not validated again
 * (the digest and the chunks' checksums say they are what a registry of this locale validated), nor counted, nor indexed; each is checked (its chunk) and decoded when first read (definitionTable.ts),
 * and its token counts looked up when first counted. `onCorrupt`: told when a chunk checked later is found corrupt
 * (the read that found it throws SnapshotError), so that the caller stops serving from this snapshot.
 */
export async function decodeRegistrySnapshot(bytes: Uint8Array, expected: SnapshotBinding, onCorrupt?: (error: SnapshotError) => void, digest: BytesDigest = sha256Bytes): Promise<DecodedRegistrySnapshot> {
  const decoded = await decodeSnapshotOfEitherKind(bytes, expected, onCorrupt, digest);
  if (decoded.index === undefined) throw new SnapshotError("a registry snapshot without an index");
  return decoded;
}

/** decodeRegistrySnapshot, accepting a snapshot without an index too (the caller checks which kind it expects). */
export async function decodeSnapshotOfEitherKind(bytes: Uint8Array, expected: SnapshotBinding, onCorrupt?: (error: SnapshotError) => void, digest: BytesDigest = sha256Bytes): Promise<DecodedSnapshot> {
  const input = new SnapshotReader(bytes);
  const found = header(input);
  for (const field of ["epoch", "version", "mode", "fingerprint"] as const) {
    if (found[field] !== expected[field]) {
      throw new SnapshotError(`stale snapshot: ${field} ${JSON.stringify(found[field])}, not ${JSON.stringify(expected[field])}`);
    }
  }
  const written = input.u8();
  const body = input.u8();
  const deferred = input.u8();
  input.end();
  if (!sameDigest(await digest(body), written)) throw new SnapshotError("corrupt snapshot: its checksum does not match");
  const reader = new SnapshotReader(body, deferred, onCorrupt);
  const definitions = Object.freeze(readDefinitions(reader));
  const nameRows = reader.i32();
  const contexts = readInterned(reader, definitions.length, "contexts");
  const revisions = reader.i32();
  let skipped: unknown;
  try {
    skipped = JSON.parse(reader.text());
  } catch {
    throw new SnapshotError("the snapshot's skipped tools do not parse");
  }
  if (revisions.length !== definitions.length || !Array.isArray(skipped)) throw new SnapshotError("the snapshot's tool lists do not match");
  const tools = new SnapshotTools(definitions, contexts, revisions, nameRows);
  // A definition's lazy fields find its row through the same table of names (no map of every name made for them).
  const firstTool = definitions[0];
  if (firstTool !== undefined) useRowLookup(firstTool, (name) => tools.rowOf(name));
  const skippedTools: SnapshotSkippedTool[] = [];
  for (const entry of skipped as unknown[]) {
    if (!isSkippedTool(entry)) throw new SnapshotError("the snapshot's skipped tools are malformed");
    skippedTools.push({ name: entry.name, revision: entry.revision, error: entry.error });
  }
  const counts = new Map<ToolShape, CarriedCounts>();
  for (const name of reader.strings()) {
    const shape = TOOL_SHAPES.find((known) => known === name);
    if (shape === undefined) throw new SnapshotError(`unknown shape ${name}`);
    const tokens = reader.i32();
    const heads = readInterned(reader, definitions.length, "token counts");
    const tails = readInterned(reader, definitions.length, "token counts");
    const seamable = reader.u8();
    if (tokens.length !== definitions.length || seamable.length !== definitions.length) throw new SnapshotError("the snapshot's token counts do not match its tools");
    counts.set(shape, { tokens, heads, tails, seamable });
  }
  const first = definitions[0];
  const table = first === undefined ? undefined : snapshotRow(first)?.table;
  if (table !== undefined) carriedCounts.set(table, counts);
  const memoKeys = reader.strings();
  const memoCounts = reader.i32();
  if (memoCounts.length !== memoKeys.length) throw new SnapshotError("the snapshot's counted texts do not match");
  memoKeys.forEach((key, i) => rememberTokenCount(key, memoCounts[i] ?? 0));
  let seams: unknown;
  try {
    seams = JSON.parse(reader.text());
  } catch {
    throw new SnapshotError("the snapshot's seams do not parse");
  }
  if (!Array.isArray(seams)) throw new SnapshotError("the snapshot's seams are malformed");
  const carriedSeams: [string, number][] = [];
  for (const seam of seams as unknown[]) {
    if (!Array.isArray(seam) || seam.length !== 2 || typeof seam[0] !== "string" || typeof seam[1] !== "number") throw new SnapshotError("the snapshot's seams are malformed");
    carriedSeams.push([seam[0], seam[1]]);
  }
  rememberSeams(carriedSeams);
  let views: unknown;
  try {
    views = JSON.parse(reader.text());
  } catch {
    throw new SnapshotError("the snapshot's views do not parse");
  }
  if (!Array.isArray(views)) throw new SnapshotError("the snapshot's views are malformed");
  const snapshotViews: SnapshotView[] = [];
  for (const view of views as unknown[]) {
    if (!isSnapshotView(view)) throw new SnapshotError("the snapshot's views are malformed");
    snapshotViews.push(view);
  }
  const { indexed, ...binding } = found;
  if (!indexed) return { ...binding, tools, skipped: skippedTools, views: snapshotViews };
  const index = restoreSearchIndex(found.mode, definitions, reader);
  return { ...binding, tools, skipped: skippedTools, index, views: snapshotViews };
}
