// The prepare step (docs/DESIGN.md, "Flows"): recomputed on every turn, independent of anything else.
import { CALL_TOOL_NAME, callToolDefinition } from "./callTool.ts";
import type { GatewayConfig, ToolListMode } from "../config.ts";
import { discoveredLimit } from "../config.ts";
import { DiscoveredSet } from "./discovered.ts";
import type { Eviction } from "./discovered.ts";
import { extractDiscovered, latestUserText } from "./history.ts";
import { acceptAllBut } from "../search/acceptAllBut.ts";
import { indexAnswersFor } from "../search/exactNames.ts";
import type { SearchIndex } from "../search/types.ts";
import { compactToolNames, rememberCompactToolNames, SEARCH_TOOLS_NAME, searchToolsDefinition, searchToolsTemplate } from "./searchTools.ts";
import { toShape } from "../tools/shapes.ts";
import type { ToolShape } from "../tools/shapes.ts";
import { catalogNameLookup } from "../tools/toolRegistry.ts";
import { tokenMemoKey } from "../tools/tokens.ts";
import { rememberToolListTokens, rememberToolTokenCount, toolListTokens, toolTokenCount } from "../tools/toolTokens.ts";
import type { ToolTokenCount } from "../tools/toolTokens.ts";
import type { Logger, ToolDefinition } from "../types.ts";

/** Logs each warning key once per instance (e.g. once per isolate), not once per turn. */
export class WarnOnce {
  private readonly logger: Logger;
  private readonly warned = new Set<string>();

  constructor(logger: Logger) {
    this.logger = logger;
  }

  warn(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.logger.warn(message);
  }
}

export interface PrepareInput {
  /** This turn's tools, already filtered to what the caller may see. */
  tools: readonly ToolDefinition[];
  messages: readonly unknown[];
  /** The session's stored discovered set, most recent first. */
  discovered: readonly string[];
  /** The same names in the order found, first found first (the order a "stable" list sends them in). */
  foundOrder?: readonly string[];
  config: GatewayConfig;
  warnings: WarnOnce;
  /** The shape tokens are counted in (the shape the answer uses). Default `openai`. */
  shape?: ToolShape;
  /**
   * The index auto-discovery searches (config.autoDiscover), over this turn's tools: the ones the caller's groups show
   * (core/tools/visibleCatalog.ts), since an index over more would let hidden tools move what is sent. Without it, no
   * auto-discovery.
   */
  searchIndex?: Pick<SearchIndex, "scored">;
  /** The latest user message's text, when the caller has read it already; otherwise it is read from `messages`. */
  userText?: string;
}

export interface PrepareOutput {
  /** What the model receives this turn. */
  tools: ToolDefinition[];
  /** Whether the search layer replaced the list. */
  applied: boolean;
  /** The session's new discovered set (history merged in), most recent first, bounded. */
  discovered: string[];
  /** The discovered set in the order found, first found first. */
  foundOrder: string[];
  /**
   * The tools sent this turn only because the latest user message matched them (config.autoDiscover), best first;
   * they are last in `tools` and are not in `discovered` (a call makes them discovered, as for any tool).
   */
  autoDiscovered: string[];
  stats: { total: number; sent: number; tokensAll: number; tokensSent: number };
}

/** How a session's discovered set makes room under this tool-list mode (see Eviction). */
export function evictionFor(mode: ToolListMode): Eviction {
  return mode === "stable" ? "stable" : "lru";
}

/**
 * Whether the tool list a session's turns send may change when the model finds or uses tools (for the MCP face: in
 * a "fixed" list `tools/list` never changes and no `notifications/tools/list_changed` is due; a list that sends
 * every tool, with the layer off, does not change either). A change of the catalog itself (registration, another
 * client catalog, other groups) changes any list.
 */
export function toolListChangesOnDiscovery(config: Pick<GatewayConfig, "enabled" | "toolList">): boolean {
  return config.enabled && config.toolList !== "fixed";
}

/**
 * The tools this history discovered (oldest first) that this turn's tools hold: a made-up name the model called
 * never joins the set. The Worker merges these into the session's stored set; prepareTurn merges them the same way.
 */
