// Each user's own grant to an OAuth upstream (`auth: {type: "oauth"}`): the sign-in link (POST .../connect, and the
// link a call that needs one answers with), the connect page that starts the flow (state, PKCE S256, a cookie that
// binds the flow to the browser that opened the link) and sends the browser to the authorization server, the
// callback that takes the flow once and has the upstream's object exchange the code and store the grant in the
// principal's own object, toolgate's client metadata document, and DELETE .../grant. The link's ticket and the state
// are the connect page's and the callback's only credentials (isolate/upstreamSignIn.ts): no bearer token reaches a
// browser.
import { toBase64Url } from "../../core/base64url.ts";
import { pkceChallenge, randomToken, clientMetadata } from "../../durable/oauthClient.ts";
import { UPSTREAM_ID_PATTERN } from "../../core/tools/definition.ts";
import { principalStub, upstreamStub } from "../../durable/stubs.ts";
import { signInPaths } from "../../durable/upstreamOAuth.ts";
import { openSignInState, openSignInTicket, sealSignInState, signInLink } from "../../isolate/upstreamSignIn.ts";
import type { SignInTicket } from "../../isolate/upstreamSignIn.ts";
import { ANONYMOUS_PRINCIPAL_ID } from "../../core/guard/authority.ts";
import { badField, HttpError } from "../errors.ts";
import { enforceRateLimit } from "../limits.ts";
import type { RouteRequest } from "../request.ts";
import type { Call } from "../stage.ts";
import { requireSettings } from "../stage.ts";
import { message } from "./approvals.ts";

const COOKIE_PREFIX = "toolgate_signin_";
/** Longest code or state read from the callback's query. */
const MAX_PARAM_CHARS = 4096;

function upstreamId(request: RouteRequest): string {
  const id = request.params.id;
  if (id === undefined || !UPSTREAM_ID_PATTERN.test(id)) throw badField("id", `an upstream id must match ${UPSTREAM_ID_PATTERN.source}`);
  return id;
}

async function sha256(text: string): Promise<string> {
  return toBase64Url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))));
}

function cookieValue(request: Request, name: string): string | undefined {
  const header = request.headers.get("cookie") ?? "";
  for (const part of header.split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return rest.join("=");
  }
  return undefined;
}

function cookieAttributes(origin: string, id: string, maxAgeSeconds: number): string {
  const secure = origin.startsWith("https://") ? "; Secure" : "";
  return `; Path=/v1/upstreams/${id}/oauth/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure}`;
}

const invalidLink = (): Response => message(403, "Invalid link", "This sign-in link was not issued by this gateway for this upstream, or it was changed.");
const usedLink = (): Response =>
  message(410, "Link no longer valid", "This sign-in link has expired or was already used. Call the tool again for a new one.");

/** POST /v1/upstreams/:id/connect: a fresh sign-in link for the caller (the owner's first sign-in, or a user's ahead of a call). */
export async function connectLink(request: RouteRequest, call: Call): Promise<Response> {
  const id = upstreamId(request);
  await enforceRateLimit(call);
  if (call.principal.id === ANONYMOUS_PRINCIPAL_ID) throw new HttpError(403, "forbidden", "anonymous callers cannot hold a grant to an upstream");
  if (!(await upstreamStub(call.env, id).usesOAuth())) throw new HttpError(404, "upstream_not_found", "no upstream MCP server with this id uses OAuth");
  if (call.origin === undefined) throw new HttpError(400, "invalid_request", "the request's origin is unknown");
  const link = await signInLink(call.settings, call.origin, call.principal.id, id);
  if (!link) throw new HttpError(503, "misconfigured", "sign-in links need MCP_STATE_SECRET or AUTH_JWT_SECRET");
  return Response.json({ url: link.url, expiresAt: new Date(link.expiresAt).toISOString() });
}

/** DELETE /v1/upstreams/:id/grant: the caller's own grant, deleted (and revoked at the server where it can be). */
export async function deleteGrant(request: RouteRequest, call: Call): Promise<Response> {
  const id = upstreamId(request);
  await enforceRateLimit(call);
  const outcome = await upstreamStub(call.env, id).deleteGrant(call.principal.id);
  // The upstream may be gone already: the principal's row (of an older generation) goes anyway.
  const local = outcome.deleted ? outcome : await principalStub(call.env, call.principal.id).deleteUpstreamGrant(call.principal.id, id);
  return Response.json({ upstream: id, deleted: local.deleted, revoked: outcome.revoked });
}

