// MCP 2026-07-28 on /mcp, beside the 2025 revisions (handler.ts picks the era per request): no initialize and no
// Mcp-Session-Id; every request carries its version and the client's capabilities in `_meta`, and the headers that
// mirror the body (MCP-Protocol-Version, Mcp-Method, Mcp-Name) must match it. A thin layer of our own over the same
// tool path as the 2025 face (server.ts): server/discover, tools/list, tools/call and subscriptions/listen.
//
// State without protocol sessions: a request names its conversation in `_meta["toolgate/session"]` (an id of the
// HTTP API's :sid shape); the session object of (verified principal, id) is the one /v1/sessions/:sid and a 2025 MCP
// session of that id use. Without one, the principal's own stateless session holds what a call needs (confirmations,
// grants); tools/list then answers the base list, which no search changes.
//
// Approvals are multi-round-trip requests: a held call answers `input_required` with an elicitation and a sealed
// `requestState` (requestState.ts); the retry with the user's answer resolves the confirmation record (once) and runs.
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { canonicalJson } from "../core/guard/approval.ts";
import { sha256Hex } from "../core/digest.ts";
import { ID_PATTERN } from "../core/ids.ts";
import { texts } from "../core/locale.ts";
import {
  canElicitForm, canElicitUrl, completeResult, decodeHeaderValue, inputRequiredResult, META, MODERN_ERROR, MODERN_PROTOCOL_VERSIONS,
  readRequestMeta,
} from "../core/mcp/modern.ts";
import type { Implementation, InputRequest, RequestMeta } from "../core/mcp/modern.ts";
import { isRecord } from "../core/records.ts";
import type { ConfirmationRequest, SignInRequest } from "../core/types.ts";
import { CORE_VERSION } from "../core/version.ts";
import { sessionStub } from "../durable/stubs.ts";
import { HttpError, snapshotRefusal } from "../http/errors.ts";
import { enforceRateLimit } from "../http/limits.ts";
import type { Call } from "../http/stage.ts";
import { callTool as callThroughGuard } from "../http/toolCall.ts";
import { SERVER_ERROR } from "./http.ts";
import { openRequestState, openSignInRetry, REQUEST_STATE_MAX_MS, requestStateKey, sealRequestState, sealSignInRetry, signInRetryKey } from "./requestState.ts";
import { SIGN_IN_INPUT_KEY, urlElicitationRequest } from "./signInElicitation.ts";
import type { RequestState } from "./requestState.ts";
import { callOptions, callResult, held, listTools, textResult } from "./server.ts";
import type { McpScope } from "./server.ts";

/** The `_meta` key naming the conversation (the session object) a request belongs to. */
export const SESSION_META_KEY = "toolgate/session";
/** The session of a principal's requests that name none. */
export const STATELESS_SESSION_ID = "mcp-stateless";
/** The key of the approval in `inputRequests` / `inputResponses`. */
export const CONFIRM_INPUT_KEY = "toolgate-confirm";
/** Every revision /mcp serves, newest first: this one, then the 2025 ones (initialize). */
export const SERVED_PROTOCOL_VERSIONS: readonly string[] = [...MODERN_PROTOCOL_VERSIONS, ...SUPPORTED_PROTOCOL_VERSIONS];
/** How long a client may reuse a tools/list: the base list changes only with the registry; a session's with a search. */
const BASE_LIST_TTL_MS = 60_000;
const DISCOVER_TTL_MS = 3_600_000;
/** An SSE comment this often keeps a quiet subscriptions/listen stream from idle timeouts. */
const KEEP_ALIVE_MS = 25_000;

const SERVER_INFO: Implementation = { name: "toolgate", version: CORE_VERSION };

/** A JSON-RPC error of this revision, answered under `status`. */
class RpcRefusal extends Error {
  readonly status: number;
  readonly code: number;
  readonly data: Record<string, unknown> | undefined;
  constructor(status: number, code: number, message: string, data?: Record<string, unknown>) {
    super(message);
    this.status = status;
    this.code = code;
    this.data = data;
  }
}

function headerMismatch(message: string): RpcRefusal {
  return new RpcRefusal(400, MODERN_ERROR.headerMismatch, `Header mismatch: ${message}`);
}

function invalidParams(message: string, data?: Record<string, unknown>): RpcRefusal {
  return new RpcRefusal(200, MODERN_ERROR.invalidParams, message, data);
}

