import { describe, expect, it } from "vitest";
import { DISCOVERED_HARD_CAP, defaultConfig, type GatewayConfig } from "../../../src/core/config.ts";
import { texts } from "../../../src/core/locale.ts";
import { catalogFigures, prepareTurn, rememberCatalogFigures, WarnOnce, type PrepareInput } from "../../../src/core/turn/prepare.ts";
import { createSubstringIndex } from "../../../src/core/search/substring.ts";
import { compactToolNames, runSearchTools, SEARCH_TOOLS_NAME, searchToolsDefinition } from "../../../src/core/turn/searchTools.ts";
import { toShape } from "../../../src/core/tools/shapes.ts";
import { countTokens } from "../../../src/core/tools/tokens.ts";
import type { ToolDefinition } from "../../../src/core/types.ts";
import { everyTestNeedsEvalData, evalMcpTools } from "../../evalData.ts";
import { toolMaker } from "../../support/tools.ts";

/** Each tool with one described argument, so that the token counts weigh parameters too. */
const tool = toolMaker((name) => ({
  description: `The ${name} tool.`,
  parameters: { type: "object", properties: { input: { type: "string", description: `Input of ${name}` } } },
}));

function config(overrides: Partial<GatewayConfig> = {}): GatewayConfig {
  return { ...defaultConfig(), toolList: "grow", ...overrides };
}

function spyLogger(): { warn(message: string): void; messages: string[] } {
  const messages: string[] = [];
  return { messages, warn: (message: string) => messages.push(message) };
}

const catalog = ["weather_now", "web_search", "fetch_url", "read_file", "write_file", "send_email", "calendar_add", "translate"].map(
  (name) => tool(name),
);

function prepare(overrides: Partial<PrepareInput> = {}) {
  return prepareTurn({
    tools: catalog,
    messages: [],
    discovered: [],
    config: config(),
    warnings: new WarnOnce(spyLogger()),
    ...overrides,
  });
}

const names = (tools: readonly ToolDefinition[]): string[] => tools.map((t) => t.name);

/** An OpenAI Chat exchange: the assistant calls `name` with id `id`, and (unless `answered` is false) gets `content`. */
function exchange(id: string, name: string, content: string, answered = true): unknown[] {
  const call = { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name, arguments: "{}" } }] };
  return answered ? [call, { role: "tool", tool_call_id: id, content }] : [call];
}

function tokensOf(tools: readonly ToolDefinition[], shape: Parameters<typeof toShape>[1] = "openai"): number {
  return countTokens(JSON.stringify(tools.map((t) => toShape(t, shape))));
}

describe("WarnOnce", () => {
  it("logs each key once, however often it is warned", () => {
    const logger = spyLogger();
    const warnings = new WarnOnce(logger);
    for (let i = 0; i < 5; i++) {
      warnings.warn("a", "first a");
      warnings.warn("b", "first b");
    }
    warnings.warn("a", "second a");
    expect(logger.messages).toEqual(["first a", "first b"]);
  });
});

describe("prepareTurn: threshold", () => {
  it("passes the tools through unchanged when there are at most maxDirectTools", () => {
    const few = catalog.slice(0, 5);
    const out = prepare({ tools: few });
    expect(out.applied).toBe(false);
    expect(out.tools).toEqual(few);
    expect(out.tools).not.toBe(few);
    expect(out.stats).toEqual({ total: 5, sent: 5, tokensAll: tokensOf(few), tokensSent: tokensOf(few) });
  });

  it("does not count a search_tools the client already sends", () => {
    const few = [...catalog.slice(0, 5), searchToolsDefinition(config(), [])];
    const out = prepare({ tools: few });
    expect(out.applied).toBe(false);
    expect(out.tools).toEqual(few);
    expect(out.stats.total).toBe(6);
  });

  it("applies with one tool more than maxDirectTools, and follows the configured threshold", () => {
    expect(prepare({ tools: catalog.slice(0, 6) }).applied).toBe(true);
    expect(prepare({ config: config({ maxDirectTools: 8 }) }).applied).toBe(false);
    expect(prepare({ config: config({ maxDirectTools: 7 }) }).applied).toBe(true);
    expect(prepare({ tools: [], config: config({ maxDirectTools: 0 }) }).applied).toBe(false);
  });

  it("passes everything through when the layer is disabled, yet still merges history into the discovered set", () => {
    const out = prepare({ config: config({ enabled: false }), messages: exchange("c1", "translate", "bonjour"), discovered: ["read_file"] });
    expect(out.applied).toBe(false);
    expect(out.tools).toEqual(catalog);
    expect(out.discovered).toEqual(["translate", "read_file"]);
  });
});

