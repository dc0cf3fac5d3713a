// An upstream server spoken to in MCP 2026-07-28: one HTTP POST per request, no initialize, no session to end. The
// protocol's shapes are in core/upstream/modernProtocol.ts; this is the HTTP. Errors take the SDK's classes (McpError
// for a JSON-RPC error, StreamableHTTPError for an HTTP one) so that upstreamClient.ts classifies both eras alike.
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { isRecord } from "../core/records.ts";
import { answerTo, eventStreamMessages, isModernErrorBody, MODERN_ERROR_CODES, modernRequest, offersModern } from "../core/upstream/modernProtocol.ts";
import { CORE_VERSION } from "../core/version.ts";
import type { ConnectOptions, UpstreamConnection } from "./upstreamClient.ts";

/** The code of our own deadline's error: no answer, so no sign of the server's era. */
const REQUEST_TIMEOUT: number = ErrorCode.RequestTimeout;

function modernCode(body: unknown): unknown {
  return isRecord(body) && isRecord(body.error) ? body.error.code : undefined;
}

/** The probe found no 2026-07-28 server (a 4xx without a modern error, or no offer of the revision): use initialize. */
export class NotModernServer extends Error {}

/** An HTTP error answer, with the JSON-RPC message its body held (a modern server's error says it is modern). */
class ModernHttpError extends StreamableHTTPError {
  readonly body: unknown;
  constructor(code: number, message: string, body: unknown) {
    super(code, message);
    this.body = body;
  }
}

/** The answer with its body cut off (an error in the stream) once it has passed `maxBytes`: no server fills our memory. */
function capped(response: Response, maxBytes: number, overflow: AbortController): Response {
  if (!response.body) return response;
  let total = 0;
  const limit = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      total += chunk.byteLength;
      if (total > maxBytes) {
        const error = new Error(`the server's answer is larger than ${maxBytes} bytes`);
        controller.error(error);
        overflow.abort(error);
      } else controller.enqueue(chunk);
    },
  });
  return new Response(response.body.pipeThrough(limit), response);
}

/**
 * fetch with the answer capped and redirects refused (as for http executors): a redirect would carry the secret
 * headers, and the request, to wherever the server points, a private address included, past the URL rule the owner's
 * URL was checked against.
 */
export function cappedFetchFor(maxBytes: number, overflow: AbortController): (input: string | URL, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    const response = await fetch(input, { ...init, redirect: "manual" });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      throw new Error(`HTTP ${response.status} from ${new URL(input).host}: redirects are not followed; configure the URL it points to`);
    }
    return capped(response, maxBytes, overflow);
  };
}

/** An OAuth upstream answered 401: the caller's token is missing, revoked or expired (the challenge, for discovery). */
export class UpstreamUnauthorized extends Error {
  readonly challenge: string | null;
  constructor(challenge: string | null) {
    super("the server refused the caller's authorization (HTTP 401)");
    this.challenge = challenge;
  }
}

/** The connection's fetch: capped, no redirects, and for an OAuth upstream a 401 is final (no fallback tried). */
export function connectionFetch(options: ConnectOptions, overflow: AbortController): (input: string | URL, init?: RequestInit) => Promise<Response> {
  const limited = cappedFetchFor(options.maxResponseBytes, overflow);
  if (options.oauth !== true) return limited;
  return async (input, init) => {
    const response = await limited(input, init);
    if (response.status !== 401) return response;
    await response.body?.cancel().catch(() => undefined);
    throw new UpstreamUnauthorized(response.headers.get("www-authenticate"));
  };
}

/** The body's JSON-RPC messages: one JSON object, or the events of a stream read until the answer to `id` came. */
async function messagesOf(response: Response, id: number): Promise<unknown[]> {
  if (!(response.headers.get("content-type") ?? "").includes("text/event-stream") || !response.body) {
    const text = await response.text();
    try {
      return [JSON.parse(text)];
    } catch {
      throw new McpError(ErrorCode.ParseError, `the server answered with something that is not JSON (HTTP ${response.status})`);
    }
  }
  // A stream SHOULD end with the answer; one that stays open must not hold the call past it.
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (value !== undefined) text += value;
    const messages = eventStreamMessages(text);
    if (done || answerTo(messages, id) !== undefined) {
      if (!done) await reader.cancel().catch(() => undefined);
      return messages;
    }
  }
}

interface Exchange {
  options: ConnectOptions;
  overflow: AbortController;
  fetch: (input: string | URL, init?: RequestInit) => Promise<Response>;
  nextId: number;
}

