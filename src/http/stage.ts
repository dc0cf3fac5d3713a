// The stage every route with a caller passes before its handler (itty's `before`, hono's middleware): the settings
// (503 when a variable is wrong), the caller (401; 403 when banned). Routes are written against the Call it hands
// them; the router attaches it to every route but health (router.ts), and a second face (/mcp) attaches the same
// stage (`withCaller`) or calls it (`callerStage`). The rate limit is not part of it: a route counts a call only once
// its request has validated (limits.ts), so that a malformed request neither costs budget nor answers 429.
import type { Principal } from "../core/types.ts";
import type { SessionIdentity } from "../durable/names.ts";
import { loadSettings } from "../isolate/settings.ts";
import type { Settings } from "../isolate/settings.ts";
import { authenticate, refuseBanned } from "./auth.ts";
import { HttpError } from "./errors.ts";
import type { RouteRequest } from "./request.ts";

/** What a route with a caller works with: the Worker's env, the isolate's settings and the verified caller. */
export interface Call {
  env: Env;
  settings: Settings;
  principal: Principal;
  /** The request's context, for work after the answer (usage figures); absent where a face has none. */
  ctx?: ExecutionContext;
}

/** A route handler that has a caller (the stage ran first). */
export type CallerHandler = (request: RouteRequest, call: Call) => Promise<Response>;

export function requireSettings(env: Env): Settings {
  const loaded = loadSettings(env);
  if (!loaded.ok) {
    throw new HttpError(503, "misconfigured", `the gateway is misconfigured: ${loaded.error.message}`);
  }
  return loaded.settings;
}

/** The stage: settings, then the caller's token, then the ban. Throws the HttpError that answers the request. */
export async function callerStage(request: Request, env: Env): Promise<Call> {
  const settings = requireSettings(env);
  const principal = await authenticate(request.headers.get("authorization"), settings.auth);
  refuseBanned(principal);
  return { env, settings, principal };
}

/** A handler with the stage in front: what the router registers for every route that has a caller. */
export function withCaller(handler: CallerHandler): (request: RouteRequest, env: Env, ctx?: ExecutionContext) => Promise<Response> {
  return async (request, env, ctx) => {
    const call = await callerStage(request, env);
    return handler(request, ctx === undefined ? call : { ...call, ctx });
  };
}

export function sessionIdentity(call: Call, sessionId: string): SessionIdentity {
  return { principalId: call.principal.id, sessionId };
}
