// Shared helpers of the MCP tests: the SDK's own Client on its Streamable HTTP transport, through the Worker's fetch.
import { exports } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { ClientOptions } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { BASE, fetchWithEnv, token } from "../http/helpers.ts";

export const MCP_URL = `${BASE}/mcp`;

/** Every request the client sends, as `METHOD status`, for tests that look at the wire. */
export interface Wire {
  seen: string[];
}

export function workerFetch(wire?: Wire): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    const response = await exports.default.fetch(new Request(input, init));
    wire?.seen.push(`${init?.method ?? "GET"} ${response.status}`);
    return response;
  };
}

/** The Worker's fetch with other vars (fetchWithEnv), for the SDK client's transport. */
export function envFetch(overrides: Record<string, unknown>): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return (input, init) => {
    const plain = new Request(input, init);
    return fetchWithEnv(overrides, new Request<unknown, IncomingRequestCfProperties>(plain.url, {
      method: plain.method,
      headers: plain.headers,
      body: plain.body,
      signal: plain.signal,
    }));
  };
}

/** A principal with a fresh id, so that no other test shares its sessions or its rate-limit counter. */
export async function principal(label: string, claims: Record<string, unknown> = {}): Promise<{ id: string; token: string }> {
  const id = `mcp-${label}-${crypto.randomUUID()}`;
  return { id, token: await token({ sub: id, ...claims }) };
}

export interface Connected {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** The MCP session id (also the HTTP API's :sid). */
  sessionId: string;
}

export interface ConnectOptions {
  /** The MCP URL's query (`?groups=…`). */
  query?: string;
  capabilities?: ClientOptions["capabilities"];
  wire?: Wire;
  /** Other vars for the Worker (fetchWithEnv) instead of its own fetch. */
  env?: Record<string, unknown>;
}

export async function connect(tokenText: string | undefined, options: ConnectOptions = {}): Promise<Connected> {
  const headers: Record<string, string> = tokenText === undefined ? {} : { authorization: `Bearer ${tokenText}` };
  const transport = new StreamableHTTPClientTransport(new URL(`${MCP_URL}${options.query ?? ""}`), {
    fetch: options.env ? envFetch(options.env) : workerFetch(options.wire),
    requestInit: { headers },
  });
  const client = new Client(
    { name: "toolgate-test", version: "0" },
    { capabilities: options.capabilities ?? {}, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  await client.connect(transport);
  const sessionId = transport.sessionId;
  if (sessionId === undefined) throw new Error("the server gave no Mcp-Session-Id");
  return { client, transport, sessionId };
}

/** One raw JSON-RPC POST to /mcp, as a client would send it. */
export function rpc(body: unknown, headers: Record<string, string> = {}, url = MCP_URL): Promise<Response> {
  return exports.default.fetch(
    new Request(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
}

export function initializeBody(protocolVersion = "2025-11-25", capabilities: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion, capabilities, clientInfo: { name: "raw", version: "0" } },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The text of a tool result's only content block. */
export function textOf(result: unknown): string {
  const content = isRecord(result) ? result["content"] : undefined;
  if (!Array.isArray(content) || content.length !== 1) throw new Error(`not one content block: ${JSON.stringify(content)}`);
  const block: unknown = content[0];
  if (typeof block !== "object" || block === null || !("type" in block) || block.type !== "text" || !("text" in block) ||
    typeof block.text !== "string") {
    throw new Error(`not a text block: ${JSON.stringify(block)}`);
  }
  return block.text;
}

export interface HeldConfirmation {
  id: string;
  tool: string;
  mode: string;
  capability: string;
  arguments: unknown;
}

/** The confirmation in a held call's structuredContent. */
export function confirmationOf(result: unknown): HeldConfirmation {
  const structured = isRecord(result) ? result["structuredContent"] : undefined;
  const confirmation = isRecord(structured) ? structured["confirmation"] : undefined;
  if (!isRecord(confirmation) || typeof confirmation["id"] !== "string" || typeof confirmation["tool"] !== "string" ||
    typeof confirmation["mode"] !== "string" || typeof confirmation["capability"] !== "string") {
    throw new Error(`no confirmation in ${JSON.stringify(result)}`);
  }
  return {
    id: confirmation["id"],
    tool: confirmation["tool"],
    mode: confirmation["mode"],
    capability: confirmation["capability"],
    arguments: confirmation["arguments"],
  };
}

/** The approval link in a held call's structuredContent (`approval.url`); fails when there is none. */
export function approvalUrlOf(result: unknown): string {
  const structured = isRecord(result) ? result["structuredContent"] : undefined;
  const approval = isRecord(structured) ? structured["approval"] : undefined;
  const url = isRecord(approval) ? approval["url"] : undefined;
  if (typeof url !== "string") throw new Error(`no approval link in ${JSON.stringify(result)}`);
  return url;
}

/**
 * The Worker loads its MCP modules on the first /mcp request (src/http/router.ts); in the tests that first load
 * transforms the SDK, which can take seconds: a beforeAll with a long timeout pays it, not the first test.
 */
export async function warmUp(): Promise<void> {
  const response = await rpc(initializeBody());
  await response.arrayBuffer();
}
