// The one error type of the HTTP layer and its JSON answer: `{"error": {"code", "message"}}`.
import { SnapshotError } from "../core/search/snapshotCodec.ts";

/** Every error code an answer may carry (the Errors table of docs/http-api.md says when each is given, with its status). */
export type ErrorCode =
  | "invalid_json" | "invalid_request" | "invalid_session_id" | "too_deep" // 400
  | "unauthorized" | "invalid_token" // 401
  | "forbidden" | "banned" | "forbidden_origin" | "insufficient_scope" // 403
  | "not_found" | "tool_not_found" | "confirmation_not_found" | "session_not_found" | "upstream_not_found" // 404
  | "method_not_allowed" // 405
  | "too_many_tools" | "too_many_upstreams" | "not_in_quarantine" | "quarantine_changed" // 409
  | "confirmation_expired" // 410
  | "payload_too_large" | "too_many_items" // 413
  | "rate_limited" | "too_many_sessions" // 429
  | "internal" // 500
  | "misconfigured" | "auth_unavailable" | "index_rebuilding"; // 503

/** Each code's HTTP status (a Record over the union: a new code cannot be left out); the OpenAPI document reads it. */
export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = {
  invalid_json: 400, invalid_request: 400, invalid_session_id: 400, too_deep: 400,
  unauthorized: 401, invalid_token: 401,
  forbidden: 403, banned: 403, forbidden_origin: 403, insufficient_scope: 403,
  not_found: 404, tool_not_found: 404, confirmation_not_found: 404, session_not_found: 404, upstream_not_found: 404,
  method_not_allowed: 405,
  too_many_tools: 409, too_many_upstreams: 409, not_in_quarantine: 409, quarantine_changed: 409,
  confirmation_expired: 410,
  payload_too_large: 413, too_many_items: 413,
  rate_limited: 429, too_many_sessions: 429,
  internal: 500,
  misconfigured: 503, auth_unavailable: 503, index_rebuilding: 503,
};

export class HttpError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly headers: Readonly<Record<string, string>>;
  constructor(status: number, code: ErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = "HttpError";
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

/** 400 naming the field (`field` is a JSON path such as `tools[2].name`). */
export function badField(field: string, problem: string): HttpError {
  return new HttpError(400, "invalid_request", `${field}: ${problem}`);
}

export function errorResponse(error: HttpError): Response {
  return Response.json(
    { error: { code: error.code, message: error.message } },
    { status: error.status, headers: { ...error.headers, "cache-control": "no-store" } },
  );
}

/**
 * A stored snapshot found damaged when first read, as the answer the caller gets (HTTP and MCP alike): nothing from it
 * was answered, the isolate has dropped it and builds from the definitions on the next request, so the caller only has
 * to ask again. Anything else: undefined.
 */
export function snapshotRefusal(error: unknown, where: string): HttpError | undefined {
  if (!(error instanceof SnapshotError)) return undefined;
  console.error(`stored snapshot damaged on ${where}: ${error.message}`);
  return new HttpError(503, "index_rebuilding", "a stored search index was found damaged and is being rebuilt: retry", { "Retry-After": "1" });
}

/** Anything thrown by a route: HttpErrors answer as themselves; everything else is logged and hidden. */
export function toErrorResponse(error: unknown, request: Request): Response {
  if (error instanceof HttpError) return errorResponse(error);
  const damaged = snapshotRefusal(error, `${request.method} ${new URL(request.url).pathname}`);
  if (damaged !== undefined) return errorResponse(damaged);
  const detail = error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ""}` : String(error);
  console.error(`internal error on ${request.method} ${new URL(request.url).pathname}: ${detail}`);
  return errorResponse(new HttpError(500, "internal", "internal error"));
}
