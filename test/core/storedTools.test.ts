import { describe, expect, it } from "vitest";
import { registerStoredTools } from "../../src/core/storedTools.ts";
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
    expect(v2.get("a")?.definition).toBe(first.get("a")?.definition);
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
