// One MCP Server per request (the SDK's low-level Server on a stateless web-standard transport; src/mcp/handler.ts
// owns Mcp-Session-Id): tools/list is the prepared turn, tools/call the one execution path of the HTTP API
// (src/http/toolCall.ts), and a held call is asked through elicitation/create when the client can answer it.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CallToolRequestSchema, ElicitResultSchema, ErrorCode, isJSONRPCResultResponse, ListToolsRequestSchema, McpError,
} from "@modelcontextprotocol/sdk/types.js";
import type {
  CallToolRequest, CallToolResult, ListToolsResult, ServerNotification, ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { z } from "zod";
import { texts } from "../core/locale.ts";
import { CALL_TOOL_NAME, callToolDefinition, callToolEnabled } from "../core/turn/callTool.ts";
import { prepareTurn, toolListChangesOnDiscovery, WarnOnce } from "../core/turn/prepare.ts";
import { SEARCH_TOOLS_NAME } from "../core/turn/searchTools.ts";
import { toolListTokens } from "../core/tools/toolTokens.ts";
import type { ConfirmationRequest, ToolResult } from "../core/types.ts";
import { CORE_VERSION } from "../core/version.ts";
import type { McpSessionRecord } from "../durable/sessionObject.ts";
import { sessionStub } from "../durable/stubs.ts";
import type { Call } from "../http/stage.ts";
import { HttpError, snapshotRefusal } from "../http/errors.ts";
import { enforceRateLimit } from "../http/limits.ts";
import { approvalUrl } from "../http/approvalLinks.ts";
import { callTool as callThroughGuard } from "../http/toolCall.ts";
import { urlElicitationError } from "./signInElicitation.ts";
import type { CallOptions } from "../http/toolCall.ts";
import { recordTurn } from "../http/usage.ts";
import { SERVER_ERROR } from "./http.ts";
import { currentRegistry } from "../isolate/registryCache.ts";
import { toMcpTool } from "./tools.ts";

/** What one MCP request runs as: the verified caller, the session (= the MCP session id) and its groups. */
export interface McpScope {
  call: Call;
  sessionId: string;
  /** The groups enabled for this request (the token's, cut by the URL's `groups`). */
  groups: string[];
  record: McpSessionRecord;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Longest wait for the user's answer to an elicitation; past it the call answers as for a client without one. */
const MAX_ELICITATION_WAIT_MS = 5 * 60_000;

/**
 * tools/call as the protocol layer sees it: any params. The SDK parses a request with the handler's schema before
 * anything else and answers a mismatch as -32603 (internal error); with this schema its tools/call wrapper checks the
 * params instead and answers -32602 (invalid params), as JSON-RPC says.
 */
const ANY_TOOL_CALL = z.object({ method: z.literal("tools/call"), params: z.unknown() });

/** prepareTurn's warnings (an always-direct tool that is missing) are logged once per isolate, not per request. */
const warnings = new WarnOnce(console);

/** Errors leave a handler as JSON-RPC errors: a refusal with its HTTP code in `data`, a bug as "internal error". */
function asRpcError(caught: unknown): McpError {
  if (caught instanceof McpError) return caught;
  const error = snapshotRefusal(caught, "mcp") ?? caught;
  if (error instanceof HttpError) {
    const retryAfter = error.headers["Retry-After"];
    return new McpError(SERVER_ERROR, error.message, {
      status: error.status,
      code: error.code,
      ...(retryAfter !== undefined ? { retryAfterSeconds: Number(retryAfter) } : {}),
    });
  }
  console.error(`mcp: ${error instanceof Error ? `${error.message}\n${error.stack ?? ""}` : String(error)}`);
  return new McpError(ErrorCode.InternalError, "internal error");
}

async function guarded<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw asRpcError(error);
  }
}

/**
 * The prepared turn's tools for this request. `fromSession: false` (a 2026-07-28 request that names no session) lists
 * the base list, as for a session that has found nothing: no search of another conversation changes it.
 */
