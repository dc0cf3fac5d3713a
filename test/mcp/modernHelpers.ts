// Shared helpers of the MCP 2026-07-28 tests: the v2 SDK's Client (either era) through the Worker's fetch, raw
// modern requests, and every modern answer checked against the revision's JSON Schema (read at test time by
// vitest.config.ts; the checks step aside, with the reason, when it is missing).
import { env, exports } from "cloudflare:workers";
import { Validator } from "@cfworker/json-schema";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { ClientOptions } from "@modelcontextprotocol/client";
import { expect } from "vitest";
import type { TestContext } from "vitest";
import { META, MODERN_PROTOCOL_VERSION } from "../../src/core/mcp/modern.ts";
import { SESSION_META_KEY } from "../../src/mcp/stateless.ts";
import { MCP_URL } from "./helpers.ts";

const schema = env.MCP_2026_SCHEMA;
export const schemaMissing: string | undefined = schema ? undefined : (env.MCP_2026_SCHEMA_MISSING ?? "MCP_2026_SCHEMA binding missing");

/** First line of a test that checks answers against the schema: skips it, with the reason, when it is missing. */
export function needsSchema(context: TestContext): void {
  context.skip(schemaMissing !== undefined, schemaMissing);
}

const validators = new Map<string, Validator>();

/** Asserts that `value` is a valid `definition` of the 2026-07-28 schema (a no-op when the schema is missing). */
export function expectSchema(definition: string, value: unknown): void {
  if (!schema) return;
  let validator = validators.get(definition);
  if (!validator) {
    validator = new Validator({ ...schema, $ref: `#/$defs/${definition}` }, "2020-12", false);
    validators.set(definition, validator);
  }
  const outcome = validator.validate(value);
  expect(outcome.errors.slice(0, 3), `${definition}: ${JSON.stringify(value).slice(0, 400)}`).toEqual([]);
  expect(outcome.valid).toBe(true);
}

/** A modern JSON-RPC answer checked whole: an error as an error response, a result as the method's result type. */
export function expectAnswerSchema(method: string, message: Record<string, unknown>): void {
  const definition = definitionOf(method, message);
  if (definition === "JSONRPCErrorResponse") expectSchema(definition, message);
  else {
    expectSchema("JSONRPCResultResponse", message);
    expectSchema(definition, message["result"]);
  }
}

/** What a modern answer is, by the method asked and its shape: the schema definition it must satisfy. */
export function definitionOf(method: string, message: Record<string, unknown>): string {
  if ("error" in message) return "JSONRPCErrorResponse";
  const result = message["result"];
  const type = typeof result === "object" && result !== null && "resultType" in result ? result.resultType : undefined;
  if (type === "input_required") return "InputRequiredResult";
  switch (method) {
    case "server/discover":
      return "DiscoverResult";
    case "tools/list":
      return "ListToolsResult";
    case "tools/call":
      return "CallToolResult";
    default:
      return "Result";
  }
}

/** Every JSON answer to a modern request a fetch saw, with the method asked. */
export interface ModernLog {
  answers: { method: string; era: "modern" | "legacy"; message: Record<string, unknown>; status: number }[];
  headers: Headers[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The Worker's fetch, noting each request's headers and each JSON answer (schema-checked when modern). With
 * `session`, each modern request names that conversation in `_meta` (as a client configured with one would: the v2
 * SDK attaches user `_meta` per call, but not to subscriptions/listen).
 */
export function loggingFetch(log: ModernLog, session?: string): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    let request = new Request(input, init);
    log.headers.push(new Headers(request.headers));
    const text = request.method === "POST" ? await request.clone().text() : "";
    const body: unknown = text === "" ? undefined : JSON.parse(text);
    if (session !== undefined && isRecord(body) && isRecord(body["params"]) && isRecord(body["params"]["_meta"]) &&
      META.protocolVersion in body["params"]["_meta"]) {
      body["params"]["_meta"][SESSION_META_KEY] = session;
      request = new Request(request, { method: "POST", body: JSON.stringify(body) });
    }
    const response = await exports.default.fetch(request);
    if (isRecord(body) && typeof body["method"] === "string" && response.headers.get("content-type")?.includes("application/json")) {
      const message: unknown = await response.clone().json();
      const params = body["params"];
      const modern = isRecord(params) && isRecord(params["_meta"]) && META.protocolVersion in params["_meta"];
      if (isRecord(message)) {
        log.answers.push({ method: body["method"], era: modern ? "modern" : "legacy", message, status: response.status });
        if (modern) expectAnswerSchema(body["method"], message);
      }
    }
    return response;
  };
}

export type Negotiation = "auto" | "legacy" | { pin: string };

export interface ModernConnected {
  client: Client;
  log: ModernLog;
}

export async function connectV2(
  tokenText: string,
  mode: Negotiation,
  options: { query?: string; capabilities?: ClientOptions["capabilities"]; session?: string } = {},
): Promise<ModernConnected> {
  const log: ModernLog = { answers: [], headers: [] };
  const transport = new StreamableHTTPClientTransport(new URL(`${MCP_URL}${options.query ?? ""}`), {
    fetch: loggingFetch(log, options.session),
    requestInit: { headers: { authorization: `Bearer ${tokenText}` } },
  });
  const client = new Client(
    { name: "toolgate-v2-test", version: "0" },
    { capabilities: options.capabilities ?? {}, versionNegotiation: { mode } },
  );
  await client.connect(transport);
  return { client, log };
}

/** The `_meta` a modern request carries (with `extra` keys, such as toolgate/session). */
export function modernMeta(extra: Record<string, unknown> = {}, capabilities: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    [META.protocolVersion]: MODERN_PROTOCOL_VERSION,
    [META.clientCapabilities]: capabilities,
    [META.clientInfo]: { name: "raw", version: "0" },
    ...extra,
  };
}

let nextId = 1;

/** One raw modern POST: the body with `_meta`, and the headers that mirror it (each may be overridden or dropped). */
export function modernRpc(
  tokenText: string,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string | null> = {},
): Promise<Response> {
  const name = params["name"];
  const given: Record<string, string | null> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    authorization: `Bearer ${tokenText}`,
    "mcp-protocol-version": MODERN_PROTOCOL_VERSION,
    "mcp-method": method,
    ...(typeof name === "string" ? { "mcp-name": name } : {}),
    ...headers,
  };
  const sent: Record<string, string> = {};
  for (const [key, value] of Object.entries(given)) if (value !== null) sent[key] = value;
  const meta = isRecord(params["_meta"]) ? params["_meta"] : modernMeta();
  return exports.default.fetch(new Request(MCP_URL, {
    method: "POST",
    headers: sent,
    body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params: { ...params, _meta: meta } }),
  }));
}

/** A modern JSON answer, schema-checked as the answer to `method`. */
export async function modernAnswer(response: Response, method: string): Promise<Record<string, unknown>> {
  expect(response.headers.get("content-type")).toContain("application/json");
  const message: unknown = await response.json();
  if (!isRecord(message)) throw new Error(`not a JSON-RPC message: ${JSON.stringify(message)}`);
  expectAnswerSchema(method, message);
  return message;
}
