// A registry snapshot reads back as the version it was written for, or not at all: another version, mode or code
// fingerprint is stale, a changed byte is corrupt; both refused with SnapshotError, never half-read.
import { createHash } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { defaultConfig, SEARCH_MODES, type GatewayConfig } from "../../../src/core/config.ts";
import { createSearchIndex } from "../../../src/core/search/createIndex.ts";
import { byteParts, collectBytes, snapshotChecksum, SnapshotError } from "../../../src/core/search/snapshotCodec.ts";
import { validateToolDefinition } from "../../../src/core/tools/definition.ts";
import { decodeRegistrySnapshot, decodeSnapshotOfEitherKind, encodeRegistrySnapshot, PagedRegistrySnapshot, PROBE_INDEX_CHECKSUMS, probeIndexChecksum, registrySnapshotStream, snapshotFingerprint } from "../../../src/core/tools/registrySnapshot.ts";
import type { RegistrySnapshotContent, SnapshotBinding } from "../../../src/core/tools/registrySnapshot.ts";
import { ToolRegistry } from "../../../src/core/tools/toolRegistry.ts";
import { toolListTokens, toolTokens } from "../../../src/core/tools/toolTokens.ts";
import { catalogFigures, firstTurnMetaToolTexts, prepareTurn, WarnOnce } from "../../../src/core/turn/prepare.ts";
import { generatedCatalog } from "../../support/generatedCatalog.ts";

const definitions = generatedCatalog(120, 3).tools.map((tool) => validateToolDefinition(tool));
const binding: SnapshotBinding = { epoch: "epoch-1", version: 7, mode: "minisearch", fingerprint: snapshotFingerprint("minisearch", "en", true) };

function content(): RegistrySnapshotContent {
  return {
    ...binding,
    tools: definitions.map((definition, i) => ({ definition, context: i % 2 === 0 ? "owner" : "upstream:x", revision: i % 3 === 0 ? -1 : i })),
    skipped: [{ name: "broken_tool", revision: 4, error: "parameters: not a schema" }],
    index: createSearchIndex("minisearch", definitions),
  };
}

