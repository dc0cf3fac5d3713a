import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { missingTexts, registerStoredTools, storedFromSnapshot } from "../../../src/core/tools/storedTools.ts";
import type { StoredDefinitions, StoredTool } from "../../../src/core/tools/storedTools.ts";
import { ToolRegistry } from "../../../src/core/tools/toolRegistry.ts";
import type { Locale } from "../../../src/core/types.ts";

const text = (name: string, description: string): string =>
  JSON.stringify({ name, description, parameters: { type: "object", properties: { q: { type: "string" } } } });
const stored = (name: string, description: string): StoredTool => ({ name, definition: text(name, description), context: "runtime" });
/** A stored text: the tool's JSON, or text that is not JSON at all. */
const toolText = (name: string, body: string): string => (body === "not json" ? "{not json" : text(name, body));
/**
 * The version after `from`: each tool listed as `how` says (unchanged without its text or with it, rewritten, in another
 * context, or not at all), then the `added` tools `from` lacks, all at `revision`.
 */
const nextVersion = (from: readonly StoredTool[], how: readonly string[], revision: number, added: readonly { name: string; body: string; context: string }[]): StoredTool[] => {
  const listed: StoredTool[] = [];
  from.forEach((tool, i) => {
    const kind = how[i] ?? "same";
    if (kind === "same") listed.push({ name: tool.name, context: tool.context, revision: tool.revision ?? 0 });
    else if (kind === "sameWithText") listed.push({ ...tool, revision });
    else if (kind === "rewritten") listed.push({ ...tool, definition: toolText(tool.name, "Rewritten."), revision });
    else if (kind === "otherContext") listed.push({ ...tool, context: tool.context === "c1" ? "c2" : "c1", revision });
  });
  const held = new Set(from.map((tool) => tool.name));
  for (const { name, body, context } of added) if (!held.has(name)) listed.push({ name, definition: toolText(name, body), context, revision });
  return listed;
};
const registry = (locale: Locale = "en"): ToolRegistry => new ToolRegistry({ logger: { warn: () => undefined }, locale });

