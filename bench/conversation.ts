// What a conversation is billed under the providers' prefix caching, per tool-list mode. A scripted
// 20-turn conversation on the 527-tool catalog runs through prepareTurn turn by turn (the session's discovered set
// and found order carried between turns as the session object carries them); every request is tools, then system,
// then messages, and each tool definition and each turn's messages are one segment, counted with gpt-tokenizer.
// The provider is modelled as caching the previous request: the leading segments equal to the previous request's
// are read from the cache, the rest is read (and written) at full price.
import { defaultConfig, discoveredLimit, type GatewayConfig, type ToolListMode } from "../src/core/config.ts";
import { DiscoveredSet } from "../src/core/turn/discovered.ts";
import { evictionFor, prepareTurn, WarnOnce } from "../src/core/turn/prepare.ts";
import { toShape } from "../src/core/tools/shapes.ts";
import { countTokens } from "../src/core/tools/tokens.ts";
import type { ToolDefinition } from "../src/core/types.ts";

/** Prices relative to an uncached input token. */
export interface CachePrices {
  /** A token read from the cache. */
  read: number;
  /** A token not in the cache (and written to it): Anthropic charges 1.25 for a cache write, OpenAI 1. */
  write: number;
}

export const PRICES: Record<string, CachePrices> = {
  anthropic: { read: 0.1, write: 1.25 },
  openaiCachedHalf: { read: 0.5, write: 1 },
  openaiCachedTenth: { read: 0.1, write: 1 },
};

export interface ConversationOptions {
  turns: number;
  /** Tokens of messages each turn adds (the user's text, the model's answer, tool calls and results). */
  messageTokensPerTurn: number;
  systemTokens: number;
  maxDiscoveredKeep: number;
}

export const DEFAULT_OPTIONS: ConversationOptions = { turns: 20, messageTokensPerTurn: 600, systemTokens: 0, maxDiscoveredKeep: 10 };

interface TurnScript {
  /** Tools the model finds with search_tools this turn (catalog indexes). */
  find?: number[];
  /** Tools it calls this turn (indexes into the found order of the script); an evicted one is searched again. */
  use?: number[];
}

/**
 * The script: 15 tools found over 6 turns, spread over the catalog and found out of catalog order; calls of fresh and
 * old tools (re-use), with the set bounded at maxDiscoveredKeep (10) so that finds past it evict.
 */
function script(catalogSize: number): TurnScript[] {
  const pick = (k: number): number => (k * 211 + 37) % catalogSize;
  const turns: TurnScript[] = Array.from({ length: 20 }, () => ({}));
  const finds: [number, number][] = [[1, 3], [3, 3], [6, 2], [9, 3], [12, 2], [15, 2]];
  let next = 0;
  for (const [turn, count] of finds) {
    const entry = turns[turn];
    if (entry) entry.find = Array.from({ length: count }, () => pick(next++));
  }
  const uses: [number, number[]][] = [
    [2, [0, 1]], [4, [3, 4, 0]], [5, [5]], [7, [6, 7]], [8, [1, 3]], [10, [8, 9, 10]], [11, [0, 6]],
    [13, [11, 12]], [14, [2, 9]], [16, [13, 14]], [17, [0, 11]], [18, [4]], [19, [13, 1]],
  ];
  for (const [turn, used] of uses) {
    const entry = turns[turn];
    if (entry) entry.use = used;
  }
  return turns;
}

export interface ModeFigures {
  /** Tokens sent over the conversation (tools, system, messages). */
  sent: number;
  firstTurnToolTokens: number;
  /** Turns whose tool list differs from the previous turn's. */
  listChanges: number;
  /** Tokens billed under each price set, and as a percentage of the every-tool baseline's. */
  billed: Record<string, number>;
  percentOfEveryTool: Record<string, number>;
}

export interface ConversationSection {
  options: ConversationOptions;
  /** everyTool (the whole catalog every turn: the baseline), grow (toolgate before the toolList setting), stable, fixed. */
  modes: Record<string, ModeFigures>;
}

function segmentsOf(tools: readonly ToolDefinition[]): { text: string; tokens: number }[] {
  return tools.map((tool) => {
    const text = JSON.stringify(toShape(tool, "openai"));
    return { text, tokens: countTokens(text) };
  });
}

/** Tokens a request reads from the cache (leading segments equal to the previous request's) and at full price. */
function billTurn(previous: readonly string[], current: readonly { text: string; tokens: number }[]): { cached: number; full: number } {
  let cached = 0;
  let full = 0;
  let same = true;
  current.forEach((segment, i) => {
    if (same && previous[i] === segment.text) cached += segment.tokens;
    else {
      same = false;
      full += segment.tokens;
    }
  });
  return { cached, full };
}

