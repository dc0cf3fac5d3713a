// CORS for browsers that call the API from another origin (web chatbots; extension pages). Off unless
// CORS_ALLOW_ORIGINS names origins. Tokens travel in the Authorization header, never in cookies, so no credentials.
import type { Settings } from "../isolate/settings.ts";

const ALLOW_METHODS = "GET, POST, PUT, DELETE";
const ALLOW_HEADERS = "authorization, content-type, mcp-session-id, mcp-protocol-version, last-event-id";
/** What a browser script may read besides the simple headers. */
const EXPOSE_HEADERS = "retry-after, www-authenticate, allow, mcp-session-id";
const PREFLIGHT_MAX_AGE_SECONDS = "86400";

/** The origin to echo back, or undefined when the request's origin may not call the API. */
function allowedOrigin(request: Request, settings: Settings): string | undefined {
  const origin = request.headers.get("origin");
  if (origin === null) return undefined;
  if (settings.corsOrigins === "*") return origin;
  return settings.corsOrigins.includes(origin) ? origin : undefined;
}

/** A preflight (OPTIONS with Access-Control-Request-Method) from an allowed origin: answered here, 204. */
export function preflight(request: Request, settings: Settings): Response | undefined {
  if (request.method !== "OPTIONS" || !request.headers.has("access-control-request-method")) return undefined;
  const origin = allowedOrigin(request, settings);
  if (origin === undefined) return undefined;
  return new Response(null, {
    status: 204,
    headers: {
      "access-control-allow-origin": origin,
      "access-control-allow-methods": ALLOW_METHODS,
      "access-control-allow-headers": ALLOW_HEADERS,
      "access-control-max-age": PREFLIGHT_MAX_AGE_SECONDS,
      vary: "Origin",
    },
  });
}

/** Adds the CORS headers to an answer for an allowed origin (errors included, so that the browser can read them). */
export function withCors(response: Response, request: Request, settings: Settings): Response {
  if (settings.corsOrigins !== "*" && settings.corsOrigins.length === 0) return response;
  const origin = allowedOrigin(request, settings);
  const headers = new Headers(response.headers);
  headers.append("vary", "Origin");
  if (origin !== undefined) {
    headers.set("access-control-allow-origin", origin);
    headers.set("access-control-expose-headers", EXPOSE_HEADERS);
  }
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
