// toolgate as the OAuth 2.1 client of an upstream MCP server's authorization server (the MCP authorization spec, as a
// client): the server's protected-resource metadata (RFC 9728: from the 401's `resource_metadata`, else the well-known
// URLs), its authorization server's metadata (RFC 8414, else OpenID Connect discovery), registration (the owner's
// client, a Client ID Metadata Document, or dynamic registration, RFC 7591), the authorization code grant with PKCE
// S256 and a resource indicator (RFC 8707), refresh and revocation (RFC 7009). No I/O of its own: the caller passes
// the fetch (the Durable Object's, which refuses redirects, caps answers and applies the upstream's URL rule).
import { isRecord } from "../core/records.ts";
import { toBase64Url } from "../core/base64url.ts";

export type OAuthFetch = (url: string, init: RequestInit) => Promise<Response>;

/** What the resource server says of itself (RFC 9728). */
export interface ResourceMetadata {
  /** The resource indicator to ask tokens for. */
  resource: string;
  authorizationServers: string[];
  scopesSupported?: string[];
}

/** What toolgate keeps of the authorization server's metadata. */
export interface ServerMetadata {
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  registrationEndpoint?: string;
  revocationEndpoint?: string;
  /** Client ID Metadata Documents are accepted (an https URL as client_id). */
  clientIdMetadataDocuments: boolean;
  tokenAuthMethods: string[];
  scopesSupported?: string[];
}

export interface OAuthClient {
  clientId: string;
  clientSecret?: string;
  authMethod: "none" | "client_secret_basic" | "client_secret_post";
  /** How it came: the owner's, a metadata document, dynamic registration. */
  registration: "configured" | "metadata-document" | "dynamic";
}

export interface TokenSet {
  accessToken: string;
  refreshToken?: string;
  /** Epoch ms; absent when the server did not say. */
  expiresAt?: number;
  scope?: string;
}

/** A refusal or failure of the authorization server; `code` is its OAuth error code (invalid_grant, …) when it gave one. */
export class OAuthError extends Error {
  readonly code: string | undefined;
  constructor(message: string, code?: string) {
    super(message);
    this.code = code;
  }
}

/** Bytes of a metadata or token answer read (the fetch caps them too). */
const MAX_JSON_CHARS = 64 * 1024;
const TOKEN_CHARS = 8 * 1024;


/** A random URL-safe token of `bytes` random bytes (state, PKCE verifier, nonces). */
export function randomToken(bytes = 32): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** The S256 code challenge of a verifier (RFC 7636 §4.2). */
export async function pkceChallenge(verifier: string): Promise<string> {
  return toBase64Url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
}

/** The parameters of a `Bearer` challenge (RFC 6750 §3), as far as they are quoted strings or tokens. */
export function bearerChallenge(header: string | null): Record<string, string> {
  if (header === null || !/^\s*Bearer\b/i.test(header)) return {};
  const params: Record<string, string> = {};
  for (const match of header.slice(0, 4096).matchAll(/([A-Za-z_][A-Za-z0-9_-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]+))/g)) {
    const name = match[1];
    if (name !== undefined) params[name.toLowerCase()] = (match[2] ?? match[3] ?? "").replaceAll(/\\(.)/g, "$1");
  }
  return params;
}

/** `https://host/.well-known/<suffix><path>` (RFC 8414 §3.1, RFC 9728 §3.1), and the path-less form after it. */
function wellKnownUrls(base: string, suffix: string): string[] {
  const url = new URL(base);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  const urls = [`${url.origin}/.well-known/${suffix}${path}`];
  if (path !== "") urls.push(`${url.origin}/.well-known/${suffix}`);
  return urls;
}

async function readJson(response: Response, what: string): Promise<unknown> {
  const text = await response.text();
  if (text.length > MAX_JSON_CHARS) throw new OAuthError(`${what} is larger than ${MAX_JSON_CHARS} characters`);
  try {
    return JSON.parse(text);
  } catch {
    throw new OAuthError(`${what} is not JSON (HTTP ${response.status})`);
  }
}

