// The relying-party side of the sign-in: toolgate is an OpenID Connect client of the deployment's identity provider
// (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET). Discovery, the authorization redirect (code flow, S256 PKCE,
// state and nonce), the code exchange (client_secret_basic) and the ID token's verification (the provider's JWKS,
// issuer, audience, nonce, expiry). No password is ever seen here.
import { createRemoteJWKSet, jwtVerify } from "jose";
import type { JWTPayload, JWTVerifyGetKey } from "jose";
import { isRecord } from "../../core/records.ts";
import type { OAuthSettings } from "../../isolate/settings.ts";
import { toBase64Url } from "../../core/base64url.ts";

export class ProviderError extends Error {}

interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
}

const DISCOVERY_TTL_MS = 10 * 60_000;
const FETCH_TIMEOUT_MS = 10_000;
const MAX_RESPONSE_BYTES = 256 * 1024;
const discoveries = new Map<string, { discovery: Discovery; atMs: number }>();
const keySets = new Map<string, JWTVerifyGetKey>();

async function readJson(response: Response, what: string): Promise<Record<string, unknown>> {
  const text = await response.text();
  if (text.length > MAX_RESPONSE_BYTES) throw new ProviderError(`the provider's ${what} is too large`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ProviderError(`the provider's ${what} is not JSON (HTTP ${response.status})`);
  }
  if (!isRecord(body)) throw new ProviderError(`the provider's ${what} is not a JSON object`);
  return body;
}

function endpoint(document: Record<string, unknown>, name: keyof Discovery, issuer: string): string {
  const value = document[name];
  if (typeof value !== "string") throw new ProviderError(`the provider's discovery document has no ${name}`);
  const url = new URL(value);
  const local = url.hostname === "localhost" || url.hostname === "127.0.0.1" || url.hostname === "[::1]";
  // An https issuer keeps every endpoint on https.
  if (url.protocol !== "https:" && !(url.protocol === "http:" && (local || issuer.startsWith("http:")))) {
    throw new ProviderError(`the provider's ${name} is not an https URL`);
  }
  return url.href;
}

/** The provider's discovery document, read once per isolate and ten minutes; its issuer must be the configured one. */
export async function discover(settings: OAuthSettings): Promise<Discovery> {
  const cached = discoveries.get(settings.oidcIssuer);
  if (cached && Date.now() - cached.atMs < DISCOVERY_TTL_MS) return cached.discovery;
  let response: Response;
  try {
    response = await fetch(`${settings.oidcIssuer}/.well-known/openid-configuration`, {
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
  } catch {
    throw new ProviderError("the provider's discovery document cannot be read");
  }
  if (!response.ok) throw new ProviderError(`the provider's discovery document answered HTTP ${response.status}`);
  const document = await readJson(response, "discovery document");
  if (document.issuer !== settings.oidcIssuer) {
    throw new ProviderError(`the provider's discovery document names another issuer than OIDC_ISSUER`);
  }
  const discovery: Discovery = {
    issuer: settings.oidcIssuer,
    authorization_endpoint: endpoint(document, "authorization_endpoint", settings.oidcIssuer),
    token_endpoint: endpoint(document, "token_endpoint", settings.oidcIssuer),
    jwks_uri: endpoint(document, "jwks_uri", settings.oidcIssuer),
  };
  discoveries.set(settings.oidcIssuer, { discovery, atMs: Date.now() });
  return discovery;
}


export function randomSecret(): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
}

async function challengeOf(verifier: string): Promise<string> {
  return toBase64Url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
}

/** What the callback needs of the redirect that started the sign-in (kept server-side by the provider library). */
export interface SignInStart {
  verifier: string;
  nonce: string;
}

/** The provider's authorization URL for this sign-in. */
export async function authorizationUrl(
  settings: OAuthSettings, redirectUri: string, state: string, start: SignInStart,
): Promise<string> {
  const discovery = await discover(settings);
  const url = new URL(discovery.authorization_endpoint);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", settings.oidcClientId);
  url.searchParams.set("redirect_uri", redirectUri);
  url.searchParams.set("scope", settings.oidcScopes.join(" "));
  url.searchParams.set("state", state);
  url.searchParams.set("nonce", start.nonce);
  url.searchParams.set("code_challenge", await challengeOf(start.verifier));
  url.searchParams.set("code_challenge_method", "S256");
  return url.href;
}

function keySet(jwksUri: string): JWTVerifyGetKey {
  let keys = keySets.get(jwksUri);
  if (!keys) {
    keys = createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: FETCH_TIMEOUT_MS, cooldownDuration: 30_000 });
    keySets.set(jwksUri, keys);
  }
  return keys;
}

/** The provider's code for tokens, then its ID token verified: the claims of the signed-in user. */
export async function finishSignIn(
  settings: OAuthSettings, redirectUri: string, code: string, start: SignInStart,
): Promise<JWTPayload> {
  const discovery = await discover(settings);
  const credentials = btoa(`${encodeURIComponent(settings.oidcClientId)}:${encodeURIComponent(settings.oidcClientSecret)}`);
  let response: Response;
  try {
    response = await fetch(discovery.token_endpoint, {
      method: "POST",
      headers: { authorization: `Basic ${credentials}`, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirectUri, code_verifier: start.verifier }),
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
  } catch {
    throw new ProviderError("the provider's token endpoint cannot be reached");
  }
  const body = await readJson(response, "token response");
  if (!response.ok) {
    const error = typeof body.error === "string" ? body.error.slice(0, 100) : `HTTP ${response.status}`;
    throw new ProviderError(`the provider refused the sign-in's code (${error})`);
  }
  const idToken = body.id_token;
  if (typeof idToken !== "string") throw new ProviderError("the provider's token response has no id_token");
  try {
    const { payload } = await jwtVerify(idToken, keySet(discovery.jwks_uri), {
      issuer: discovery.issuer,
      audience: settings.oidcClientId,
      requiredClaims: ["sub", "exp", "iat"],
      clockTolerance: 60,
      maxTokenAge: "1h",
    });
    if (payload.nonce !== start.nonce) throw new ProviderError("the ID token's nonce is not this sign-in's");
    return payload;
  } catch (error) {
    if (error instanceof ProviderError) throw error;
    throw new ProviderError(`the provider's ID token does not verify (${error instanceof Error ? error.message : "unknown"})`);
  }
}
