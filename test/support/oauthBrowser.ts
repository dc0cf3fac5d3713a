// A browser for the OAuth sign-in tests: it keeps cookies per host, follows nothing by itself (each step is the
// test's), and reaches toolgate (with the OAuth mode's env) or the test OpenID Connect provider (the remote worker).
// `signIn` runs the whole authorization-code flow a client and its user go through and returns the client's code.
import { env } from "cloudflare:workers";
import { fetchWithEnv } from "../http/helpers.ts";
import { OIDC_CLIENT_ID, OIDC_CLIENT_SECRET } from "../fixtures/oidc-provider.ts";

/** An https origin: the provider library accepts an http issuer only on loopback. */
export const OAUTH_BASE = "https://toolgate.test";
export const IDP_ISSUER = "https://idp.test/oidc";

export const OAUTH_ENV: Readonly<Record<string, string>> = {
  AUTH_MODE: "jwt,oauth",
  OIDC_ISSUER: IDP_ISSUER,
  OIDC_CLIENT_ID,
  OIDC_CLIENT_SECRET,
};

export function oauthFetch(input: string | URL, init?: RequestInit<IncomingRequestCfProperties>, overrides: Record<string, unknown> = OAUTH_ENV): Promise<Response> {
  return fetchWithEnv(overrides, new Request<unknown, IncomingRequestCfProperties>(input, init));
}

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

export async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
  return { verifier, challenge };
}

export class Browser {
  private readonly cookies = new Map<string, Map<string, string>>();
  private readonly overrides: Record<string, unknown>;

  constructor(overrides: Record<string, unknown> = OAUTH_ENV) {
    this.overrides = overrides;
  }

  /** One request, cookies sent and kept; toolgate's host goes to the Worker, any other to the remote worker. */
  async go(url: string, init: RequestInit<IncomingRequestCfProperties> = {}): Promise<Response> {
    const target = new URL(url);
    const jar = this.cookies.get(target.host) ?? new Map<string, string>();
    this.cookies.set(target.host, jar);
    const headers = new Headers(init.headers);
    if (jar.size > 0) headers.set("cookie", [...jar].map(([name, value]) => `${name}=${value}`).join("; "));
    const response = target.origin === OAUTH_BASE
      ? await oauthFetch(url, { ...init, headers, redirect: "manual" }, this.overrides)
      : await env.TOOL_REMOTE.fetch(url, { ...init, headers, redirect: "manual" });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ""] = cookie.split(";");
      const at = pair.indexOf("=");
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      if (/max-age=0\b/i.test(cookie) || value === "") jar.delete(name);
      else jar.set(name, value);
    }
    return response;
  }
}

export function locationOf(response: Response): URL {
  const location = response.headers.get("location");
  if (response.status !== 302 || location === null) throw new Error(`expected a redirect, got ${response.status}`);
  return new URL(location);
}

/** The handle of a consent page's form. */
export function consentHandle(html: string): string {
  const handle = /name="handle" value="([^"]+)"/.exec(html)?.[1];
  if (handle === undefined) throw new Error("no consent form in the page");
  return handle.replaceAll("&#61;", "=");
}

export interface RegisteredClient {
  clientId: string;
  redirectUri: string;
}

export async function registerClient(redirectUri = "https://app.test/callback", name = "Test app"): Promise<RegisteredClient> {
  const response = await oauthFetch(`${OAUTH_BASE}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    }),
  });
  if (response.status !== 201) throw new Error(`registration answered ${response.status}: ${await response.text()}`);
  const body = await response.json<{ client_id: string }>();
  return { clientId: body.client_id, redirectUri };
}

export interface AuthorizeOptions {
  resource?: string;
  scope?: string;
  claims?: Record<string, unknown>;
  state?: string;
}

/** The authorization request's URL for a client (S256 PKCE unless the test changes the parameters). */
export function authorizeUrl(client: RegisteredClient, challenge: string, options: AuthorizeOptions = {}): URL {
  const url = new URL(`${OAUTH_BASE}/oauth/authorize`);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", client.clientId);
  url.searchParams.set("redirect_uri", client.redirectUri);
  url.searchParams.set("state", options.state ?? "client-state");
  url.searchParams.set("code_challenge", challenge);
  url.searchParams.set("code_challenge_method", "S256");
  url.searchParams.set("resource", options.resource ?? `${OAUTH_BASE}/mcp`);
  url.searchParams.set("scope", options.scope ?? "toolgate offline_access");
  return url;
}

/** From the client's authorization URL to the consent page: the redirect to the provider, its sign-in, the callback. */
export async function throughSignIn(browser: Browser, authorize: URL | string, claims: Record<string, unknown>): Promise<Response> {
  const toProvider = locationOf(await browser.go(String(authorize)));
  toProvider.searchParams.set("test_claims", JSON.stringify(claims));
  const back = locationOf(await browser.go(toProvider.href));
  return browser.go(back.href);
}

/** The user's answer on the consent page; returns the answer (a redirect to the client when it went through). */
export async function answer(browser: Browser, handle: string, decision: "approve" | "deny", scopes: readonly string[]): Promise<Response> {
  const form = new URLSearchParams({ handle, decision });
  for (const scope of scopes) form.append("scope", scope);
  return browser.go(`${OAUTH_BASE}/oauth/authorize`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: form.toString(),
  });
}

export interface SignedIn {
  client: RegisteredClient;
  code: string;
  verifier: string;
  redirect: URL;
}

/** The whole front channel: register, authorize, sign in, consent; the code the client receives. */
export async function signIn(claims: Record<string, unknown>, options: AuthorizeOptions & { scopes?: readonly string[] } = {}): Promise<SignedIn> {
  const client = await registerClient();
  const { verifier, challenge } = await pkcePair();
  const browser = new Browser();
  const page = await throughSignIn(browser, authorizeUrl(client, challenge, options), claims);
  if (page.status !== 200) throw new Error(`the consent page answered ${page.status}: ${await page.text()}`);
  const redirect = locationOf(await answer(browser, consentHandle(await page.text()), "approve", options.scopes ?? ["toolgate", "offline_access"]));
  const code = redirect.searchParams.get("code");
  if (code === null) throw new Error(`no code in ${redirect.href}`);
  return { client, code, verifier, redirect };
}

export interface TokenAnswer {
  access_token?: string;
  refresh_token?: string;
  scope?: string;
  error?: string;
}

export async function tokenRequest(params: Record<string, string>): Promise<{ status: number; body: TokenAnswer }> {
  const response = await oauthFetch(`${OAUTH_BASE}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(params).toString(),
  });
  return { status: response.status, body: await response.json<TokenAnswer>() };
}

export function exchangeCode(signedIn: SignedIn, resource = `${OAUTH_BASE}/mcp`): Promise<{ status: number; body: TokenAnswer }> {
  return tokenRequest({
    grant_type: "authorization_code",
    code: signedIn.code,
    redirect_uri: signedIn.client.redirectUri,
    client_id: signedIn.client.clientId,
    code_verifier: signedIn.verifier,
    resource,
  });
}
