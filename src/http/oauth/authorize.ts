// The interactive half of the authorization server (AUTH_MODE "oauth"): GET /oauth/authorize validates the client's
// request (the library: client, exact redirect URI, resource) and demands S256 PKCE, then sends the browser to the
// deployment's OpenID Connect provider; GET /oauth/callback verifies that sign-in and shows the consent page with
// the principal it gave; POST /oauth/authorize takes the user's answer and redirects to the client with a code (and
// `iss`, RFC 9207). Everything else of the server (metadata, token, registration) is the library's fetch.
import { AuthorizationError, authorizationErrorRedirect, CimdFetchError } from "@cloudflare/workers-oauth-provider";
import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import type { Principal } from "../../core/types.ts";
import type { OAuthSettings } from "../../isolate/settings.ts";
import { isBanned } from "../auth.ts";
import { readBodyBytes } from "../body.ts";
import { HttpError } from "../errors.ts";
import { consentPage, errorPage, offeredScopes, pageHeaders } from "./consentPage.ts";
import { authorizationUrl, finishSignIn, ProviderError, randomSecret } from "./oidc.ts";
import type { SignInStart } from "./oidc.ts";
import { grantUserId, principalFromSignIn, SignInError } from "./principal.ts";
import type { GrantProps } from "./principal.ts";
import { CALLBACK_PATH } from "./paths.ts";
import { authorizationServer } from "./server.ts";

/** How long a signed-in user has to answer the consent page (the library's consent handle lives as long). */
const CONSENT_TTL_SECONDS = 600;
const MAX_FORM_BYTES = 8 * 1024;

function redirect(location: string, headers: Headers = new Headers()): Response {
  headers.set("location", location);
  headers.set("cache-control", "no-store");
  return new Response(null, { status: 302, headers });
}

/** Every Set-Cookie of `from` added to `to` (the sign-in's cookie cleared, the consent's set, on one answer). */
function withCookies(to: Headers, from: Headers): Headers {
  for (const cookie of from.getSetCookie()) to.append("set-cookie", cookie);
  return to;
}

/** The library's expected refusals as answers: back to the client only when it said that is safe. */
function refusal(error: unknown): Response {
  if (error instanceof AuthorizationError) {
    return error.redirectTo !== undefined ? redirect(error.redirectTo) : errorPage(400, error.description);
  }
  if (error instanceof CimdFetchError) return errorPage(400, "The app's client metadata document could not be read.");
  if (error instanceof ProviderError) {
    console.error(`oauth sign-in: ${error.message}`);
    return errorPage(502, `The identity provider could not sign you in: ${error.message}.`);
  }
  if (error instanceof SignInError) return errorPage(403, `Your account cannot use this gateway: ${error.message}.`);
  throw error;
}

async function signInKey(handle: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(handle)));
  return `toolgate-signin:${[...digest].map((byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

function callbackUrl(request: Request): string {
  return `${new URL(request.url).origin}${CALLBACK_PATH}`;
}

/** GET /oauth/authorize: the client's request, checked, then the provider's sign-in. */
export async function startAuthorization(request: Request, env: Env, settings: OAuthSettings): Promise<Response> {
  const oauth = authorizationServer(new URL(request.url).origin).getOAuthApi(env);
  try {
    const authRequest = await oauth.parseAuthRequest(request);
    // PKCE with S256 for every client, confidential ones too (the library asks it of public clients only).
    if (authRequest.codeChallenge === undefined || authRequest.codeChallenge === "" || authRequest.codeChallengeMethod !== "S256") {
      return redirect(authorizationErrorRedirect(authRequest, "invalid_request", "PKCE with code_challenge_method=S256 is required"));
    }
    const start: SignInStart = { verifier: randomSecret(), nonce: randomSecret() };
    const { state, headers } = await oauth.beginUpstream(authRequest, { data: start });
    return redirect(await authorizationUrl(settings, callbackUrl(request), state, start), headers);
  } catch (error) {
    return refusal(error);
  }
}

/** GET /oauth/callback: the provider's answer; the sign-in verified, the consent page with what it gave. */
export async function finishSignInAndAsk(request: Request, env: Env, settings: OAuthSettings): Promise<Response> {
  const oauth = authorizationServer(new URL(request.url).origin).getOAuthApi(env);
  try {
    const resumed = await oauth.finishUpstream<SignInStart>(request);
    const params = new URL(request.url).searchParams;
    const code = params.get("code");
    if (params.has("error") || code === null) {
      return redirect(authorizationErrorRedirect(resumed.request, "access_denied", "the sign-in was declined"), resumed.headers);
    }
    const claims = await finishSignIn(settings, callbackUrl(request), code, resumed.data);
    const principal = principalFromSignIn(claims, settings);
    if (isBanned(principal)) return errorPage(403, "Your account is banned from this gateway (its level is negative).", resumed.headers);
    const details = await oauth.describeConsent(resumed.request);
    const consent = await oauth.beginConsent(resumed.request);
    const props: GrantProps = { principal, signIn: { issuer: settings.oidcIssuer, subject: principal.id } };
    // The principal waits for the answer under the handle's hash: the form carries the handle only.
    await env.OAUTH_KV.put(await signInKey(consent.handle), JSON.stringify(props), { expirationTtl: CONSENT_TTL_SECONDS });
    const headers = pageHeaders(withCookies(consent.headers, resumed.headers));
    return new Response(consentPage(details, principal, consent.handle), { headers });
  } catch (error) {
    return refusal(error);
  }
}

async function readForm(request: Request): Promise<URLSearchParams> {
  const type = request.headers.get("content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    throw new HttpError(400, "invalid_request", "the consent form must be application/x-www-form-urlencoded");
  }
  return new URLSearchParams(new TextDecoder().decode(await readBodyBytes(request, MAX_FORM_BYTES)));
}

async function takeSignIn(env: Env, handle: string): Promise<GrantProps | null> {
  const key = await signInKey(handle);
  const props = await env.OAUTH_KV.get<GrantProps>(key, "json");
  await env.OAUTH_KV.delete(key);
  return props;
}

/** The scopes granted: those the user ticked that this principal may have (the owner's only for an owner). */
function grantedScopes(ticked: readonly string[], principal: Principal): string[] {
  const offered = new Set(offeredScopes(principal));
  return [...new Set(ticked)].filter((scope) => offered.has(scope));
}

/** POST /oauth/authorize: the user's answer to the consent page. */
export async function answerConsent(request: Request, env: Env): Promise<Response> {
  const oauth: OAuthHelpers = authorizationServer(new URL(request.url).origin).getOAuthApi(env);
  try {
    const form = await readForm(request);
    const handle = form.get("handle") ?? "";
    if (form.get("decision") !== "approve") {
      const denied = await oauth.denyConsent(request, handle);
      await takeSignIn(env, handle);
      return redirect(denied.redirectTo, denied.headers);
    }
    const ticked = form.getAll("scope");
    // The library checks the handle and its browser-bound cookie first: only then is the waiting sign-in read.
    const approved = await oauth.approveConsent(request, handle, { scope: ticked.filter((scope) => scope !== "") });
    const props = await takeSignIn(env, handle);
    if (!props) return errorPage(400, "This sign-in has expired.", approved.headers);
    const scope = grantedScopes(approved.request.scope, props.principal);
    const { redirectTo } = await oauth.completeAuthorization({
      request: approved.request,
      userId: grantUserId(props.principal.id),
      metadata: { principal: props.principal.id },
      scope,
      props,
    });
    return redirect(redirectTo, approved.headers);
  } catch (error) {
    return refusal(error);
  }
}
