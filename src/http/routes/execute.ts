// POST /v1/sessions/:sid/execute: one tool call (toolCall.ts: the registry, its guard, the audit line). Every
// tool-level outcome is 200 {content, isError, confirmation?, signIn?}; 4xx only for a malformed request.
import { isRecord } from "../../core/records.ts";
import { fitToolName } from "../../core/tools/toolNames.ts";
import { readJsonObject, refuseTooDeep } from "../body.ts";
import { withApprovalUrl } from "../approvalLinks.ts";
import { badField } from "../errors.ts";
import { readEnabledGroups } from "../groups.ts";
import type { RouteRequest } from "../request.ts";
import type { Call } from "../stage.ts";
import { callTool } from "../toolCall.ts";
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
    // The same depth limit as arguments given as an object (the body's second level).
    refuseTooDeep(parsed, "arguments", 2);
    return parsed;
  }
  if (!isRecord(value)) throw badField("arguments", "must be an object, or the JSON text of one (a string)");
  return value;
}

export async function execute(request: RouteRequest, call: Call): Promise<Response> {
  const sessionId = requireSessionId(request.params.sid);
  const { config } = call.settings;
  const body = await readJsonObject(request, config.limits.maxBodyBytes);
  rejectUnknownFields(body, ["name", "arguments", "enabledGroups"]);
  const name = requiredString(body, "name", "", { maxLength: TOOL_NAME_MAX });
  const args = readArguments(body.arguments);
  const groups = readEnabledGroups(call, body);

  // A name as its source spelled it (`github.create_issue`) reaches the tool it was fitted to at registration.
  const result = await callTool(call, sessionId, fitToolName(name), args, groups);
  return Response.json({
    content: result.content,
    isError: result.isError,
    ...(result.confirmation ? { confirmation: await withApprovalUrl(call, sessionId, result.confirmation) } : {}),
    // The caller's own sign-in to an OAuth upstream is needed first: the link (also in the content), for a client to show.
    ...(result.signIn ? { signIn: result.signIn } : {}),
  });
}
