// The OpenAPI 3.1 document of GET /v1/openapi.json, built from the operations below and from ERROR_STATUS (errors.ts,
// a Record over the ErrorCode union). test/http/openapi.test.ts keeps it honest: every route of ROUTES and MCP_ROUTES
// is documented and every documented path and method exists, every ErrorCode is listed by an operation, and every
// example request below is sent through the real router and must get the status it documents.
import { QUARANTINE_PAGE, TOOL_PAGE } from "../core/upstream/toolPage.ts";
import { CORE_VERSION } from "../core/version.ts";
import { ERROR_STATUS } from "./errors.ts";
import type { ErrorCode } from "./errors.ts";
import type { Method } from "./router.ts";

type Schema = Record<string, unknown>;

/** A request the tests send as written: `token` says who sends it. */
export interface OperationExample {
  summary: string;
  token: "none" | "user" | "owner";
  /** Path parameters (`:name` → value). */
  params?: Record<string, string>;
  query?: string;
  body?: unknown;
  status: number;
}

export interface Operation {
  method: Method;
  /** itty-router syntax, as in the route tables (`:name`). */
  path: string;
  summary: string;
  /** No token needed. */
  open?: boolean;
  owner?: boolean;
  query?: Record<string, Schema>;
  body?: Schema;
  /** The successful answers: status → description and schema. */
  ok: Record<number, { description: string; schema: Schema }>;
  /** The answers' media type when not JSON (an HTML page). */
  contentType?: string;
  errors: readonly ErrorCode[];
  examples: readonly OperationExample[];
}

const str: Schema = { type: "string" };
const bool: Schema = { type: "boolean" };
const int: Schema = { type: "integer", minimum: 0 };
const obj = (properties: Record<string, Schema>, required: string[] = [], extra: Schema = {}): Schema => ({
  type: "object", properties, ...(required.length > 0 ? { required } : {}), ...extra,
});
const strings: Schema = { type: "array", items: str };
const anyObject: Schema = { type: "object" };
const LEARNING_STATE = obj({
  enabled: bool,
  version: int,
  appliedAt: { type: ["string", "null"] },
  tools: { type: "array", items: obj({ tool: str, terms: { type: "array", items: obj({ term: str, weight: { type: "number" }, principals: int }) } }) },
  profiles: { type: "array", items: obj({ tool: str, principals: int, terms: { type: "array", items: obj({ term: str, weight: { type: "number" } }) } }) },
  passedOver: { type: "array", items: obj({ tool: str, terms: { type: "array", items: obj({ term: str, weight: { type: "number" }, principals: int }) } }) },
  evidence: obj({ rows: int, tools: int, principals: int, pending: int }),
}, ["enabled", "version", "appliedAt", "tools", "profiles"]);
const guardFields: Record<string, Schema> = {
  groups: strings,
  visibility: { enum: ["public", "restricted"] },
  risk: { enum: ["safe", "sensitive", "dangerous"] },
  confirm: { enum: ["session", "always"] },
};
/** toolgate's own shape; a name that is not `^[a-zA-Z0-9_-]{1,64}$` is fitted to one (docs/http-api.md, "Register tools in any shape"). */
const toolDefinition = obj({
  name: { type: "string", minLength: 1, maxLength: 256 },
  originalName: { type: "string", minLength: 1, maxLength: 256 },
  description: str,
  parameters: anyObject,
  ...guardFields,
  executor: anyObject,
  context: str,
}, ["description", "parameters"]);
/** One tool to register: toolgate's shape, or OpenAI Chat / Responses, Anthropic or MCP with toolgate's fields beside. */
const anyShapeTool: Schema = { oneOf: [toolDefinition, { type: "object", description: "OpenAI Chat, OpenAI Responses, Anthropic or MCP tool, with toolgate's guard fields, executor and context beside" }] };
const importShape: Schema = { enum: ["toolgate", "openai", "responses", "anthropic", "mcp"] };
const searchResult = obj({ found: str, tools: { type: "array", items: anyObject }, pagination: anyObject, related: strings, hint: str }, ["found", "tools", "hint"]);

