// toolgate as an MCP client of an upstream server: the SDK's Client over Streamable HTTP, falling back to the legacy
// HTTP+SSE transport when the server refuses Streamable HTTP's initialize with a 4xx (the fallback the MCP
// specification describes for backwards compatibility). One connection per refresh or call: a Durable Object cannot
// hold a stream open for ever, so notifications (tools/list_changed) are heard while a connection is open.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { z } from "zod";
import { isRecord } from "../core/records.ts";
import type { UpstreamToolResult } from "../core/upstream/result.ts";
import { CORE_VERSION } from "../core/version.ts";

export type UpstreamTransport = "streamable-http" | "sse";

export interface ConnectOptions {
  url: string;
  /** Header name → value (already read from the TOOL_SECRET_* secrets). */
  headers: Record<string, string>;
  timeoutMs: number;
  /** Bytes one HTTP answer of the server may have (an event stream counted as a whole); past it the request fails. */
  maxResponseBytes: number;
  /** The transport that worked last time, tried first. */
  prefer?: UpstreamTransport;
  /** Called when the server sends notifications/tools/list_changed while the connection is open. */
  onToolsChanged?: () => void;
}

export interface UpstreamConnection {
  client: Client;
  transport: UpstreamTransport;
  /** Aborted when an answer passes maxResponseBytes: the requests waiting on it fail at once. */
  signal: AbortSignal;
  close(): Promise<void>;
}

function newClient(onToolsChanged: (() => void) | undefined): Client {
  // The cfworker validator: the SDK's default (Ajv) compiles schemas with eval, which workerd forbids.
  const client = new Client(
    { name: "toolgate", version: CORE_VERSION },
    { capabilities: {}, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  if (onToolsChanged) client.setNotificationHandler(ToolListChangedNotificationSchema, () => onToolsChanged());
  return client;
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

function transportFor(kind: UpstreamTransport, options: ConnectOptions, overflow: AbortController) {
  const url = new URL(options.url);
  const requestInit: RequestInit = { headers: options.headers };
  // Redirects are not followed (as for http executors): one would carry the secret headers, and the request, to
  // wherever the server points, a private address included, past the URL rule the owner's URL was checked against.
  const cappedFetch = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, { ...init, redirect: "manual" });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      throw new Error(`HTTP ${response.status} from ${new URL(input).host}: redirects are not followed; configure the URL it points to`);
    }
    return capped(response, options.maxResponseBytes, overflow);
  };
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

async function open(kind: UpstreamTransport, options: ConnectOptions): Promise<UpstreamConnection> {
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
  return { client, transport: kind, signal: overflow.signal, close };
}

/** initialize (and its notification) on the transport that works; throws what the last attempt threw. */
export async function connectUpstream(options: ConnectOptions): Promise<UpstreamConnection> {
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
  timeoutMs: number;
}

/**
 * A tools/list page read leniently: the SDK's listTools refuses the whole page for one tool its schema refuses (an
 * inputSchema without `type: "object"`, say), losing every tool of the server; core/upstream/mcpTool.ts reads each
 * tool and leaves out only the ones it cannot take, with the reason.
 */
const ToolsPageSchema = z.object({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

/** Every page of tools/list, as the server sent its tools (read by core/upstream/mcpTool.ts). */
export async function listAllTools(connection: UpstreamConnection, limits: ListLimits): Promise<unknown[]> {
  const tools: unknown[] = [];
  let cursor: string | undefined;
  // One deadline for the whole list, not one per page: a server answering each page just in time would hold the
  // refresh (and the owner's PUT) for maxPages times the timeout.
  const deadline = Date.now() + limits.timeoutMs;
  for (let page = 0; ; page++) {
    if (page >= limits.maxPages) throw new Error(`tools/list has more than ${limits.maxPages} pages`);
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`tools/list took more than ${limits.timeoutMs} ms (${page} pages)`);
    const result = await connection.client.request(
      { method: "tools/list", params: cursor === undefined ? {} : { cursor } },
      ToolsPageSchema,
      { timeout: left, signal: connection.signal },
    );
    tools.push(...result.tools);
    if (tools.length > limits.maxTools) throw new Error(`the server lists more than ${limits.maxTools} tools`);
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
  const result = await connection.client.callTool({ name, arguments: args }, undefined, { timeout: timeoutMs, signal: connection.signal });
  const structured: unknown = result.structuredContent;
  return {
    content: Array.isArray(result.content) ? result.content : [],
    ...(isRecord(structured) ? { structuredContent: structured } : {}),
    ...(result.isError === true ? { isError: true } : {}),
  };
}

/** Whether a request failed because the server no longer knows the connection's session (it restarted, it expired). */
function isSessionGone(error: unknown): boolean {
  return error instanceof StreamableHTTPError && error.code === 404;
}

/**
 * One connection kept open between calls, so that a call costs one request instead of initialize, call and end.
 * Closed after `idleMs` without a call (an open connection may hold an event stream, which keeps the object in
 * memory), on any failure, and when the key (the configuration) changes. A call on a kept connection whose session the
 * server has forgotten (404) is sent once more on a fresh one: the server never saw it.
 */
export class ConnectionKeeper {
  readonly #idleMs: number;
  #live: { key: string; connection: Promise<UpstreamConnection> } | undefined;
  #inFlight = 0;
  #idle: ReturnType<typeof setTimeout> | undefined;

  constructor(idleMs: number) {
    this.#idleMs = idleMs;
  }

  async use<T>(key: string, connect: () => Promise<UpstreamConnection>, run: (connection: UpstreamConnection) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const reused = this.#live?.key === key;
      if (!reused) {
        this.drop();
        this.#live = { key, connection: connect() };
      }
      const live = this.#live;
      if (!live) throw new Error("no connection");
      this.#inFlight += 1;
      this.#stopIdleTimer();
      try {
        return await run(await live.connection);
      } catch (error) {
        if (this.#live === live) this.drop();
        if (reused && attempt === 0 && isSessionGone(error)) continue;
        throw error;
      } finally {
        this.#inFlight -= 1;
        if (this.#inFlight === 0 && this.#live) this.#idle = setTimeout(() => this.drop(), this.#idleMs);
      }
    }
  }

  #stopIdleTimer(): void {
    if (this.#idle !== undefined) clearTimeout(this.#idle);
    this.#idle = undefined;
  }

  /** Closes the kept connection (if any); calls in flight on it finish or fail on their own. */
  drop(): void {
    const live = this.#live;
    this.#live = undefined;
    this.#stopIdleTimer();
    if (live) void live.connection.then((connection) => connection.close()).catch(() => undefined);
  }
}
