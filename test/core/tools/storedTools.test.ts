import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { missingTexts, registerStoredTools, storedFromSnapshot, StoredToolsReader } from "../../../src/core/tools/storedTools.ts";
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
/** `tool` as written by registry version `revision`. */
const writtenAt = (revision: number, tool: StoredTool): StoredTool => ({ ...tool, revision });
const registry = (locale: Locale = "en"): ToolRegistry => new ToolRegistry({ logger: { warn: () => undefined }, locale });

describe("registerStoredTools", () => {
  it("keeps the definitions of unchanged revisions, validates changed and new ones, forgets removed ones", () => {
    const skipped: string[] = [];
    const first = registry();
    const v1 = registerStoredTools(first, [writtenAt(1, stored("a", "Tool a.")), writtenAt(1, stored("b", "Tool b.")), writtenAt(1, stored("c", "Tool c."))], new Map(), (name) => skipped.push(name));
    const second = registry();
    // Every text sent (a reader that asked for all of them): "a" at the revision v1 read, "b" rewritten, "d" new.
    const v2 = registerStoredTools(second, [writtenAt(1, stored("a", "Tool a.")), writtenAt(2, stored("b", "Tool b, changed.")), writtenAt(2, stored("d", "Tool d."))], v1, (name) => skipped.push(name));
    expect(skipped).toEqual([]);
    expect(second.get("a")?.definition).toBe(first.get("a")?.definition);
    expect(second.get("b")?.definition).not.toBe(first.get("b")?.definition);
    expect(second.get("b")?.definition.description).toBe("Tool b, changed.");
    expect(second.get("d")?.definition.description).toBe("Tool d.");
    // What the next version compares with: the three stored now, not the one removed.
    expect(v2.size).toBe(3);
    expect(["a", "b", "c", "d"].map((name) => v2.get(name)?.revision)).toEqual([1, 2, undefined, 2]);
    const kept = v2.get("a");
    expect(kept && "definition" in kept ? kept.definition : undefined).toBe(first.get("a")?.definition);
    // Nothing of a text is kept: what a version compares with is the revision and the definition only.
    expect(Object.keys(kept ?? {}).toSorted()).toEqual(["definition", "revision"]);
  });

  it("validates a tool anew when its revision changed, whatever its text: a revision names one text", () => {
    const first = registry();
    const v1 = registerStoredTools(first, [{ ...stored("a", "Tool a."), revision: 1 }], new Map(), () => undefined);
    const second = registry();
    const v2 = registerStoredTools(second, [{ ...stored("a", "Tool a."), revision: 2 }], v1, () => undefined);
    expect(second.get("a")?.definition).not.toBe(first.get("a")?.definition);
    expect(second.get("a")?.definition).toEqual(first.get("a")?.definition);
    expect(v2.get("a")?.revision).toBe(2);
  });

  it("reads a version page by page: the same registry as from one page, the texts not kept between pages", () => {
    const tools = ["a", "b", "bad", "c", "d"].map((name, i) => ({ ...stored(name, name === "bad" ? "" : `Tool ${name}.`), revision: i + 1 }));
    const whole = registry();
    const skippedWhole: string[] = [];
    registerStoredTools(whole, tools, new Map(), (name) => skippedWhole.push(name));
    const reader = new StoredToolsReader(new Map(), "en");
    for (let at = 0; at < tools.length; at += 2) reader.add(tools.slice(at, at + 2));
    expect(reader.names).toEqual(["a", "b", "bad", "c", "d"]);
    const paged = registry();
    const skippedPaged: string[] = [];
    const kept = reader.register(paged, (name) => skippedPaged.push(name));
    expect(skippedPaged).toEqual(skippedWhole);
    expect(skippedPaged).toEqual(["bad"]);
    expect(paged.list().map((tool) => tool.definition)).toEqual(whole.list().map((tool) => tool.definition));
    expect(kept.size).toBe(5);
    expect(kept.get("bad")).toMatchObject({ revision: 3 });
    // A page whose tool comes without its text that the previous version does not hold: refused at once.
    expect(() => reader.add([{ name: "e", context: "runtime", revision: 9 }])).toThrow(/"e" came without its text/u);
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
    /** Each name's reading: its revision, and the registry's definition's description or that it did not validate. */
    const reading = (target: ToolRegistry, kept: StoredDefinitions) => ({
      size: kept.size,
      byName: names.map((name) => {
        const entry = kept.get(name);
        if (!entry) return undefined;
        if (!("definition" in entry)) return [entry.revision, "error"];
        return [entry.revision, entry.definition === target.get(name)?.definition ? entry.definition.description : "another object"];
      }),
    });
    /** What a version should answer: each stored tool's revision, and its text's description or that it does not validate. */
    const expected = (listed: readonly StoredTool[]) => ({
      size: listed.length,
      byName: names.map((name) => {
        const tool = listed.find((other) => other.name === name);
        if (!tool) return undefined;
        const body = tool.definition ?? "";
        if (body.startsWith("{not") || body.includes('"description":""')) return [tool.revision, "error"];
        // A changed text is read anew: the definition says what the text says.
        const parsed: unknown = JSON.parse(body);
        return [tool.revision, typeof parsed === "object" && parsed !== null && "description" in parsed ? parsed.description : "no description"];
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
    expect(kept.get("kept")).toEqual({ revision: 1, definition: definitions[0] });
    expect(kept.get("demo")).toBeUndefined();
    expect(kept.get("absent")).toBeUndefined();
    expect(kept.get("bad")).toMatchObject({ revision: 1, error: new Error("description: must not be empty") });
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
    expect(k2.get("kept")).toEqual({ revision: 1, definition: definitions[0] });
    expect(k2.get("rewritten")?.revision).toBe(2);
  });
});
