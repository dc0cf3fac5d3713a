// The MCP revision 2026-07-28 as toolgate speaks it to an upstream server: no initialize and no session; every request
// carries the protocol version, client identity and capabilities in `_meta`, and the same in the MCP-Protocol-Version,
// Mcp-Method and Mcp-Name headers; results carry `resultType` ("complete", or "input_required" when the server wants
// the user's input first). Plain data in, plain data out: the HTTP lives in src/durable/upstreamClient.ts.
import { isRecord } from "../records.ts";

export const MODERN_PROTOCOL_VERSION = "2026-07-28";
/** The protocol's metadata field of params and results (a name the protocol chose, with its underscore). */
const META = "_meta";

/** JSON-RPC codes a modern server answers with (a modern error body is not a reason to fall back to initialize). */
export const MODERN_ERROR_CODES = {
  methodNotFound: -32601,
  headerMismatch: -32020,
  missingRequiredClientCapability: -32021,
  unsupportedProtocolVersion: -32022,
} as const;

const MODERN_CODES: ReadonlySet<number> = new Set(Object.values(MODERN_ERROR_CODES));

export interface ModernMessage {
  body: { jsonrpc: "2.0"; id: number; method: string; params: Record<string, unknown> };
  headers: Record<string, string>;
}

/**
 * A header value as the transport's value encoding asks: printable ASCII as it is, anything else (or a value with
 * leading or trailing spaces) as the Base64 sentinel `=?base64?...?=` of its UTF-8 bytes.
 */
export function headerValue(value: string): string {
  if (/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(value)) return value;
  return `=?base64?${base64(new TextEncoder().encode(value))}?=`;
}

const BASE64_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Standard base64 with padding (the core has no btoa). */
export function base64(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i] ?? 0;
    const b = bytes[i + 1];
    const c = bytes[i + 2];
    const triple = (a << 16) | ((b ?? 0) << 8) | (c ?? 0);
    out += BASE64_DIGITS.charAt((triple >> 18) & 63) + BASE64_DIGITS.charAt((triple >> 12) & 63);
    out += b === undefined ? "=" : BASE64_DIGITS.charAt((triple >> 6) & 63);
    out += c === undefined ? "=" : BASE64_DIGITS.charAt(triple & 63);
  }
  return out;
}

/** A request of the modern revision: `_meta` in the body, mirrored in the headers. Mcp-Name for tools/call. */
export function modernRequest(
  id: number,
  method: string,
  params: Record<string, unknown>,
  client: { name: string; version: string },
): ModernMessage {
  const meta = {
    ...(isRecord(params[META]) ? params[META] : {}),
    "io.modelcontextprotocol/protocolVersion": MODERN_PROTOCOL_VERSION,
    "io.modelcontextprotocol/clientInfo": client,
    // toolgate answers no input requests of an upstream (see describeInputRequired): it declares none.
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": MODERN_PROTOCOL_VERSION,
    "mcp-method": method,
  };
  if (method === "tools/call" && typeof params.name === "string") headers["mcp-name"] = headerValue(params.name);
  return { body: { jsonrpc: "2.0", id, method, params: { ...params, [META]: meta } }, headers };
}

/** Whether a server/discover answer offers the modern revision. */
export function offersModern(result: unknown): boolean {
  return isRecord(result) && Array.isArray(result.supportedVersions) && result.supportedVersions.includes(MODERN_PROTOCOL_VERSION);
}

/** Whether an HTTP error body is a JSON-RPC error a modern server sends (then the server is modern: no fallback). */
export function isModernErrorBody(body: unknown): boolean {
  return isRecord(body) && body.jsonrpc === "2.0" && isRecord(body.error) && typeof body.error.code === "number" && MODERN_CODES.has(body.error.code);
}

/** The JSON-RPC answer to request `id` among the messages of one answer (a JSON body or an event stream's events). */
export function answerTo(messages: readonly unknown[], id: number): { result: unknown } | { error: { code: number; message: string; data?: unknown } } | undefined {
  for (const message of messages) {
    if (!isRecord(message) || message.id !== id) continue;
    if (isRecord(message.error)) {
      const { code, message: text, data } = message.error;
      return { error: { code: typeof code === "number" ? code : -32603, message: typeof text === "string" ? text : "error", ...(data === undefined ? {} : { data }) } };
    }
    if ("result" in message) return { result: message.result };
  }
  return undefined;
}

/** The JSON messages of a `text/event-stream` body (its `data:` lines joined per event); unreadable events are skipped. */
export function eventStreamMessages(text: string): unknown[] {
  const messages: unknown[] = [];
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(line.startsWith("data: ") ? 6 : 5))
      .join("\n");
    if (data === "") continue;
    try {
      messages.push(JSON.parse(data));
    } catch {
      // Not JSON: not a message of ours.
    }
  }
  return messages;
}

const SHOWN_CHARS = 300;

function shown(text: string): string {
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}…` : text;
}

/** One input request in words: what the server asked for. */
function describeInputRequest(key: string, request: unknown): string {
  if (!isRecord(request)) return `${shown(key)} (unreadable)`;
  const params = isRecord(request.params) ? request.params : {};
  switch (request.method) {
    case "elicitation/create": {
      const url = params.mode === "url" && typeof params.url === "string" ? ` at ${shown(params.url)}` : "";
      const message = typeof params.message === "string" ? `: "${shown(params.message)}"` : "";
      return `user input${url}${message}`;
    }
    case "sampling/createMessage":
      return "a completion from the caller's model (sampling)";
    case "roots/list":
      return "the caller's roots";
    default:
      return typeof request.method === "string" ? shown(request.method) : "an unknown request";
  }
}

/**
 * Whether a modern result asks for input first (`resultType: "input_required"`), and then the tool error's text
 * saying what the server asked for. toolgate does not yet pass an upstream's input requests on to its own caller, so
 * the call ends here with that error; undefined for a complete result (an absent resultType counts as complete).
 */
export function describeInputRequired(result: unknown): string | undefined {
  if (!isRecord(result) || result.resultType !== "input_required") return undefined;
  const requests = isRecord(result.inputRequests) ? Object.entries(result.inputRequests) : [];
  const asked = requests.slice(0, 5).map(([key, request]) => describeInputRequest(key, request));
  if (requests.length > 5) asked.push(`${requests.length - 5} more`);
  const what = asked.length > 0 ? asked.join("; ") : "more input (it gave no input requests, only a request state)";
  return `the upstream server needs input before it can answer: ${what}. toolgate cannot pass an upstream server's input requests on to its caller yet: the call did not complete.`;
}