/** GET /v1/upstreams/:id/connect?ticket=…: the link's first open starts the flow and sends the browser to sign in. */
export async function connectPage(request: RouteRequest, env: Env): Promise<Response> {
  const settings = requireSettings(env);
  const id = upstreamId(request);
  const url = new URL(request.url);
  const text = url.searchParams.get("ticket") ?? "";
  const ticket = text.length > 0 && text.length <= MAX_PARAM_CHARS ? await openSignInTicket(settings, text) : undefined;
  if (!ticket || ticket.upstream !== id) return invalidLink();
  if (Date.now() > ticket.expiresAt) return usedLink();
  const browser = randomToken(24);
  const verifier = randomToken(32);
  const state = await sealSignInState(settings, ticket);
  const begun = await upstreamStub(env, id).beginSignIn(url.origin, state, await pkceChallenge(verifier));
  if (!begun.ok) return message(502, "Sign-in unavailable", `The upstream's sign-in could not be started: ${begun.error}`);
  const first = await principalStub(env, ticket.principal).beginUpstreamSignIn(
    ticket.principal,
    ticket.nonce,
    { upstreamId: id, generation: begun.generation, verifier, browserHash: await sha256(browser), redirectUri: begun.redirectUri },
    ticket.expiresAt,
  );
  if (!first) return usedLink();
  const maxAge = Math.max(1, Math.ceil((ticket.expiresAt - Date.now()) / 1000));
  return new Response(null, {
    status: 302,
    headers: {
      Location: begun.authorizationUrl,
      "Set-Cookie": `${COOKIE_PREFIX}${ticket.nonce}=${browser}${cookieAttributes(url.origin, id, maxAge)}`,
      "Cache-Control": "no-store",
      "Referrer-Policy": "no-referrer",
    },
  });
}

function queryParam(url: URL, name: string): string | undefined {
  const value = url.searchParams.get(name);
  return value === null || value.length === 0 || value.length > MAX_PARAM_CHARS ? undefined : value;
}

function done(status: number, title: string, text: string, clear: { origin: string; id: string; ticket: SignInTicket } | undefined): Response {
  const response = message(status, title, text);
  if (!clear) return response;
  const headers = new Headers(response.headers);
  headers.append("Set-Cookie", `${COOKIE_PREFIX}${clear.ticket.nonce}=${cookieAttributes(clear.origin, clear.id, 0)}`);
  return new Response(response.body, { status, headers });
}

/**
 * GET /v1/upstreams/:id/oauth/callback: the state opened and its flow taken once from the principal's object (a
 * replayed, forged or expired state is refused), the browser checked against the cookie the link's open set, then
 * the code exchanged by the upstream's object, which stores the grant for that principal alone.
 */
export async function oauthCallback(request: RouteRequest, env: Env): Promise<Response> {
  const settings = requireSettings(env);
  const id = upstreamId(request);
  const url = new URL(request.url);
  const stateText = queryParam(url, "state");
  const ticket = stateText === undefined ? undefined : await openSignInState(settings, stateText);
  if (!ticket || ticket.upstream !== id) return message(400, "Invalid sign-in", "This sign-in answer does not belong to a sign-in this gateway started.");
  const flow = await principalStub(env, ticket.principal).takeUpstreamSignIn(ticket.principal, ticket.nonce);
  const clear = { origin: url.origin, id, ticket };
  if (!flow || flow.upstreamId !== id || Date.now() > ticket.expiresAt) {
    return done(400, "Sign-in no longer valid", "This sign-in was already completed, has expired, or was never started. Call the tool again for a new link.", clear);
  }
  const browser = cookieValue(request, `${COOKIE_PREFIX}${ticket.nonce}`);
  if (browser === undefined || (await sha256(browser)) !== flow.browserHash) {
    return done(403, "Sign-in refused", "This sign-in was started in another browser: open the link you were given in this one.", clear);
  }
  const error = queryParam(url, "error");
  if (error !== undefined) return done(400, "Sign-in not completed", `The upstream's sign-in answered: ${error.slice(0, 100)}. Nothing was stored.`, clear);
  const code = queryParam(url, "code");
  if (code === undefined) return done(400, "Sign-in not completed", "The upstream's sign-in answer has no code. Nothing was stored.", clear);
  const outcome = await upstreamStub(env, id).completeSignIn(ticket.principal, {
    generation: flow.generation,
    code,
    verifier: flow.verifier,
    redirectUri: flow.redirectUri,
    issuer: queryParam(url, "iss"),
  });
  if (!outcome.ok) return done(502, "Sign-in failed", `The upstream's sign-in could not be completed: ${outcome.error}`, clear);
  return done(200, "Signed in", `You are signed in to ${id} through toolgate. Go back to the assistant and ask it to call the tool again.`, clear);
}

/** GET /v1/upstreams/:id/oauth/client.json: toolgate's Client ID Metadata Document for this upstream (its URL is the client id). */
export async function clientMetadataDocument(request: RouteRequest, env: Env): Promise<Response> {
  const id = upstreamId(request);
  if (!(await upstreamStub(env, id).usesOAuth())) throw new HttpError(404, "upstream_not_found", "no upstream MCP server with this id uses OAuth");
  const { origin } = new URL(request.url);
  const paths = signInPaths(origin, id);
  const document = clientMetadata({ clientId: paths.clientMetadata, redirectUri: paths.redirectUri, clientName: "toolgate", clientUri: origin });
  return Response.json(document, { headers: { "Cache-Control": "public, max-age=300" } });
}
