// The one error type of the HTTP layer and its JSON answer: `{"error": {"code", "message"}}`.

export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Readonly<Record<string, string>>;
  constructor(status: number, code: string, message: string, headers: Record<string, string> = {}) {
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

/** Anything thrown by a route: HttpErrors answer as themselves; everything else is logged and hidden. */
export function toErrorResponse(error: unknown, request: Request): Response {
  if (error instanceof HttpError) return errorResponse(error);
  const detail = error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ""}` : String(error);
  console.error(`internal error on ${request.method} ${new URL(request.url).pathname}: ${detail}`);
  return errorResponse(new HttpError(500, "internal", "internal error"));
}