export function discoveredInHistory(messages: readonly unknown[], tools: readonly ToolDefinition[]): string[] {
  const present = presentTools(tools);
  return extractDiscovered(messages, SEARCH_TOOLS_NAME).filter((name) => present.has(name));
}

/**
 * What a turn derives from its tools alone, kept per frozen tools array: the registry hands out the same frozen array
 * for the same groups until it changes, and a client catalog is interned, so from one turn to the next these are
 * found again instead of rebuilt over every tool (a mutable array is never kept: it could change under the entry).
 */
interface ToolsView {
  /** Name → tool, first of a name, search_tools left out. */
  present: PresentTools;
  /** The tools a list leaves to search_tools, by the always-direct names (and whether call_tool is left out too). */
  hidden: Map<string, readonly ToolDefinition[]>;
  /** Whether every tool of the list is present (names unique, none named search_tools): known without a pass for a registry's list. */
  everyPresent: boolean;
}

/** A turn's tools by name (first of a name, search_tools left out), and in catalog order. */
type PresentTools = Pick<ReadonlyMap<string, ToolDefinition>, "has" | "get" | "values">;

const toolsViews = new WeakMap<readonly ToolDefinition[], ToolsView>();

/**
 * The present tools of `tools`: a registry's list of every tool read from a snapshot (names unique) is looked up
 * through the registry (catalogNameLookup: a cold isolate's first turn makes no map of every name), any other list
 * through a map.
 */
function presentOf(tools: readonly ToolDefinition[]): Pick<ToolsView, "present" | "everyPresent"> {
  const lookup = catalogNameLookup(tools);
  if (lookup !== undefined) {
    const everyPresent = lookup(SEARCH_TOOLS_NAME) === undefined;
    const get = (name: string): ToolDefinition | undefined => (name === SEARCH_TOOLS_NAME ? undefined : lookup(name));
    const values = () => (everyPresent ? tools.values() : tools.filter((tool) => tool.name !== SEARCH_TOOLS_NAME).values());
    return { present: { get, has: (name) => get(name) !== undefined, values }, everyPresent };
  }
  const present = new Map<string, ToolDefinition>();
  for (const tool of tools) if (tool.name !== SEARCH_TOOLS_NAME && !present.has(tool.name)) present.set(tool.name, tool);
  return { present, everyPresent: present.size === tools.length };
}

function toolsView(tools: readonly ToolDefinition[]): ToolsView {
  const kept = toolsViews.get(tools);
  if (kept) return kept;
  const view: ToolsView = { ...presentOf(tools), hidden: new Map() };
  if (Object.isFrozen(tools)) toolsViews.set(tools, view);
  return view;
}

function presentTools(tools: readonly ToolDefinition[]): PresentTools {
  return toolsView(tools).present;
}

/**
 * The tools of the list that count towards maxDirectTools (all but one named search_tools): without a pass when the
 * view of a frozen list (kept, and made here if it was not yet: presentTools reads it next) says every tool is present.
 */
function countableTools(tools: readonly ToolDefinition[]): number {
  if (Object.isFrozen(tools) && toolsView(tools).everyPresent) return tools.length;
  return tools.filter((tool) => tool.name !== SEARCH_TOOLS_NAME).length;
}