const upstreamBody = obj({
  url: { type: "string", description: "https://, or http:// and private hosts with allowPrivate" },
  headers: { type: "object", additionalProperties: { type: "string", pattern: "^TOOL_SECRET_[A-Z0-9_]*$" }, description: "header name → TOOL_SECRET_* secret name" },
  groups: strings,
  visibility: { enum: ["public", "restricted"] },
  risk: { enum: ["safe", "sensitive", "dangerous"] },
  confirm: { enum: ["session", "always"] },
  tools: {
    type: "object",
    description: "the server's tool name → visibility, risk, confirm for that tool (over the upstream's)",
    additionalProperties: obj({ visibility: { enum: ["public", "restricted"] }, risk: { enum: ["safe", "sensitive", "dangerous"] }, confirm: { enum: ["session", "always"] } }, [], { additionalProperties: false }),
  },
  prefix: { type: "string", pattern: "^[a-zA-Z0-9_-]{1,32}$" },
  refreshSeconds: { type: "integer", minimum: 60, maximum: 604800 },
  timeoutMs: { type: "integer", minimum: 100, maximum: 120000 },
  allowPrivate: bool,
  newTools: { enum: ["accept", "quarantine"] },
  auth: obj({
    type: { enum: ["oauth"] },
    clientId: { type: "string", description: "a client the owner registered at the server's authorization server; absent: toolgate registers itself" },
    clientSecretSecret: { type: "string", pattern: "^TOOL_SECRET_[A-Z0-9_]*$", description: "the TOOL_SECRET_* secret holding that client's secret" },
    scopes: strings,
  }, ["type"], { additionalProperties: false, description: "each user's own OAuth grant to the server (docs/gateway.md)" }),
}, ["url"], { additionalProperties: false });
const upstreamSummaryProperties: Record<string, Schema> = {
  id: str, url: str, prefix: str, status: { enum: ["pending", "ok", "failing", "skipped"] }, tools: int, quarantined: int, rejected: int,
  transport: { enum: ["streamable-http-2026-07-28", "streamable-http", "sse", null] }, lastRefresh: { type: ["string", "null"] }, lastError: { type: ["string", "null"] },
  lastErrorAt: { type: ["string", "null"] }, consecutiveFailures: int, skippedUntil: { type: ["string", "null"] },
  refreshSeconds: { type: ["integer", "null"] }, newTools: { enum: ["accept", "quarantine"] },
};
const upstreamSummary = obj(upstreamSummaryProperties);
const upstreamDetail = obj({
  ...upstreamSummaryProperties,
  config: anyObject,
  toolNames: {
    type: "array",
    items: obj({
      name: str, upstreamName: str, annotations: anyObject,
      visibility: { enum: ["public", "restricted"] }, risk: { enum: ["safe", "sensitive", "dangerous"] }, confirm: { enum: ["session", "always", "off"] },
    }),
  },
  nextCursor: { type: "string", description: "the next page of toolNames (GET /v1/upstreams/:id?cursor=…); absent on the last page" },
  quarantine: { type: "array", items: obj({ name: str, reason: { enum: ["changed", "new"] }, hash: str, digest: str, tool: anyObject, diff: { type: "array", items: obj({ field: str, before: { type: ["string", "null"] }, after: { type: ["string", "null"] } }) }, since: int }) },
  quarantineNextCursor: { type: "string", description: "the next page of quarantine (GET /v1/upstreams/:id?quarantineCursor=…); absent on the last page" },
  rejectedTools: { type: "array", items: obj({ name: str, reason: str }) },
});
const upstreamAnswer = obj({ upstream: upstreamDetail, version: int }, ["upstream"]);

/** Errors every route with a caller may answer (the stage, the router's catch-all). */
const CALLER: readonly ErrorCode[] = [
  "unauthorized", "invalid_token", "insufficient_scope", "banned", "misconfigured", "auth_unavailable", "internal", "method_not_allowed",
  "index_rebuilding",
];
const BODY: readonly ErrorCode[] = ["invalid_json", "invalid_request", "too_deep", "payload_too_large"];
const SESSION: readonly ErrorCode[] = ["invalid_session_id", "rate_limited", "too_many_sessions"];
const SIMPLE_TOOL = { description: "An OpenAPI example tool.", parameters: { type: "object", properties: { text: { type: "string" } } } };