export async function listTools(scope: McpScope, options: { fromSession: boolean } = { fromSession: true }): Promise<ListToolsResult> {
  const { call, sessionId, groups } = scope;
  const { config } = call.settings;
  await enforceRateLimit(call);
  const started = Date.now();
  const loaded = await currentRegistry(call.env, call.settings);
  const { registry } = loaded;
  const tools = registry.getDefinitions({ groups });
  const { discovered, foundOrder } = options.fromSession
    ? await sessionStub(call.env, call.principal.id, sessionId).getDiscoveredState()
    : { discovered: [], foundOrder: [] };
  // No auto-discovery here (config.autoDiscover): tools/list carries no user message to search.
  const turn = prepareTurn({ tools, messages: [], discovered, foundOrder, config, warnings, shape: "mcp" });
  // A "fixed" list already carries call_tool; otherwise MCP offers it (mcp.callTool) for clients that never re-list.
  const hasCallTool = turn.tools.some((tool) => tool.name === CALL_TOOL_NAME);
  const listed = turn.applied && config.mcp.callTool && !hasCallTool ? [...turn.tools, callToolDefinition(config)] : turn.tools;
  // A tools/list is the MCP client's turn: counted, and receipted, like a POST prepare.
  recordTurn(call, sessionId, {
    catalog: "registry",
    catalogVersion: loaded.key,
    withheldByGate: loaded.definitions.length - tools.length,
    visible: turn.stats.total,
    sent: listed.length,
    tokensAll: turn.stats.tokensAll,
    tokensSent: listed === turn.tools ? turn.stats.tokensSent : toolListTokens(listed, "mcp"),
  }, started);
  return { tools: listed.map((tool) => toMcpTool(tool, config)) };
}

export function textResult(text: string, isError: boolean): CallToolResult {
  return { content: [{ type: "text", text }], isError };
}

export function fromToolResult(result: ToolResult): CallToolResult {
  return textResult(result.content, result.isError);
}

/**
 * A held call for a client that cannot be asked (or did not answer): the confirmation, and how a person approves it:
 * the approval link a user opens (when the gateway can sign one), or the HTTP route with the caller's token.
 */
export async function held(scope: McpScope, confirmation: ConfirmationRequest): Promise<CallToolResult> {
  const t = texts(scope.call.settings.config.locale).mcp;
  const url = await approvalUrl(scope.call, scope.sessionId, confirmation);
  return {
    ...textResult(t.approveOverHttp(confirmation.tool, confirmation.id, scope.sessionId, confirmation.mode, url), true),
    structuredContent: {
      confirmation: { ...confirmation, ...(url !== undefined ? { approvalUrl: url } : {}) },
      // What a client without elicitation can do, spelled out for code: the link the user opens (`url`, single-use),
      // or the route a person's approval goes to (with the caller's own token); then the same call again. The
      // framework adapters of @toolgate/client wire this.
      approval: {
        ...(url !== undefined ? { url } : {}),
        method: "POST",
        path: `/v1/sessions/${encodeURIComponent(scope.sessionId)}/confirmations/${encodeURIComponent(confirmation.id)}`,
        approve: { approve: true },
        deny: { approve: false },
        auth: "the same bearer token as this MCP session",
        next: "call the tool again with the same arguments; it runs once",
      },
    },
  };
}

/**
 * Asks the user through elicitation/create, on the tools/call request's own SSE stream. The answer comes back in a
 * later POST (perhaps to another isolate), which hands it to the session object this call waits on.
 */
async function elicit(scope: McpScope, confirmation: ConfirmationRequest, extra: Extra, transport: WebStandardStreamableHTTPServerTransport): Promise<"accept" | "decline" | "none"> {
  const { call, sessionId } = scope;
  const { config } = call.settings;
  const id = `toolgate-elicit-${crypto.randomUUID()}`;
  const timeoutMs = Math.min(config.limits.confirmationTtlSeconds * 1000, MAX_ELICITATION_WAIT_MS);
  const session = sessionStub(call.env, call.principal.id, sessionId);
  // Announced before it is sent, so that its answer is taken whenever it comes; too many waiting: approve over HTTP.
  if (!(await session.expectAnswer(id, timeoutMs))) return "none";
  const answer = session.awaitAnswer(id);
  const message = texts(config.locale).mcp.elicitation(
    confirmation.tool, confirmation.description, JSON.stringify(confirmation.arguments), confirmation.mode, confirmation.hiddenCharacters,
  );
  await transport.send(
    { jsonrpc: "2.0", id, method: "elicitation/create", params: { message, requestedSchema: { type: "object", properties: {} } } },
    { relatedRequestId: extra.requestId },
  );
  const text = await answer;
  if (text === null) return "none";
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return "none";
  }
  if (!isJSONRPCResultResponse(parsed)) return "none";
  const result = ElicitResultSchema.safeParse(parsed.result);
  if (!result.success) return "none";
  return result.data.action === "accept" ? "accept" : result.data.action === "decline" ? "decline" : "none";
}

