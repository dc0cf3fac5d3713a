// A snapshot's definitions read back as the same definitions (fields, their order, frozen), each decoded only when one
// of its fields beyond name, original name and groups is first read.
import { describe, expect, it } from "vitest";
import { SnapshotError, SnapshotReader, SnapshotWriter } from "../../../src/core/search/snapshotCodec.ts";
import { validateToolDefinition } from "../../../src/core/tools/definition.ts";
import { readDefinitions, writeDefinitions } from "../../../src/core/tools/definitionTable.ts";
import type { ToolDefinition } from "../../../src/core/types.ts";

const definitions: ToolDefinition[] = [
  validateToolDefinition({ name: "get_weather", description: "Weather for a city.", parameters: { type: "object", properties: { city: { type: "string" } } } }),
  validateToolDefinition({ name: "send_mail", description: "Sends an e-mail; 邮件.", parameters: { type: "object" }, groups: ["mail", "office"], risk: "sensitive" }),
  validateToolDefinition({
    name: "x__echo", originalName: "echo.tool", description: "Echoes.", parameters: { type: "object" }, groups: ["mail", "office"],
    visibility: "restricted", confirm: "always", executor: { type: "mcp", upstream: "x", tool: "echo" },
  }),
  validateToolDefinition({ name: "plain", description: "Plain.", parameters: { type: "object", properties: { n: { type: "integer", minimum: 1 } } } }),
];

/** The keys `for … in` lists: own enumerable ones, then any a prototype adds. */
function keysIn(tool: object): string[] {
  const keys: string[] = [];
  for (const key in tool) keys.push(key);
  return keys;
}

function written(tools: readonly ToolDefinition[], keptBytes?: number): Uint8Array {
  const out = new SnapshotWriter();
  writeDefinitions(out, tools, keptBytes);
  return out.finish();
}

