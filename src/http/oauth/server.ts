// The gateway's own OAuth 2.1 authorization server (AUTH_MODE "oauth"), on @cloudflare/workers-oauth-provider: its
// metadata (RFC 8414), client registration (Client ID Metadata Documents and RFC 7591), the token endpoint (codes
// with S256 PKCE, refresh tokens rotated, revocation) and tokens bound to one resource (RFC 8707). The issuer is the
// Worker's own origin, so one server per origin and isolate; its storage is the OAUTH_KV namespace. The sign-in and
// the consent page are ours (authorize.ts).
import { OAuthAuthorizationServer } from "@cloudflare/workers-oauth-provider";
import { AUTHORIZE_PATH, gatewayResources, REGISTER_PATH, SCOPES_SUPPORTED, TOKEN_PATH } from "./paths.ts";

/** An access token lives an hour; a grant (its refresh token) is gone after a week unused. */
const ACCESS_TOKEN_TTL_SECONDS = 3_600;
const REFRESH_TOKEN_TTL_SECONDS = 30 * 86_400;
const REFRESH_TOKEN_IDLE_TTL_SECONDS = 7 * 86_400;

const servers = new Map<string, OAuthAuthorizationServer<Env>>();
const MAX_SERVERS = 16;

/** The authorization server whose issuer is this origin (one per origin and isolate; a deployment has one or two). */
export function authorizationServer(origin: string): OAuthAuthorizationServer<Env> {
  let server = servers.get(origin);
  if (server) return server;
  const { gateway, mcp, api } = gatewayResources(origin);
  server = new OAuthAuthorizationServer<Env>({
    issuer: origin,
    resources: [gateway, mcp, api],
    authorizeEndpoint: AUTHORIZE_PATH,
    tokenEndpoint: TOKEN_PATH,
    clientRegistrationEndpoint: REGISTER_PATH,
    scopesSupported: [...SCOPES_SUPPORTED],
    clientIdMetadataDocumentEnabled: true,
    accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTTL: REFRESH_TOKEN_TTL_SECONDS,
    refreshTokenIdleTTL: REFRESH_TOKEN_IDLE_TTL_SECONDS,
    // Token endpoint failures are the client's; a line in the logs names the check that refused it.
    onError: ({ code, status, internal }) => {
      if (status >= 500) console.error(`oauth: ${code} (${JSON.stringify(internal)})`);
    },
  });
  if (servers.size >= MAX_SERVERS) servers.clear();
  servers.set(origin, server);
  return server;
}
