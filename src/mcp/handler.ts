// POST and DELETE /mcp: MCP Streamable HTTP on the official SDK's web-standard transport. Each request gets a fresh
// Server on a stateless transport (a stateful transport cannot be rebuilt per request, and an isolate may serve any
// request); this handler owns Mcp-Session-Id instead. The MCP session id is a toolgate session id: the session object
// of (verified principal, id) holds the MCP session's record, its discovered set, confirmations and grants, so the id
// works as the HTTP API's :sid, and another principal presenting the same id reaches another object (404).
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  isInitializeRequest, isJSONRPCErrorResponse, isJSONRPCRequest, isJSONRPCResultResponse, LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import type { InitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { ID_PATTERN } from "../core/ids.ts";
import { isRecord } from "../core/records.ts";
import type { McpSessionRecord } from "../durable/sessionObject.ts";
import { MAX_ANSWER_BYTES } from "../durable/pendingAnswers.ts";
import type { AnswerDelivery } from "../durable/pendingAnswers.ts";
import { isSessionRefusal } from "../durable/sessionLimit.ts";
import { effectiveGroups } from "../http/auth.ts";
import { readBodyBytes, refuseTooDeep } from "../http/body.ts";
import { callerStage, requireSettings, sessionIdentity } from "../http/stage.ts";
import type { Call } from "../http/stage.ts";
import { sessionStub } from "../durable/stubs.ts";
import { HttpError } from "../http/errors.ts";
import { GROUP_NAME_MAX, MAX_ENABLED_GROUPS } from "../http/groups.ts";
import { enforceRateLimit, tooManySessions } from "../http/limits.ts";
import type { RouteRequest } from "../http/request.ts";
import { checkOrigin, mcpErrorResponse, sessionNotFound, withResourceMetadata } from "./http.ts";
import { createMcpServer } from "./server.ts";
import { isModernTraffic, serveModern } from "./stateless.ts";

interface McpCaller {
  call: Call;
  groups: string[];
}

/** The `groups` parameter of the MCP URL (`/mcp?groups=web,files`), cut to what the token allows. */
function urlGroups(request: Request, call: Call): string[] {
  const text = new URL(request.url).searchParams.get("groups");
  if (text === null) return effectiveGroups(call.principal, undefined);
  const groups = text.split(",").map((group) => group.trim()).filter((group) => group !== "");
  if (groups.length > MAX_ENABLED_GROUPS || groups.some((group) => group.length > GROUP_NAME_MAX)) {
    throw new HttpError(400, "invalid_request", `groups: at most ${MAX_ENABLED_GROUPS} names of at most ${GROUP_NAME_MAX} characters`);
  }
  return effectiveGroups(call.principal, groups);
}

/** Settings, Origin, then the caller (401 naming the resource metadata; 403 when banned). */
async function caller(request: Request, env: Env, ctx: ExecutionContext | undefined): Promise<McpCaller> {
  const settings = requireSettings(env);
  checkOrigin(request, settings.config.mcp);
  // The same caller stage as every /v1 route; a 401 also names the resource metadata (MCP authorization).
  const call = await callerStage(request, env).catch((error: unknown) => {
    throw error instanceof HttpError ? withResourceMetadata(error, request, settings) : error;
  });
  // The request's context: usage figures are counted after the answer, as on the HTTP routes.
  return { call: ctx === undefined ? call : { ...call, ctx }, groups: urlGroups(request, call) };
}

async function readMessages(request: Request, maxBytes: number): Promise<{ body: unknown; messages: unknown[] }> {
  const bytes = await readBodyBytes(request, maxBytes);
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes));
  } catch {
    throw new HttpError(400, "invalid_json", "Parse error: the body is not valid JSON");
  }
  refuseTooDeep(body);
  return { body, messages: Array.isArray(body) ? body : [body] };
}

function requestedSessionId(request: Request): string {
  const given = request.headers.get("mcp-session-id");
  if (given === null) throw new HttpError(400, "invalid_request", "Bad Request: Mcp-Session-Id header is required");
  // Our ids are UUIDs; anything that could not be a session id is a session that does not exist.
  if (!ID_PATTERN.test(given)) throw sessionNotFound();
  return given;
}

