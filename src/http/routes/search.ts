// POST /v1/sessions/:sid/search: the search_tools result object itself (docs/DESIGN.md, "Flows").
import { SEARCH_MODES } from "../../core/config.ts";
import { parseSearchToolsParams } from "../../core/turn/searchTools.ts";
import { readJsonObject } from "../body.ts";
import { HttpError } from "../errors.ts";
import { readEnabledGroups } from "../groups.ts";
import { enforceRateLimit } from "../limits.ts";
import type { RouteRequest } from "../request.ts";
import type { Call } from "../stage.ts";
import { searchSession } from "../sessionSearch.ts";
import { optionalInteger, optionalOneOf, rejectUnknownFields, requiredString, requireSessionId } from "../validate.ts";

export async function search(request: RouteRequest, call: Call): Promise<Response> {
  const sessionId = requireSessionId(request.params.sid);
  const { config } = call.settings;
  const body = await readJsonObject(request, config.limits.maxBodyBytes);
  rejectUnknownFields(body, ["query", "limit", "offset", "enabledGroups", "mode"]);
  const query = requiredString(body, "query", "", { allowEmpty: true, maxLength: config.limits.maxQueryLength });
  const limit = optionalInteger(body, "limit", "", 0, Number.MAX_SAFE_INTEGER);
  const offset = optionalInteger(body, "offset", "", 0, Number.MAX_SAFE_INTEGER);
  const groups = readEnabledGroups(call, body);
  const mode = optionalOneOf(body, "mode", "", SEARCH_MODES) ?? config.searchMode;
  const parsed = parseSearchToolsParams(
    { query, ...(limit !== undefined ? { limit } : {}), ...(offset !== undefined ? { offset } : {}) },
    config.limits.maxQueryLength,
  );
  if (!parsed.ok) throw new HttpError(400, "invalid_request", parsed.problems.join("; "));
  await enforceRateLimit(call);
  return Response.json(await searchSession(call, sessionId, parsed.params, mode, groups));
}
