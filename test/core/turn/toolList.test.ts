// Tool-list modes in the core: the discovered set's found order and stable eviction, the three tool-list modes of
// prepareTurn, call_tool's definition, arguments and permission, and the toolList setting.
import { describe, expect, it } from "vitest";
import { CALL_TOOL_NAME, callToolAllows, callToolDefinition, callToolEnabled, parseCallToolParams } from "../../../src/core/turn/callTool.ts";
import { ConfigError, defaultConfig, parseConfig, type GatewayConfig } from "../../../src/core/config.ts";
import { DiscoveredSet } from "../../../src/core/turn/discovered.ts";
import { texts } from "../../../src/core/locale.ts";
import { prepareTurn, toolListChangesOnDiscovery, WarnOnce, type PrepareInput } from "../../../src/core/turn/prepare.ts";
import type { ToolDefinition } from "../../../src/core/types.ts";
import { toolMaker } from "../../support/tools.ts";

const t = texts("en");

const tool = toolMaker((name) => ({ description: `The ${name} tool.`, parameters: { type: "object", properties: { input: { type: "string" } } } }));

const catalog = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"].map((name) => tool(name));

function prepare(toolList: GatewayConfig["toolList"], overrides: Partial<PrepareInput> = {}, config: Partial<GatewayConfig> = {}) {
  return prepareTurn({
    tools: catalog,
    messages: [],
    discovered: [],
    config: { ...defaultConfig(), toolList, ...config },
    warnings: new WarnOnce({ warn: () => undefined }),
    ...overrides,
  });
}

const names = (tools: readonly ToolDefinition[]): string[] => tools.map((entry) => entry.name);

describe("DiscoveredSet: found order and eviction", () => {
  it("remembers the order found; re-use moves a name in recency only", () => {
    const set = new DiscoveredSet(0);
    set.touch(["b", "a", "c"]);
    set.touch(["b"]);
    expect(set.toArray()).toEqual(["b", "c", "a"]);
    expect(set.foundOrder()).toEqual(["b", "a", "c"]);
  });

  it("lru evicts the least recently used, whatever its place in the found order", () => {
    const set = new DiscoveredSet(3, [], { eviction: "lru" });
    set.touch(["a", "b", "c"]);
    set.touch(["a"]);
    set.touch(["d"]);
    expect(set.foundOrder()).toEqual(["a", "c", "d"]);
  });

  it("stable evicts the latest-found name outside the recent half, so the list's prefix survives", () => {
    const set = new DiscoveredSet(4, [], { eviction: "stable" });
    set.touch(["a", "b", "c", "d"]);
    // Full: the recent half (2 of max 4) is d and the new e; of the cold a, b, c, c was found last: it goes, and the
    // list's prefix a, b stays.
    set.touch(["e"]);
    expect(set.foundOrder()).toEqual(["a", "b", "d", "e"]);
    // a in use again: the recent half is a and f; of the cold b, d, e, e was found last.
    set.touch(["a"]);
    set.touch(["f"]);
    expect(set.foundOrder()).toEqual(["a", "b", "d", "f"]);
    expect(set.toArray()).toEqual(["f", "a", "d", "b"]);
    expect(set.size).toBe(4);
  });

  it("never evicts a name in the recent half, and with max 1 keeps the newest", () => {
    const set = new DiscoveredSet(1, [], { eviction: "stable" });
    set.touch(["a", "b"]);
    expect(set.toArray()).toEqual(["b"]);
    const four = new DiscoveredSet(4, [], { eviction: "stable" });
    for (let i = 0; i < 20; i++) four.touch([`t${i}`]);
    expect(new Set(four.toArray().slice(0, 2))).toEqual(new Set(["t19", "t18"]));
  });

  it("loads a stored found order, dropping names the set lacks and appending names it lacks (oldest use first)", () => {
    const set = new DiscoveredSet(10, ["c", "b", "a"], { foundOrder: ["gone", "b", "c"] });
    expect(set.foundOrder()).toEqual(["b", "c", "a"]);
    set.delete("c");
    expect(set.foundOrder()).toEqual(["b", "a"]);
    set.clear();
    expect(set.foundOrder()).toEqual([]);
  });
});

