// A registry snapshot reads back as the version it was written for, or not at all: another version, mode or code
// fingerprint is stale, a changed byte is corrupt; both refused with SnapshotError, never half-read.
import { describe, expect, it } from "vitest";
import { createSearchIndex } from "../../../src/core/search/createIndex.ts";
import { SnapshotError } from "../../../src/core/search/snapshotCodec.ts";
import { validateToolDefinition } from "../../../src/core/tools/definition.ts";
import { decodeRegistrySnapshot, encodeRegistrySnapshot, snapshotFingerprint } from "../../../src/core/tools/registrySnapshot.ts";
import type { RegistrySnapshotContent, SnapshotBinding } from "../../../src/core/tools/registrySnapshot.ts";
import { toolTokens } from "../../../src/core/tools/toolTokens.ts";
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
  it("read back as written: definitions, contexts, revisions, skipped tools, token counts and the index", () => {
    const bytes = encodeRegistrySnapshot(content());
    expect(bytes).toBeDefined();
    const read = decodeRegistrySnapshot(bytes ?? new Uint8Array(), binding);
    expect(read.tools.map((tool) => tool.definition)).toEqual(definitions);
    expect(read.tools.map((tool) => [tool.context, tool.revision])).toEqual(content().tools.map((tool) => [tool.context, tool.revision]));
    expect(read.skipped).toEqual(content().skipped);
    // The counts came with the snapshot (the same as counting the read definitions afresh).
    expect(read.tools.map((tool) => toolTokens(tool.definition, "openai"))).toEqual(definitions.map((tool) => toolTokens(structuredClone(tool), "openai")));
    const fresh = createSearchIndex("minisearch", definitions);
    for (const query of ["the data file", "create user list", definitions[5]?.name ?? ""]) expect(read.index.scored(query, 10)).toEqual(fresh.scored(query, 10));
  });

  it("refuses a snapshot of another version, epoch, mode or fingerprint (stale)", () => {
    const bytes = encodeRegistrySnapshot(content()) ?? new Uint8Array();
    for (const other of [{ version: 8 }, { epoch: "epoch-2" }, { mode: "substring" as const }, { fingerprint: "0".repeat(16) }]) {
      expect(() => decodeRegistrySnapshot(bytes, { ...binding, ...other })).toThrow(/stale snapshot/);
    }
  });

  it("refuses a snapshot with any byte changed, or cut short (corrupt)", () => {
    const bytes = encodeRegistrySnapshot(content()) ?? new Uint8Array();
    for (const at of [bytes.length - 3, Math.floor(bytes.length / 2), Math.floor(bytes.length / 5), 4]) {
      const broken = bytes.slice();
      broken[at] = (broken[at] ?? 0) ^ 0x01;
      expect(() => decodeRegistrySnapshot(broken, binding)).toThrow(SnapshotError);
    }
    expect(() => decodeRegistrySnapshot(bytes.subarray(0, bytes.length - 100), binding)).toThrow(SnapshotError);
  });

  it("fingerprints the code per mode, locale and demo catalog, the same every time", () => {
    expect(snapshotFingerprint("minisearch", "en", true)).toBe(binding.fingerprint);
    const others = [snapshotFingerprint("substring", "en", true), snapshotFingerprint("minisearch", "zh", true), snapshotFingerprint("minisearch", "en", false)];
    expect(new Set([binding.fingerprint, ...others]).size).toBe(4);
  });
});