/** A request state refused: the retry is not the one the approval was asked for. */
function stateRefusal(code: string, message: string): RpcRefusal {
  return invalidParams(`requestState refused: ${message}`, { code });
}

/**
 * Whether this POST speaks the modern revision: one request (not a batch) that names its protocol version in
 * `_meta`, or a server/discover, or a modern MCP-Protocol-Version header. Anything else (initialize, a 2025 session's
 * traffic) goes to the 2025 face exactly as before.
 */
export function isModernTraffic(request: Request, body: unknown): boolean {
  if (!isRecord(body) || body["method"] === "initialize") return false;
  if (body["method"] === "server/discover") return true;
  const params = body["params"];
  if (isRecord(params) && isRecord(params["_meta"]) && META.protocolVersion in params["_meta"]) return true;
  const header = request.headers.get("mcp-protocol-version");
  return header !== null && MODERN_PROTOCOL_VERSIONS.includes(header);
}

interface ModernRequest {
  id: string | number;
  method: string;
  params: Record<string, unknown>;
  meta: RequestMeta;
}

/** The body as one request of this revision, its headers checked against it. */
function readRequest(request: Request, body: Record<string, unknown>): ModernRequest | "notification" {
  const { id, method, jsonrpc } = body;
  if (jsonrpc !== "2.0" || typeof method !== "string") {
    throw new RpcRefusal(400, MODERN_ERROR.invalidRequest, "Invalid Request: a JSON-RPC 2.0 request with a method is expected");
  }
  if (id === undefined) return "notification";
  if (typeof id !== "string" && typeof id !== "number") throw new RpcRefusal(400, MODERN_ERROR.invalidRequest, "Invalid Request: id must be a string or a number");
  const params = body["params"] ?? {};
  if (!isRecord(params)) throw new RpcRefusal(400, MODERN_ERROR.invalidParams, "params must be an object");
  const meta = readRequestMeta(params);
  if ("problem" in meta) throw new RpcRefusal(400, MODERN_ERROR.invalidParams, meta.problem);
  const version = request.headers.get("mcp-protocol-version");
  if (version === null) throw headerMismatch("the MCP-Protocol-Version header is required");
  if (version !== meta.protocolVersion) {
    throw headerMismatch(`MCP-Protocol-Version header value '${version.slice(0, 40)}' does not match _meta value '${meta.protocolVersion.slice(0, 40)}'`);
  }
  if (!MODERN_PROTOCOL_VERSIONS.includes(meta.protocolVersion)) {
    throw new RpcRefusal(400, MODERN_ERROR.unsupportedProtocolVersion, "Unsupported protocol version", {
      supported: [...SERVED_PROTOCOL_VERSIONS],
      requested: meta.protocolVersion.slice(0, 100),
    });
  }
  const mcpMethod = request.headers.get("mcp-method");
  if (mcpMethod === null) throw headerMismatch("the Mcp-Method header is required");
  if (mcpMethod !== method) throw headerMismatch(`Mcp-Method header value '${mcpMethod.slice(0, 100)}' does not match body value '${method.slice(0, 100)}'`);
  if (method === "tools/call") {
    const name = params["name"];
    const header = request.headers.get("mcp-name");
    if (header === null) throw headerMismatch("the Mcp-Name header is required on tools/call");
    const decoded = decodeHeaderValue(header);
    if (decoded === undefined) throw headerMismatch("the Mcp-Name header value is malformed");
    if (typeof name !== "string" || decoded !== name) throw headerMismatch(`Mcp-Name header value '${decoded.slice(0, 100)}' does not match body value`);
  }
  return { id, method, params, meta };
}

/** The session a request names in `_meta` (checked like the HTTP API's :sid), or the principal's stateless one. */
function sessionOf(meta: RequestMeta): { id: string; named: boolean } {
  const given = meta.all[SESSION_META_KEY];
  if (given === undefined) return { id: STATELESS_SESSION_ID, named: false };
  if (typeof given !== "string" || !ID_PATTERN.test(given)) {
    throw new RpcRefusal(400, MODERN_ERROR.invalidParams, `_meta["${SESSION_META_KEY}"] must be 1 to 128 characters of A-Z a-z 0-9 . _ : -`);
  }
  return { id: given, named: true };
}

function scopeOf(call: Call, groups: string[], meta: RequestMeta, sessionId: string): McpScope {
  return {
    call,
    groups,
    sessionId,
    record: {
      protocolVersion: meta.protocolVersion,
      elicitation: canElicitForm(meta.clientCapabilities),
      elicitationUrl: canElicitUrl(meta.clientCapabilities),
      client: (meta.clientInfo?.name ?? "").slice(0, 200),
    },
  };
}

