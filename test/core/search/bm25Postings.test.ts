import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createSearchIndex } from "../../../src/core/search/createIndex.ts";
import { Bm25Postings, withinOneEdit } from "../../../src/core/search/bm25Postings.ts";
import { SnapshotError, SnapshotReader, SnapshotWriter } from "../../../src/core/search/snapshotCodec.ts";
import { FIELDS } from "../../../src/core/search/fields.ts";
import { SearchIndexCache } from "../../../src/core/search/indexCache.ts";
import { createMiniSearchIndex } from "../../../src/core/search/minisearch.ts";
import type { SearchIndex } from "../../../src/core/search/types.ts";
import type { ToolDefinition } from "../../../src/core/types.ts";
import { generatedCatalog, generatedQueries } from "../../support/generatedCatalog.ts";

/** Levenshtein distance, the textbook way. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0] ?? 0;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] ?? 0;
      row[j] = Math.min(above + 1, (row[j - 1] ?? 0) + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length] ?? 0;
}

describe("withinOneEdit", () => {
  it("is Levenshtein distance at most 1", () => {
    const word = fc.stringMatching(/^[abc]{0,6}$/u);
    fc.assert(fc.property(word, word, (a, b) => withinOneEdit(a, b) === distance(a, b) <= 1), { numRuns: 2_000 });
  });
});

const source = generatedCatalog(400, 5);
// Names too (upper-cased: a tool named exactly comes first, ignoring case), present in some versions and not others.
const queries = [
  ...generatedQueries(source.words, 25, 6),
  ...source.tools.slice(0, 6).map((tool) => `${tool.name.toUpperCase()} please`),
  "use added_1 and ADDED_3",
  // Keywords of one and two characters, common words (the substring index keeps their hits), punctuation.
  "a the to of and for with in",
  "ka lo, (mi)? x_1",
];

const odd = (name: string): boolean => name.length % 2 === 1;

/** What an index answers, on every query: the full ranking, a filtered first page with its count, relevance. */
function answers(index: SearchIndex): unknown[] {
  return queries.flatMap((query) => [index.search(query), index.searchPage(query, 5, odd), index.scored(query, 5, odd)]);
}

type Change = { kind: "add" } | { kind: "remove"; at: number } | { kind: "replace"; at: number } | { kind: "move"; at: number };

