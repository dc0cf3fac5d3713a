// The prepare step (seed agent:llm:before, SPEC §2): recomputed on every turn, independent of anything else.
import type { GatewayConfig } from "./config.ts";
import type { ToolShape } from "./shapes.ts";
import type { Logger, ToolDefinition } from "./types.ts";

/** Logs each warning key once per instance (e.g. once per isolate), not once per turn. */
export class WarnOnce {
  constructor(_logger: Logger) {}
  warn(_key: string, _message: string): void { throw new Error("not implemented"); }
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

export function prepareTurn(_input: PrepareInput): PrepareOutput {
  throw new Error("not implemented");
}
