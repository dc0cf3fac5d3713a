// The warm-up a new isolate runs at its start (src/core/turn/warmUp.ts): its bundled snapshots are current, it runs
// every mode's searches and prepares on them, it reports (never throws) what does not read, and it answers nobody.
import { describe, expect, it } from "vitest";
import { demoCatalog } from "../../../src/catalog/demo.ts";
import { defaultConfig, SEARCH_MODES, type SearchMode } from "../../../src/core/config.ts";
import { createSearchIndex } from "../../../src/core/search/createIndex.ts";
import { validateToolDefinition } from "../../../src/core/tools/definition.ts";
import { runSearchTools } from "../../../src/core/turn/searchTools.ts";
import minisearchSnapshot from "../../../src/core/turn/warmUp.minisearch.bin";
import substringSnapshot from "../../../src/core/turn/warmUp.substring.bin";
import { provideWarmUpSnapshots, warmUp, warmUpSnapshotBytes, WARM_UP_STRIDE } from "../../../src/core/turn/warmUp.ts";

const bundled: Record<SearchMode, ArrayBuffer> = { minisearch: minisearchSnapshot, substring: substringSnapshot };

function provideBundled(): void {
  provideWarmUpSnapshots((mode) => bundled[mode]);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, at) => byte === b[at]);
}

describe("the warm-up at an isolate's start", () => {
  it.each(SEARCH_MODES)("bundles, in %s mode, the snapshot scripts/warmUpSnapshots.ts writes", async (mode) => {
    const fresh = await warmUpSnapshotBytes(mode, demoCatalog());
    const stale = `src/core/turn/warmUp.${mode}.bin differs from what the code writes: run node scripts/warmUpSnapshots.ts`;
    expect(sameBytes(new Uint8Array(bundled[mode]), fresh) ? "current" : stale).toBe("current");
  });

  it.each(SEARCH_MODES)("runs %s mode's searches and prepares over every eighth demo tool", async (mode) => {
    provideBundled();
    expect(await warmUp(mode)).toEqual({ ok: true, searches: 8, prepares: 2 });
    expect(WARM_UP_STRIDE).toBe(8);
  });

  it("reports a snapshot that does not read, or none, and never throws", async () => {
    try {
      provideWarmUpSnapshots((mode) => bundled[mode === "minisearch" ? "substring" : "minisearch"]);
      const otherMode = await warmUp("minisearch");
      expect(otherMode.ok).toBe(false);
      const corrupt = new Uint8Array(bundled.minisearch.slice(0));
      corrupt[corrupt.length >> 1] = (corrupt[corrupt.length >> 1] ?? 0) ^ 0xff;
      provideWarmUpSnapshots(() => corrupt);
      expect(await warmUp("minisearch")).toMatchObject({ ok: false, reason: expect.stringMatching(/snapshot/) });
      provideWarmUpSnapshots(() => new Uint8Array(0));
      expect((await warmUp("substring")).ok).toBe(false);
      provideWarmUpSnapshots(() => {
        throw new Error("no bytes here");
      });
      expect(await warmUp("substring")).toEqual({ ok: false, reason: "no bytes here" });
    } finally {
      provideBundled();
    }
  });

  it.each(SEARCH_MODES)("leaves a catalog with the warm-up's tool names to answer with its own tools (%s)", async (mode) => {
    provideBundled();
    const config = { ...defaultConfig(), searchMode: mode };
    // Tools named as the warm-up's are, described otherwise: searched before and after a warm-up, the same answers.
    const names = demoCatalog().filter((_, at) => at % WARM_UP_STRIDE === 0).map((tool) => tool.name);
    const catalog = names.map((name, at) =>
      validateToolDefinition({ name, description: `Ledger entry ${at}: books an invoice line to account ${at}.`, parameters: { type: "object" } }),
    );
    const search = async (): Promise<unknown> =>
      runSearchTools({ query: "book an invoice line to an account" }, { catalog, index: createSearchIndex(mode, catalog), enabledGroups: undefined, config });
    const before = JSON.stringify(await search());
    expect((await warmUp(mode)).ok).toBe(true);
    const after = JSON.stringify(await search());
    expect(after).toBe(before);
    expect(after).toContain("books an invoice line");
    expect(after).not.toContain("weather");
  });
});