function recordOf(init: InitializeRequest): McpSessionRecord {
  const requested = init.params.protocolVersion;
  const elicitation = init.params.capabilities.elicitation;
  return {
    protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION,
    // `{}` means form mode (the older spelling); `{url: {}}` alone cannot show a form.
    elicitation: elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined),
    elicitationUrl: elicitation?.url !== undefined,
    client: init.params.clientInfo.name.slice(0, 200),
  };
}

/** 413 for an answer over MAX_ANSWER_BYTES, 400 for one whose id no pending request of the session has. */
function refuseUndelivered(deliveries: readonly AnswerDelivery[]): void {
  if (deliveries.includes("too_large")) {
    throw new HttpError(413, "payload_too_large", `an answer to a request of this server may be at most ${MAX_ANSWER_BYTES} bytes`);
  }
  const unknown = deliveries.filter((delivery) => delivery === "unknown_id").length;
  if (unknown > 0) {
    throw new HttpError(400, "invalid_request", `${unknown === 1 ? "a response answers" : `${unknown} responses answer`} no pending request of this session`);
  }
}

async function post(request: RouteRequest, env: Env, ctx: ExecutionContext | undefined): Promise<Response> {
  const { call, groups } = await caller(request, env, ctx);
  const { body, messages } = await readMessages(request, call.settings.config.limits.maxBodyBytes);
  // MCP 2026-07-28 (no initialize, no session header): its own thin layer; everything else as the 2025 revisions.
  if (isRecord(body) && isModernTraffic(request, body)) return serveModern(request, call, groups, body);
  const init = messages.find(isInitializeRequest);
  let sessionId: string;
  let record: McpSessionRecord;
  if (init) {
    if (messages.length > 1) throw new HttpError(400, "invalid_request", "Invalid Request: Only one initialization request is allowed");
    await enforceRateLimit(call);
    sessionId = crypto.randomUUID();
    record = recordOf(init);
    const opened = await sessionStub(call.env, call.principal.id, sessionId).openMcp(sessionIdentity(call, sessionId), record, call.settings.config);
    if (isSessionRefusal(opened)) throw tooManySessions(opened);
  } else {
    sessionId = requestedSessionId(request);
    const session = sessionStub(call.env, call.principal.id, sessionId);
    const stored = await session.getMcp();
    if (!stored) throw sessionNotFound();
    record = stored;
    // The client's answers to our requests (elicitation): each goes to the call waiting for it, wherever it runs.
    if (messages.length > 0 && messages.every((m) => isJSONRPCResultResponse(m) || isJSONRPCErrorResponse(m))) {
      const deliveries = await Promise.all(messages.map((m) => session.deliverAnswer(String(m.id), JSON.stringify(m))));
      refuseUndelivered(deliveries);
      return new Response(null, { status: 202, headers: { "mcp-session-id": sessionId } });
    }
  }

  // tools/call answers as an SSE stream, which carries notifications/tools/list_changed and elicitation/create before
  // the result; everything else answers as plain JSON.
  const streams = messages.some((m) => isJSONRPCRequest(m) && m.method === "tools/call");
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !streams });
  const server = createMcpServer({ call, sessionId, groups, record }, transport);
  await server.connect(transport);
  const response = await transport.handleRequest(request, { parsedBody: body });
  const headers = new Headers(response.headers);
  headers.set("mcp-session-id", sessionId);
  return new Response(response.body, { status: response.status, headers });
}

/** DELETE /mcp: the MCP session ends, and its discovered set with it (404 when there is no such session). */
async function end(request: RouteRequest, env: Env, ctx: ExecutionContext | undefined): Promise<Response> {
  const { call } = await caller(request, env, ctx);
  const sessionId = requestedSessionId(request);
  if (!(await sessionStub(call.env, call.principal.id, sessionId).closeMcp())) throw sessionNotFound();
  return new Response(null, { status: 204 });
}

export async function mcpPost(request: RouteRequest, env: Env, ctx?: ExecutionContext): Promise<Response> {
  try {
    return await post(request, env, ctx);
  } catch (error) {
    return mcpErrorResponse(error, request);
  }
}

export async function mcpDelete(request: RouteRequest, env: Env, ctx?: ExecutionContext): Promise<Response> {
  try {
    return await end(request, env, ctx);
  } catch (error) {
    return mcpErrorResponse(error, request);
  }
}
