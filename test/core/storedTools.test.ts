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
});
