// The HTTP side of /mcp around the JSON-RPC server: Origin (DNS-rebinding protection), the protected-resource
// metadata of the MCP authorization spec (RFC 9728) and its 401 challenge, and HttpErrors answered as JSON-RPC
// errors (with no id) under their HTTP status.
import type { McpConfig } from "../core/config.ts";
import type { Settings } from "../isolate/settings.ts";
import { HttpError, snapshotRefusal } from "../http/errors.ts";
import { SCOPE_GATEWAY } from "../http/oauth/paths.ts";

export const MCP_PATH = "/mcp";
export const RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource";

/** JSON-RPC codes the SDK's transport uses for the same HTTP outcomes. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
/** Refusals that are not the request's fault (401, 403, 429, …): the implementation-defined server-error range. */
export const SERVER_ERROR = -32000;
const SESSION_NOT_FOUND = -32001;

export function sessionNotFound(): HttpError {
  return new HttpError(404, "session_not_found", "Session not found: initialize a new MCP session");
}

function rpcCodeOf(error: HttpError): number {
  if (error.code === "invalid_json") return PARSE_ERROR;
  if (error.code === "session_not_found") return SESSION_NOT_FOUND;
  if (error.status === 400) return INVALID_REQUEST;
  return SERVER_ERROR;
}

/** Anything thrown on the HTTP side of /mcp, as a JSON-RPC error; never a stack trace. */
export function mcpErrorResponse(error: unknown, request: Request): Response {
  let http: HttpError;
  const damaged = snapshotRefusal(error, `${request.method} ${new URL(request.url).pathname}`);
  if (error instanceof HttpError) http = error;
  else if (damaged !== undefined) http = damaged;
  else {
    const detail = error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ""}` : String(error);
    console.error(`internal error on ${request.method} ${new URL(request.url).pathname}: ${detail}`);
    http = new HttpError(500, "internal", "internal error");
  }
  return Response.json(
    { jsonrpc: "2.0", error: { code: rpcCodeOf(http), message: http.message, data: { code: http.code } }, id: null },
    { status: http.status, headers: { ...http.headers, "cache-control": "no-store" } },
  );
}

function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname === "127.0.0.1" || hostname === "[::1]";
}

/**
 * 403 unless the request's Origin (when it has one: browsers send it, other clients do not) is allowed: listed in
 * `mcp.allowedOrigins`, or the Worker's own origin on a host no DNS rebinding can name: loopback (npm start) or
 * *.workers.dev (whose DNS only Cloudflare controls). The own origin on any other host is not enough: the Host header
 * is the attacker's choice in a rebinding (a page of evil.example resolved to 127.0.0.1 sends Host and Origin
 * evil.example), so a deployment on a custom domain lists its origin in `mcp.allowedOrigins`.
 */
export function checkOrigin(request: Request, mcp: McpConfig): void {
  const origin = request.headers.get("origin");
  if (origin === null) return;
  const given = origin.toLowerCase();
  if (mcp.allowedOrigins.includes(given)) return;
  const own = new URL(request.url);
  if (given === own.origin && (isLoopback(own.hostname) || own.hostname.endsWith(".workers.dev"))) return;
  throw new HttpError(403, "forbidden_origin", `Forbidden: Origin ${origin.slice(0, 200)} may not call this MCP server`);
}

/** The absolute URL of the metadata of the /mcp resource (the path-suffixed form of RFC 9728 §3.1). */
export function resourceMetadataUrl(request: Request): string {
  return `${new URL(request.url).origin}${RESOURCE_METADATA_PATH}${MCP_PATH}`;
}

/**
 * A 401 of the authentication, with the challenge naming where the resource's metadata is (and, when the gateway is
 * its own authorization server, the scope to ask for).
 */
export function withResourceMetadata(error: HttpError, request: Request, settings: Settings): HttpError {
  if (error.status !== 401) return error;
  const challenge = error.headers["WWW-Authenticate"] ?? 'Bearer realm="toolgate"';
  const scope = settings.auth.oauth && !challenge.includes("scope=") ? `, scope="${SCOPE_GATEWAY}"` : "";
  return new HttpError(error.status, error.code, error.message, {
    ...error.headers,
    "WWW-Authenticate": `${challenge}, resource_metadata="${resourceMetadataUrl(request)}"${scope}`,
  });
}

/**
 * The authorization servers of the gateway's resources: itself (its origin) when AUTH_MODE has "oauth", first, so
 * that a client following the MCP authorization spec signs in here; AUTH_ISSUER when the JWT mode is on and it is set.
 */
function authorizationServers(origin: string, settings: Settings): string[] {
  const { oauth, jwt, issuer } = settings.auth;
  return [...(oauth ? [origin] : []), ...(jwt && issuer !== undefined && issuer !== origin ? [issuer] : [])];
}

/**
 * GET /.well-known/oauth-protected-resource[/mcp]: the resource (the origin, or its /mcp for the path-suffixed form),
 * its authorization servers, the scope a token needs (OAuth mode), and bearer tokens in the Authorization header only.
 */
export function protectedResourceMetadata(request: Request, settings: Settings): Response {
  const url = new URL(request.url);
  const suffix = url.pathname.slice(RESOURCE_METADATA_PATH.length);
  const servers = authorizationServers(url.origin, settings);
  return Response.json(
    {
      resource: `${url.origin}${suffix}`,
      ...(servers.length > 0 ? { authorization_servers: servers } : {}),
      ...(settings.auth.oauth ? { scopes_supported: [SCOPE_GATEWAY] } : {}),
      bearer_methods_supported: ["header"],
      resource_name: "toolgate",
    },
    { headers: { "access-control-allow-origin": "*", "cache-control": "max-age=3600" } },
  );
}
