// The prepare step (docs/DESIGN.md, "Flows"): recomputed on every turn, independent of anything else.
import type { GatewayConfig } from "./config.ts";
import { discoveredLimit } from "./config.ts";
import { DiscoveredSet } from "./discovered.ts";
import { extractDiscovered } from "./history.ts";
import { SEARCH_TOOLS_NAME, searchToolsDefinition } from "./searchTools.ts";
import { toShape } from "./shapes.ts";
import type { ToolShape } from "./shapes.ts";
import { countTokens } from "./tokens.ts";
import type { Logger, ToolDefinition } from "./types.ts";

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
  config: GatewayConfig;
  warnings: WarnOnce;
  /** The shape tokens are counted in (the shape the answer uses). Default `openai`. */
  shape?: ToolShape;
}

export interface PrepareOutput {
  /** What the model receives this turn. */
  tools: ToolDefinition[];
  /** Whether the search layer replaced the list. */
  applied: boolean;
  /** The session's new discovered set (history merged in), most recent first, bounded. */
  discovered: string[];
  stats: { total: number; sent: number; tokensAll: number; tokensSent: number };
}

function listTokens(tools: readonly ToolDefinition[], shape: ToolShape): number {
  return countTokens(JSON.stringify(tools.map((tool) => toShape(tool, shape))));
}

/**
 * The tools this history discovered (oldest first) that this turn's tools hold: a made-up name the model called
 * never joins the set. The Worker merges these into the session's stored set; prepareTurn merges them the same way.
 */
export function discoveredInHistory(messages: readonly unknown[], tools: readonly ToolDefinition[]): string[] {
  const names = new Set(tools.map((tool) => tool.name));
  names.delete(SEARCH_TOOLS_NAME);
  return extractDiscovered(messages, SEARCH_TOOLS_NAME).filter((name) => names.has(name));
}

/**
 * One turn of the search layer.
 *
 * Decisions where the design documents are silent:
 * - Names found in this turn's history join the discovered set only when this turn's tools hold them (a call to a
 *   name that does not exist, answered with an error, must not push real tools out of the bounded set). Names
 *   already in the stored set stay even when absent this turn, since a session's catalog may vary per turn; only
 *   the ones present are sent.
 * - The list sent is `search_tools`, then the always-direct tools in configuration order, then the discovered
 *   tools in this turn's catalog order (not most-recent order): the list then stays byte-identical while the set's
 *   membership does, which keeps the model provider's prompt cache warm.
 * - The once-only warning for an always-direct name is given when the layer applies (step 2 follows step 1).
 */
export function prepareTurn(input: PrepareInput): PrepareOutput {
  const { tools, config, warnings } = input;
  const shape = input.shape ?? "openai";

  const present = new Map<string, ToolDefinition>();
  for (const tool of tools) if (tool.name !== SEARCH_TOOLS_NAME && !present.has(tool.name)) present.set(tool.name, tool);

  const set = new DiscoveredSet(discoveredLimit(config), input.discovered);
  set.touch(discoveredInHistory(input.messages, tools));
  const discovered = set.toArray();

  const tokensAll = listTokens(tools, shape);
  const countable = tools.filter((tool) => tool.name !== SEARCH_TOOLS_NAME).length;
  if (!config.enabled || countable <= config.maxDirectTools) {
    return {
      tools: [...tools],
      applied: false,
      discovered,
      stats: { total: tools.length, sent: tools.length, tokensAll, tokensSent: tokensAll },
    };
  }

  const direct: ToolDefinition[] = [];
  const directNames = new Set<string>();
  for (const name of config.alwaysDirectTools) {
    const tool = present.get(name);
    if (!tool) {
      warnings.warn(
        `alwaysDirectTools:${name}`,
        `tool search: alwaysDirectTools lists "${name}", which is not registered or not available; it is ignored`,
      );
      continue;
    }
    if (directNames.has(name)) continue;
    directNames.add(name);
    direct.push(tool);
  }

  const discoveredSent: ToolDefinition[] = [];
  const remaining: ToolDefinition[] = [];
  for (const tool of present.values()) {
    if (directNames.has(tool.name)) continue;
    if (set.has(tool.name)) discoveredSent.push(tool);
    else remaining.push(tool);
  }

  const sent = [searchToolsDefinition(config, remaining), ...direct, ...discoveredSent];
  return {
    tools: sent,
    applied: true,
    discovered,
    stats: { total: tools.length, sent: sent.length, tokensAll, tokensSent: listTokens(sent, shape) },
  };
}