/** Runs the script in one mode (or "everyTool": the whole catalog on every turn). */
function runMode(catalog: readonly ToolDefinition[], mode: ToolListMode | "everyTool", options: ConversationOptions): {
  sent: number; firstTurnToolTokens: number; listChanges: number; turns: { cached: number; full: number }[];
} {
  const config: GatewayConfig = { ...defaultConfig(), toolList: mode === "everyTool" ? "grow" : mode, maxDiscoveredKeep: options.maxDiscoveredKeep };
  const warnings = new WarnOnce({ warn: () => undefined });
  const set = new DiscoveredSet(discoveredLimit(config), [], { eviction: evictionFor(config.toolList) });
  const found: string[] = [];
  const system = { text: "system", tokens: options.systemTokens };
  const messages: { text: string; tokens: number }[] = [];
  let previous: string[] = [];
  let previousTools = "";
  let sent = 0;
  let firstTurnToolTokens = 0;
  let listChanges = 0;
  const turns: { cached: number; full: number }[] = [];
  const plan = script(catalog.length);
  for (let turn = 0; turn < options.turns; turn++) {
    // This turn's request: the list prepare answers, then the system prompt, then the history so far plus this turn.
    const tools = mode === "everyTool"
      ? [...catalog]
      : prepareTurn({ tools: catalog, messages: [], discovered: set.toArray(), foundOrder: set.foundOrder(), config, warnings }).tools;
    const toolSegments = segmentsOf(tools);
    const toolText = toolSegments.map((s) => s.text).join("\n");
    if (turn === 0) firstTurnToolTokens = toolSegments.reduce((sum, s) => sum + s.tokens, 0);
    else if (toolText !== previousTools) listChanges++;
    previousTools = toolText;

    // What the model does this turn adds to the history the next request carries: its text, and the search results
    // (full definitions, in every mode) of what it finds or has to find again.
    const step = plan[turn] ?? {};
    const searched: ToolDefinition[] = [];
    for (const index of step.find ?? []) {
      const tool = catalog[index];
      if (tool) {
        searched.push(tool);
        found.push(tool.name);
      }
    }
    const called: string[] = [];
    for (const k of step.use ?? []) {
      const name = found[k];
      if (name === undefined) continue;
      if (!set.has(name)) {
        const tool = catalog.find((t) => t.name === name);
        if (tool) searched.push(tool);
      }
      called.push(name);
    }
    const resultTokens = searched.length === 0 ? 0 : countTokens(JSON.stringify({
      found: `${searched.length}/${searched.length}`,
      tools: searched.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
    }));
    const turnMessages = { text: `turn ${turn}`, tokens: options.messageTokensPerTurn + resultTokens };
    const request = [...toolSegments, system, ...messages, turnMessages];
    turns.push(billTurn(previous, request));
    sent += request.reduce((sum, s) => sum + s.tokens, 0);
    previous = request.map((s) => s.text);
    messages.push(turnMessages);
    set.touch(searched.map((t) => t.name));
    set.touch(called);
  }
  return { sent, firstTurnToolTokens, listChanges, turns };
}

function bill(turns: readonly { cached: number; full: number }[], prices: CachePrices): number {
  return Math.round(turns.reduce((sum, t) => sum + t.cached * prices.read + t.full * prices.write, 0));
}

export function conversationSection(catalog: readonly ToolDefinition[], options: ConversationOptions = DEFAULT_OPTIONS): ConversationSection {
  const runs = {
    everyTool: runMode(catalog, "everyTool", options),
    grow: runMode(catalog, "grow", options),
    stable: runMode(catalog, "stable", options),
    fixed: runMode(catalog, "fixed", options),
  };
  const baseline: Record<string, number> = {};
  for (const [priceName, prices] of Object.entries(PRICES)) baseline[priceName] = bill(runs.everyTool.turns, prices);
  const modes: Record<string, ModeFigures> = {};
  for (const [mode, run] of Object.entries(runs)) {
    const billed: Record<string, number> = {};
    const percent: Record<string, number> = {};
    for (const [priceName, prices] of Object.entries(PRICES)) {
      billed[priceName] = bill(run.turns, prices);
      percent[priceName] = Number(((100 * (billed[priceName] ?? 0)) / (baseline[priceName] ?? 1)).toFixed(1));
    }
    modes[mode] = { sent: run.sent, firstTurnToolTokens: run.firstTurnToolTokens, listChanges: run.listChanges, billed, percentOfEveryTool: percent };
  }
  return { options, modes };
}