describe("prepareTurn: the list sent", () => {
  it("sends search_tools alone on a first turn, its description naming every other tool", () => {
    const out = prepare();
    expect(out.applied).toBe(true);
    expect(names(out.tools)).toEqual([SEARCH_TOOLS_NAME]);
    expect(out.tools[0]).toEqual(searchToolsDefinition(config(), catalog));
    expect(out.tools[0]?.description).toContain(compactToolNames(catalog));
    expect(out.discovered).toEqual([]);
    expect(out.stats).toEqual({
      total: catalog.length,
      sent: 1,
      tokensAll: tokensOf(catalog),
      tokensSent: tokensOf(out.tools),
    });
    expect(out.stats.tokensSent).toBeLessThan(out.stats.tokensAll);
  });

  it("keeps always-direct tools present this turn with full definitions, and leaves them out of the name list", () => {
    const out = prepare({ config: config({ alwaysDirectTools: ["web_search", "send_email"] }) });
    expect(names(out.tools)).toEqual([SEARCH_TOOLS_NAME, "web_search", "send_email"]);
    expect(out.tools[1]).toBe(catalog[1]);
    const others = catalog.filter((t) => t.name !== "web_search" && t.name !== "send_email");
    expect(out.tools[0]).toEqual(searchToolsDefinition(config(), others));
  });

  it("sends the discovered tools present this turn, in catalog order, and keeps absent ones in the set", () => {
    const out = prepare({ discovered: ["translate", "gone_tool", "web_search"] });
    expect(names(out.tools)).toEqual([SEARCH_TOOLS_NAME, "web_search", "translate"]);
    expect(out.discovered).toEqual(["translate", "gone_tool", "web_search"]);
    expect(out.tools[0]).toEqual(searchToolsDefinition(config(), catalog.filter((t) => !["translate", "web_search"].includes(t.name))));
    // Next turn the catalog has gone_tool again: it is sent.
    const next = prepare({ tools: [...catalog, tool("gone_tool")], discovered: out.discovered });
    expect(names(next.tools)).toContain("gone_tool");
  });

  it("never sends a tool twice, nor the client's own search_tools next to ours", () => {
    const clientSearch = { ...tool(SEARCH_TOOLS_NAME), description: "the client's own" };
    const out = prepare({
      tools: [...catalog, clientSearch, catalog[0] ?? tool("x")],
      discovered: ["weather_now", "web_search"],
      config: config({ alwaysDirectTools: ["web_search", "web_search"] }),
    });
    expect(names(out.tools)).toEqual([SEARCH_TOOLS_NAME, "web_search", "weather_now"]);
    expect(out.tools[0]?.description).not.toBe("the client's own");
  });

  it("omits the name list with showToolNames off, and speaks Chinese with locale zh", () => {
    expect(prepare({ config: config({ showToolNames: false }) }).tools[0]?.description).toBe(texts("en").searchToolsDescription(null));
    const zh = prepare({ config: config({ locale: "zh" }) }).tools[0]?.description ?? "";
    expect(zh).toBe(texts("zh").searchToolsDescription(compactToolNames(catalog)));
    expect(zh).toContain("调用前须先搜索");
  });

  it("counts tokens in the shape asked for", () => {
    const out = prepare({ shape: "anthropic" });
    expect(out.stats.tokensAll).toBe(tokensOf(catalog, "anthropic"));
    expect(out.stats.tokensSent).toBe(tokensOf(out.tools, "anthropic"));
    expect(out.stats.tokensAll).not.toBe(prepare().stats.tokensAll);
  });
});

/**
 * A frozen list of `tools` (as a registry hands one out) given the figures a writer under `writer` worked out for
 * the same tools, its search_tools count `off` tokens off, so that a turn that takes it shows it.
 */
function carriedList(writer: GatewayConfig, off = 1000, tools: readonly ToolDefinition[] = catalog): readonly ToolDefinition[] {
  const figures = catalogFigures(Object.freeze([...tools]), writer);
  expect(figures.searchTools).toHaveLength(1);
  const list = Object.freeze([...tools]);
  rememberCatalogFigures(list, { ...figures, searchTools: figures.searchTools?.map((count) => ({ ...count, tokens: count.tokens + off })) });
  return list;
}

