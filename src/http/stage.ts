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
import { issuedToken, SCOPE_GATEWAY } from "./oauth/paths.ts";
import type { RouteRequest } from "./request.ts";

/** What a route with a caller works with: the Worker's env, the isolate's settings and the verified caller. */
export interface Call {
  env: Env;
  settings: Settings;
  principal: Principal;
  /** The request's context, for work after the answer (usage figures); absent where a face has none. */
  ctx?: ExecutionContext;
  /** The request's origin (`https://host`), for links the gateway hands out (approval links). */
  origin?: string;
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
  const authorization = request.headers.get("authorization");
  // A token this gateway issued (AUTH_MODE "oauth") has its own shape; anything else is a JWT or no token.
  const issued = settings.auth.oauth ? issuedToken(authorization) : undefined;
  const principal = issued !== undefined
    ? await (await import("./oauth/token.ts")).principalOfIssuedToken(issued, request, env)
    : await authenticate(authorization, settings.auth);
  refuseBanned(principal);
  return { env, settings, principal, origin: new URL(request.url).origin };
}

/**
 * With the gateway as its own authorization server, a 401 of the API names the API's protected-resource metadata
 * (RFC 9728 §5.1) and the scope to ask for, as /mcp's does, so that an OAuth client can start from it.
 */
function apiChallenge(error: unknown, request: Request, settings: Settings): unknown {
  if (!(error instanceof HttpError) || error.status !== 401 || !settings.auth.oauth) return error;
  const challenge = error.headers["WWW-Authenticate"] ?? 'Bearer realm="toolgate"';
  const metadata = `${new URL(request.url).origin}/.well-known/oauth-protected-resource/v1`;
  return new HttpError(401, error.code, error.message, {
    ...error.headers,
    "WWW-Authenticate": `${challenge}, resource_metadata="${metadata}", scope="${SCOPE_GATEWAY}"`,
  });
}

/** A handler with the stage in front: what the router registers for every route that has a caller. */
export function withCaller(handler: CallerHandler): (request: RouteRequest, env: Env, ctx?: ExecutionContext) => Promise<Response> {
  return async (request, env, ctx) => {
    const call = await callerStage(request, env).catch((error: unknown) => {
      throw apiChallenge(error, request, requireSettings(env));
    });
    return handler(request, ctx === undefined ? call : { ...call, ctx });
  };
}

export function sessionIdentity(call: Call, sessionId: string): SessionIdentity {
  return { principalId: call.principal.id, sessionId };
}
