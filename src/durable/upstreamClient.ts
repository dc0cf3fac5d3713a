// toolgate as an MCP client of an upstream server, of either era. A server that answers `server/discover` offering
// 2026-07-28 is spoken to in that revision (modernUpstream.ts: stateless, no initialize, `_meta` on every request);
// any other is spoken to with the SDK's Client over Streamable HTTP (2025-11-25 and older), falling back to the legacy
// HTTP+SSE transport when the server refuses Streamable HTTP's initialize with a 4xx (the fallback the MCP
// specification describes for backwards compatibility). One connection per refresh and one per call, closed when it
// is done: no call ever shares a connection (and the server's MCP session) with another caller's, so none can close
// another's; notifications (tools/list_changed) are heard while a 2025 connection is open.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SseError, SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { z } from "zod";
import { isRecord } from "../core/records.ts";
import { describeInputRequired } from "../core/upstream/modernProtocol.ts";
import type { UpstreamToolResult } from "../core/upstream/result.ts";
import { CORE_VERSION } from "../core/version.ts";
import { connectionFetch, openModern, NotModernServer, UpstreamUnauthorized } from "./modernUpstream.ts";

/** How the server was reached: Streamable HTTP in 2026-07-28, Streamable HTTP in 2025-11-25 (or older), HTTP+SSE. */
export type UpstreamTransport = "streamable-http-2026-07-28" | "streamable-http" | "sse";
type LegacyTransport = Exclude<UpstreamTransport, "streamable-http-2026-07-28">;

export interface ConnectOptions {
  url: string;
  /** Header name → value (already read from the TOOL_SECRET_* secrets). */
  headers: Record<string, string>;
  timeoutMs: number;
  /** Bytes one HTTP answer of the server may have (an event stream counted as a whole); past it the request fails. */
  maxResponseBytes: number;
  /** The transport that worked last time, tried first. */
  prefer?: UpstreamTransport;
  /** Ask server/discover first even when a 2025 transport worked last time (a refresh: the server may have moved on). */
  probeFirst?: boolean;
  /** Called when the server sends notifications/tools/list_changed while the connection is open. */
  onToolsChanged?: () => void;
  /** An OAuth upstream: a 401 throws UpstreamUnauthorized at once (no other transport is tried). */
  oauth?: boolean;
}

export interface UpstreamConnection {
  transport: UpstreamTransport;
  /** Aborted when an answer passes maxResponseBytes: the requests waiting on it fail at once. */
  signal: AbortSignal;
  /** One tools/list page, as the server sent it. JSON-RPC errors are thrown as McpError, HTTP ones as StreamableHTTPError. */
  listPage(cursor: string | undefined, timeoutMs: number): Promise<{ tools: unknown[]; nextCursor?: string | undefined }>;
  /** tools/call; the result as the server sent it. */
  callTool(name: string, args: Record<string, unknown>, timeoutMs: number): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * A tools/list page read leniently: the SDK's listTools refuses the whole page for one tool its schema refuses (an
 * inputSchema without `type: "object"`, say), losing every tool of the server; core/upstream/mcpTool.ts reads each
 * tool and leaves out only the ones it cannot take, with the reason.
 */
const ToolsPageSchema = z.object({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

function newClient(onToolsChanged: (() => void) | undefined): Client {
  // The cfworker validator: the SDK's default (Ajv) compiles schemas with eval, which workerd forbids.
  const client = new Client(
    { name: "toolgate", version: CORE_VERSION },
    { capabilities: {}, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  if (onToolsChanged) client.setNotificationHandler(ToolListChangedNotificationSchema, () => onToolsChanged());
  return client;
}

function transportFor(kind: LegacyTransport, options: ConnectOptions, overflow: AbortController) {
  const url = new URL(options.url);
  const requestInit: RequestInit = { headers: options.headers };
  const cappedFetch = connectionFetch(options, overflow);
  if (kind === "streamable-http") return new StreamableHTTPClientTransport(url, { requestInit, fetch: cappedFetch });
  // The legacy transport opens its event stream with GET; its headers go there too.
  return new SSEClientTransport(url, {
    requestInit,
    fetch: cappedFetch,
    eventSourceInit: {
      fetch: (input, init) => cappedFetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init.headers)), ...options.headers } }),
    },
  });
}

/** Whether Streamable HTTP failed the way that means "an older server": a 4xx answer to the initialize POST. */
function meansLegacyServer(error: unknown): boolean {
  return error instanceof StreamableHTTPError && error.code !== undefined && error.code >= 400 && error.code < 500;
}

async function open(kind: LegacyTransport, options: ConnectOptions): Promise<UpstreamConnection> {
  const client = newClient(options.onToolsChanged);
  const overflow = new AbortController();
  const transport = transportFor(kind, options, overflow);
  try {
    await client.connect(transport, { timeout: options.timeoutMs, signal: overflow.signal });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
  // A stateful server keeps a session per initialize: end it (DELETE), so that one connection per call leaves none behind.
  const close = async (): Promise<void> => {
    if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) {
      await Promise.race([transport.terminateSession().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, options.timeoutMs))]);
    }
    await client.close();
  };
  return {
    transport: kind,
    signal: overflow.signal,
    listPage: (cursor, timeoutMs) =>
      client.request({ method: "tools/list", params: cursor === undefined ? {} : { cursor } }, ToolsPageSchema, { timeout: timeoutMs, signal: overflow.signal }),
    callTool: (name, args, timeoutMs) => client.callTool({ name, arguments: args }, undefined, { timeout: timeoutMs, signal: overflow.signal }),
    close,
  };
}