/** The present tools not in `directNames` (and not call_tool, when `withoutCallTool`), in catalog order. */
function hiddenTools(tools: readonly ToolDefinition[], directNames: ReadonlySet<string>, withoutCallTool: boolean): readonly ToolDefinition[] {
  const view = toolsView(tools);
  const key = `${withoutCallTool ? "1" : "0"}${JSON.stringify([...directNames])}`;
  const kept = view.hidden.get(key);
  if (kept) return kept;
  // Nothing to leave out of a list whose every tool is present: the list itself, without a pass over it.
  const leavesOut = [...directNames].some((name) => view.present.has(name)) || (withoutCallTool && view.present.has(CALL_TOOL_NAME));
  if (view.everyPresent && !leavesOut && Object.isFrozen(tools)) {
    view.hidden.set(key, tools);
    return tools;
  }
  const hidden: ToolDefinition[] = [];
  for (const tool of view.present.values()) {
    if (directNames.has(tool.name) || (withoutCallTool && tool.name === CALL_TOOL_NAME)) continue;
    hidden.push(tool);
  }
  // Bounded: one entry per always-direct list and mode this isolate's configurations use.
  if (view.hidden.size >= 8) view.hidden.clear();
  // Nothing left out (every tool present, in order): the list itself, so that what is kept per list (its compact
  // names: searchTools.ts, a registry snapshot's figures) is found again.
  const frozen = hidden.length === tools.length && Object.isFrozen(tools) ? tools : Object.freeze(hidden);
  view.hidden.set(key, frozen);
  return frozen;
}

/**
 * The tools auto-discovery adds to this turn (config.autoDiscover): the latest user message is searched in the
 * configured mode; of the ranking, the first `topK` tools that this turn holds and does not send already are taken,
 * and those whose relevance (0..1, ScoredMatch) is under `minScore` dropped. The meta-tools never are; a tool the
 * caller's groups hide is not in `present`, so it never is either.
 */
function autoDiscover(input: PrepareInput, present: PresentTools, sent: readonly ToolDefinition[]): ToolDefinition[] {
  const { topK, minScore } = input.config.autoDiscover;
  const index = input.searchIndex;
  if (topK === 0 || !index) return [];
  const maxChars = input.config.limits.maxQueryLength;
  const text = (input.userText ?? latestUserText(input.messages, maxChars))?.slice(0, maxChars);
  if (text === undefined || text.trim() === "") return [];
  const taken = new Set(sent.map((tool) => tool.name));
  taken.add(SEARCH_TOOLS_NAME);
  if (input.config.toolList === "fixed") taken.add(CALL_TOOL_NAME);
  // An index over this very list ranks only its tools: each need not be looked up by name (a common word matches
  // thousands); search_tools is among the taken names.
  const sendable = indexAnswersFor(index, input.tools) ? acceptAllBut(taken) : (name: string): boolean => present.has(name) && !taken.has(name);
  const auto: ToolDefinition[] = [];
  for (const match of index.scored(text, topK, sendable)) {
    const tool = present.get(match.name);
    if (tool && match.relevance >= minScore) auto.push(tool);
  }
  return auto;
}

/** The always-direct tools present, in configuration order (each once); a missing one is warned about once. */
function directTools(config: GatewayConfig, present: PresentTools, warnings: WarnOnce | undefined): ToolDefinition[] {
  const direct: ToolDefinition[] = [];
  const directNames = new Set<string>();
  for (const name of config.alwaysDirectTools) {
    const tool = present.get(name);
    if (!tool) {
      warnings?.warn(
        `alwaysDirectTools:${name}`,
        `tool search: alwaysDirectTools lists "${name}", which is not registered or not available; it is ignored`,
      );
      continue;
    }
    if (directNames.has(name)) continue;
    directNames.add(name);
    direct.push(tool);
  }
  return direct;
}

/**
 * What a first turn over `tools` leaves out of search_tools: the always-direct tools' names, and call_tool when the
 * list is "fixed" (the meta-tool texts a first turn sends, and the count a snapshot carries for them, read the same).
 */
function firstTurnLeftOut(config: GatewayConfig, tools: readonly ToolDefinition[]): { directNames: Set<string>; fixed: boolean } {
  return { directNames: new Set(directTools(config, presentTools(tools), undefined).map((tool) => tool.name)), fixed: config.toolList === "fixed" };
}

/**
 * The texts of the meta-tools a first turn over `tools` sends in `shape` (nothing discovered yet): the search_tools
 * definition naming every tool but the always-direct ones, and in a "fixed" list call_tool's; none when the layer does
 * not apply. What prepareTurn counts besides the tools themselves: a registry snapshot carries their counts
 * (core/tools/registrySnapshot.ts), so that a cold isolate's first prepare does not build the tokenizer for them (the
 * search_tools text names every tool).
 */