describe("definition tables", () => {
  it("read back as the same definitions: fields, their order, JSON, copies and structured clones", () => {
    const read = readDefinitions(new SnapshotReader(written(definitions)));
    expect(read).toEqual(definitions);
    expect(read.map((tool) => JSON.stringify(tool))).toEqual(definitions.map((tool) => JSON.stringify(tool)));
    expect(read.map((tool) => Object.keys(tool))).toEqual(definitions.map((tool) => Object.keys(tool)));
    expect(read.map((tool) => ({ ...tool }))).toEqual(definitions);
    expect(read.map((tool) => structuredClone(tool))).toEqual(definitions);
    // Each table's definitions share a prototype of their own, which holds nothing: every key in, every object method.
    expect(read.map(keysIn)).toEqual(definitions.map((tool) => Object.keys(tool)));
    expect(read.every((tool) => Object.getPrototypeOf(Object.getPrototypeOf(tool)) === Object.prototype && Object.hasOwn(tool, "name"))).toBe(true);
    expect(read.every((tool) => typeof tool.hasOwnProperty === "function" && tool.propertyIsEnumerable("name"))).toBe(true);
    expect("executor" in (read[0] ?? {})).toBe(false);
    expect(read[2]?.executor).toEqual({ type: "mcp", upstream: "x", tool: "echo" });
  });

  it("write the same bytes whether the packed texts are kept between the writer's passes, in part, or packed again", () => {
    const many = Array.from({ length: 300 }, (_, i) => validateToolDefinition({ name: `tool_${i}`, description: `Tool ${tag(i)} reads the weather of a city.`, parameters: { type: "object", properties: { city: { type: "string" } } } }));
    const kept = written(many);
    // Packed again on the second pass (nothing kept), and kept until a bound met half way (then packed again).
    expect(written(many, 0)).toEqual(kept);
    expect(written(many, kept.length / 4)).toEqual(kept);
    expect(readDefinitions(new SnapshotReader(kept)).map((tool) => tool.description)).toEqual(many.map((tool) => tool.description));
  });

  it("give each definition its own fields, a name written twice and two tables read alike included", () => {
    const twice = [...definitions, validateToolDefinition({ name: "get_weather", description: "A second tool of that name.", parameters: { type: "object" } })];
    const first = readDefinitions(new SnapshotReader(written(twice)));
    const second = readDefinitions(new SnapshotReader(written(twice.toReversed())));
    expect(first.map((tool) => tool.description)).toEqual(twice.map((tool) => tool.description));
    expect(second.map((tool) => tool.description)).toEqual(twice.toReversed().map((tool) => tool.description));
    // A copy of a definition is a plain object with the fields as values; an object made from one reads nothing.
    expect({ ...first[4] }).toEqual(twice[4]);
    expect(Object.create(first[0] ?? null).description).toBeUndefined();
  });

  it("are frozen, and so is everything a definition holds once read", () => {
    const read = readDefinitions(new SnapshotReader(written(definitions)));
    for (const tool of read) {
      expect(Object.isFrozen(tool)).toBe(true);
      expect(Object.isFrozen(tool.parameters)).toBe(true);
      expect(tool.groups === undefined || Object.isFrozen(tool.groups)).toBe(true);
    }
    const properties: unknown = read[3]?.parameters["properties"];
    expect(Object.isFrozen(properties)).toBe(true);
    expect(() => Object.defineProperty(properties, "n", { value: {} })).toThrow(TypeError);
    expect(read[3]?.parameters).toEqual(definitions[3]?.parameters);
  });

  it("decode a definition when a field past its name and groups is first read, not before", () => {
    const bytes = written(definitions);
    // Spoil the third definition's text (its description's first letter becomes a quote: no longer JSON), in the
    // texts' dictionary (four definitions' texts fit in it whole: each text is a reference to it).
    const at = findText(bytes, "Echoes.");
    bytes[at] = 0x22;
    const corrupt: SnapshotError[] = [];
    const read = readDefinitions(new SnapshotReader(bytes, undefined, (error) => corrupt.push(error)));
    // Read: what every definition holds up front. Nothing else was decoded, so nothing was checked yet.
    expect(read.map((tool) => [tool.name, tool.originalName, tool.groups])).toEqual(definitions.map((tool) => [tool.name, tool.originalName, tool.groups]));
    expect(corrupt).toEqual([]);
    // The first field read past them checks the dictionary: refused, every time, and the reader told.
    expect(() => read[2]?.description).toThrow(/corrupt snapshot: chunk 0 of its definition dictionary/);
    expect(() => read[1]?.description).toThrow(SnapshotError);
    expect(corrupt.length).toBe(2);
  });

  it("check the definitions' packed texts per chunk: a corrupt chunk refuses its definitions, the others read", () => {
    const many = Array.from({ length: 3000 }, (_, i) => validateToolDefinition({
      name: `tool_${i}`, description: `Tool number ${i} (${tag(i)}): it does the ${i}th thing of a long list of things to do.`, parameters: { type: "object" },
    }));
    const bytes = written(many);
    // Packed to under half (a dictionary of the shared words, each text's own letters as they are).
    expect(bytes.byteLength).toBeLessThan(many.reduce((sum, tool) => sum + JSON.stringify(tool).length, 0) / 2);
    expect(readDefinitions(new SnapshotReader(bytes))).toEqual(many);
    // A text the dictionary was not made from (its rows are spread evenly: 2500 is not one): its tag is in its
    // packed text only, as it is.
    const spoiled = 2500;
    const at = findText(bytes, tag(spoiled));
    bytes[at] = "W".charCodeAt(0);
    const read = readDefinitions(new SnapshotReader(bytes));
    // Unchecked, this would read another tag; refused instead.
    expect(() => read[spoiled]?.description).toThrow(/corrupt snapshot: chunk \d+ of its definition texts/);
    expect(read[0]?.description).toBe(many[0]?.description);
    expect(read[10]?.parameters).toEqual(many[10]?.parameters);
    // A byte of the dictionary (before the texts, and what every text refers to): every definition's reading refused.
    const common = readDefinitions(new SnapshotReader(written(many)));
    const broken = written(many);
    broken[findText(broken, "of things to do.")] = "W".charCodeAt(0);
    const refused = readDefinitions(new SnapshotReader(broken));
    expect(refused.map((tool) => tool.name)).toEqual(many.map((tool) => tool.name));
    for (const row of [0, 10, spoiled]) expect(() => refused[row]?.description).toThrow(/corrupt snapshot: chunk 0 of its definition dictionary/);
    expect(common[spoiled]?.description).toBe(many[spoiled]?.description);
  });

  it("refuse a text whose bytes pass their checksum but do not unpack, or unpack to something else than an object", () => {
    // Cut short; "[1]" (an array); a byte that is not UTF-8.
    for (const text of [Uint8Array.of(9, 1, 65), Uint8Array.of(3, 3, 91, 49, 93), Uint8Array.of(1, 1, 0xff)]) {
      const out = new SnapshotWriter();
      out.strings(["a"]);
      out.text("[]");
      out.text("[]");
      out.i32(Int32Array.of(-1));
      out.text('[["name","description"]]');
      out.i32(Int32Array.of(0));
      out.deferredU8(new Uint8Array(0));
      // Written as a writer that packs wrongly would: its checksums are right.
      out.deferredU8(text);
      out.i32(Int32Array.of(0, text.byteLength));
      const [read] = readDefinitions(new SnapshotReader(out.finish()));
      expect(read?.name).toBe("a");
      expect(() => read?.description).toThrow(SnapshotError);
    }
  });

  it("refuse sections that do not fit together", () => {
    const out = new SnapshotWriter();
    out.strings(["a", "b"]);
    out.text("[]");
    out.text("[]");
    out.i32(Int32Array.of(-1));
    out.text('[["name","description","parameters"]]');
    out.i32(Int32Array.of(0, 0));
    out.deferredU8(new Uint8Array(0));
    out.deferredU8(new Uint8Array(0));
    out.i32(Int32Array.of(0, 0, 0));
    expect(() => readDefinitions(new SnapshotReader(out.finish()))).toThrow(SnapshotError);
  });
});

/** Ten letters of `i`'s own, shared by no other tool. */
function tag(i: number): string {
  let rest = Math.imul(i + 1, 2_654_435_761) >>> 0;
  let letters = "";
  for (let k = 0; k < 10; k++) {
    letters += String.fromCharCode(97 + (rest % 26));
    rest = (Math.imul(rest, 1_103_515_245) + 12_345) >>> 0;
  }
  return `k${letters}`;
}

function findText(bytes: Uint8Array, text: string): number {
  const needle = new TextEncoder().encode(text);
  for (let i = 0; i + needle.length <= bytes.length; i++) {
    if (needle.every((byte, k) => bytes[i + k] === byte)) return i;
  }
  throw new Error(`${text} is not in the bytes`);
}