export const OPERATIONS: readonly Operation[] = [
  {
    method: "GET", path: "/v1/health", summary: "Liveness and version; says why when the configuration is bad", open: true,
    ok: { 200: { description: "always 200", schema: obj({ ok: bool, version: str, configError: str }, ["ok", "version"]) } },
    errors: ["method_not_allowed"],
    examples: [{ summary: "health", token: "none", status: 200 }],
  },
  {
    method: "GET", path: "/v1/openapi.json", summary: "This document", open: true,
    ok: { 200: { description: "OpenAPI 3.1", schema: anyObject } },
    errors: ["method_not_allowed"],
    examples: [{ summary: "the document", token: "none", status: 200 }],
  },
  {
    method: "GET", path: "/v1/tools", summary: "Tool definitions visible to the caller (format=summary: each upstream tool's guard under `upstream`)",
    query: { groups: { type: "string", description: "comma-separated groups" }, format: { enum: ["openai", "responses", "anthropic", "mcp", "summary"] } },
    ok: { 200: { description: "the tools", schema: obj({ tools: { type: "array", items: anyObject } }, ["tools"]) } },
    errors: [...CALLER, "invalid_request", "rate_limited"],
    examples: [
      { summary: "summaries", token: "user", query: "format=summary", status: 200 },
      { summary: "an unknown format", token: "user", query: "format=yaml", status: 400 },
      { summary: "no token", token: "none", status: 401 },
    ],
  },
  {
    method: "PUT", path: "/v1/tools", summary: "Registers many tools, all or nothing (owner)", owner: true,
    body: obj({ tools: { type: "array", items: anyShapeTool }, context: str, defaults: obj(guardFields, [], { additionalProperties: false }), nextCursor: str }, ["tools"], { additionalProperties: false }),
    ok: { 200: { description: "registered", schema: obj({ registered: int, created: int, replaced: int, version: int, shape: importShape, warnings: strings }, ["registered", "created", "replaced", "version", "shape"]) } },
    errors: [...CALLER, ...BODY, "forbidden", "too_many_tools", "too_many_items"],
    examples: [
      { summary: "one tool", token: "owner", body: { tools: [{ name: "openapi_bulk_example", ...SIMPLE_TOOL }], context: "openapi-example" }, status: 200 },
      { summary: "an MCP tools/list result", token: "owner", body: { tools: [{ name: "openapi/mcp.example", description: "An MCP tool.", inputSchema: { type: "object" } }], context: "openapi-example" }, status: 200 },
      { summary: "not the owner", token: "user", body: { tools: [] }, status: 403 },
      { summary: "no tools field", token: "owner", body: {}, status: 400 },
    ],
  },
  {
    method: "PUT", path: "/v1/tools/:name", summary: "Registers or replaces one tool (owner)", owner: true,
    body: anyShapeTool,
    ok: {
      201: { description: "created", schema: obj({ tool: anyObject, context: str, version: int, shape: importShape }) },
      200: { description: "replaced", schema: obj({ tool: anyObject, context: str, version: int, shape: importShape }) },
    },
    errors: [...CALLER, ...BODY, "forbidden", "too_many_tools"],
    examples: [
      { summary: "a name over 256 characters", token: "owner", params: { name: "x".repeat(257) }, body: SIMPLE_TOOL, status: 400 },
      { summary: "not the owner", token: "user", params: { name: "openapi_x" }, body: SIMPLE_TOOL, status: 403 },
    ],
  },
  {
    method: "DELETE", path: "/v1/tools/:name", summary: "Removes one tool (owner)", owner: true,
    ok: { 200: { description: "removed", schema: obj({ removed: str, version: int }) } },
    errors: [...CALLER, "forbidden", "invalid_request", "tool_not_found"],
    examples: [{ summary: "an unknown tool", token: "owner", params: { name: "openapi_absent" }, status: 404 }],
  },
  {
    method: "DELETE", path: "/v1/contexts/:id", summary: "Removes every tool a context registered (owner)", owner: true,
    ok: { 200: { description: "disposed", schema: obj({ context: str, removed: int, version: int }) } },
    errors: [...CALLER, "forbidden", "invalid_request"],
    examples: [{ summary: "an empty context", token: "owner", params: { id: "openapi-empty" }, status: 200 }],
  },
  {
    method: "PUT", path: "/v1/upstreams/:id", summary: "Adds or reconfigures an upstream MCP server and lists its tools (owner)", owner: true,
    body: upstreamBody,
    ok: {
      201: { description: "added (the answer says whether its tools could be listed)", schema: upstreamAnswer },
      200: { description: "reconfigured", schema: upstreamAnswer },
    },
    errors: [...CALLER, ...BODY, "forbidden", "rate_limited", "too_many_upstreams", "too_many_tools"],
    examples: [
      { summary: "plain http without allowPrivate", token: "owner", params: { id: "openapi" }, body: { url: "http://mcp.example.com/mcp" }, status: 400 },
      { summary: "a literal header value", token: "owner", params: { id: "openapi" }, body: { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer x" } }, status: 400 },
      { summary: "not the owner", token: "user", params: { id: "openapi" }, body: { url: "https://mcp.example.com/mcp" }, status: 403 },
    ],
  },
  {
    method: "GET", path: "/v1/upstreams", summary: "Every upstream MCP server with its status (owner)", owner: true,
    ok: { 200: { description: "the upstreams", schema: obj({ upstreams: { type: "array", items: upstreamSummary } }, ["upstreams"]) } },
    errors: [...CALLER, "forbidden", "rate_limited"],
    examples: [{ summary: "the list", token: "owner", status: 200 }, { summary: "not the owner", token: "user", status: 403 }],
  },
  {
    method: "GET", path: "/v1/upstreams/:id", summary: "One upstream: status, configuration, a page of its tools, quarantine with diffs (owner)", owner: true,
    query: {
      cursor: { type: "string", description: "the nextCursor of the page before" },
      limit: { type: "integer", minimum: 1, maximum: TOOL_PAGE.maxLimit, default: TOOL_PAGE.defaultLimit, description: "tools in toolNames" },
      quarantineCursor: { type: "string", description: "the quarantineNextCursor of the page before" },
      quarantineLimit: { type: "integer", minimum: 1, maximum: QUARANTINE_PAGE.maxLimit, default: QUARANTINE_PAGE.defaultLimit, description: "held tools in quarantine" },
    },
    ok: { 200: { description: "the upstream", schema: obj({ upstream: upstreamDetail }, ["upstream"]) } },
    errors: [...CALLER, "forbidden", "invalid_request", "rate_limited", "upstream_not_found"],
    examples: [
      { summary: "an unknown id", token: "owner", params: { id: "openapi-absent" }, status: 404 },
      { summary: "a limit past the most", token: "owner", params: { id: "openapi-absent" }, query: `limit=${TOOL_PAGE.maxLimit + 1}`, status: 400 },
      { summary: "a cursor no page gave", token: "owner", params: { id: "openapi-absent" }, query: "cursor=not-a-cursor", status: 400 },
    ],
  },
  {
    method: "DELETE", path: "/v1/upstreams/:id", summary: "Removes an upstream and its tools (owner)", owner: true,
    ok: { 200: { description: "removed", schema: obj({ removed: str, tools: int, grantsDeleted: int, version: int }) } },
    errors: [...CALLER, "forbidden", "invalid_request", "rate_limited", "upstream_not_found"],
    examples: [{ summary: "an unknown id", token: "owner", params: { id: "openapi-absent" }, status: 404 }],
  },
  {
    method: "POST", path: "/v1/upstreams/:id/refresh", summary: "Lists the upstream's tools now, even while it is skipped (owner)", owner: true,
    ok: { 200: { description: "refreshed (or why not, in lastError)", schema: upstreamAnswer } },
    errors: [...CALLER, "forbidden", "invalid_request", "rate_limited", "upstream_not_found", "too_many_tools"],
    examples: [{ summary: "an unknown id", token: "owner", params: { id: "openapi-absent" }, status: 404 }],
  },
  {
    method: "POST", path: "/v1/upstreams/:id/connect", summary: "A sign-in link of the caller's own for an OAuth upstream (single-use, 10 minutes)",
    ok: { 200: { description: "the link", schema: obj({ url: str, expiresAt: str }, ["url", "expiresAt"]) } },
    errors: [...CALLER, "forbidden", "invalid_request", "rate_limited", "upstream_not_found", "misconfigured"],
    examples: [{ summary: "an upstream without OAuth", token: "user", params: { id: "openapi-absent" }, status: 404 }],
  },
  {
    method: "DELETE", path: "/v1/upstreams/:id/grant", summary: "Deletes the caller's own grant to an OAuth upstream (revoked at the server where it can be)",
    ok: { 200: { description: "what was deleted", schema: obj({ upstream: str, deleted: bool, revoked: bool }, ["upstream", "deleted", "revoked"]) } },
    errors: [...CALLER, "invalid_request", "rate_limited"],
    examples: [{ summary: "no grant", token: "user", params: { id: "openapi-absent" }, status: 200 }],
  },
  {
    method: "GET", path: "/v1/upstreams/:id/oauth/connect", open: true, contentType: "text/html",
    summary: "A sign-in link's page: starts the flow (state, PKCE S256, a browser cookie) and redirects to the upstream's authorization server",
    query: { ticket: str },
    ok: {
      302: { description: "to the authorization server", schema: str },
      403: { description: "a ticket this gateway did not sign, changed, or of another upstream (a page)", schema: str },
      410: { description: "expired or already used (a page)", schema: str },
      502: { description: "the upstream's sign-in could not be started (a page)", schema: str },
    },
    errors: ["invalid_request", "method_not_allowed", "misconfigured"],
    examples: [{ summary: "a forged ticket", token: "none", params: { id: "openapi-absent" }, query: "ticket=forged", status: 403 }],
  },
  {
    method: "GET", path: "/v1/upstreams/:id/oauth/callback", open: true, contentType: "text/html",
    summary: "The authorization server's answer: the flow taken once, the browser checked, the code exchanged and the grant stored for that user",
    query: { code: str, state: str, iss: str, error: str },
    ok: {
      200: { description: "signed in (a page)", schema: str },
      400: { description: "an unknown, used or expired state, or a refusal (a page)", schema: str },
      403: { description: "another browser than the one that opened the link (a page)", schema: str },
      502: { description: "the code could not be exchanged (a page)", schema: str },
    },
    errors: ["invalid_request", "method_not_allowed", "misconfigured"],
    examples: [{ summary: "a forged state", token: "none", params: { id: "openapi-absent" }, query: "state=forged&code=x", status: 400 }],
  },
  {
    method: "GET", path: "/v1/upstreams/:id/oauth/client.json", open: true,
    summary: "toolgate's Client ID Metadata Document for an OAuth upstream (its URL is the client id)",
    ok: { 200: { description: "the document", schema: anyObject } },
    errors: ["invalid_request", "method_not_allowed", "upstream_not_found"],
    examples: [{ summary: "no such upstream", token: "none", params: { id: "openapi-absent" }, status: 404 }],
  },
  {
    method: "POST", path: "/v1/upstreams/:id/accept", summary: "Accepts quarantined tools, each named with the digest of the version the owner saw (owner)", owner: true,
    body: obj({ tools: { type: "array", minItems: 1, items: obj({ name: str, digest: { type: "string", pattern: "^[0-9a-f]{64}$" } }, ["name", "digest"], { additionalProperties: false }) } }, ["tools"], { additionalProperties: false }),
    ok: { 200: { description: "accepted and registered", schema: upstreamAnswer } },
    errors: [...CALLER, ...BODY, "forbidden", "rate_limited", "upstream_not_found", "not_in_quarantine", "quarantine_changed", "too_many_tools"],
    examples: [
      { summary: "an unknown id", token: "owner", params: { id: "openapi-absent" }, body: { tools: [{ name: "x", digest: "0".repeat(64) }] }, status: 404 },
      { summary: "a bare name", token: "owner", params: { id: "openapi-absent" }, body: { tools: ["x"] }, status: 400 },
      { summary: "an unknown field", token: "owner", params: { id: "openapi-absent" }, body: { all: true }, status: 400 },
    ],
  },
  {
    method: "POST", path: "/v1/sessions/:sid/prepare", summary: "The tool list for the next LLM turn",
    body: obj({ messages: { type: "array" }, tools: { type: "array" }, enabledGroups: strings, format: { enum: ["openai", "responses", "anthropic", "mcp"] } }, ["messages"]),
    ok: { 200: { description: "the turn's tools", schema: obj({ tools: { type: "array" }, applied: bool, discovered: strings, stats: obj({ total: int, sent: int, tokensAll: int, tokensSent: int, tokensPerTool: { type: "array", items: int }, autoDiscovered: strings }) }) } },
    errors: [...CALLER, ...BODY, ...SESSION, "too_many_items"],
    examples: [
      { summary: "a first turn", token: "user", params: { sid: "openapi-prepare" }, body: { messages: [{ role: "user", content: "hello" }] }, status: 200 },
      { summary: "a bad session id", token: "user", params: { sid: "bad id!" }, body: { messages: [] }, status: 400 },
    ],
  },
  {
    method: "POST", path: "/v1/sessions/:sid/search", summary: "search_tools; the tools found join the session",
    body: obj({ query: str, limit: int, offset: int, enabledGroups: strings, mode: { enum: ["substring", "minisearch"] } }, ["query"]),
    ok: { 200: { description: "the search_tools result", schema: searchResult } },
    errors: [...CALLER, ...BODY, ...SESSION],
    examples: [
      { summary: "a search", token: "user", params: { sid: "openapi-search" }, body: { query: "time" }, status: 200 },
      { summary: "not JSON", token: "user", params: { sid: "openapi-search" }, body: "{", status: 400 },
    ],
  },
  {
    method: "POST", path: "/v1/sessions/:sid/execute", summary: "Calls a tool through the guard",
    body: obj({ name: str, arguments: { type: ["object", "string"] }, enabledGroups: strings }, ["name"]),
    ok: { 200: { description: "every tool-level outcome", schema: obj({ content: str, isError: bool, confirmation: anyObject, signIn: anyObject }, ["content", "isError"]) } },
    errors: [...CALLER, ...BODY, ...SESSION],
    examples: [
      { summary: "an unknown tool (a tool-level outcome)", token: "user", params: { sid: "openapi-execute" }, body: { name: "openapi_absent" }, status: 200 },
      { summary: "no name", token: "user", params: { sid: "openapi-execute" }, body: {}, status: 400 },
    ],
  },
  {
    method: "POST", path: "/v1/sessions/:sid/confirmations/:id", summary: "Approves or denies a pending confirmation",
    body: obj({ approve: bool }, ["approve"]),
    ok: { 200: { description: "answered", schema: obj({ id: str, approved: bool, capability: str, mode: str }) } },
    errors: [...CALLER, ...BODY, "invalid_session_id", "rate_limited", "confirmation_not_found", "confirmation_expired"],
    examples: [{ summary: "an unknown id", token: "user", params: { sid: "openapi-confirm", id: "none" }, body: { approve: true }, status: 404 }],
  },
  ...(["GET", "POST"] as const).map((method): Operation => ({
    method, path: "/v1/approvals/:token", open: true, contentType: "text/html",
    summary: method === "GET"
      ? "The approval page of a held call (the link's token is its credential; changes nothing)"
      : "Approves or denies the held call once (an application/x-www-form-urlencoded form: decision=approve|deny)",
    ok: {
      200: { description: "the page, or the answer taken", schema: str },
      400: { description: "no decision in the form (a page)", schema: str },
      403: { description: "a link this gateway did not sign, or changed (a page)", schema: str },
      410: { description: "expired, already used, or nothing pending matches it (a page)", schema: str },
    },
    errors: ["method_not_allowed", "misconfigured"],
    examples: [{ summary: "a forged link", token: "none", params: { token: "forged" }, status: 403 }],
  })),
  {
    method: "POST", path: "/v1/memory/clear", summary: "Forgets the discovered tools of one session or all",
    body: obj({ scope: { enum: ["session", "all"] }, sessionId: str }, ["scope"]),
    ok: { 200: { description: "cleared", schema: obj({ scope: str, cleared: int, pending: int }) } },
    errors: [...CALLER, ...BODY, "invalid_session_id", "rate_limited"],
    examples: [
      { summary: "one session", token: "user", body: { scope: "session", sessionId: "openapi-clear" }, status: 200 },
      { summary: "a bad scope", token: "user", body: { scope: "some" }, status: 400 },
    ],
  },
  {
    method: "POST", path: "/v1/untrusted/wrap", summary: "Wraps outside text behind the untrusted-content banner",
    body: obj({ content: str, source: str }, ["content", "source"]),
    ok: { 200: { description: "wrapped", schema: obj({ content: str }, ["content"]) } },
    errors: [...CALLER, ...BODY, "rate_limited"],
    examples: [{ summary: "a page", token: "user", body: { content: "text", source: "https://example.com" }, status: 200 }],
  },
  {
    method: "GET", path: "/v1/stats", summary: "Usage figures: the caller's, or with ?principal= anyone's (owner)",
    query: { principal: { type: "string", description: "another principal (owner only)" } },
    ok: { 200: { description: "the figures", schema: obj({
      principal: str, turns: int, tokensAll: int, tokensSent: int, tokensSaved: int, savedPercent: { type: "number" }, searches: int,
      executions: obj({ allow: int, deny: int, confirm: int, error: int, rate_limited: int }), lastActivity: { type: ["string", "null"] },
    }) } },
    errors: [...CALLER, "invalid_request", "forbidden", "rate_limited"],
    examples: [
      { summary: "mine", token: "user", status: 200 },
      { summary: "another's, not the owner", token: "user", query: "principal=someone", status: 403 },
      { summary: "another's, the owner", token: "owner", query: "principal=someone", status: 200 },
    ],
  },
  // Learning from calls (docs/search.md, "Learning from calls"): the owner's view and controls.
  {
    method: "GET", path: "/v1/learning", summary: "What the ranking learned from calls, per tool (owner)", owner: true,
    ok: { 200: { description: "the state in use and the evidence kept", schema: LEARNING_STATE } },
    errors: [...CALLER, "forbidden"],
    examples: [
      { summary: "the owner", token: "owner", status: 200 },
      { summary: "not the owner", token: "user", status: 403 },
    ],
  },
  {
    method: "DELETE", path: "/v1/learning", summary: "Forgets all evidence and what was learned (owner)", owner: true,
    ok: { 200: { description: "rows removed and the new version", schema: obj({ removed: int, version: int }) } },
    errors: [...CALLER, "forbidden"],
    examples: [
      { summary: "not the owner", token: "user", status: 403 },
      { summary: "the owner", token: "owner", status: 200 },
    ],
  },
  {
    method: "DELETE", path: "/v1/learning/:tool", summary: "Forgets one tool's evidence (owner)", owner: true,
    ok: { 200: { description: "the tool (as fitted), rows removed and the new version", schema: obj({ tool: str, removed: int, version: int }) } },
    errors: [...CALLER, "forbidden", "invalid_request"],
    examples: [
      { summary: "not the owner", token: "user", params: { tool: "get_weather" }, status: 403 },
      { summary: "the owner", token: "owner", params: { tool: "get_weather" }, status: 200 },
    ],
  },
  {
    method: "DELETE", path: "/v1/learning/apply", summary: "Forgets the evidence of the tool named apply (owner)", owner: true,
    ok: { 200: { description: "the tool, rows removed and the new version", schema: obj({ tool: str, removed: int, version: int }) } },
    errors: [...CALLER, "forbidden"],
    examples: [
      { summary: "not the owner", token: "user", status: 403 },
      { summary: "the owner", token: "owner", status: 200 },
    ],
  },
  {
    method: "POST", path: "/v1/learning/apply", summary: "Folds the evidence into ranking now (owner)", owner: true,
    ok: { 200: { description: "the new state", schema: LEARNING_STATE } },
    errors: [...CALLER, "forbidden"],
    examples: [
      { summary: "not the owner", token: "user", status: 403 },
      { summary: "the owner", token: "owner", status: 200 },
    ],
  },
  {
    method: "POST", path: "/mcp", summary: "MCP Streamable HTTP (JSON-RPC); errors in JSON-RPC form, code in error.data.code",
    body: anyObject,
    ok: { 200: { description: "a JSON-RPC answer (JSON or SSE)", schema: anyObject }, 202: { description: "a notification accepted", schema: anyObject } },
    errors: [...CALLER, ...BODY, "forbidden_origin", "session_not_found", "rate_limited", "too_many_sessions"],
    examples: [{ summary: "no token", token: "none", body: { jsonrpc: "2.0", id: 1, method: "ping" }, status: 401 }],
  },
  {
    method: "DELETE", path: "/mcp", summary: "Ends an MCP session (Mcp-Session-Id header)",
    ok: { 200: { description: "ended", schema: anyObject } },
    errors: [...CALLER, "forbidden_origin", "session_not_found"],
    examples: [{ summary: "no token", token: "none", status: 401 }],
  },
  ...["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource/v1"].map((path): Operation => ({
    method: "GET", path, summary: "RFC 9728 protected-resource metadata of the gateway, /mcp or /v1", open: true,
    ok: { 200: { description: "the metadata", schema: obj({ resource: str, authorization_servers: strings }) } },
    errors: ["method_not_allowed", "misconfigured"],
    examples: [{ summary: "the metadata", token: "none", status: 200 }],
  })),
];

/** Answered by the router itself for any path it does not know (404) or a known path with another method (405). */
export const ROUTER_ERRORS: readonly ErrorCode[] = ["not_found", "method_not_allowed"];

const errorSchema: Schema = obj({
  error: obj({ code: { $ref: "#/components/schemas/ErrorCode" }, message: str }, ["code", "message"]),
}, ["error"]);

/** `/v1/tools/:name` → `/v1/tools/{name}`. */
export function openApiPath(path: string): string {
  return path.replaceAll(/:([A-Za-z]+)/g, "{$1}");
}

function operationObject(operation: Operation): Schema {
  const parameters = [
    ...[...operation.path.matchAll(/:([A-Za-z]+)/g)].map((match) => ({ name: match[1], in: "path", required: true, schema: str })),
    ...Object.entries(operation.query ?? {}).map(([name, schema]) => ({ name, in: "query", required: false, schema })),
  ];
  const responses: Record<string, unknown> = {};
  for (const [status, answer] of Object.entries(operation.ok)) {
    responses[status] = { description: answer.description, content: { [operation.contentType ?? "application/json"]: { schema: answer.schema } } };
  }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of operation.errors) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  for (const [status, codes] of [...byStatus].toSorted(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: codes.join(", "),
      content: { "application/json": { schema: { allOf: [{ $ref: "#/components/schemas/Error" }], "x-error-codes": codes } } },
    };
  }
  const examples = Object.fromEntries(operation.examples.map((example, index) => [`example${index}`, { summary: `${example.summary} → ${example.status}`, value: example.body }]));
  return {
    summary: operation.summary,
    operationId: `${operation.method.toLowerCase()}${operation.path.replaceAll(/[^A-Za-z0-9]+/g, "_")}`,
    ...(operation.open === true ? { security: [] } : {}),
    ...(operation.owner === true ? { description: "The owner only (a token with `owner: true`)." } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(operation.body !== undefined
      ? { requestBody: { required: true, content: { "application/json": { schema: operation.body, examples } } } }
      : {}),
    responses,
    "x-examples": operation.examples,
  };
}

let built: Schema | undefined;

/** The document (built once per isolate). */
export function openApiDocument(): Schema {
  if (built) return built;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of OPERATIONS) {
    const path = openApiPath(operation.path);
    paths[path] = { ...paths[path], [operation.method.toLowerCase()]: operationObject(operation) };
  }
  built = {
    openapi: "3.1.0",
    info: { title: "toolgate", version: CORE_VERSION, description: "A tool-search gateway for AI agents (docs/http-api.md)." },
    servers: [{ url: "/" }],
    security: [{ bearer: [] }],
    paths,
    "x-router-errors": Object.fromEntries(ROUTER_ERRORS.map((code) => [code, ERROR_STATUS[code]])),
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" } },
      schemas: {
        ErrorCode: { enum: Object.keys(ERROR_STATUS), "x-status": ERROR_STATUS },
        Error: errorSchema,
      },
    },
  };
  return built;
}