export function firstTurnMetaToolTexts(tools: readonly ToolDefinition[], config: GatewayConfig, shape: ToolShape): string[] {
  if (!config.enabled || countableTools(tools) <= config.maxDirectTools) return [];
  const { directNames, fixed } = firstTurnLeftOut(config, tools);
  const searchTools = searchToolsOf(config, tools, directNames, fixed);
  return [searchTools, ...(fixed ? [callToolDefinition(config)] : [])].map((definition) => JSON.stringify(toShape(definition, shape)));
}

/** What a turn over a catalog works out from every tool of it: a registry snapshot carries them for its views. */
export interface CatalogFigures {
  /** The compact name list of search_tools' description (searchTools.ts, compactToolNames). */
  compactNames: string;
  /** The tokens of the whole list in the openai shape (prepare's stats, tokensAll). */
  openaiTokens: number;
  /**
   * The count of a first turn's search_tools text over the list in the openai shape, per template (searchToolsKey):
   * found by the list and the template instead of by hashing that text (every tool's name) on a cold first prepare.
   */
  searchTools?: readonly SearchToolsCount[];
}

/** A search_tools text's count in the openai shape, and what identifies the text besides the list (searchToolsKey). */
export interface SearchToolsCount extends ToolTokenCount {
  template: string;
}

/**
 * The figures of `tools`; with `config`, the count of the search_tools text a first turn over them sends under it too
 * (when the layer applies).
 */
export function catalogFigures(tools: readonly ToolDefinition[], config?: GatewayConfig): CatalogFigures {
  const figures: CatalogFigures = { compactNames: compactToolNames(tools), openaiTokens: toolListTokens(tools, "openai") };
  if (config === undefined || !config.enabled || countableTools(tools) <= config.maxDirectTools) return figures;
  const { directNames, fixed } = firstTurnLeftOut(config, tools);
  const count = toolTokenCount(searchToolsDefinition(config, hiddenTools(tools, directNames, fixed)), "openai");
  return { ...figures, searchTools: [{ template: searchToolsKey(config, directNames, fixed), ...count }] };
}

/** Per frozen list, the search_tools counts a registry snapshot carried for it (rememberCatalogFigures). */
const carriedSearchTools = new WeakMap<readonly ToolDefinition[], readonly SearchToolsCount[]>();

/**
 * What identifies the text of search_tools over hiddenTools(tools, directNames, withoutCallTool), given the list
 * `tools`: the definition's template in the openai shape (this code's texts, the configuration it reads) and what the
 * list leaves out. A short text, hashed: the count of a list's search_tools is then found without making and hashing
 * its text.
 */
function searchToolsKey(config: GatewayConfig, directNames: ReadonlySet<string>, withoutCallTool: boolean): string {
  const template = searchToolsTemplate(config, (definition) => JSON.stringify(toShape(definition, "openai")));
  return tokenMemoKey(JSON.stringify([template, [...directNames], withoutCallTool]));
}

/**
 * search_tools naming the tools of `tools` a list leaves to it (hiddenTools), with the count a registry snapshot
 * carried for the list and this template, when it did (a cold first prepare counts it without hashing its text).
 */
function searchToolsOf(config: GatewayConfig, tools: readonly ToolDefinition[], directNames: ReadonlySet<string>, withoutCallTool: boolean): ToolDefinition {
  const definition = searchToolsDefinition(config, hiddenTools(tools, directNames, withoutCallTool));
  const carried = carriedSearchTools.get(tools);
  if (carried === undefined) return definition;
  const template = searchToolsKey(config, directNames, withoutCallTool);
  const count = carried.find((entry) => entry.template === template);
  if (count !== undefined) rememberToolTokenCount(definition, "openai", { tokens: count.tokens, head: count.head, tail: count.tail, seamable: count.seamable });
  return definition;
}

/**
 * Takes a catalog's figures worked out elsewhere (a registry snapshot's, for the same tools in the same order): a
 * cold isolate's first turn then reads them instead of going over every tool. `tools` must be frozen (a registry's
 * list), as a list whose figures are kept is.
 */