function stringOf(record: Record<string, unknown>, key: string): string | undefined {
  const value = record[key];
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

function stringsOf(record: Record<string, unknown>, key: string): string[] | undefined {
  const value = record[key];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string").slice(0, 64) : undefined;
}

/** Whether `resource` may name the server at `serverUrl`: the same origin, and a path the server's is under. */
export function resourceCovers(resource: string, serverUrl: string): boolean {
  let named: URL;
  try {
    named = new URL(resource);
  } catch {
    return false;
  }
  const server = new URL(serverUrl);
  if (named.origin !== server.origin || named.search !== "" || named.hash !== "") return false;
  const prefix = named.pathname.endsWith("/") ? named.pathname : `${named.pathname}/`;
  return server.pathname === named.pathname || server.pathname.startsWith(prefix);
}

/**
 * The server's protected-resource metadata: the 401's `resource_metadata` URL first (when on the server's origin),
 * else the well-known URLs. A server that has none is taken as its own authorization server (the 2025-03-26 rule),
 * with its URL as the resource.
 */
export async function discoverResource(fetch: OAuthFetch, serverUrl: string, wwwAuthenticate: string | null): Promise<ResourceMetadata> {
  const named = bearerChallenge(wwwAuthenticate)["resource_metadata"];
  const candidates = wellKnownUrls(serverUrl, "oauth-protected-resource");
  if (named !== undefined && URL.canParse(named) && new URL(named).origin === new URL(serverUrl).origin) candidates.unshift(named);
  for (const url of candidates) {
    const response = await fetch(url, { headers: { accept: "application/json" } });
    if (response.status === 404) {
      await response.body?.cancel();
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new OAuthError(`the protected-resource metadata (${url}) answered HTTP ${response.status}`);
    }
    const body = await readJson(response, "the protected-resource metadata");
    if (!isRecord(body)) throw new OAuthError("the protected-resource metadata is not a JSON object");
    const resource = stringOf(body, "resource");
    if (resource === undefined || !resourceCovers(resource, serverUrl)) {
      throw new OAuthError(`the protected-resource metadata names resource ${JSON.stringify(resource ?? null)}, which is not this server (${serverUrl})`);
    }
    const servers = stringsOf(body, "authorization_servers") ?? [];
    if (servers.length === 0) throw new OAuthError("the protected-resource metadata names no authorization server");
    const scopes = stringsOf(body, "scopes_supported");
    return { resource, authorizationServers: servers, ...(scopes ? { scopesSupported: scopes } : {}) };
  }
  return { resource: serverUrl, authorizationServers: [new URL(serverUrl).origin] };
}

/** The authorization server's metadata (RFC 8414, else OpenID Connect discovery); its issuer must be the one asked. */
export async function discoverServer(fetch: OAuthFetch, issuer: string): Promise<ServerMetadata> {
  const candidates = [
    ...wellKnownUrls(issuer, "oauth-authorization-server").slice(0, 1),
    `${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`,
  ];
  for (const url of candidates) {
    const response = await fetch(url, { headers: { accept: "application/json" } });
    if (!response.ok) {
      await response.body?.cancel();
      continue;
    }
    const body = await readJson(response, "the authorization server's metadata");
    if (!isRecord(body)) throw new OAuthError("the authorization server's metadata is not a JSON object");
    // RFC 8414 §3.3: the issuer in the document is the one its URL was made from, or the document is not used.
    if (stringOf(body, "issuer") !== issuer) throw new OAuthError(`the authorization server's metadata names issuer ${JSON.stringify(body.issuer ?? null)}, not ${issuer}`);
    const authorizationEndpoint = stringOf(body, "authorization_endpoint");
    const tokenEndpoint = stringOf(body, "token_endpoint");
    if (authorizationEndpoint === undefined || tokenEndpoint === undefined) throw new OAuthError("the authorization server's metadata has no authorization or token endpoint");
    // PKCE with S256 or nothing: a server that does not say it supports S256 is refused (the MCP authorization spec).
    if (!(stringsOf(body, "code_challenge_methods_supported") ?? []).includes("S256")) {
      throw new OAuthError("the authorization server does not list S256 in code_challenge_methods_supported");
    }
    const registrationEndpoint = stringOf(body, "registration_endpoint");
    const revocationEndpoint = stringOf(body, "revocation_endpoint");
    const scopes = stringsOf(body, "scopes_supported");
    return {
      issuer,
      authorizationEndpoint,
      tokenEndpoint,
      ...(registrationEndpoint ? { registrationEndpoint } : {}),
      ...(revocationEndpoint ? { revocationEndpoint } : {}),
      clientIdMetadataDocuments: body.client_id_metadata_document_supported === true,
      tokenAuthMethods: stringsOf(body, "token_endpoint_auth_methods_supported") ?? ["client_secret_basic"],
      ...(scopes ? { scopesSupported: scopes } : {}),
    };
  }
  throw new OAuthError(`no authorization server metadata found for ${issuer}`);
}

/** What toolgate says of itself as a client: the metadata document it serves, and the body of a registration. */
export function clientMetadata(options: { clientId?: string; redirectUri: string; clientName: string; clientUri: string }): Record<string, unknown> {
  return {
    ...(options.clientId ? { client_id: options.clientId } : {}),
    client_name: options.clientName,
    client_uri: options.clientUri,
    redirect_uris: [options.redirectUri],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
}

/**
 * A client at the server: a Client ID Metadata Document when it takes them (its URL is the client id), else dynamic
 * registration when it has an endpoint, else an error saying that the owner must configure one.
 */
export async function registerClient(
  fetch: OAuthFetch,
  server: ServerMetadata,
  options: { redirectUri: string; clientName: string; clientUri: string; metadataDocumentUrl: string },
): Promise<OAuthClient> {
  if (server.clientIdMetadataDocuments && options.metadataDocumentUrl.startsWith("https://")) {
    return { clientId: options.metadataDocumentUrl, authMethod: "none", registration: "metadata-document" };
  }
  if (server.registrationEndpoint === undefined) {
    throw new OAuthError("the authorization server takes neither client metadata documents nor dynamic registration: configure auth.clientId");
  }
  const response = await fetch(server.registrationEndpoint, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(clientMetadata(options)),
  });
  const body = await readJson(response, "the registration answer");
  if (!response.ok || !isRecord(body)) {
    const code = isRecord(body) ? stringOf(body, "error") : undefined;
    throw new OAuthError(`dynamic registration was refused (HTTP ${response.status}${code ? `: ${code}` : ""})`, code);
  }
  const clientId = stringOf(body, "client_id");
  if (clientId === undefined) throw new OAuthError("the registration answer has no client_id");
  const clientSecret = stringOf(body, "client_secret");
  const method = stringOf(body, "token_endpoint_auth_method");
  const authMethod = clientSecret === undefined ? "none" : method === "client_secret_post" ? "client_secret_post" : "client_secret_basic";
  return { clientId, ...(clientSecret ? { clientSecret } : {}), authMethod, registration: "dynamic" };
}

/** The owner's client: basic authentication when the server takes it, else the secret in the form. */
export function configuredClient(server: ServerMetadata, clientId: string, clientSecret: string | undefined): OAuthClient {
  if (clientSecret === undefined) return { clientId, authMethod: "none", registration: "configured" };
  const authMethod = server.tokenAuthMethods.includes("client_secret_basic") || !server.tokenAuthMethods.includes("client_secret_post")
    ? "client_secret_basic"
    : "client_secret_post";
  return { clientId, clientSecret, authMethod, registration: "configured" };
}

export interface AuthorizationRequest {
  redirectUri: string;
  state: string;
  codeChallenge: string;
  resource: string;
  scopes: readonly string[];
}

/** The URL the browser is sent to. */
export function authorizationUrl(server: ServerMetadata, client: OAuthClient, request: AuthorizationRequest): string {
  const url = new URL(server.authorizationEndpoint);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", client.clientId);
  url.searchParams.set("redirect_uri", request.redirectUri);
  url.searchParams.set("state", request.state);
  url.searchParams.set("code_challenge", request.codeChallenge);
  url.searchParams.set("code_challenge_method", "S256");
  url.searchParams.set("resource", request.resource);
  if (request.scopes.length > 0) url.searchParams.set("scope", request.scopes.join(" "));
  return url.href;
}

function formEncode(value: string): string {
  return encodeURIComponent(value).replaceAll("%20", "+");
}

/** A POST to the token (or revocation) endpoint with the client's authentication. */
async function postForm(fetch: OAuthFetch, endpoint: string, client: OAuthClient, fields: Record<string, string>): Promise<Response> {
  const form = new URLSearchParams(fields);
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
  if (client.authMethod === "client_secret_basic" && client.clientSecret !== undefined) {
    // RFC 6749 §2.3.1: each part form-encoded before base64.
    headers.authorization = `Basic ${btoa(`${formEncode(client.clientId)}:${formEncode(client.clientSecret)}`)}`;
  } else {
    form.set("client_id", client.clientId);
    if (client.authMethod === "client_secret_post" && client.clientSecret !== undefined) form.set("client_secret", client.clientSecret);
  }
  return fetch(endpoint, { method: "POST", headers, body: form.toString() });
}

async function tokenAnswer(response: Response, now: number): Promise<TokenSet> {
  const body = await readJson(response, "the token answer");
  if (!response.ok || !isRecord(body)) {
    const code = isRecord(body) ? stringOf(body, "error") : undefined;
    throw new OAuthError(`the token endpoint refused (HTTP ${response.status}${code ? `: ${code}` : ""})`, code);
  }
  const accessToken = stringOf(body, "access_token");
  if (accessToken === undefined || accessToken.length > TOKEN_CHARS) throw new OAuthError("the token answer has no usable access_token");
  if (typeof body.token_type !== "string" || body.token_type.toLowerCase() !== "bearer") throw new OAuthError("the token answer's token_type is not Bearer");
  const refreshToken = stringOf(body, "refresh_token");
  const expiresIn = body.expires_in;
  const scope = stringOf(body, "scope");
  return {
    accessToken,
    ...(refreshToken !== undefined && refreshToken.length <= TOKEN_CHARS ? { refreshToken } : {}),
    ...(typeof expiresIn === "number" && Number.isFinite(expiresIn) && expiresIn > 0 ? { expiresAt: now + Math.floor(expiresIn * 1000) } : {}),
    ...(scope !== undefined ? { scope } : {}),
  };
}

/** The code for tokens, with the PKCE verifier and the same redirect URI and resource. */
export async function exchangeCode(
  fetch: OAuthFetch,
  server: ServerMetadata,
  client: OAuthClient,
  request: { code: string; verifier: string; redirectUri: string; resource: string },
): Promise<TokenSet> {
  const now = Date.now();
  const response = await postForm(fetch, server.tokenEndpoint, client, {
    grant_type: "authorization_code",
    code: request.code,
    code_verifier: request.verifier,
    redirect_uri: request.redirectUri,
    resource: request.resource,
  });
  return tokenAnswer(response, now);
}

/** New tokens for a refresh token; a server that rotates it sends a new one, else the old one is kept. */
export async function refreshTokens(
  fetch: OAuthFetch,
  server: ServerMetadata,
  client: OAuthClient,
  request: { refreshToken: string; resource: string },
): Promise<TokenSet> {
  const now = Date.now();
  const response = await postForm(fetch, server.tokenEndpoint, client, {
    grant_type: "refresh_token",
    refresh_token: request.refreshToken,
    resource: request.resource,
  });
  const tokens = await tokenAnswer(response, now);
  return tokens.refreshToken === undefined ? { ...tokens, refreshToken: request.refreshToken } : tokens;
}

/** Revokes a token (RFC 7009); true when the server said so (200). Servers without the endpoint: false. */
export async function revokeToken(fetch: OAuthFetch, server: ServerMetadata, client: OAuthClient, token: string, hint: "refresh_token" | "access_token"): Promise<boolean> {
  if (server.revocationEndpoint === undefined) return false;
  const response = await postForm(fetch, server.revocationEndpoint, client, { token, token_type_hint: hint });
  await response.body?.cancel();
  return response.ok;
}
