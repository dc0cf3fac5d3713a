// One tool call through the registry and its guard, the path both POST /v1/sessions/:sid/execute and MCP's tools/call
// take: the rate limit, client-catalog-first name resolution (`search_tools` by the gateway itself), registry.execute
// with the guard (gated = unknown, levels, denied capabilities, confirmations, untrusted wrapping by the executors),
// the principal's session limit, and one audit line per call. Tool-level outcomes are results; only the rate limit
// and the session limit are thrown (HttpError 429), for each surface to answer in its own way.
import { auditDecisionOf, auditLine } from "../core/audit.ts";
import type { AuditDecision } from "../core/audit.ts";
import { texts } from "../core/locale.ts";
import { parseSearchToolsParams, SEARCH_TOOLS_NAME } from "../core/searchTools.ts";
import type { ToolCallContext, ToolResult } from "../core/types.ts";
import { currentRegistry, guardDecisionOf, sessionRefusalOf } from "../worker/registry.ts";
import { sessionStub } from "./context.ts";
import type { Call } from "./context.ts";
import { HttpError } from "./errors.ts";
import { enforceRateLimit, tooManySessions } from "./limits.ts";
import { searchSession } from "./sessionSearch.ts";

export interface ToolCallInput {
  sessionId: string;
  name: string;
  args: Record<string, unknown>;
  /** The groups enabled for this call, already cut to the caller's token. */
  groups: string[];
}

function toolError(message: string): ToolResult {
  return { content: JSON.stringify({ error: message }), isError: true };
}

async function executeTool(call: Call, sessionId: string, name: string, args: Record<string, unknown>, context: ToolCallContext): Promise<ToolResult> {
  const { config } = call.settings;
  const groups = [...(context.enabledGroups ?? [])];
  if (name === SEARCH_TOOLS_NAME) {
    const parsed = parseSearchToolsParams(args, config.limits.maxQueryLength);
    if (!parsed.ok) return toolError(texts(config.locale).invalidArguments(name, parsed.problems));
    const result = await searchSession(call, sessionId, parsed.params, config.searchMode, groups);
    return { content: JSON.stringify(result), isError: false };
  }
  // One catalog per turn (issue 9 part 4): prepare sends, and search shows, the session's client catalog when it has
  // one, so a name that catalog holds is the client's tool here too (its schema, its guard), even when the registry
  // has a tool of the same name; any other name is the registry's, which answers an absent and a gated tool alike.
  const client = await sessionStub(call, sessionId).executeClientTool(name, args, context);
  if (client) return client;
  const { registry } = await currentRegistry(call.env, call.settings);
  return registry.execute(name, args, context);
}

/** Runs one call; throws HttpError 429 (rate_limited, too_many_sessions), answers everything else as a result. */
export async function runToolCall(call: Call, input: ToolCallInput): Promise<ToolResult> {
  const { sessionId, name, args, groups } = input;
  const { config } = call.settings;
  const started = Date.now();
  const audit = (decision: AuditDecision): void => {
    console.log(auditLine({ principalId: call.principal.id, sessionId, tool: name, decision, durationMs: Date.now() - started }));
  };
  try {
    await enforceRateLimit(call);
  } catch (error) {
    audit("rate_limited");
    throw error;
  }

  const context: ToolCallContext = { enabledGroups: groups, principal: call.principal, sessionId };
  let result: ToolResult;
  try {
    result = await executeTool(call, sessionId, name, args, context);
  } catch (error) {
    // A new session past the principal's session limit (search_tools in it): 429, like a prepare or search would.
    if (error instanceof HttpError) {
      audit("rate_limited");
      throw error;
    }
    // registry.execute() never throws; anything that still does (a failed RPC, a bug) is a tool error, not a 500.
    console.error(`execute ${name}: ${error instanceof Error ? `${error.message}\n${error.stack ?? ""}` : String(error)}`);
    result = toolError(texts(config.locale).toolFailed(name, "internal error"));
  }
  const refusal = sessionRefusalOf(context);
  if (refusal) {
    audit("rate_limited");
    throw tooManySessions(refusal);
  }
  audit(guardDecisionOf(context)?.kind === "deny" ? "deny" : auditDecisionOf(result));
  return result;
}