export function rememberCatalogFigures(tools: readonly ToolDefinition[], figures: CatalogFigures): void {
  rememberCompactToolNames(tools, figures.compactNames);
  rememberToolListTokens(tools, "openai", figures.openaiTokens);
  if (figures.searchTools !== undefined && Object.isFrozen(tools)) carriedSearchTools.set(tools, figures.searchTools);
}

/**
 * One turn of the search layer.
 *
 * Decisions where the design documents are silent:
 * - Names found in this turn's history join the discovered set only when this turn's tools hold them (a call to a
 *   name that does not exist, answered with an error, must not push real tools out of the bounded set). Names
 *   already in the stored set stay even when absent this turn, since a session's catalog may vary per turn; only
 *   the ones present are sent.
 * - `toolList: "grow"`: the list sent is `search_tools` (naming the tools not yet found), then the always-direct
 *   tools in configuration order, then the discovered tools in this turn's catalog order (not most-recent order):
 *   the list stays byte-identical while the set's membership does.
 * - `toolList: "stable"`: the name list covers every tool but the always-direct ones and does not change when tools
 *   are found; the discovered tools follow in the order found, so a discovery appends and the prefix stays cached.
 * - `toolList: "fixed"`: `search_tools`, `call_tool`, the always-direct tools; nothing else, ever.
 * - The once-only warning for an always-direct name is given when the layer applies (step 2 follows step 1).
 * - Auto-discovered tools (config.autoDiscover) come last in every mode, after everything a mode sends anyway: the
 *   list before them is exactly the list without auto-discovery, so a provider's cached prefix keeps that much.
 */
export function prepareTurn(input: PrepareInput): PrepareOutput {
  const { tools, config, warnings } = input;
  const shape = input.shape ?? "openai";

  const present = presentTools(tools);

  const set = new DiscoveredSet(discoveredLimit(config), input.discovered, {
    eviction: evictionFor(config.toolList),
    ...(input.foundOrder ? { foundOrder: input.foundOrder } : {}),
  });
  set.touch(discoveredInHistory(input.messages, tools));
  const discovered = set.toArray();
  const foundOrder = set.foundOrder();

  const tokensAll = toolListTokens(tools, shape);
  if (!config.enabled || countableTools(tools) <= config.maxDirectTools) {
    return {
      tools: [...tools],
      applied: false,
      discovered,
      foundOrder,
      autoDiscovered: [],
      stats: { total: tools.length, sent: tools.length, tokensAll, tokensSent: tokensAll },
    };
  }

  const direct = directTools(config, present, warnings);
  const directNames = new Set(direct.map((tool) => tool.name));

  let sent: ToolDefinition[];
  if (config.toolList === "fixed") {
    // A client tool named call_tool is shadowed by the meta-tool, as one named search_tools is.
    sent = [searchToolsOf(config, tools, directNames, true), callToolDefinition(config), ...direct];
  } else if (config.toolList === "stable") {
    const inOrder = foundOrder.flatMap((name) => {
      const tool = present.get(name);
      return tool && !directNames.has(name) ? [tool] : [];
    });
    sent = [searchToolsOf(config, tools, directNames, false), ...direct, ...inOrder];
  } else {
    const discoveredSent: ToolDefinition[] = [];
    const remaining: ToolDefinition[] = [];
    const hidden = hiddenTools(tools, directNames, false);
    for (const tool of hidden) {
      if (set.has(tool.name)) discoveredSent.push(tool);
      else remaining.push(tool);
    }
    const searchTools = discoveredSent.length === 0 ? searchToolsOf(config, tools, directNames, false) : searchToolsDefinition(config, remaining);
    sent = [searchTools, ...direct, ...discoveredSent];
  }
  const auto = autoDiscover(input, present, sent);
  sent.push(...auto);
  return {
    tools: sent,
    applied: true,
    discovered,
    foundOrder,
    autoDiscovered: auto.map((tool) => tool.name),
    stats: { total: tools.length, sent: sent.length, tokensAll, tokensSent: toolListTokens(sent, shape) },
  };
}
