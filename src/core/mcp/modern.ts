// The wire vocabulary of MCP's modern (stateless) revision, 2026-07-28, for either side of it: the reserved `_meta`
// keys every request and result carries, `resultType`, the protocol's own error codes, the request metadata a
// request must carry, and the Base64 sentinel of its mirrored headers. Plain TypeScript, so that the face serving
// /mcp and the client of upstream servers share one reading of it.
import { isRecord } from "../records.ts";

/** The modern revisions this code speaks (newest first). */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = ["2026-07-28"];
export const MODERN_PROTOCOL_VERSION = "2026-07-28";

/** The reserved `_meta` keys. */
export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;

/** JSON-RPC codes of the revision (the range -32020..-32099 is the specification's). */
export const MODERN_ERROR = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  headerMismatch: -32020,
  missingClientCapability: -32021,
  unsupportedProtocolVersion: -32022,
} as const;

/** The log levels of `io.modelcontextprotocol/logLevel` (RFC 5424's, lowest first). */
export const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Implementation {
  name: string;
  version: string;
}

/** What a modern request says about itself in `params._meta`. */
export interface RequestMeta {
  protocolVersion: string;
  clientCapabilities: Record<string, unknown>;
  clientInfo?: Implementation;
  logLevel?: LogLevel;
  /** The whole `_meta` object, for keys of an extension or of the server. */
  all: Record<string, unknown>;
}

function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === "string" && LOG_LEVELS.some((level) => level === value);
}

/** `params._meta` of a modern request, or the problem with it (for an invalid-params error). */
export function readRequestMeta(params: unknown): RequestMeta | { problem: string } {
  const meta = isRecord(params) ? params["_meta"] : undefined;
  if (!isRecord(meta)) return { problem: "params._meta is required (the protocol version and client capabilities)" };
  const protocolVersion = meta[META.protocolVersion];
  if (typeof protocolVersion !== "string" || protocolVersion === "") return { problem: `_meta["${META.protocolVersion}"] must be a string` };
  const capabilities = meta[META.clientCapabilities];
  if (!isRecord(capabilities)) return { problem: `_meta["${META.clientCapabilities}"] must be an object` };
  const read: RequestMeta = { protocolVersion, clientCapabilities: capabilities, all: meta };
  const info = meta[META.clientInfo];
  if (info !== undefined) {
    if (!isRecord(info) || typeof info["name"] !== "string" || typeof info["version"] !== "string") {
      return { problem: `_meta["${META.clientInfo}"] must be {name, version}` };
    }
    read.clientInfo = { name: info["name"], version: info["version"] };
  }
  const level = meta[META.logLevel];
  if (level !== undefined) {
    if (!isLogLevel(level)) return { problem: `_meta["${META.logLevel}"] must be one of ${LOG_LEVELS.join(", ")}` };
    read.logLevel = level;
  }
  return read;
}

/** Whether a request's `_meta` names a protocol version (the sign of a modern request). */
export function carriesProtocolVersion(params: unknown): boolean {
  const meta = isRecord(params) ? params["_meta"] : undefined;
  return isRecord(meta) && META.protocolVersion in meta;
}

/** Whether the client can show a form elicitation (`{}` is the older spelling of form mode). */
export function canElicitForm(capabilities: Record<string, unknown>): boolean {
  const elicitation = capabilities["elicitation"];
  if (!isRecord(elicitation)) return false;
  return elicitation["form"] !== undefined || elicitation["url"] === undefined;
}

/** Whether the client can open a URL elicitation (`mode: "url"`: a sign-in to an upstream, out of the client's sight). */
export function canElicitUrl(capabilities: Record<string, unknown>): boolean {
  const elicitation = capabilities["elicitation"];
  return isRecord(elicitation) && elicitation["url"] !== undefined;
}

/** An ordinary result of the revision: `resultType: "complete"` and the server's identity in `_meta`. */
export function completeResult<T extends object>(result: T, server: Implementation): T & { resultType: "complete"; _meta: Record<string, unknown> } {
  const given: unknown = Reflect.get(result, "_meta");
  return { ...result, resultType: "complete", _meta: { ...(isRecord(given) ? given : {}), [META.serverInfo]: server } };
}

/** One request the server needs the client to answer before it completes (an elicitation, here). */
export interface InputRequest {
  method: string;
  params: Record<string, unknown>;
}

/** An interim result: the client answers `inputRequests` and retries with them and the `requestState`, unchanged. */
export function inputRequiredResult(
  inputRequests: Record<string, InputRequest>,
  requestState: string,
  server: Implementation,
): { resultType: "input_required"; inputRequests: Record<string, InputRequest>; requestState: string; _meta: Record<string, unknown> } {
  return { resultType: "input_required", inputRequests, requestState, _meta: { [META.serverInfo]: server } };
}

const SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;
/** What a plain header value may hold (visible ASCII, space, tab), as RFC 9110 allows it. */
const PLAIN_VALUE = /^[\t\x20-\x7e]*$/;

/**
 * A mirrored header's value as the body holds it: the Base64 sentinel (`=?base64?…?=`) decoded as UTF-8, any other
 * value as it is; undefined when it is malformed (bad Base64, bytes that are not UTF-8, characters no header holds).
 */
export function decodeHeaderValue(value: string): string | undefined {
  const sentinel = SENTINEL.exec(value);
  if (sentinel === null) {
    // The markers claim Base64; a body that is not Base64 is malformed, not a plain value that looks like one.
    if (value.startsWith("=?base64?") && value.endsWith("?=")) return undefined;
    return PLAIN_VALUE.test(value) ? value : undefined;
  }
  try {
    const binary = atob(sentinel[1] ?? "");
    const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return undefined;
  }
}