const change: fc.Arbitrary<Change> = fc.oneof(
  fc.constant({ kind: "add" as const }),
  fc.record({ kind: fc.constant("remove" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("replace" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("move" as const), at: fc.nat() }),
);

describe.each(["minisearch", "substring"] as const)("%s index updates", (mode) => {
  it("answer as a fresh build of the new catalog, whatever the sequence of changes", { timeout: 60_000 }, () => {
    let made = 0;
    fc.assert(
      fc.property(fc.array(fc.array(change, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 4 }), (versions) => {
        let catalog: ToolDefinition[] = source.tools.slice(0, 120);
        let index: SearchIndex = createSearchIndex(mode, catalog);
        for (const changes of versions) {
          // Asked before each change too: what an index keeps between searches must follow the change.
          answers(index);
          const next = [...catalog];
          for (const step of changes) {
            if (step.kind === "add" || next.length === 0) next.push(source.tool(`added_${made++}`));
            else if (step.kind === "remove") next.splice(step.at % next.length, 1);
            else if (step.kind === "replace") {
              const at = step.at % next.length;
              // The same name, other text (a new version of the tool).
              next[at] = { ...source.tool(`x_${made++}`), name: next[at]?.name ?? "" };
            } else {
              // Catalog order changes (ties rank in catalog order): one tool to the end, as a copy.
              const [moved] = next.splice(step.at % next.length, 1);
              if (moved) next.push(structuredClone(moved));
            }
          }
          const updated = index.update?.(next);
          expect(updated).toBeDefined();
          if (!updated) return;
          index = updated;
          catalog = next;
          expect(index.size).toBe(catalog.length);
          expect(answers(index)).toEqual(answers(createSearchIndex(mode, catalog)));
        }
      }),
      { numRuns: 25 },
    );
  });

  it("are refused when most of the catalog changed, or names repeat (a fresh build is due)", () => {
    const catalog = source.tools.slice(0, 100);
    const index = createSearchIndex(mode, catalog);
    expect(index.update?.(source.tools.slice(100, 200))).toBeUndefined();
    expect(index.update?.([...catalog, { ...source.tool("again"), name: catalog[0]?.name ?? "" }])).toBeUndefined();
    // Refusals leave the index as it was.
    expect(answers(index)).toEqual(answers(createSearchIndex(mode, catalog)));
    // An index built on repeated names is never patched.
    const repeated = [...catalog, { ...source.tool("twice"), name: catalog[1]?.name ?? "" }];
    expect(createSearchIndex(mode, repeated).update?.(catalog)).toBeUndefined();
  });
});

describe("substring index updates", () => {
  it("are refused once the tools added and removed since the build add up to a quarter of the catalog", () => {
    const big = generatedCatalog(600, 9).tools;
    let index: SearchIndex | undefined = createSearchIndex("substring", big.slice(0, 400));
    // 50 tools per version: 50 of 450 and 100 of 500 are patched, 150 of 550 (over 25%) is rebuilt.
    for (let size = 450; size <= 500; size += 50) {
      index = index?.update?.(big.slice(0, size));
      expect(index?.size).toBe(size);
    }
    expect(index?.update?.(big.slice(0, 550))).toBeUndefined();
    expect(index && answers(index)).toEqual(answers(createSearchIndex("substring", big.slice(0, 500))));
  });
});

describe("SearchIndexCache with updates", () => {
  it("patches the latest index of a mode for a new catalog version, and builds the other mode's", () => {
    const builds: string[] = [];
    const cache = new SearchIndexCache(4, (mode, tools) => {
      builds.push(mode);
      return createSearchIndex(mode, tools);
    });
    const v1 = source.tools.slice(0, 200);
    const v2 = [...v1, ...source.tools.slice(200, 210)];
    const first = cache.get("v1", "minisearch", () => v1);
    const second = cache.get("v2", "minisearch", () => v2);
    expect(second).toBe(first);
    expect(builds).toEqual(["minisearch"]);
    expect(answers(second)).toEqual(answers(createMiniSearchIndex(v2)));
    // v1's index became v2's: asking for v1 again patches it back rather than answering for v2.
    expect(cache.size).toBe(1);
    expect(answers(cache.get("v1", "minisearch", () => v1))).toEqual(answers(createMiniSearchIndex(v1)));
    expect(builds).toEqual(["minisearch"]);
    // The other mode's index is its own: built once, then patched too.
    const substring = cache.get("v1", "substring", () => v1);
    expect(cache.get("v2", "substring", () => v2)).toBe(substring);
    expect(builds).toEqual(["minisearch", "substring"]);
    expect(answers(substring)).toEqual(answers(createSearchIndex("substring", v2)));
  });
});

const describedTool = (name: string, description: string): ToolDefinition => ({ name, description, parameters: { type: "object", properties: {} } });

/** How many tools hold each term asked about (0: unknown). */
function frequencies(postings: Bm25Postings): number[] {
  return ["weather forecast", "get weather", "send mail", "forecast weather", "weather report", "weather", "mail weather", "a b c"].map((term) => postings.toolFrequency(term));
}

describe("pairs of adjacent words", () => {
  const tools = [describedTool("get_weather", "Weather forecast for a city"), describedTool("send_mail", "Send a mail, with the weather report")];

  it("are found by their two words, built, updated, restored and changed after a restore", () => {
    const built = new Bm25Postings(true);
    built.addTools(tools);
    // "get" is a stop word; "a" and "with the" are dropped, so "mail weather" is a pair.
    const expected = [1, 0, 1, 0, 1, 2, 1, 0];
    expect(frequencies(built)).toEqual(expected);
    const out = new SnapshotWriter();
    built.toSnapshot(out);
    const restored = new Bm25Postings(true);
    restored.restore(new SnapshotReader(out.finish()));
    expect(frequencies(restored)).toEqual(expected);
    // Asked again (its lookups remembered), and after more distinct terms than it remembers: the same answers.
    expect(frequencies(restored)).toEqual(expected);
    for (let n = 0; n < 1_500; n++) expect(restored.toolFrequency(`unheard${n}`)).toBe(0);
    expect(frequencies(restored)).toEqual(expected);
    // A change thaws the restored state: the pairs are then found by their words' ids too.
    restored.addTools([describedTool("forecast_weather", "Forecast weather; send mail")]);
    built.addTools([describedTool("forecast_weather", "Forecast weather; send mail")]);
    const grown = [1, 0, 2, 1, 1, 3, 1, 0];
    expect(frequencies(restored)).toEqual(grown);
    expect(frequencies(built)).toEqual(grown);
    built.removeSlot(0);
    expect(frequencies(built)).toEqual([0, 0, 2, 1, 1, 2, 1, 0]);
  });
});

/** A slot's forward list as sorted `term * 8 + field:frequency` entries (a restored index's order is its own). */
function forwardEntries(postings: Bm25Postings, slot: number): string[] {
  const forward = postings.forwardOf(slot);
  const entries: string[] = [];
  for (let at = 0; at < forward.length; at += 2) entries.push(`${forward[at]}:${forward[at + 1]}`);
  return entries.toSorted();
}

/** The source's tools, one with a long description of a word said 200 times (values past a byte), four removed. */
function builtIndex(size: number): Bm25Postings {
  const built = new Bm25Postings(true, 1);
  const long = describedTool("long_tool", `${"echo ".repeat(200)}${source.words.slice(0, 300).join(" ")}.`);
  built.addTools([...source.tools.slice(0, size), long]);
  // Removed: a term may then be held by no tool in a field and still keep its bounds (over every tool ever added).
  for (const slot of [0, 7, 50, size]) built.removeSlot(slot);
  return built;
}

describe("a restored index's term statistics", () => {
  const fieldCount = FIELDS.length;
  /** A term's statistics as its snapshot record holds them (tool count, then per field: count, top frequency, lengths). */
  function record(postings: Bm25Postings, id: number): Int32Array {
    const fields = Array.from({ length: fieldCount }, (_, field) => ({ count: postings.fieldFrequency(id, field), ...postings.fieldBounds(id, field) }));
    return Int32Array.from([
      postings.toolFrequencyOf(id),
      ...fields.map((field) => field.count),
      ...fields.map((field) => field.maxFrequency),
      ...fields.map((field) => field.minLength),
      ...fields.map((field) => field.maxLength),
    ]);
  }

  /** Every term's record. */
  function records(postings: Bm25Postings): Int32Array[] {
    return Array.from({ length: postings.termCount }, (_, id) => record(postings, id));
  }

  it("read back exactly as built, after removals, with values past a byte; the forward lists derived from the postings", () => {
    const built = builtIndex(source.tools.length);
    expect(Math.max(...records(built).map((values) => Math.max(...values)))).toBeGreaterThan(127);
    const out = new SnapshotWriter();
    built.toSnapshot(out);
    const restored = new Bm25Postings(true, 1);
    restored.restore(new SnapshotReader(out.finish()));
    expect(records(restored)).toEqual(records(built));
    // A term id out of range reads as no term's.
    expect(record(restored, built.termCount + 3)).toEqual(new Int32Array(1 + 4 * fieldCount));
    expect(restored.slotCount).toBe(built.slotCount);
    const slots = Array.from({ length: built.slotCount + 1 }, (_, slot) => slot);
    expect(slots.map((slot) => restored.isLive(slot))).toEqual(slots.map((slot) => built.isLive(slot)));
    expect(slots.map((slot) => forwardEntries(restored, slot))).toEqual(slots.map((slot) => forwardEntries(built, slot)));
    // Which tools hold which terms, asked before the forward lists are derived (a new restore) and after.
    const fresh = new Bm25Postings(true, 1);
    fresh.restore(new SnapshotReader(out.finish()));
    const asked = [0, 1, 2, built.termCount - 1].map((id) => new Set([id]));
    const holds = (postings: Bm25Postings): boolean[] => slots.flatMap((slot) => asked.map((ids) => postings.holdsAnyTerm(slot, ids)));
    expect(holds(fresh)).toEqual(holds(built));
    expect(holds(restored)).toEqual(holds(built));
    // Thawed by a change, it changes as the built index does, and writes the same snapshot.
    const added = describedTool("added_tool", "Added after the restore, echo echo");
    for (const postings of [restored, built]) {
      postings.addTools([added]);
      postings.removeSlot(3);
    }
    expect(records(restored)).toEqual(records(built));
    const again = new SnapshotWriter();
    restored.toSnapshot(again);
    const expected = new SnapshotWriter();
    built.toSnapshot(expected);
    expect(again.finish()).toEqual(expected.finish());
  });

  it("are checked per chunk when first read: a changed byte throws for the terms it holds, the others read as built", { timeout: 60_000 }, () => {
    const built = builtIndex(60);
    const out = new SnapshotWriter();
    built.toSnapshot(out);
    const bytes = out.finish();
    const expected = records(built);
    // The deferred area comes first (its length after the section's kind): a byte changed every 97 of it.
    const area = new DataView(bytes.buffer, bytes.byteOffset).getUint32(4, true);
    // What the reads refused (which section was corrupt), what went wrong otherwise, and per byte changed in the
    // statistics: how many terms were refused, and whether a change was refused too.
    const refused = new Set<string>();
    const wrong: string[] = [];
    const spoiled: { failed: number; changeRefused: boolean }[] = [];
    const refuse = (error: unknown): void => {
      if (error instanceof SnapshotError) refused.add(String(error).replace(/.* of its (.*) does not match.*/u, "$1"));
      else wrong.push(String(error));
    };
    for (let at = 8; at < 8 + area; at += 97) {
      const broken = bytes.slice();
      broken[at] = (broken[at] ?? 0) ^ 0x01;
      const restored = new Bm25Postings(true, 1);
      try {
        // The first and last of the terms' and records' starts are read by the restore.
        restored.restore(new SnapshotReader(broken));
      } catch (error) {
        refuse(error);
        continue;
      }
      let failed = 0;
      expected.forEach((values, id) => {
        try {
          const read = record(restored, id);
          if (read.some((value, i) => value !== values[i])) wrong.push(`term ${id} read ${String(read)}, not ${String(values)}`);
        } catch (error) {
          failed++;
          refuse(error);
        }
      });
      if (failed === 0) continue;
      // A change reads every record first: it throws before changing anything.
      let changeRefused = false;
      try {
        restored.addTools([describedTool("added_tool", "Added after the restore")]);
      } catch (error) {
        changeRefused = error instanceof SnapshotError && restored.termCount === expected.length;
      }
      spoiled.push({ failed, changeRefused });
    }
    expect(wrong).toEqual([]);
    expect(spoiled.length).toBeGreaterThan(0);
    // The other terms (other chunks) read as built.
    expect(spoiled.filter(({ failed, changeRefused }) => failed >= expected.length / 2 || !changeRefused)).toEqual([]);
    expect([...refused].filter((what) => what.startsWith("term statistic")).toSorted()).toEqual(["term statistic starts", "term statistics"]);
  });
});