describe("prepareTurn: tool-list modes", () => {
  it("grow drops found names from search_tools' list and sends found tools in catalog order", () => {
    const out = prepare("grow", { discovered: ["foxtrot", "bravo"] });
    expect(names(out.tools)).toEqual(["search_tools", "bravo", "foxtrot"]);
    expect(out.tools[0]?.description).not.toContain("bravo");
  });

  it("stable keeps the name list whatever is found, and appends found tools in the order found", () => {
    const first = prepare("stable");
    const later = prepare("stable", { discovered: ["bravo", "foxtrot"], foundOrder: ["foxtrot", "bravo"] });
    expect(names(later.tools)).toEqual(["search_tools", "foxtrot", "bravo"]);
    expect(later.tools[0]).toEqual(first.tools[0]);
    expect(later.foundOrder).toEqual(["foxtrot", "bravo"]);
    // A discovered tool absent this turn stays in the set but is not sent; the others keep their order.
    const partial = prepareTurn({
      tools: catalog.filter((entry) => entry.name !== "foxtrot"),
      messages: [],
      discovered: ["bravo", "foxtrot"],
      foundOrder: ["foxtrot", "bravo"],
      config: { ...defaultConfig(), toolList: "stable" },
      warnings: new WarnOnce({ warn: () => undefined }),
    });
    expect(names(partial.tools)).toEqual(["search_tools", "bravo"]);
    expect(partial.discovered).toEqual(["bravo", "foxtrot"]);
  });

  it("stable puts always-direct tools before the found ones, and never twice", () => {
    const out = prepare("stable", { discovered: ["alpha", "golf"], foundOrder: ["golf", "alpha"] }, { alwaysDirectTools: ["alpha"] });
    expect(names(out.tools)).toEqual(["search_tools", "alpha", "golf"]);
    expect(out.tools[0]?.description).not.toContain("alpha");
  });

  it("fixed sends search_tools, call_tool and the always-direct tools, identical before and after discoveries", () => {
    const first = prepare("fixed", {}, { alwaysDirectTools: ["hotel"] });
    const later = prepare("fixed", { discovered: ["bravo", "delta"] }, { alwaysDirectTools: ["hotel"] });
    expect(names(first.tools)).toEqual(["search_tools", CALL_TOOL_NAME, "hotel"]);
    expect(JSON.stringify(later.tools)).toBe(JSON.stringify(first.tools));
    expect(first.tools[0]?.description).toBe(t.searchToolsDescriptionFixed(first.tools[0]?.description.split(": ").at(-1) ?? ""));
    expect(later.discovered).toEqual(["bravo", "delta"]);
  });

  it("fixed with the layer off (few tools) sends the tools as they are", () => {
    const out = prepare("fixed", {}, { maxDirectTools: 100 });
    expect(out.applied).toBe(false);
    expect(names(out.tools)).toEqual(names(catalog));
  });

  it("says which lists change when tools are found (for the MCP face's list_changed)", () => {
    expect(toolListChangesOnDiscovery({ enabled: true, toolList: "fixed" })).toBe(false);
    expect(toolListChangesOnDiscovery({ enabled: true, toolList: "stable" })).toBe(true);
    expect(toolListChangesOnDiscovery({ enabled: true, toolList: "grow" })).toBe(true);
    expect(toolListChangesOnDiscovery({ enabled: false, toolList: "grow" })).toBe(false);
  });
});

describe("call_tool", () => {
  it("is defined by name and arguments, and speaks the locale", () => {
    expect(callToolDefinition({ locale: "zh" })).toEqual({
      name: "call_tool",
      description: texts("zh").callToolDescription,
      parameters: {
        type: "object",
        properties: { name: { type: "string" }, arguments: { type: "object" } },
        required: ["name"],
        additionalProperties: false,
      },
    });
    expect(callToolEnabled({ enabled: true, toolList: "fixed" })).toBe(true);
    expect(callToolEnabled({ enabled: true, toolList: "stable" })).toBe(false);
    expect(callToolEnabled({ enabled: false, toolList: "fixed" })).toBe(false);
  });

  it("reads name and arguments (an object, its JSON text, or nothing)", () => {
    expect(parseCallToolParams({ name: "a", arguments: { x: 1 } })).toEqual({ ok: true, params: { name: "a", arguments: { x: 1 } } });
    expect(parseCallToolParams({ name: "a", arguments: '{"x":1}' })).toEqual({ ok: true, params: { name: "a", arguments: { x: 1 } } });
    expect(parseCallToolParams({ name: "a", arguments: null })).toEqual({ ok: true, params: { name: "a", arguments: {} } });
  });

  it("lists every problem of bad arguments", () => {
    expect(parseCallToolParams("x")).toEqual({ ok: false, problems: [t.searchArgumentsNotObject] });
    expect(parseCallToolParams({ name: "", arguments: "[1]", extra: 1 })).toEqual({
      ok: false,
      problems: [t.callToolNameMissing, t.callToolArgumentsNotObject, t.callToolUnknownArgument("extra")],
    });
    expect(parseCallToolParams({ name: "a", arguments: "{not json" })).toEqual({ ok: false, problems: [t.callToolArgumentsNotObject] });
    expect(parseCallToolParams({ name: 3 }, "zh")).toEqual({ ok: false, problems: [texts("zh").callToolNameMissing] });
  });

  it("allows any tool, found or not (the guard decides), never the meta-tools", () => {
    expect(callToolAllows("a")).toBe(true);
    expect(callToolAllows("never_searched")).toBe(true);
    expect(callToolAllows("search_tools")).toBe(false);
    expect(callToolAllows("call_tool")).toBe(false);
  });
});

describe("toolList setting", () => {
  it('defaults to "fixed", takes the three modes and refuses others', () => {
    expect(defaultConfig().toolList).toBe("fixed");
    for (const mode of ["grow", "stable", "fixed"] as const) expect(parseConfig({ toolList: mode }).toolList).toBe(mode);
    expect(() => parseConfig({ toolList: "shrink" })).toThrow(ConfigError);
    expect(() => parseConfig({ toolList: "shrink" })).toThrow(/TOOL_SEARCH_CONFIG\.toolList/);
  });
});