async function confirmThenRun(
  scope: McpScope,
  name: string,
  args: Record<string, unknown>,
  confirmation: ConfirmationRequest,
  extra: Extra,
  transport: WebStandardStreamableHTTPServerTransport,
): Promise<CallToolResult> {
  if (!scope.record.elicitation) return held(scope, confirmation);
  const t = texts(scope.call.settings.config.locale).mcp;
  const answer = await elicit(scope, confirmation, extra, transport);
  if (answer === "none") return held(scope, confirmation);
  const session = sessionStub(scope.call.env, scope.call.principal.id, scope.sessionId);
  const outcome = await session.resolveConfirmation(confirmation.id, answer === "accept", scope.call.settings.config);
  if (answer === "decline") return textResult(t.declined(name), true);
  if (!outcome.ok) return textResult(t.approvalLost(name), true);
  // The approval covers exactly this call (its tool and, for `always`, its arguments): run it once through the guard.
  const result = await callThroughGuard(scope.call, scope.sessionId, name, args, scope.groups, callOptions(scope));
  return result.confirmation ? await held(scope, result.confirmation) : fromToolResult(result);
}

/** call_tool is a meta-tool on MCP when `mcp.callTool` is on, or when the tool list is "fixed" (it is listed then). */
export function callOptions(scope: McpScope): CallOptions {
  const { config } = scope.call.settings;
  return { callTool: config.mcp.callTool || callToolEnabled(config) };
}

async function callTool(
  scope: McpScope,
  params: CallToolRequest["params"],
  extra: Extra,
  transport: WebStandardStreamableHTTPServerTransport,
): Promise<CallToolResult> {
  const { config } = scope.call.settings;
  const { name } = params;
  const args: Record<string, unknown> = params.arguments ?? {};
  // call_tool runs its inner tool on the one tool-call path (http/toolCall.ts), as POST execute does.
  const result = await callThroughGuard(scope.call, scope.sessionId, name, args, scope.groups, callOptions(scope));
  if (result.confirmation) return confirmThenRun(scope, name, args, result.confirmation, extra, transport);
  // The user's own sign-in to an upstream first: a URL elicitation where the client can open one (else the link is in the result).
  if (result.signIn && scope.record.elicitationUrl === true) throw urlElicitationError(result.signIn, name);
  const answer = callResult(name, result);
  // The found tools joined the session's discovered set: the next tools/list carries them (a "fixed" list never
  // changes, so nothing is announced there).
  if (foundAny(answer) && toolListChangesOnDiscovery(config)) {
    await extra.sendNotification({ method: "notifications/tools/list_changed" });
  }
  return answer;
}

/** A tool's result as MCP carries it: search_tools's also as `structuredContent` (its output schema's). */
export function callResult(name: string, result: ToolResult): CallToolResult {
  const answer = fromToolResult(result);
  if (name === SEARCH_TOOLS_NAME && !result.isError) {
    const structured: unknown = JSON.parse(result.content);
    if (typeof structured === "object" && structured !== null && !Array.isArray(structured)) answer.structuredContent = { ...structured };
  }
  return answer;
}

/** Whether a search_tools result found any tool. */
function foundAny(answer: CallToolResult): boolean {
  const structured = answer.structuredContent;
  return structured !== undefined && Array.isArray(structured["tools"]) && structured["tools"].length > 0;
}

export function createMcpServer(scope: McpScope, transport: WebStandardStreamableHTTPServerTransport): Server {
  const { config } = scope.call.settings;
  const server = new Server(
    { name: "toolgate", version: CORE_VERSION },
    {
      // logging: the SDK answers logging/setLevel; toolgate sends no log notifications, so no level is kept.
      capabilities: { tools: { listChanged: true }, logging: {} },
      instructions: texts(config.locale).mcp.instructions(toolListChangesOnDiscovery(config)),
      // The SDK's default validator (Ajv) compiles schemas with eval, which workerd forbids outside tests.
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => guarded(() => listTools(scope)));
  server.setRequestHandler(ANY_TOOL_CALL, (request, extra) => {
    const parsed = CallToolRequestSchema.safeParse(request);
    if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, "Invalid tools/call params");
    return guarded(() => callTool(scope, parsed.data.params, extra, transport));
  });
  return server;
}