function discover(call: Call): object {
  return completeResult({
    supportedVersions: [...SERVED_PROTOCOL_VERSIONS],
    // toolgate sends no log notifications (notifications/message), so it offers no logging.
    capabilities: { tools: { listChanged: true } },
    // A request without a session sees a list that stays the same: search_tools' result carries the definitions and
    // call_tool runs them (a named session's list also grows, and call_tool works there too).
    instructions: texts(call.settings.config.locale).mcp.instructions(false),
    ttlMs: DISCOVER_TTL_MS,
    // The answer is the same for every caller, but it was given to an authenticated one: keep it in that context.
    cacheScope: "private",
  }, SERVER_INFO);
}

async function toolsList(scope: McpScope, named: boolean): Promise<object> {
  const { tools } = await listTools(scope, { fromSession: named });
  // The list depends on the caller (groups, level) and, for a named session, on its searches.
  return completeResult({ tools, ttlMs: named ? 0 : BASE_LIST_TTL_MS, cacheScope: "private" }, SERVER_INFO);
}

/** The user's answer to the approval in `inputResponses`: accept, decline, cancel, or none given. */
function approvalAnswer(responses: unknown): "accept" | "decline" | "cancel" | undefined {
  const answer = isRecord(responses) ? responses[CONFIRM_INPUT_KEY] : undefined;
  if (!isRecord(answer)) return undefined;
  const action = answer["action"];
  return action === "accept" || action === "decline" || action === "cancel" ? action : undefined;
}

/** The digest of a call's canonical arguments; undefined for arguments too deep to encode (none can be approved). */
async function argumentsDigest(args: Record<string, unknown>): Promise<string | undefined> {
  try {
    return await sha256Hex(canonicalJson(args));
  } catch {
    return undefined;
  }
}

interface CallRequest {
  scope: McpScope;
  name: string;
  args: Record<string, unknown>;
}

/** The held call asked for as an elicitation, or (no form elicitation, no key) held for an approval over HTTP. */
async function askApproval(request: CallRequest, confirmation: ConfirmationRequest): Promise<object> {
  const { scope, name, args } = request;
  const { call, sessionId } = scope;
  const key = requestStateKey(call.settings);
  const binding = scope.record.elicitation && key
    ? await sessionStub(call.env, call.principal.id, sessionId).confirmationBinding(confirmation.id)
    : null;
  const digest = await argumentsDigest(args);
  if (!key || binding === null || digest === undefined) return completeResult(await held(scope, confirmation), SERVER_INFO);
  const state: RequestState = {
    principal: call.principal.id,
    session: sessionId,
    confirmation: confirmation.id,
    tool: name,
    toolDigest: binding.tool,
    boundArgumentsDigest: binding.arguments,
    argumentsDigest: digest,
    expiresAt: Math.min(confirmation.expiresAt, Date.now() + REQUEST_STATE_MAX_MS),
  };
  const message = texts(call.settings.config.locale).mcp.elicitation(
    confirmation.tool, confirmation.description, JSON.stringify(confirmation.arguments), confirmation.mode,
  );
  const elicitation: InputRequest = {
    method: "elicitation/create",
    params: { mode: "form", message, requestedSchema: { type: "object", properties: {} } },
  };
  return inputRequiredResult({ [CONFIRM_INPUT_KEY]: elicitation }, await sealRequestState(await key, state), SERVER_INFO);
}

/**
 * The user's own sign-in to an upstream, asked as a URL elicitation; the retry runs the call again. Without a key or
 * a digest, the tool result (which carries the link) as it is.
 */
async function askSignIn(request: CallRequest, signIn: SignInRequest, plain: object): Promise<object> {
  const { scope, name, args } = request;
  const key = signInRetryKey(scope.call.settings);
  const digest = await argumentsDigest(args);
  if (!key || digest === undefined) return plain;
  const state = await sealSignInRetry(await key, {
    principal: scope.call.principal.id,
    session: scope.sessionId,
    tool: name,
    argumentsDigest: digest,
    expiresAt: signIn.expiresAt,
  });
  return inputRequiredResult({ [SIGN_IN_INPUT_KEY]: urlElicitationRequest(signIn, name) }, state, SERVER_INFO);
}

