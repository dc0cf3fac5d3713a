// POST /v1/sessions/:sid/execute: one tool call through the registry and its guard (SPEC §4). Every tool-level
// outcome is 200 {content, isError, confirmation?}; 4xx only for a malformed request. One audit line per call.
import { auditDecisionOf, auditLine } from "../../core/audit.ts";
import type { AuditDecision } from "../../core/audit.ts";
import { CALL_TOOL_NAME, callToolAllows, callToolEnabled, parseCallToolParams } from "../../core/callTool.ts";
import { texts } from "../../core/locale.ts";
import { parseSearchToolsParams, SEARCH_TOOLS_NAME } from "../../core/searchTools.ts";
import type { ToolCallContext, ToolResult } from "../../core/types.ts";
import { currentRegistry, guardDecisionOf, sessionRefusalOf } from "../../worker/registry.ts";
import { readJsonObject } from "../body.ts";
import { begin, requireSessionId, sessionIdentity, sessionStub } from "../context.ts";
import type { Call } from "../context.ts";
import { badField, HttpError } from "../errors.ts";
import { readEnabledGroups } from "../groups.ts";
import { isSessionRefusal } from "../../durable/sessionLimit.ts";
import { enforceRateLimit, tooManySessions } from "../limits.ts";
import type { RouteRequest } from "../request.ts";
import { searchSession } from "../sessionSearch.ts";
import { isJsonObject, rejectUnknownFields, requiredString } from "../validate.ts";
import type { JsonObject } from "../validate.ts";

const TOOL_NAME_MAX = 256;

function toolError(message: string): ToolResult {
  return { content: JSON.stringify({ error: message }), isError: true };
}

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
    if (!isJsonObject(parsed)) {
      throw badField("arguments", `a string must be the JSON text of an object, got the text of ${Array.isArray(parsed) ? "an array" : parsed === null ? "null" : `a ${typeof parsed}`}`);
    }
    return parsed;
  }
  if (!isJsonObject(value)) throw badField("arguments", "must be an object, or the JSON text of one (a string)");
  return value;
}

/**
 * `call_tool` of a "fixed" tool list (issue 13): the inner tool runs through exactly the path a direct execute takes
 * (client catalog or registry, guard, confirmation bound to the inner tool and its arguments), but only once this
 * session has found it (the seed: a tool is searched before it is called) or when it is always direct. A refusal
 * reads the same whether the tool exists or not. A call refreshes the tool's place in the discovered set, since a
 * "fixed" history holds call_tool calls, in which prepare's history reading sees no tool name.
 */
async function executeCallTool(call: Call, sessionId: string, args: JsonObject, context: ToolCallContext, ran: { tool: string }): Promise<ToolResult> {
  const { config } = call.settings;
  const t = texts(config.locale);
  const parsed = parseCallToolParams(args, config.locale);
  if (!parsed.ok) return toolError(t.invalidArguments(CALL_TOOL_NAME, parsed.problems));
  const { name, arguments: inner } = parsed.params;
  ran.tool = name;
  const session = sessionStub(call, sessionId);
  if (!callToolAllows(name, await session.getDiscovered(), config)) return toolError(t.callToolNotFound(name));
  const result = await executeTool(call, sessionId, name, inner, context);
  const touched = await session.touchDiscovered(sessionIdentity(call, sessionId), [name]);
  if (isSessionRefusal(touched)) throw tooManySessions(touched);
  return result;
}

async function executeTool(call: Call, sessionId: string, name: string, args: JsonObject, context: ToolCallContext): Promise<ToolResult> {
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

export async function execute(request: RouteRequest, env: Env): Promise<Response> {
  const call = await begin(request, env);
  const sessionId = requireSessionId(request.params.sid);
  const { config } = call.settings;
  const body = await readJsonObject(request, config.limits.maxBodyBytes);
  rejectUnknownFields(body, ["name", "arguments", "enabledGroups"]);
  const name = requiredString(body, "name", "", { maxLength: TOOL_NAME_MAX });
  const args = readArguments(body.arguments);
  const groups = readEnabledGroups(call, body);

  const started = Date.now();
  // The tool the audit line names: call_tool's inner tool once its arguments are read.
  const ran = { tool: name };
  const audit = (decision: AuditDecision): void => {
    console.log(auditLine({ principalId: call.principal.id, sessionId, tool: ran.tool, decision, durationMs: Date.now() - started }));
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
    result = name === CALL_TOOL_NAME && callToolEnabled(config)
      ? await executeCallTool(call, sessionId, args, context, ran)
      : await executeTool(call, sessionId, name, args, context);
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
  return Response.json({
    content: result.content,
    isError: result.isError,
    ...(result.confirmation ? { confirmation: result.confirmation } : {}),
  });
}