describe("prepareTurn: the search_tools count a registry snapshot carries for a list", () => {
  it("takes the carried count on a first turn over that list, in every list mode", () => {
    for (const toolList of ["grow", "stable", "fixed"] as const) {
      const out = prepare({ tools: carriedList(config({ toolList })), config: config({ toolList }) });
      expect(out.stats.tokensSent).toBe(tokensOf(out.tools) + 1000);
    }
    // Carried as written, it is the tokenizer's count of the text.
    const out = prepare({ tools: carriedList(config(), 0) });
    expect(out.stats.tokensSent).toBe(tokensOf(out.tools));
  });

  it("counts the text itself for another template, another list, or a list that leaves out other tools", () => {
    const list = carriedList(config());
    const others: Partial<GatewayConfig>[] = [{ locale: "zh" }, { showToolNames: false }, { alwaysDirectTools: ["web_search"] }, { toolList: "fixed" }];
    for (const other of others) {
      const out = prepare({ tools: list, config: config(other) });
      expect(out.stats.tokensSent).toBe(tokensOf(out.tools));
    }
    // A later turn names fewer tools (one found), and a list of other tools was given no figures.
    const later = prepare({ tools: list, discovered: ["web_search"] });
    expect(later.stats.tokensSent).toBe(tokensOf(later.tools));
    const fewer = prepare({ tools: Object.freeze(catalog.slice(1)) });
    expect(fewer.stats.tokensSent).toBe(tokensOf(fewer.tools));
    expect(prepare({ tools: list }).stats.tokensSent).toBe(tokensOf(prepare().tools) + 1000);
  });

  it("carries nothing where a first turn sends no search_tools", () => {
    expect(catalogFigures(catalog, config({ maxDirectTools: catalog.length })).searchTools).toBeUndefined();
    expect(catalogFigures(catalog).searchTools).toBeUndefined();
  });
});

describe("prepareTurn: always-direct warnings", () => {
  it("warns once per missing name across many turns, not once per turn", () => {
    const logger = spyLogger();
    const warnings = new WarnOnce(logger);
    const cfg = config({ alwaysDirectTools: ["web_search", "no_such_tool", "also_missing"] });
    for (let turn = 0; turn < 25; turn++) {
      const out = prepareTurn({ tools: catalog, messages: [], discovered: [], config: cfg, warnings });
      expect(names(out.tools)).toEqual([SEARCH_TOOLS_NAME, "web_search"]);
    }
    expect(logger.messages).toHaveLength(2);
    expect(logger.messages[0]).toContain('"no_such_tool"');
    expect(logger.messages[1]).toContain('"also_missing"');
  });

  it("warns about a listed tool that exists but is not available to this caller", () => {
    const logger = spyLogger();
    prepare({ tools: catalog.filter((t) => t.name !== "send_email"), config: config({ alwaysDirectTools: ["send_email"] }), warnings: new WarnOnce(logger) });
    expect(logger.messages).toHaveLength(1);
    expect(logger.messages[0]).toContain("send_email");
  });
});