/** One run through the guard: its result, or the approval or sign-in it needs. */
async function run(request: CallRequest): Promise<object> {
  const { scope, name, args } = request;
  const result = await callThroughGuard(scope.call, scope.sessionId, name, args, scope.groups, callOptions(scope));
  if (result.confirmation) return askApproval(request, result.confirmation);
  const complete = completeResult(callResult(name, result), SERVER_INFO);
  if (result.signIn && scope.record.elicitationUrl === true) return askSignIn(request, result.signIn, complete);
  return complete;
}

/** A sign-in's retry: the same caller, session and call, in time; then the call runs again. Undefined: not one. */
async function retrySignIn(request: CallRequest, sealed: string): Promise<object | undefined> {
  const { scope, name, args } = request;
  const key = signInRetryKey(scope.call.settings);
  const state = key ? await openSignInRetry(await key, sealed) : undefined;
  if (!state) return undefined;
  if (state.principal !== scope.call.principal.id) throw stateRefusal("request_state_principal", "it was issued to another caller");
  if (state.session !== scope.sessionId) throw stateRefusal("request_state_session", "it was issued in another session");
  if (Date.now() > state.expiresAt) throw stateRefusal("request_state_expired", "it has expired; call the tool again");
  if (state.tool !== name || state.argumentsDigest !== await argumentsDigest(args)) {
    throw stateRefusal("request_state_arguments", "the retry changed the tool or its arguments; call it again to be asked anew");
  }
  return run(request);
}

/** A retry that carries a request state: every binding checked before the user's answer counts. */
async function retry(request: CallRequest, sealed: string, responses: unknown): Promise<object> {
  const { scope, name, args } = request;
  const { call, sessionId } = scope;
  const key = requestStateKey(call.settings);
  const opened = key ? await openRequestState(await key, sealed) : undefined;
  if (!opened?.ok) throw stateRefusal("request_state_forged", "it was not issued by this server, or it was changed");
  const { state } = opened;
  if (state.principal !== call.principal.id) throw stateRefusal("request_state_principal", "it was issued to another caller");
  if (state.session !== sessionId) throw stateRefusal("request_state_session", "it was issued in another session");
  if (Date.now() > state.expiresAt) throw stateRefusal("request_state_expired", "it has expired; call the tool again");
  if (state.tool !== name || state.argumentsDigest !== await argumentsDigest(args)) {
    throw stateRefusal("request_state_arguments", "the retry changed the tool or its arguments; call it again to be asked anew");
  }
  const answer = approvalAnswer(responses);
  // No answer given: ask again (the guard finds the same open confirmation); cancel: held for an approval over HTTP.
  if (answer === undefined) return run(request);
  const session = sessionStub(call.env, call.principal.id, sessionId);
  const binding = { tool: state.toolDigest, arguments: state.boundArgumentsDigest };
  if (answer === "cancel") {
    const pending = await callThroughGuard(call, sessionId, name, args, scope.groups, callOptions(scope));
    return completeResult(pending.confirmation ? await held(scope, pending.confirmation) : callResult(name, pending), SERVER_INFO);
  }
  const outcome = await session.resolveConfirmation(state.confirmation, answer === "accept", call.settings.config, binding);
  const t = texts(call.settings.config.locale).mcp;
  if (answer === "decline") return completeResult(textResult(t.declined(name), true), SERVER_INFO);
  if (!outcome.ok) {
    if (outcome.code === "expired") throw stateRefusal("request_state_expired", "the confirmation has expired; call the tool again");
    throw stateRefusal("request_state_used", "this approval has already been answered");
  }
  // The approval covers exactly this call (its tool definition and, for `always`, its arguments): run it once.
  return run(request);
}

async function toolsCall(scope: McpScope, params: Record<string, unknown>): Promise<object> {
  const { name, arguments: given, requestState, inputResponses } = params;
  if (typeof name !== "string") throw invalidParams("Invalid tools/call params: name must be a string");
  if (given !== undefined && !isRecord(given)) throw invalidParams("Invalid tools/call params: arguments must be an object");
  if (requestState !== undefined && typeof requestState !== "string") throw invalidParams("Invalid tools/call params: requestState must be a string");
  if (inputResponses !== undefined && !isRecord(inputResponses)) throw invalidParams("Invalid tools/call params: inputResponses must be an object");
  const request: CallRequest = { scope, name, args: given ?? {} };
  if (requestState === undefined) return run(request);
  return (await retrySignIn(request, requestState)) ?? retry(request, requestState, inputResponses);
}

function sseEvent(message: unknown): Uint8Array {
  return new TextEncoder().encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
}