/** One request and its result; what went wrong thrown as McpError or StreamableHTTPError. */
async function send(exchange: Exchange, method: string, params: Record<string, unknown>, timeoutMs: number): Promise<unknown> {
  exchange.nextId += 1;
  const id = exchange.nextId;
  const message = modernRequest(id, method, params, { name: "toolgate", version: CORE_VERSION });
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new McpError(ErrorCode.RequestTimeout, `${method} took more than ${timeoutMs} ms`)), timeoutMs);
  const onOverflow = (): void => deadline.abort(exchange.overflow.signal.reason);
  exchange.overflow.signal.addEventListener("abort", onOverflow);
  try {
    const response = await exchange.fetch(exchange.options.url, {
      method: "POST",
      headers: { ...exchange.options.headers, ...message.headers },
      body: JSON.stringify(message.body),
      signal: deadline.signal,
    });
    const messages = await messagesOf(response, id).catch((error: unknown): unknown[] => {
      if (!response.ok) return [];
      throw error;
    });
    const answer = answerTo(messages, id);
    if (!response.ok) {
      // The error body of a 4xx answer says whether the server is modern (then the request, not the era, was wrong).
      const { status } = response;
      const body = messages[0];
      const said = isRecord(body) && isRecord(body.error) && typeof body.error.message === "string" ? `: ${body.error.message}` : "";
      throw new ModernHttpError(status, `HTTP ${status} for ${method}${said}`, body);
    }
    if (answer && "error" in answer) throw new McpError(answer.error.code, answer.error.message, answer.error.data);
    if (!answer) throw new McpError(ErrorCode.InvalidRequest, `the server's answer to ${method} has no result`);
    return answer.result;
  } catch (error) {
    if (deadline.signal.aborted) throw deadline.signal.reason;
    throw error;
  } finally {
    clearTimeout(timer);
    exchange.overflow.signal.removeEventListener("abort", onOverflow);
  }
}

function toolsPage(result: unknown): { tools: unknown[]; nextCursor?: string } {
  if (!isRecord(result) || !Array.isArray(result.tools)) throw new McpError(ErrorCode.InvalidRequest, "tools/list answered without a tools array");
  if (result.nextCursor !== undefined && typeof result.nextCursor !== "string") throw new McpError(ErrorCode.InvalidRequest, "tools/list answered with a nextCursor that is not a string");
  return { tools: result.tools, ...(result.nextCursor === undefined ? {} : { nextCursor: result.nextCursor }) };
}

/**
 * A 2026-07-28 connection. With `probe`, server/discover first: a server that does not offer the revision (a 4xx
 * without a modern JSON-RPC error, an error answer, a result without it) throws NotModernServer.
 */
export async function openModern(options: ConnectOptions, { probe }: { probe: boolean }): Promise<UpstreamConnection> {
  const overflow = new AbortController();
  const exchange: Exchange = { options, overflow, fetch: connectionFetch(options, overflow), nextId: 0 };
  if (probe) {
    let discovered: unknown;
    try {
      discovered = await send(exchange, "server/discover", {}, options.timeoutMs);
    } catch (error) {
      if (error instanceof UpstreamUnauthorized) throw error;
      // An HTTP 4xx without a modern JSON-RPC error (or with UnsupportedProtocolVersion: the server is modern, of other
      // revisions, and initialize is the one way left), or a JSON-RPC error answer: the server is of the 2025 era.
      const legacyAnswer =
        (error instanceof ModernHttpError && error.code !== undefined && error.code >= 400 && error.code < 500 && (!isModernErrorBody(error.body) || modernCode(error.body) === MODERN_ERROR_CODES.unsupportedProtocolVersion)) ||
        (error instanceof McpError && error.code !== REQUEST_TIMEOUT);
      if (legacyAnswer) throw new NotModernServer(`server/discover: ${error instanceof Error ? error.message : String(error)}`);
      throw error;
    }
    if (!offersModern(discovered)) throw new NotModernServer("server/discover does not offer 2026-07-28");
  }
  return {
    transport: "streamable-http-2026-07-28",
    signal: overflow.signal,
    listPage: async (cursor, timeoutMs) => toolsPage(await send(exchange, "tools/list", cursor === undefined ? {} : { cursor }, timeoutMs)),
    callTool: (name, args, timeoutMs) => send(exchange, "tools/call", { name, arguments: args }, timeoutMs),
    // No session to end.
    close: async () => undefined,
  };
}
