// POST /v1/sessions/:sid/execute: one tool call through the registry and its guard (SPEC §4). Every tool-level
// outcome is 200 {content, isError, confirmation?}; 4xx only for a malformed request. One audit line per call.
import { auditDecisionOf, auditLine } from "../../core/audit.ts";
import type { AuditDecision } from "../../core/audit.ts";
import { texts } from "../../core/locale.ts";
import { isRecord } from "../../core/records.ts";
import { parseSearchToolsParams, SEARCH_TOOLS_NAME } from "../../core/searchTools.ts";
import { errorResult } from "../../core/toolRegistry.ts";
import type { ToolCallContext, ToolOutcome } from "../../core/types.ts";
import { TOO_MANY_SESSIONS } from "../../durable/sessionLimit.ts";
import { sessionStub } from "../../durable/stubs.ts";
import { currentRegistry } from "../../isolate/registryCache.ts";
import { readJsonObject } from "../body.ts";
import type { Call } from "../stage.ts";
import { badField, HttpError } from "../errors.ts";
import { readEnabledGroups } from "../groups.ts";
import { enforceRateLimit, tooManySessions } from "../limits.ts";
import type { RouteRequest } from "../request.ts";
import { searchSession } from "../sessionSearch.ts";
import { rejectUnknownFields, requiredString, requireSessionId } from "../validate.ts";
import type { JsonObject } from "../validate.ts";

const TOOL_NAME_MAX = 256;

/**
 * `arguments` as an object, or as the JSON text of one: OpenAI's `tool_calls[].function.arguments` is a string, which a
 * client may pass on as it came. The text is part of the body, so `limits.maxBodyBytes` already bounds it.
 */
function readArguments(value: unknown): JsonObject {
  if (value === undefined || value === null) return {};
  if (typeof value === "string") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch (error) {
      const reason = error instanceof Error ? error.message : "parse error";
      throw badField("arguments", `a string must be the JSON text of an object; this one is not valid JSON (${reason.slice(0, 200)})`);
    }
    if (!isRecord(parsed)) {
      throw badField("arguments", `a string must be the JSON text of an object, got the text of ${Array.isArray(parsed) ? "an array" : parsed === null ? "null" : `a ${typeof parsed}`}`);
    }
    return parsed;
  }
  if (!isRecord(value)) throw badField("arguments", "must be an object, or the JSON text of one (a string)");
  return value;
}

async function executeTool(call: Call, sessionId: string, name: string, args: JsonObject, context: ToolCallContext): Promise<ToolOutcome> {
  const { config } = call.settings;
  const groups = [...(context.enabledGroups ?? [])];
  if (name === SEARCH_TOOLS_NAME) {
    const parsed = parseSearchToolsParams(args, config.limits.maxQueryLength);
    if (!parsed.ok) return { result: errorResult(texts(config.locale).invalidArguments(name, parsed.problems)) };
    const result = await searchSession(call, sessionId, parsed.params, config.searchMode, groups);
    return { result: { content: JSON.stringify(result), isError: false } };
  }
  // One catalog per turn (issue 9 part 4): prepare sends, and search shows, the session's client catalog when it has
  // one, so a name that catalog holds is the client's tool here too (its schema, its guard), even when the registry
  // has a tool of the same name; any other name is the registry's, which answers an absent and a gated tool alike.
  const client = await sessionStub(call.env, call.principal.id, sessionId).executeClientTool(name, args, context, config);
  if (client) return client;
  const { registry } = await currentRegistry(call.env, call.settings);
  return registry.executeWithDecision(name, args, context);
}

export async function execute(request: RouteRequest, call: Call): Promise<Response> {
  const sessionId = requireSessionId(request.params.sid);
  const { config } = call.settings;
  const body = await readJsonObject(request, config.limits.maxBodyBytes);
  rejectUnknownFields(body, ["name", "arguments", "enabledGroups"]);
  const name = requiredString(body, "name", "", { maxLength: TOOL_NAME_MAX });
  const args = readArguments(body.arguments);
  const groups = readEnabledGroups(call, body);

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
  let outcome: ToolOutcome;
  try {
    outcome = await executeTool(call, sessionId, name, args, context);
  } catch (error) {
    // A new session past the principal's session limit (search_tools in it): 429, like a prepare or search would.
    if (error instanceof HttpError) {
      audit("rate_limited");
      throw error;
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
  return Response.json({
    content: result.content,
    isError: result.isError,
    ...(result.confirmation ? { confirmation: result.confirmation } : {}),
  });
}
