// The authorization server's paths, scopes and resources, and the shape of the tokens it issues: what the rest of the
// Worker needs to know of the OAuth mode without loading the provider library (server.ts), which the entry and the
// caller stage import only when the mode is on and a request needs it.
export const AUTHORIZE_PATH = "/oauth/authorize";
export const TOKEN_PATH = "/oauth/token";
export const REGISTER_PATH = "/oauth/register";
/** Where the deployment's OpenID Connect provider sends the browser back (the redirect URI registered there). */
export const CALLBACK_PATH = "/oauth/callback";
export const AUTHORIZATION_SERVER_METADATA_PATH = "/.well-known/oauth-authorization-server";

/**
 * The scopes a token can carry. `toolgate`: the gateway's API and /mcp under the signed-in principal's level and
 * groups. `toolgate:owner`: the owner's routes too, and only for a principal whose sign-in says owner.
 * `offline_access`: a refresh token.
 */
export const SCOPE_GATEWAY = "toolgate";
export const SCOPE_OWNER = "toolgate:owner";
export const SCOPES_SUPPORTED = [SCOPE_GATEWAY, SCOPE_OWNER, "offline_access"] as const;

/** The resources a token may be issued for: the whole gateway (the origin), its MCP endpoint, its HTTP API. */
export function gatewayResources(origin: string): { gateway: string; mcp: string; api: string } {
  return { gateway: origin, mcp: `${origin}/mcp`, api: `${origin}/v1` };
}

/** The resource a request is for (RFC 8707), and the wider one that also covers it: the origin. */
export function resourcesFor(url: URL): string[] {
  const { gateway, mcp, api } = gatewayResources(url.origin);
  if (url.pathname === "/mcp") return [mcp, gateway];
  if (url.pathname === "/v1" || url.pathname.startsWith("/v1/")) return [api, gateway];
  return [gateway];
}

/** The shape of an issued token (`<user>:<grant>:<secret>`, each part base64url); a JWT has dots, never colons. */
const ISSUED_TOKEN = /^Bearer[ \t]+([A-Za-z0-9_-]{1,1400}:[A-Za-z0-9_-]{1,100}:[A-Za-z0-9_-]{1,100})[ \t]*$/i;

export function issuedToken(authorization: string | null): string | undefined {
  return authorization === null ? undefined : ISSUED_TOKEN.exec(authorization)?.[1];
}

/** The paths the entry hands to the authorization server (routes.ts) before the router. */
export const OAUTH_PATHS: readonly string[] = [
  AUTHORIZATION_SERVER_METADATA_PATH, AUTHORIZE_PATH, CALLBACK_PATH, TOKEN_PATH, REGISTER_PATH,
];