describe("registry snapshots", () => {
  it("read back as written: definitions, contexts, revisions, skipped tools, token counts and the index", async () => {
    const bytes = await encodeRegistrySnapshot(content());
    expect(bytes).toBeDefined();
    const read = await decodeRegistrySnapshot(bytes ?? new Uint8Array(), binding);
    expect(read.tools.list().map((tool) => tool.definition)).toEqual(definitions);
    expect(read.tools.list().map((tool) => [tool.context, tool.revision])).toEqual(content().tools.map((tool) => [tool.context, tool.revision]));
    expect(read.skipped).toEqual(content().skipped);
    // The counts came with the snapshot (the same as counting the read definitions afresh).
    expect(read.tools.list().map((tool) => toolTokens(tool.definition, "openai"))).toEqual(definitions.map((tool) => toolTokens(structuredClone(tool), "openai")));
    const fresh = createSearchIndex("minisearch", definitions);
    for (const query of ["the data file", "create user list", definitions[5]?.name ?? ""]) expect(read.index.scored(query, 10)).toEqual(fresh.scored(query, 10));
  });

  it("finds each tool by name through its table of rows by name, before and after its lookups make a map", async () => {
    // Names that differ by case, digits, "-" and "_" only (what a name may hold).
    const named = ["b_tool", "B_tool", "a_tool", "z9", "z10", "_x", "-y", "a-tool", "A", "Z"]
      .map((name) => validateToolDefinition({ name, description: `The ${name} tool.`, parameters: { type: "object" } }));
    const all = [...named, ...definitions];
    const bytes = await encodeRegistrySnapshot({ ...content(), tools: all.map((definition) => ({ definition, context: "c", revision: 1 })), index: createSearchIndex("minisearch", all) });
    const { tools } = await decodeRegistrySnapshot(bytes ?? new Uint8Array(), binding);
    const absent = ["", "a", "b_Tool", "天", "zz", "\uffff"];
    // Twice over: the first round's first lookups (the absent names, the first tools) through the table, the rest
    // through a map of every name.
    for (let round = 0; round < 2; round++) {
      for (const name of absent) expect(tools.rowOf(name)).toBe(-1);
      all.forEach((definition, row) => expect(tools.rowOf(definition.name)).toBe(row));
    }
  });

  it("refuses a snapshot of another format, read as nothing else", async () => {
    const bytes = await encodeRegistrySnapshot(content()) ?? new Uint8Array();
    const text = new TextDecoder().decode(bytes.subarray(0, 200));
    const at = text.indexOf('"format":');
    expect(at).toBeGreaterThan(0);
    const older = bytes.slice();
    older[at + '"format":'.length] = "8".charCodeAt(0);
    await expect(decodeRegistrySnapshot(older, binding)).rejects.toThrow(/snapshot format 8, not 9/);
  });

  it("refuses a snapshot of another version, epoch, mode or fingerprint (stale)", async () => {
    const bytes = await encodeRegistrySnapshot(content()) ?? new Uint8Array();
    for (const other of [{ version: 8 }, { epoch: "epoch-2" }, { mode: "substring" as const }, { fingerprint: "0".repeat(16) }]) {
      await expect(decodeRegistrySnapshot(bytes, { ...binding, ...other })).rejects.toThrow(/stale snapshot/);
    }
  });

  it("refuses a snapshot with any byte changed, or cut short (corrupt), before anything from it is used", async () => {
    const bytes = await encodeRegistrySnapshot(content()) ?? new Uint8Array();
    const added = validateToolDefinition({ name: "added_tool", description: "Added after the snapshot.", parameters: { type: "object" } });
    /** Decodes, then reads every definition whole and changes the index (which reads all of its sections first). */
    const readAll = async (snapshot: Uint8Array): Promise<void> => {
      const read = await decodeRegistrySnapshot(snapshot, binding);
      JSON.stringify(read.tools.list().map((tool) => tool.definition));
      read.index.update?.([...definitions, added]);
    };
    await expect(readAll(bytes)).resolves.toBeUndefined();
    for (const at of [bytes.length - 3, Math.floor(bytes.length / 2), Math.floor(bytes.length / 5), Math.floor(bytes.length / 9), 4]) {
      const broken = bytes.slice();
      broken[at] = (broken[at] ?? 0) ^ 0x01;
      await expect(readAll(broken)).rejects.toThrow(SnapshotError);
    }
    await expect(decodeRegistrySnapshot(bytes.subarray(0, bytes.length - 100), binding)).rejects.toThrow(SnapshotError);
  });

  it("checks the sections read up front by their SHA-256 digest, whichever implementation works it out", async () => {
    const bytes = await encodeRegistrySnapshot(content()) ?? new Uint8Array();
    // The header's section, then the digest's (32 bytes past its 8-byte head).
    const headerBytes = new DataView(bytes.buffer, bytes.byteOffset).getUint32(4, true);
    const digestAt = 8 + Math.ceil(headerBytes / 8) * 8 + 8;
    const digested: Uint8Array[] = [];
    const nodeSha256 = (sections: Uint8Array): Promise<Uint8Array> => {
      digested.push(sections);
      return Promise.resolve(new Uint8Array(createHash("sha256").update(sections).digest()));
    };
    const read = await decodeRegistrySnapshot(bytes, binding, undefined, nodeSha256);
    expect(read.tools.definitions.map((definition) => definition.name)).toEqual(definitions.map((definition) => definition.name));
    // It digested the sections that follow the digest (their own section: 8 bytes of head), and found what was written.
    const [sections] = digested;
    expect(digested).toHaveLength(1);
    expect(sections?.byteOffset).toBe(bytes.byteOffset + digestAt + 32 + 8);
    expect(sameBytes(createHash("sha256").update(sections ?? new Uint8Array()).digest(), bytes.subarray(digestAt, digestAt + 32))).toBe(true);
    // A byte of the digest changed, or a digest that differs, refuses it.
    for (const at of [digestAt, digestAt + 31]) {
      const broken = bytes.slice();
      flip(broken, at, 0x80);
      await expect(decodeRegistrySnapshot(broken, binding)).rejects.toThrow(/corrupt snapshot: its checksum/);
    }
    await expect(decodeRegistrySnapshot(bytes, binding, undefined, () => Promise.resolve(new Uint8Array(32)))).rejects.toThrow(/corrupt snapshot: its checksum/);
  });

  it("checks a section read later when it is read: a changed definition text or term list is refused, never answered", async () => {
    const bytes = await encodeRegistrySnapshot(content()) ?? new Uint8Array();
    const tool = definitions[40];
    if (tool === undefined) throw new Error("no tool 40");
    // A byte of one tool's description (in the definition texts' dictionary, which these 120 tools' texts fit in
    // whole: every text refers to it): the snapshot still decodes (the dictionary is checked when a text is first read) ...
    const spoiled = bytes.slice();
    flip(spoiled, findText(spoiled, tool.description), 0x20);
    const corrupt: unknown[] = [];
    const read = await decodeRegistrySnapshot(spoiled, binding, (error) => corrupt.push(error));
    expect(read.tools.definitions[40]?.name).toBe(tool.name);
    // ... and its reading is refused rather than giving the changed text.
    expect(() => read.tools.definitions[40]?.description).toThrow(/corrupt snapshot: chunk 0 of its definition dictionary/);
    expect(() => read.tools.definitions[3]?.parameters).toThrow(/corrupt snapshot/);
    expect(corrupt).toHaveLength(2);
    // A byte of the index's term tables (the deferred area's last bytes are its one-edit table's; the statistics and
    // postings lie before them): a search reading them throws, or the change, which checks them all first.
    for (const from of [bytes.length - 16, bytes.length - 2_000]) {
      const broken = bytes.slice();
      flip(broken, from, 0x04);
      const { index } = await decodeRegistrySnapshot(broken, binding);
      expect(() => {
        for (const query of ["the data file", "create user list", "remove old entries from the store", tool.name]) index.scored(query, 10);
        index.update?.(definitions.slice(1));
      }).toThrow(SnapshotError);
    }
  });

  it("checks the substring index's word lists and postings when a search reads them: a changed byte there is refused, never answered", async () => {
    const substring: SnapshotBinding = { ...binding, mode: "substring", fingerprint: snapshotFingerprint("substring", "en", true) };
    const bytes = await encodeRegistrySnapshot({ ...content(), ...substring, index: createSearchIndex("substring", definitions) }) ?? new Uint8Array();
    // Every character and pair of adjacent letters or digits the catalog's names and descriptions hold, and every
    // three code units of a word, each a keyword of its own: together they read every list of the index's character
    // tables, every word's postings, and every keyword's carried hits.
    const keywords = new Set<string>();
    for (const tool of definitions) {
      for (const text of [tool.name, tool.description].map((value) => value.toLowerCase())) {
        for (let i = 0; i < text.length; i++) {
          keywords.add(text.charAt(i));
          if (/^[a-z0-9]{2}$/.test(text.slice(i, i + 2))) keywords.add(text.slice(i, i + 2));
          if (/^\S{3}$/u.test(text.slice(i, i + 3))) keywords.add(text.slice(i, i + 3));
        }
      }
    }
    // As written, a keyword of one to three code units that hits many tools reads the hits carried for it; once the
    // index is updated (a tool removed), the same keywords walk their lists and postings.
    const searchAll = async (snapshot: Uint8Array): Promise<void> => {
      const { index } = await decodeRegistrySnapshot(snapshot, substring);
      for (const keyword of keywords) index.searchPage(keyword, 5);
      const updated = index.update?.(definitions.slice(1));
      if (updated === undefined) throw new Error("the substring index was not updated in place");
      for (const keyword of keywords) updated.searchPage(keyword, 5);
    };
    await expect(searchAll(bytes)).resolves.toBeUndefined();
    const fresh = createSearchIndex("substring", definitions);
    const intact = (await decodeRegistrySnapshot(bytes, substring)).index;
    for (const keyword of keywords) expect(intact.searchPage(keyword, 5)).toEqual(fresh.searchPage(keyword, 5));
    // The deferred area's last sections are the vocabulary's postings, its character and pair lists, then the hits
    // it carries: a byte changed in each (the snapshot still decodes: they are checked when read) fails the search
    // that reads it.
    const refused = new Set<string>();
    // From the end backwards until a byte of each has been changed (the sections run to tens of kilobytes).
    for (let fromEnd = 16; refused.size < 4 && fromEnd < 200_000; fromEnd += 1_000) {
      const broken = bytes.slice();
      flip(broken, bytes.length - fromEnd, 0x02);
      await expect(decodeRegistrySnapshot(broken, substring)).resolves.toBeDefined();
      await expect(searchAll(broken)).rejects.toThrow(/corrupt snapshot: chunk \d+ of its (vocabulary's postings|character lists|character pair lists|carried hits)/);
      try {
        await searchAll(broken);
      } catch (error) {
        refused.add(String(error).replace(/.* of its (.*) does not match.*/u, "$1"));
      }
    }
    expect([...refused].toSorted()).toEqual(["carried hits", "character lists", "character pair lists", "vocabulary's postings"]);
    // Written again only whole: a restored index writing its snapshot checks every list first.
    const broken = bytes.slice();
    flip(broken, bytes.length - 16, 0x02);
    const { index } = await decodeRegistrySnapshot(broken, substring);
    await expect(encodeRegistrySnapshot({ ...content(), ...substring, index })).rejects.toThrow(SnapshotError);
  });

  it("writes, in parts of any size, the bytes the code before it wrote whole (with an index and without)", async () => {
    // Several 64 KiB chunks of definition texts, one tool's text in UTF-8 past ASCII; the checksums and lengths are
    // those the whole-buffer writer gave for the same content (format 9: a change of layout changes them).
    const long = validateToolDefinition({ name: "long_described", description: "Reads the weather 天气预报 for a city, and more. ".repeat(80), parameters: { type: "object" }, groups: ["weather"] });
    const tools = [...generatedCatalog(600, 3).tools.map((tool) => validateToolDefinition(tool)), long];
    const fixed = { epoch: "epoch-1", version: 7, mode: "minisearch" as const, fingerprint: "f".repeat(16) };
    const listed = tools.map((definition, i) => ({ definition, context: i % 2 === 0 ? "owner" : "upstream:x", revision: i % 3 === 0 ? -1 : i }));
    const kinds: [RegistrySnapshotContent, number, string][] = [
      [{ ...fixed, tools: listed, skipped: [{ name: "broken_tool", revision: 4, error: "x" }], countTools: false }, 158_008, "6a434281f1a83104"],
      [{ ...fixed, tools: listed, skipped: [], index: createSearchIndex("minisearch", tools) }, 998_304, "27e0d87836d8e698"],
    ];
    for (const [written, length, checksum] of kinds) {
      const whole = await encodeRegistrySnapshot(written) ?? new Uint8Array();
      expect([whole.length, snapshotChecksum(whole)]).toEqual([length, checksum]);
      const stream = await registrySnapshotStream(written);
      if (stream === undefined) throw new Error("no snapshot");
      for (const partBytes of [4 * 1024 * 1024, 65_536, 1_000]) {
        const parts = [...byteParts(stream, partBytes)];
        expect(sameBytes(collectBytes({ byteLength: stream.byteLength, pieces: () => parts }), whole)).toBe(true);
      }
    }
    // Made page by page (the writer of a sharded registry: PagedRegistrySnapshot), in pages of any size: the same bytes.
    for (const pageTools of [1, 7, 250, listed.length]) {
      const paged = new PagedRegistrySnapshot();
      for (let at = 0; at < listed.length; at += pageTools) paged.add(listed.slice(at, at + pageTools));
      expect(paged.size).toBe(listed.length);
      const bytes = await paged.finish(fixed, [{ name: "broken_tool", revision: 4, error: "x" }]);
      expect([bytes.length, snapshotChecksum(bytes)]).toEqual([158_008, "6a434281f1a83104"]);
      // Laid out once: its pages were let go as they were.
      await expect(paged.finish(fixed, [])).rejects.toThrow(/laid out already/u);
      expect(() => paged.add(listed.slice(0, 1))).toThrow(/laid out already/u);
    }
    // Read back from its parts: the same tools, in the same order, with the same contexts and revisions.
    const [without] = kinds[0] ?? [];
    const stream = without === undefined ? undefined : await registrySnapshotStream(without);
    if (stream === undefined) throw new Error("no snapshot");
    const read = await decodeSnapshotOfEitherKind(collectBytes({ byteLength: stream.byteLength, pieces: () => [...byteParts(stream, 65_536)] }), fixed);
    expect(read.index).toBeUndefined();
    expect(read.tools.list()).toEqual(listed);
  });

  it("refuses a snapshot written in parts with one byte changed: its head when read, a definition's text when that is read", async () => {
    const written: RegistrySnapshotContent = { ...binding, tools: content().tools, skipped: content().skipped, countTools: false };
    const stream = await registrySnapshotStream(written);
    if (stream === undefined) throw new Error("no snapshot");
    const parts = [...byteParts(stream, 4_096)];
    const joined = (spoil: (parts: Uint8Array[]) => void): Uint8Array => {
      const copies = parts.map((part) => part.slice());
      spoil(copies);
      return collectBytes({ byteLength: stream.byteLength, pieces: () => copies });
    };
    expect((await decodeSnapshotOfEitherKind(joined(() => undefined), binding)).tools.list()).toEqual(written.tools);
    // A byte of the sections read up front (the names, in the second part): refused before anything is used.
    await expect(decodeSnapshotOfEitherKind(joined((copies) => flip(copies[1] ?? new Uint8Array(), 100, 0x02)), binding)).rejects.toThrow(/corrupt snapshot: its checksum/);
    // A byte of one tool's description, in whichever part holds it: that tool's reading is refused, never answered.
    const tool = definitions[70];
    if (tool === undefined) throw new Error("no tool 70");
    const whole = collectBytes(stream);
    const at = findText(whole, tool.description);
    const read = await decodeSnapshotOfEitherKind(joined((copies) => flip(copies[Math.floor(at / 4_096)] ?? new Uint8Array(), at % 4_096, 0x20)), binding);
    expect(read.tools.definitions[70]?.name).toBe(tool.name);
    expect(() => read.tools.definitions[70]?.description).toThrow(/corrupt snapshot/);
  });

  it("fingerprints the code per mode, locale and demo catalog, the same every time", async () => {
    expect(snapshotFingerprint("minisearch", "en", true)).toBe(binding.fingerprint);
    const others = [snapshotFingerprint("substring", "en", true), snapshotFingerprint("minisearch", "zh", true), snapshotFingerprint("minisearch", "en", false)];
    expect(new Set([binding.fingerprint, ...others]).size).toBe(4);
  });

  it("lets a cold isolate's first prepare count its list without building the tokenizer, to the same figures", async () => {
    const quiet = { warn: (): void => undefined, error: (): void => undefined, log: (): void => undefined };
    // "fixed" sends call_tool too; "grow" and "stable" send the same first turn (nothing discovered yet); an
    // always-direct tool is left out of the search_tools list.
    const lists: [GatewayConfig["toolList"], string[]][] = [["fixed", []], ["grow", []], ["grow", [definitions[2]?.name ?? ""]]];
    for (const [toolList, alwaysDirectTools] of lists) {
      for (const mode of SEARCH_MODES) {
        const config: GatewayConfig = { ...defaultConfig(), searchMode: mode, toolList, alwaysDirectTools, autoDiscover: { ...defaultConfig().autoDiscover, topK: 3 } };
        const writer = new ToolRegistry({ logger: quiet });
        writer.registerMany(definitions, "owner");
        const catalog = writer.getDefinitions({ groups: ["*"] });
        const bound = { ...binding, mode, fingerprint: snapshotFingerprint(mode, "en", true) };
        const bytes = await encodeRegistrySnapshot({
          ...bound,
          tools: catalog.map((definition) => ({ definition, context: "owner", revision: 1 })),
          skipped: [],
          index: createSearchIndex(mode, catalog),
          views: [{ groups: ["*"], ...catalogFigures(catalog, config) }],
          countedTexts: firstTurnMetaToolTexts(catalog, config, "openai"),
        }) ?? new Uint8Array();
        const turn = { messages: [{ role: "user", content: "create a user list from the data file" }], discovered: [], config };
        const expected = prepareTurn({ ...turn, tools: catalog, warnings: new WarnOnce(quiet), searchIndex: createSearchIndex(mode, catalog) });
        expect(expected.stats.tokensSent).toBe(toolListTokens(expected.tools.map((tool) => structuredClone(tool)), "openai"));

        // A new isolate: every module fresh (no counts, no memo, no tokenizer), as bench/coldIsolate.ts's child.
        vi.resetModules();
        const cold = {
          ...(await import("../../../src/core/tools/registrySnapshot.ts")),
          ...(await import("../../../src/core/tools/toolRegistry.ts")),
          ...(await import("../../../src/core/turn/prepare.ts")),
          ...(await import("../../../src/core/tools/tokens.ts")),
          ...(await import("../../../src/isolate/wordVectors.ts")),
        };
        cold.provideBundledWordVectors();
        const read = await cold.decodeRegistrySnapshot(bytes, bound);
        const registry = new cold.ToolRegistry({ logger: quiet });
        registry.registerTable(read.tools);
        for (const view of read.views ?? []) registry.whenListed(view.groups, (listed) => cold.rememberCatalogFigures(listed, view));
        const tools = registry.getDefinitions({ groups: ["*"] });
        const first = cold.prepareTurn({ ...turn, tools, warnings: new cold.WarnOnce(quiet), searchIndex: read.index });
        expect({ toolList, mode, built: cold.tokenizerBuilt() }).toEqual({ toolList, mode, built: false });
        expect(first.stats).toEqual(expected.stats);
        expect(first.tools.map((tool) => tool.name)).toEqual(expected.tools.map((tool) => tool.name));
        vi.resetModules();
      }
    }
  }, 60_000);

  it("holds the probe index checksums this code computes (update PROBE_INDEX_CHECKSUMS when analysis changes)", async () => {
    // The fingerprint takes them from the constant (a cold isolate does not index the probe catalog): were it out of
    // date, snapshots written by code that analyzes differently would be read as this code's.
    for (const mode of SEARCH_MODES) expect(`${mode} ${probeIndexChecksum(mode)}`).toBe(`${mode} ${PROBE_INDEX_CHECKSUMS[mode]}`);
  });
});

/** Byte by byte (toEqual over megabytes takes seconds). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

function flip(bytes: Uint8Array, at: number, bits: number): void {
  bytes[at] = (bytes[at] ?? 0) ^ bits;
}

function findText(bytes: Uint8Array, text: string): number {
  const needle = new TextEncoder().encode(text);
  for (let i = 0; i + needle.length <= bytes.length; i++) {
    if (needle.every((byte, k) => bytes[i + k] === byte)) return i;
  }
  throw new Error(`${text} is not in the bytes`);
}
