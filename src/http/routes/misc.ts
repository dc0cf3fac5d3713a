// Health, memory clearing and the untrusted-content boundary.
import { CORE_VERSION } from "../../core/version.ts";
import { wrapFetchedContent } from "../../core/boundary/untrusted.ts";
import { loadSettings } from "../../isolate/settings.ts";
import { principalStub, sessionStub } from "../../durable/stubs.ts";
import { readJsonObject } from "../body.ts";
import { badField } from "../errors.ts";
import { CLEAR_ALL_COST, enforceRateLimit } from "../limits.ts";
import type { RouteRequest } from "../request.ts";
import type { Call } from "../stage.ts";
import { optionalString, rejectUnknownFields, requiredString, requireSessionId } from "../validate.ts";

const MAX_SOURCE_INPUT = 10_000;

/** Liveness and version; it answers even when the configuration is wrong, and says why. */
export function health(_request: RouteRequest, env: Env): Response {
  const settings = loadSettings(env);
  if (!settings.ok) return Response.json({ ok: false, version: CORE_VERSION, configError: settings.error.message });
  return Response.json({ ok: true, version: CORE_VERSION });
}

export async function clearMemory(request: RouteRequest, call: Call): Promise<Response> {
  const body = await readJsonObject(request, call.settings.config.limits.maxBodyBytes);
  rejectUnknownFields(body, ["scope", "sessionId"]);
  const scope = requiredString(body, "scope", "");
  const sessionIdText = optionalString(body, "sessionId", "", { allowEmpty: true });
  if (scope === "session") {
    if (sessionIdText === undefined) throw badField("sessionId", 'is required with scope "session"');
    const sessionId = requireSessionId(sessionIdText);
    await enforceRateLimit(call);
    const cleared = await sessionStub(call.env, call.principal.id, sessionId).clearDiscovered();
    return Response.json({ scope, sessionId, cleared: cleared ? 1 : 0, pending: 0 });
  }
  if (scope === "all") {
    if (sessionIdText !== undefined) throw badField("sessionId", 'is not allowed with scope "all"');
    await enforceRateLimit(call, CLEAR_ALL_COST);
    const outcome = await principalStub(call.env, call.principal.id).clearAll(call.principal.id);
    return Response.json({ scope, cleared: outcome.cleared, pending: outcome.pending });
  }
  throw badField("scope", 'must be "session" or "all"');
}

export async function wrapUntrusted(request: RouteRequest, call: Call): Promise<Response> {
  const { config } = call.settings;
  const body = await readJsonObject(request, config.limits.maxBodyBytes);
  rejectUnknownFields(body, ["content", "source"]);
  const content = requiredString(body, "content", "", { allowEmpty: true });
  const source = requiredString(body, "source", "", { allowEmpty: true, maxLength: MAX_SOURCE_INPUT });
  await enforceRateLimit(call);
  // Third-party text a client hands over (an MCP result, a page its extension read) gets the executors' boundary.
  return Response.json({
    content: wrapFetchedContent(content, source, { locale: config.locale, maxChars: config.limits.maxUntrustedChars }),
  });
}