describe("prepareTurn: discovered tools from history", () => {
  it("makes tools returned by a search direct on the next turn", () => {
    const index = createSubstringIndex(catalog);
    const result = runSearchTools({ query: "file" }, { catalog, index, enabledGroups: undefined, config: config() });
    expect(names(result.tools as ToolDefinition[])).toEqual(["read_file", "write_file"]);
    const messages = [{ role: "user", content: "save my notes" }, ...exchange("call_1", SEARCH_TOOLS_NAME, JSON.stringify(result))];
    const out = prepare({ messages });
    expect(names(out.tools)).toEqual([SEARCH_TOOLS_NAME, "read_file", "write_file"]);
    expect(out.tools[1]).toBe(catalog[3]);
    expect(out.discovered).toEqual(["write_file", "read_file"]);
    expect(out.tools[0]).toEqual(searchToolsDefinition(config(), catalog.filter((t) => !t.name.endsWith("_file"))));
  });

  it("counts a called tool only when its result is present", () => {
    const answered = prepare({ messages: exchange("c1", "translate", "hola") });
    expect(answered.discovered).toEqual(["translate"]);
    expect(names(answered.tools)).toContain("translate");
    const pending = prepare({ messages: exchange("c1", "translate", "", false) });
    expect(pending.discovered).toEqual([]);
    expect(names(pending.tools)).toEqual([SEARCH_TOOLS_NAME]);
  });

  it("ignores history names that this turn's tools do not hold (a failed call to a made-up name)", () => {
    const out = prepare({ messages: exchange("c1", "made_up_tool", '{"error": "Unknown tool"}'), discovered: ["web_search"] });
    expect(out.discovered).toEqual(["web_search"]);
  });

  it("merges history into the stored set, most recent first, bounded by maxDiscoveredKeep", () => {
    const messages = [...exchange("c1", "translate", "a"), ...exchange("c2", "weather_now", "b"), ...exchange("c3", "translate", "c")];
    const out = prepare({ messages, discovered: ["send_email", "read_file", "fetch_url"], config: config({ maxDiscoveredKeep: 3 }) });
    expect(out.discovered).toEqual(["translate", "weather_now", "send_email"]);
    expect(names(out.tools)).toEqual([SEARCH_TOOLS_NAME, "weather_now", "send_email", "translate"]);
    const unlimited = prepare({ messages, discovered: ["send_email", "read_file", "fetch_url"], config: config({ maxDiscoveredKeep: 0 }) });
    expect(unlimited.discovered).toEqual(["translate", "weather_now", "send_email", "read_file", "fetch_url"]);
  });

  it("stops an unlimited set (maxDiscoveredKeep 0) at the hard cap, so that it always fits one stored value", () => {
    const stored = Array.from({ length: DISCOVERED_HARD_CAP + 5 }, (_, i) => `stored_${i}`);
    const out = prepare({ messages: exchange("c1", "translate", "a"), discovered: stored, config: config({ maxDiscoveredKeep: 0 }) });
    expect(out.discovered).toHaveLength(DISCOVERED_HARD_CAP);
    expect(out.discovered[0]).toBe("translate");
    expect(out.discovered.at(-1)).toBe(`stored_${DISCOVERED_HARD_CAP - 2}`);
  });

  it("keeps the discovered set after the context is trimmed (the stored set carries it)", () => {
    const first = prepare({ messages: exchange("c1", "translate", "a") });
    const trimmed = prepare({ messages: [{ role: "user", content: "and now?" }], discovered: first.discovered });
    expect(names(trimmed.tools)).toEqual([SEARCH_TOOLS_NAME, "translate"]);
    expect(trimmed.discovered).toEqual(["translate"]);
  });

  it("gives the same answer for the same input: recomputed each turn, nothing kept between calls", () => {
    const input = { messages: exchange("c1", "translate", "a"), discovered: ["web_search"] };
    expect(prepare(input)).toEqual(prepare(input));
  });
});

const ratio = (out: ReturnType<typeof prepareTurn>): number => out.stats.tokensSent / out.stats.tokensAll;

// Measured when written: 2,708 / 91,820 = 2.95% (names on), 177 / 91,820 = 0.19% (off), 6,007 / 91,820 = 6.54% (20 found).
describe("prepareTurn on the 527-tool eval catalog: tokens of the tool list", () => {
  everyTestNeedsEvalData();
  const evalCatalog: ToolDefinition[] = evalMcpTools.map((t) => ({
    // Names repeat across servers: `server__name`, the server's name reduced to letters, digits and `_`.
    name: `${t.server.replaceAll(/[^A-Za-z0-9]+/gu, "_").replaceAll(/^_+|_+$/gu, "")}__${t.name}`,
    description: t.description,
    parameters: t.inputSchema,
  }));
  const run = (overrides: Partial<PrepareInput>) =>
    prepareTurn({ tools: evalCatalog, messages: [], discovered: [], config: config(), warnings: new WarnOnce(spyLogger()), ...overrides });

  it("holds 527 distinct tools", () => {
    expect(evalCatalog).toHaveLength(527);
    expect(new Set(names(evalCatalog)).size).toBe(527);
  });

  it("sends at most 4% of the tokens of every tool on the first turn, with showToolNames on", () => {
    const out = run({});
    expect(out.stats.total).toBe(527);
    expect(out.stats.sent).toBe(1);
    // Every other tool is named in the list.
    expect(out.tools[0]?.description).toContain(compactToolNames(evalCatalog));
    expect(ratio(out)).toBeLessThanOrEqual(0.04);
  });

  it("sends at most 1% with showToolNames off", () => {
    expect(ratio(run({ config: config({ showToolNames: false }) }))).toBeLessThanOrEqual(0.01);
  });

  it("sends at most 10% after 20 discovered tools", () => {
    // Twenty tools spread evenly over the catalog (every 26th), as a conversation across several servers would find.
    const discovered = evalCatalog.filter((_, i) => i % 26 === 0).slice(0, 20).map((t) => t.name);
    expect(discovered).toHaveLength(20);
    const out = run({ discovered });
    expect(out.stats.sent).toBe(21);
    expect(ratio(out)).toBeLessThanOrEqual(0.1);
  });
});