describe("registerStoredTools", () => {
  it("keeps the definitions of unchanged texts, validates changed and new ones, forgets removed ones", () => {
    const skipped: string[] = [];
    const first = registry();
    const v1 = registerStoredTools(first, [stored("a", "Tool a."), stored("b", "Tool b."), stored("c", "Tool c.")], new Map(), (name) => skipped.push(name));
    const second = registry();
    const v2 = registerStoredTools(second, [stored("a", "Tool a."), stored("b", "Tool b, changed."), stored("d", "Tool d.")], v1, (name) => skipped.push(name));
    expect(skipped).toEqual([]);
    expect(second.get("a")?.definition).toBe(first.get("a")?.definition);
    expect(second.get("b")?.definition).not.toBe(first.get("b")?.definition);
    expect(second.get("b")?.definition.description).toBe("Tool b, changed.");
    expect(second.get("d")?.definition.description).toBe("Tool d.");
    // What the next version compares with: the three stored now, not the one removed.
    expect(v2.size).toBe(3);
    expect(["a", "b", "c", "d"].map((name) => v2.get(name)?.text === undefined)).toEqual([false, false, true, false]);
    const kept = v2.get("a");
    expect(kept && "definition" in kept ? kept.definition : undefined).toBe(first.get("a")?.definition);
  });

  it("registers a tool that comes without its text as the previous version's, and names one the previous lacks", () => {
    const skipped: string[] = [];
    const first = registry();
    const v1 = registerStoredTools(first, [{ ...stored("a", "Tool a."), revision: 3 }, { ...stored("bad", ""), revision: 3 }], new Map(), (name) => skipped.push(name));
    expect(skipped).toEqual(["bad"]);
    // Version 4 as the registry object sends it to a reader of version 3: a and bad unchanged (no text), c new.
    const next = [{ name: "a", context: "runtime", revision: 3 }, { name: "bad", context: "runtime", revision: 3 }, { ...stored("c", "Tool c."), revision: 4 }];
    expect(missingTexts(next, v1)).toEqual([]);
    const second = registry();
    const v2 = registerStoredTools(second, next, v1, (name) => skipped.push(name));
    expect(second.get("a")?.definition).toBe(first.get("a")?.definition);
    expect(second.get("c")?.definition.description).toBe("Tool c.");
    // What did not validate is reported again on every version that stores it, and never registered.
    expect(skipped).toEqual(["bad", "bad"]);
    expect(second.get("bad")).toBeUndefined();
    expect(v2.size).toBe(3);
    expect(["a", "bad", "c"].map((name) => v2.get(name)?.revision)).toEqual([3, 3, 4]);
    const bad = v2.get("bad");
    expect(bad && "error" in bad).toBe(true);

    // A text left out that the previous version does not hold (at that revision): named, and registering throws.
    const stale = [{ name: "a", context: "runtime", revision: 5 }, { name: "z", context: "runtime", revision: 2 }];
    expect(missingTexts(stale, v2)).toEqual(["a", "z"]);
    expect(() => registerStoredTools(registry(), stale, v2, () => undefined)).toThrow(/"a" came without its text/u);
  });

  it("skips what does not validate (and reports it again on every version that stores it), without stopping the others", () => {
    const skipped: string[] = [];
    const bad: StoredTool = { name: "bad", definition: text("bad", ""), context: "runtime" };
    const broken: StoredTool = { name: "broken", definition: "{", context: "runtime" };
    const first = registry();
    const v1 = registerStoredTools(first, [bad, broken, stored("ok", "Fine.")], new Map(), (name) => skipped.push(name));
    expect(skipped.toSorted()).toEqual(["bad", "broken"]);
    expect(first.get("ok")).toBeDefined();
    registerStoredTools(registry(), [bad, broken], v1, (name) => skipped.push(name));
    expect(skipped.toSorted()).toEqual(["bad", "bad", "broken", "broken"]);
  });

  it("takes over the previous registry's entries of unchanged tools, which stay apart from the new registry's changes", () => {
    const first = registry();
    const v1 = registerStoredTools(first, [stored("a", "Tool a."), stored("b", "Tool b.")], new Map(), () => undefined);
    const second = registry();
    // A tool the new registry holds already (as the demo catalog's are) is replaced the usual way, not taken over.
    second.registerMany([{ name: "b", description: "Built in b.", parameters: { type: "object" } }], "demo");
    registerStoredTools(second, [stored("a", "Tool a."), stored("b", "Tool b."), stored("c", "Tool c.")], v1, () => undefined, first);
    expect(second.get("a")).toBe(first.get("a"));
    expect(second.get("b")).not.toBe(first.get("b"));
    expect(second.get("b")?.contextId).toBe("runtime");
    expect(second.list().map((tool) => tool.definition.name)).toEqual(["b", "a", "c"]);
    // Each registry changes on its own: removing a taken-over tool from one leaves the other as it was.
    expect(second.unregister("a")).toBe(true);
    expect(first.get("a")?.definition.description).toBe("Tool a.");
    expect(second.get("a")).toBeUndefined();
    const dispose = second.register({ name: "d", description: "Tool d.", parameters: { type: "object" } }, "runtime");
    dispose();
    expect(second.get("d")).toBeUndefined();
    expect(first.list().map((tool) => tool.definition.name)).toEqual(["a", "b"]);
    // A registry of another locale takes nothing over.
    const chinese = registry("zh");
    registerStoredTools(chinese, [stored("a", "Tool a.")], v1, () => undefined, first);
    expect(chinese.get("a")).not.toBe(first.get("a"));
  });

  it("validates anew for a registry of another locale", () => {
    const first = registry("en");
    const v1 = registerStoredTools(first, [stored("a", "Tool a.")], new Map(), () => undefined);
    const chinese = registry("zh");
    registerStoredTools(chinese, [stored("a", "Tool a.")], v1, () => undefined);
    expect(chinese.get("a")?.definition).not.toBe(first.get("a")?.definition);
    expect(chinese.get("a")?.definition).toEqual(first.get("a")?.definition);
  });

  it("answers for every tool of the version it registered, and only those, whether it took tools over or not (property)", () => {
    const names = ["a", "b", "c", "d", "e", "f"];
    const version = fc.uniqueArray(
      fc.record({ name: fc.constantFrom(...names), body: fc.constantFrom("Tool one.", "Tool two.", "", "not json"), context: fc.constantFrom("c1", "c2") }),
      { selector: (tool) => tool.name, maxLength: 6 },
    );
    /** How the next version lists each tool (nextVersion). */
    const changes = fc.array(fc.constantFrom("same", "sameWithText", "rewritten", "otherContext", "dropped"), { minLength: 6, maxLength: 6 });
    /** Each name's reading: its text, revision, and the registry's definition or that it did not validate. */
    const reading = (target: ToolRegistry, kept: StoredDefinitions) => ({
      size: kept.size,
      byName: names.map((name) => {
        const entry = kept.get(name);
        return entry && [entry.text, entry.revision, "definition" in entry ? entry.definition === target.get(name)?.definition : "error"];
      }),
    });
    /** What a version should answer: each stored tool's text and revision, and whether it validates. */
    const expected = (listed: readonly StoredTool[]) => ({
      size: listed.length,
      byName: names.map((name) => {
        const tool = listed.find((other) => other.name === name);
        if (!tool) return undefined;
        const body = tool.definition ?? "";
        return [body, tool.revision, body.startsWith("{not") || body.includes('"description":""') ? "error" : true];
      }),
    });
    fc.assert(
      fc.property(version, changes, version, changes, (first, changed, added, changedLater) => {
        const v1: StoredTool[] = first.map(({ name, body, context }) => ({ name, definition: toolText(name, body), context, revision: 1 }));
        const v2 = nextVersion(v1, changed, 2, added);
        const texts = new Map(v1.map((tool) => [tool.name, tool.definition ?? ""]));
        const v2Texts = v2.map((tool) => ({ ...tool, definition: tool.definition ?? texts.get(tool.name) ?? "" }));
        const v3 = nextVersion(v2Texts, changedLater, 3, []);
        for (const takeOver of [true, false]) {
          const r1 = registry();
          const k1 = registerStoredTools(r1, v1, new Map(), () => undefined);
          const r2 = registry();
          const k2 = registerStoredTools(r2, v2, k1, () => undefined, takeOver ? r1 : undefined);
          const r3 = registry();
          const k3 = registerStoredTools(r3, v3, k2, () => undefined, takeOver ? r2 : undefined);
          expect(reading(r1, k1)).toEqual(expected(v1));
          expect(reading(r2, k2)).toEqual(expected(v2Texts));
          expect(reading(r3, k3)).toEqual(expected(v3.map((tool) => ({ ...tool, definition: tool.definition ?? v2Texts.find((other) => other.name === tool.name)?.definition }))));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("storedFromSnapshot", () => {
  it("answers a snapshot's stored tools by name, and the next version takes the unchanged ones over as they are", () => {
    // A version built from the texts, its definitions as a snapshot's table (registrySnapshot.ts) with revisions by row.
    const v1: StoredTool[] = [stored("kept", "Kept."), stored("rewritten", "Old."), { ...stored("bad", ""), revision: 1 }]
      .map((tool) => ({ ...tool, revision: tool.revision ?? 1 }));
    const built = registry();
    registerStoredTools(built, v1, new Map(), () => undefined);
    built.register({ name: "demo", description: "Not stored.", parameters: { type: "object" } }, "demo");
    const definitions = Object.freeze(built.list().map((entry) => entry.definition));
    const revisions = [1, 1, -1];
    const asked: string[] = [];
    const table = {
      definitions,
      rowOf: (name: string) => {
        asked.push(name);
        return definitions.findIndex((definition) => definition.name === name);
      },
      contextOf: (row: number) => (row === 2 ? "demo" : "runtime"),
      revisionOf: (row: number) => revisions[row] ?? -1,
    };
    const read = registry();
    read.registerTable(table);
    const kept = storedFromSnapshot(table, [{ name: "bad", revision: 1, error: "description: must not be empty" }]);
    expect(asked).toEqual([]);
    expect(kept.size).toBe(3);
    expect(kept.get("kept")).toEqual({ text: "", revision: 1, definition: definitions[0] });
    expect(kept.get("demo")).toBeUndefined();
    expect(kept.get("absent")).toBeUndefined();
    expect(kept.get("bad")).toMatchObject({ text: "", revision: 1, error: new Error("description: must not be empty") });
    // The next version: "kept" unchanged (no text), "rewritten" written again, "bad" still stored.
    const v2: StoredTool[] = [
      { name: "kept", context: "runtime", revision: 1 },
      { ...stored("rewritten", "New."), revision: 2 },
      { name: "bad", context: "runtime", revision: 1 },
    ];
    const skipped: string[] = [];
    const next = registry();
    const k2 = registerStoredTools(next, v2, kept, (name) => skipped.push(name), read);
    expect(skipped).toEqual(["bad"]);
    expect(next.get("kept")).toBe(read.get("kept"));
    expect(next.get("rewritten")?.definition.description).toBe("New.");
    expect(k2.get("kept")).toEqual({ text: "", revision: 1, definition: definitions[0] });
    expect(k2.get("rewritten")?.revision).toBe(2);
  });
});
