// One tool call as a face runs it (the /v1 execute route; a second face's tool call alike): the rate limit, the name
// resolved (search_tools; the session's client catalog first, then the registry), the registry's gate, validation and
// guard, and one audit line per call (docs/DESIGN.md, "Flows"). Every tool-level outcome is a ToolResult; an
// HttpError only for the rate limit and the principal's session limit (429).
import { auditDecisionOf, auditLine } from "../core/guard/audit.ts";
import type { AuditDecision } from "../core/guard/audit.ts";
import { CALL_TOOL_NAME, callToolAllows, callToolEnabled, parseCallToolParams } from "../core/turn/callTool.ts";
import { texts } from "../core/locale.ts";
import { parseSearchToolsParams, SEARCH_TOOLS_NAME } from "../core/turn/searchTools.ts";
import { errorResult } from "../core/tools/toolRegistry.ts";
import type { ToolCallContext, ToolOutcome, ToolResult } from "../core/types.ts";
import { isSessionRefusal, TOO_MANY_SESSIONS } from "../durable/sessionLimit.ts";
import { sessionStub } from "../durable/stubs.ts";
import { currentRegistry } from "../isolate/registryCache.ts";
import { countUsage } from "./usage.ts";
import { learnFromCall } from "./learning.ts";
import { HttpError, snapshotRefusal } from "./errors.ts";
import { enforceRateLimit, tooManySessions } from "./limits.ts";
import { searchSession } from "./sessionSearch.ts";
import type { Call } from "./stage.ts";
import { sessionIdentity } from "./stage.ts";

/** Which tool ran, and whether the registry ran it (not search_tools, not a client tool): what learning may use. */
interface Ran {
  tool: string;
  registry: boolean;
}

/** The outcome of one call: `search_tools`, else the session's client catalog, else the registry. */
async function executeTool(
  call: Call,
  sessionId: string,
  name: string,
  args: Record<string, unknown>,
  context: ToolCallContext,
  ran: Ran,
): Promise<ToolOutcome> {
  const { config } = call.settings;
  const groups = [...(context.enabledGroups ?? [])];
  if (name === SEARCH_TOOLS_NAME) {
    const parsed = parseSearchToolsParams(args, config.limits.maxQueryLength);
    if (!parsed.ok) return { result: errorResult(texts(config.locale).invalidArguments(name, parsed.problems)) };
    const result = await searchSession(call, sessionId, parsed.params, config.searchMode, groups);
    return { result: { content: JSON.stringify(result), isError: false } };
  }
  // One catalog per turn: prepare sends, and search shows, the session's client catalog when it has one, so a name
  // that catalog holds is the client's tool here too (its schema, its guard), even when the registry has a tool of
  // the same name; any other name is the registry's, which answers an absent and a gated tool alike.
  const client = await sessionStub(call.env, call.principal.id, sessionId).executeClientTool(name, args, context, config);
  if (client) return client;
  ran.registry = true;
  return registryOutcome(call, name, args, context);
}

async function registryOutcome(call: Call, name: string, args: Record<string, unknown>, context: ToolCallContext): Promise<ToolOutcome> {
  const { registry } = await currentRegistry(call.env, call.settings);
  return registry.executeWithDecision(name, args, context);
}

/**
 * `call_tool {name, arguments}`: the inner tool runs through exactly the path a direct call takes (client catalog or
 * registry, guard, a confirmation bound to the inner tool and its arguments), whether this session has found it or
 * not (callToolAllows): the guard is the boundary. A found tool's place in the discovered set is refreshed; the
 * refresh and the client catalog's run are one session round trip. `ran.tool` becomes the inner name, for the audit line.
 */
async function executeCallTool(
  call: Call,
  sessionId: string,
  args: Record<string, unknown>,
  context: ToolCallContext,
  ran: Ran,
): Promise<ToolOutcome> {
  const { config } = call.settings;
  const t = texts(config.locale);
  const parsed = parseCallToolParams(args, config.locale);
  if (!parsed.ok) return { result: errorResult(t.invalidArguments(CALL_TOOL_NAME, parsed.problems)) };
  const { name, arguments: inner } = parsed.params;
  ran.tool = name;
  if (!callToolAllows(name)) return { result: errorResult(t.callToolNotNested(name)) };
  const session = sessionStub(call.env, call.principal.id, sessionId);
  const found = await session.callFoundTool(sessionIdentity(call, sessionId), name, inner, context, config);
  if (isSessionRefusal(found)) throw tooManySessions(found);
  if (found.client) return found.client;
  ran.registry = true;
  return registryOutcome(call, name, inner, context);
}

export interface CallOptions {
  /** Whether `call_tool` is a meta-tool here (default: a "fixed" tool list; MCP also when `mcp.callTool`). */
  callTool?: boolean;
}

/** Runs one call of `name` in the caller's session, with `groups` enabled (already within the caller's token). */
export async function callTool(
  call: Call,
  sessionId: string,
  name: string,
  args: Record<string, unknown>,
  groups: string[],
  options: CallOptions = {},
): Promise<ToolResult> {
  const { config } = call.settings;
  const started = Date.now();
  // The tool the audit line names: call_tool's inner tool once its arguments are read.
  const ran: Ran = { tool: name, registry: false };
  const audit = (decision: AuditDecision): void => {
    console.log(auditLine({ principalId: call.principal.id, sessionId, tool: ran.tool, decision, durationMs: Date.now() - started }));
    countUsage(call, { execution: decision });
  };
  try {
    await enforceRateLimit(call);
  } catch (error) {
    audit("rate_limited");
    throw error;
  }

  const context: ToolCallContext = { enabledGroups: groups, principal: call.principal, sessionId, ...(call.origin !== undefined ? { origin: call.origin } : {}) };
  let outcome: ToolOutcome;
  try {
    const metaCallTool = options.callTool ?? callToolEnabled(config);
    outcome = name === CALL_TOOL_NAME && metaCallTool
      ? await executeCallTool(call, sessionId, args, context, ran)
      : await executeTool(call, sessionId, name, args, context, ran);
  } catch (error) {
    // A new session past the principal's session limit (search_tools in it): 429, like a prepare or search would.
    if (error instanceof HttpError) {
      audit("rate_limited");
      throw error;
    }
    // A stored snapshot found damaged while loading the catalog: nothing ran, and the next call is served from the
    // texts, so the caller is told to retry (503 index_rebuilding), as a search or prepare would be.
    const damaged = snapshotRefusal(error, `tools/call ${name.slice(0, 64)}`);
    if (damaged !== undefined) {
      audit("error");
      throw damaged;
    }
    // registry.execute() never throws; anything that still does (a failed RPC, a bug) is a tool error, not a 500.
    console.error(`execute ${name}: ${error instanceof Error ? `${error.message}\n${error.stack ?? ""}` : String(error)}`);
    outcome = { result: errorResult(texts(config.locale).toolFailed(name, "internal error")) };
  }
  const { result, decision } = outcome;
  // The guard could not open a confirmation in a new session past the principal's limit: 429, as prepare would.
  if (decision?.kind === "deny" && decision.code === TOO_MANY_SESSIONS) {
    audit("rate_limited");
    throw tooManySessions({ refused: decision.reason });
  }
  audit(auditDecisionOf(result, decision));
  // A registry tool that the guard let run and that ran teaches the search that showed it (docs/search.md, "Learning
  // from calls"); a refused, held or failed call (a quarantined upstream tool's included) teaches nothing.
  if (ran.registry && decision?.kind === "allow" && !result.isError) learnFromCall(call, sessionId, ran.tool);
  return result;
}
