import { describe, expect, it } from "vitest";
import { missingTexts, registerStoredTools } from "../../src/core/storedTools.ts";
import type { StoredTool } from "../../src/core/storedTools.ts";
import { ToolRegistry } from "../../src/core/toolRegistry.ts";
import type { Locale } from "../../src/core/types.ts";

const text = (name: string, description: string): string =>
  JSON.stringify({ name, description, parameters: { type: "object", properties: { q: { type: "string" } } } });
const stored = (name: string, description: string): StoredTool => ({ name, definition: text(name, description), context: "runtime" });
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
    expect([...v2.keys()]).toEqual(["a", "b", "d"]);
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
    expect([...v2.keys()].toSorted()).toEqual(["a", "bad", "c"]);

    // A text left out that the previous version does not hold (at that revision): named, and registering throws.
    const stale = [{ name: "a", context: "runtime", revision: 5 }, { name: "z", context: "runtime", revision: 2 }];
    expect(missingTexts(stale, v2)).toEqual(["a", "z"]);
    expect(() => registerStoredTools(registry(), stale, v2, () => undefined)).toThrow(/"a" came without its text/u);
  });

  it("skips what does not validate (and still validates it next time), without stopping the others", () => {
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

  it("validates anew for a registry of another locale", () => {
    const first = registry("en");
    const v1 = registerStoredTools(first, [stored("a", "Tool a.")], new Map(), () => undefined);
    const chinese = registry("zh");
    registerStoredTools(chinese, [stored("a", "Tool a.")], v1, () => undefined);
    expect(chinese.get("a")?.definition).not.toBe(first.get("a")?.definition);
    expect(chinese.get("a")?.definition).toEqual(first.get("a")?.definition);
  });
});