/**
 * The server's era, then its transport: server/discover first (unless a 2025 transport worked last time and this is
 * no refresh), 2026-07-28 when the server offers it; else initialize on the transport that works. Throws what the
 * last attempt threw.
 */
export async function connectUpstream(options: ConnectOptions): Promise<UpstreamConnection> {
  if (options.prefer === "streamable-http-2026-07-28" && options.probeFirst !== true) return openModern(options, { probe: false });
  if (options.prefer === undefined || options.prefer === "streamable-http-2026-07-28" || options.probeFirst === true) {
    try {
      return await openModern(options, { probe: true });
    } catch (error) {
      if (!(error instanceof NotModernServer)) throw error;
    }
  }
  return connectLegacy(options);
}

/** initialize (and its notification) on the transport that works; throws what the last attempt threw. */
async function connectLegacy(options: ConnectOptions): Promise<UpstreamConnection> {
  if (options.prefer === "sse") {
    try {
      return await open("sse", options);
    } catch {
      // The server may have moved to Streamable HTTP since.
    }
  }
  try {
    return await open("streamable-http", options);
  } catch (error) {
    if (!meansLegacyServer(error)) throw error;
    return open("sse", options);
  }
}

export interface ListLimits {
  maxPages: number;
  maxTools: number;
  /** Bytes of tools (their JSON) all pages together may bring. */
  maxBytes: number;
  timeoutMs: number;
}


/** Every page of tools/list, as the server sent its tools (read by core/upstream/mcpTool.ts). */
export async function listAllTools(connection: UpstreamConnection, limits: ListLimits): Promise<unknown[]> {
  const tools: unknown[] = [];
  let cursor: string | undefined;
  // One deadline for the whole list, not one per page: a server answering each page just in time would hold the
  // refresh (and the owner's PUT) for maxPages times the timeout.
  const deadline = Date.now() + limits.timeoutMs;
  let bytes = 0;
  for (let page = 0; ; page++) {
    if (page >= limits.maxPages) throw new Error(`tools/list has more than ${limits.maxPages} pages`);
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`tools/list took more than ${limits.timeoutMs} ms (${page} pages)`);
    const result = await connection.listPage(cursor, left);
    for (const tool of result.tools) tools.push(tool);
    if (tools.length > limits.maxTools) throw new Error(`the server lists more than ${limits.maxTools} tools`);
    bytes += JSON.stringify(result.tools).length;
    if (bytes > limits.maxBytes) throw new Error(`tools/list brought more than ${limits.maxBytes} bytes of tools (${page + 1} pages)`);
    cursor = result.nextCursor;
    if (cursor === undefined) return tools;
  }
}

/** tools/call; the result as the server sent it (content blocks, structuredContent, isError). */
export async function callUpstreamTool(
  connection: UpstreamConnection,
  name: string,
  args: Record<string, unknown>,
  timeoutMs: number,
): Promise<UpstreamToolResult> {
  const result = await connection.callTool(name, args, timeoutMs);
  if (!isRecord(result)) throw new McpError(ErrorCode.InvalidRequest, "tools/call answered with something that is not an object");
  const inputRequired = describeInputRequired(result);
  if (inputRequired !== undefined) return { content: [{ type: "text", text: inputRequired }], isError: true };
  const structured: unknown = result.structuredContent;
  return {
    content: Array.isArray(result.content) ? result.content : [],
    ...(isRecord(structured) ? { structuredContent: structured } : {}),
    ...(result.isError === true ? { isError: true } : {}),
  };
}

/** JSON-RPC codes that mean the server broke the connection or the protocol. */
const SERVER_BROKE: ReadonlySet<number> = new Set([ErrorCode.ConnectionClosed, ErrorCode.ParseError, ErrorCode.InvalidRequest]);
/** JSON-RPC codes the client gives a request that got no answer. */
const CUT_OFF: ReadonlySet<number> = new Set([ErrorCode.ConnectionClosed, ErrorCode.RequestTimeout]);

/**
 * Whether a failure is the server's own (it could not be reached, answered 5xx, closed the connection or broke the
 * protocol): those count toward skipping it. A timeout (the server is slow, perhaps under one caller's load), an answer
 * past the size cap (the caller's arguments asked for it: the caller checks the connection's signal), a 4xx such as
 * 429, and a JSON-RPC error the server answered (the tool's own error) do not.
 */
export function isServerFailure(error: unknown): boolean {
  // The caller's grant was refused: the server is fine.
  if (error instanceof UpstreamUnauthorized) return false;
  if (error instanceof StreamableHTTPError || error instanceof SseError) return error.code === undefined || error.code >= 500 || error.code === -1;
  if (error instanceof McpError) return SERVER_BROKE.has(error.code);
  // fetch's TypeError (unreachable), a JSON SyntaxError or a schema error on the answer: the server's doing.
  return true;
}

/** Whether the server answered the request with a JSON-RPC error (it heard the call and said no, or the tool failed). */
export function isServerAnswer(error: unknown): boolean {
  // A 401 comes before the call runs.
  if (error instanceof UpstreamUnauthorized) return true;
  return error instanceof McpError && !CUT_OFF.has(error.code);
}