/**
 * subscriptions/listen: an SSE stream that acknowledges the filter it honours, then carries
 * notifications/tools/list_changed each time the session's list changes, until the client closes it. Only
 * toolsListChanged, and only for a named session: toolgate has no prompts or resources, and the base list of a
 * request without a session changes with the registry alone, which no stream watches.
 */
async function listen(scope: McpScope, named: boolean, id: string | number, params: Record<string, unknown>): Promise<Response> {
  const filter = params["notifications"];
  if (!isRecord(filter)) throw invalidParams("subscriptions/listen: notifications must be an object");
  await enforceRateLimit(scope.call);
  const tools = named && filter["toolsListChanged"] === true;
  const tagged = { [META.subscriptionId]: id };
  const watch = tools ? await sessionStub(scope.call.env, scope.call.principal.id, scope.sessionId).watchToolList() : undefined;
  const reader = watch?.getReader();
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  const stopKeepAlive = (): void => {
    if (keepAlive !== undefined) clearInterval(keepAlive);
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(sseEvent({
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { _meta: tagged, notifications: tools ? { toolsListChanged: true } : {} },
      }));
      keepAlive = setInterval(() => controller.enqueue(new TextEncoder().encode(":\n\n")), KEEP_ALIVE_MS);
    },
    async pull(controller) {
      if (!reader) return new Promise<void>(() => undefined);
      const next = await reader.read();
      if (next.done) {
        stopKeepAlive();
        controller.close();
        return undefined;
      }
      for (let i = 0; i < next.value.length; i += 1) {
        controller.enqueue(sseEvent({ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: tagged } }));
      }
      return undefined;
    },
    async cancel() {
      stopKeepAlive();
      await reader?.cancel();
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-store", "x-accel-buffering": "no" },
  });
}

function rpcError(id: string | number | null, status: number, code: number, message: string, data?: Record<string, unknown>): Response {
  return Response.json(
    { jsonrpc: "2.0", id, error: { code, message, ...(data !== undefined ? { data } : {}) } },
    { status, headers: { "cache-control": "no-store" } },
  );
}

/** An HttpError of the tool path (a rate limit, a session limit) as this revision's JSON-RPC error. */
function fromHttpError(id: string | number | null, error: HttpError): Response {
  const retryAfter = error.headers["Retry-After"];
  return rpcError(id, 200, SERVER_ERROR, error.message, {
    status: error.status,
    code: error.code,
    ...(retryAfter !== undefined ? { retryAfterSeconds: Number(retryAfter) } : {}),
  });
}

async function dispatch(request: Request, call: Call, groups: string[], body: Record<string, unknown>): Promise<Response> {
  const read = readRequest(request, body);
  // This revision defines no client notification over HTTP; one is accepted and ignored.
  if (read === "notification") return new Response(null, { status: 202 });
  const { id, method, params, meta } = read;
  const session = sessionOf(meta);
  const scope = scopeOf(call, groups, meta, session.id);
  let result: object;
  switch (method) {
    case "server/discover":
      result = discover(call);
      break;
    case "tools/list":
      result = await toolsList(scope, session.named);
      break;
    case "tools/call":
      result = await toolsCall(scope, params);
      break;
    case "subscriptions/listen":
      return listen(scope, session.named, id, params);
    default:
      return rpcError(id, 404, MODERN_ERROR.methodNotFound, `Method not found: ${method.slice(0, 100)}`);
  }
  return Response.json({ jsonrpc: "2.0", id, result }, { headers: { "cache-control": "no-store" } });
}

/** One POST of the modern revision (isModernTraffic), answered as JSON (or an SSE stream for subscriptions/listen). */
export async function serveModern(request: Request, call: Call, groups: string[], body: Record<string, unknown>): Promise<Response> {
  const given = body["id"];
  const id = typeof given === "string" || typeof given === "number" ? given : null;
  try {
    return await dispatch(request, call, groups, body);
  } catch (error) {
    if (error instanceof RpcRefusal) return rpcError(id, error.status, error.code, error.message, error.data);
    if (error instanceof HttpError) return fromHttpError(id, error);
    const damaged = snapshotRefusal(error, "mcp");
    if (damaged !== undefined) return fromHttpError(id, damaged);
    console.error(`mcp: ${error instanceof Error ? `${error.message}\n${error.stack ?? ""}` : String(error)}`);
    return rpcError(id, 200, MODERN_ERROR.internal, "internal error");
  }
}
