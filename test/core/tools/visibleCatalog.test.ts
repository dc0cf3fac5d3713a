// Everything a caller receives is computed over the tools its groups show, each naming only the caller's groups: the
// same whether or not tools and groups outside them exist. A property over random catalogs and group sets: a catalog
// with hidden tools and the same catalog without them give every answer alike (search pages and their order, the
// next page, auto-discovered tools, the turn's tool list with search_tools' name list, suggestions, summaries).
import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defaultConfig, SEARCH_MODES } from "../../../src/core/config.ts";
import type { GatewayConfig } from "../../../src/core/config.ts";
import { createSearchIndex } from "../../../src/core/search/createIndex.ts";
import { isVisible, ToolRegistry } from "../../../src/core/tools/toolRegistry.ts";
import { toolAsSeen, viewKey, visibleCatalog } from "../../../src/core/tools/visibleCatalog.ts";
import { prepareTurn, WarnOnce } from "../../../src/core/turn/prepare.ts";
import { runSearchTools } from "../../../src/core/turn/searchTools.ts";

const WORDS = ["invoice", "ledger", "orchid", "zygomorph", "weather", "radar", "mail", "send", "report", "quartz"];
const GROUPS = ["finance", "garden", "secret", "ops"];

interface ToolSeed {
  words: string[];
  groups: string[];
}

const toolSeed = fc.record({
  words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 6 }),
  groups: fc.subarray(GROUPS),
});

function definition(seed: ToolSeed, index: number): Record<string, unknown> {
  return {
    name: `t${index}_${seed.words[0] ?? "tool"}`,
    description: `${seed.words.join(" ")}.`,
    parameters: { type: "object", properties: { [seed.words.at(-1) ?? "x"]: { type: "string", description: seed.words.join(" ") } } },
    ...(seed.groups.length > 0 ? { groups: seed.groups } : {}),
  };
}

const quiet = new WarnOnce({ warn: () => undefined });

function registryOf(tools: readonly Record<string, unknown>[]): ToolRegistry {
  const registry = new ToolRegistry({ logger: { warn: () => undefined } });
  registry.registerMany(tools, "catalog");
  return registry;
}

/** Every answer a caller holding `enabled` gets from a registry of `tools`, for `query`. */
function answers(tools: readonly Record<string, unknown>[], enabled: string[], query: string, config: GatewayConfig): unknown {
  const registry = registryOf(tools);
  const all = registry.getDefinitions({ groups: ["*"] });
  const seen = registry.getDefinitions({ groups: enabled });
  const view = visibleCatalog(all, enabled);
  return SEARCH_MODES.map((mode) => {
    const index = createSearchIndex(mode, view);
    const search = (offset: number): unknown => runSearchTools({ query, limit: 2, offset }, { catalog: view, index, enabledGroups: undefined, config });
    const turn = prepareTurn({
      tools: seen,
      messages: [{ role: "user", content: query }],
      discovered: [],
      config: { ...config, searchMode: mode, autoDiscover: { topK: 3, minScore: 0 } },
      warnings: quiet,
      searchIndex: index,
    });
    return {
      first: search(0),
      second: search(2),
      turn: { tools: turn.tools, autoDiscovered: turn.autoDiscovered, stats: turn.stats },
      summaries: registry.getSummaries({ groups: enabled }),
      view,
    };
  });
}

describe("visibleCatalog", () => {
  it("gives every answer alike whether or not tools outside the caller's groups exist", async () => {
    const config = defaultConfig();
    await fc.assert(
      fc.asyncProperty(
        fc.array(toolSeed, { minLength: 1, maxLength: 24 }),
        fc.subarray(GROUPS),
        fc.array(fc.constantFrom(...WORDS, ...GROUPS), { minLength: 1, maxLength: 3 }),
        async (seeds, enabled, words) => {
          const tools = seeds.map(definition);
          const withoutHidden = tools.filter((_, index) => isVisible(seeds[index]?.groups, enabled));
          const query = words.join(" ");
          const withHidden = answers(tools, enabled, query, config);
          expect(answers(withoutHidden, enabled, query, config)).toEqual(withHidden);
          // No answer names a group the caller does not hold.
          const lists = [...JSON.stringify(withHidden).matchAll(/"groups":\[([^\]]*)\]/g)];
          const named = lists.flatMap((list) => (list[1] ?? "").split(",").filter((quoted) => quoted !== "").map((quoted) => quoted.slice(1, -1)));
          for (const group of named) expect(enabled).toContain(group);
          // Suggestions for a misspelled name draw on visible names only.
          const misspelt = `${String(tools[0]?.name)}x`;
          const context = { enabledGroups: enabled };
          expect(await registryOf(withoutHidden).execute(misspelt, {}, context)).toEqual(await registryOf(tools).execute(misspelt, {}, context));
        },
      ),
      { numRuns: 40 },
    );
  }, 60_000);

  it("cuts a multi-group tool's groups to the caller's, sharing one copy per cut, and keys views by what they show", () => {
    const registry = new ToolRegistry();
    registry.registerMany([
      { name: "ledger", description: "Ledger.", parameters: { type: "object" }, groups: ["finance", "secret"] },
      { name: "open", description: "Open.", parameters: { type: "object" } },
    ], "catalog");
    const all = registry.getDefinitions({ groups: ["*"] });
    const [ledger] = all;
    if (ledger === undefined) throw new Error("no ledger");
    expect(toolAsSeen(ledger, ["finance"])?.groups).toEqual(["finance"]);
    expect(toolAsSeen(ledger, ["finance"])).toBe(toolAsSeen(ledger, ["finance", "ops"]));
    expect(toolAsSeen(ledger, ["finance", "secret"])).toBe(ledger);
    expect(toolAsSeen(ledger, ["*"])).toBe(ledger);
    expect(toolAsSeen(ledger, ["ops"])).toBeUndefined();
    expect(registry.getSummaries({ groups: ["finance"] })).toEqual([
      { name: "ledger", description: "Ledger.", groups: ["finance"] },
      { name: "open", description: "Open." },
    ]);
    // A group no tool has changes nothing: the same view, the same key (so the same cached index).
    expect(viewKey(all, ["ops", "finance"])).toBe(viewKey(all, ["finance"]));
    expect(visibleCatalog(all, ["ops", "finance"])).toBe(visibleCatalog(all, ["finance"]));
    expect(viewKey(all, ["secret"])).not.toBe(viewKey(all, ["finance"]));
    expect(visibleCatalog(all, undefined)).toBe(all);
    expect(visibleCatalog(all, ["*"])).toBe(all);
  });
});
