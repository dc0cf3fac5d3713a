// Upstream MCP servers (the owner only): configure, list, show, remove, refresh, accept what quarantine holds. The
// upstream's Durable Object does the work (durable/upstreamObject.ts); these routes validate and answer.
import { GROUP_NAME_PATTERN, SECRET_NAME_PATTERN, UPSTREAM_ID_PATTERN } from "../../core/tools/definition.ts";
import { TOOL_SECRET_PREFIX } from "../../core/boundary/secrets.ts";
import { readUpstreamAuth, UPSTREAM_LIMITS, upstreamUrlRefusal } from "../../core/upstream/config.ts";
import type { UpstreamConfig } from "../../core/upstream/config.ts";
import { NEW_TOOLS_POLICIES } from "../../core/upstream/pins.ts";
import { decodeToolCursor, QUARANTINE_PAGE, TOOL_PAGE } from "../../core/upstream/toolPage.ts";
import type { ToolPageStart } from "../../core/upstream/toolPage.ts";
import type { AcceptChoice } from "../../core/upstream/pins.ts";
import type { UpstreamGuardSettings } from "../../core/upstream/toolGuard.ts";
import type { DetailPages, UpstreamAnswer } from "../../durable/upstreamObject.ts";
import { registryStub, upstreamStub } from "../../durable/stubs.ts";
import { currentRegistry, noteRegistryVersion } from "../../isolate/registryCache.ts";
import { storeToolVectors } from "../../isolate/semanticSearch.ts";
import { requireOwner } from "../auth.ts";
import { readJsonObject } from "../body.ts";
import { badField, HttpError } from "../errors.ts";
import { enforceRateLimit } from "../limits.ts";
import type { RouteRequest } from "../request.ts";
import type { Call } from "../stage.ts";
import {
  expectObject, optionalInteger, optionalOneOf, optionalString, optionalStringArray, queryParams, rejectUnknownFields, requiredArray, requiredString,
} from "../validate.ts";
import type { JsonObject } from "../validate.ts";

/** Header names an upstream request may not set: the transport's own. */
const RESERVED_HEADERS = new Set(["host", "content-type", "content-length", "accept", "mcp-session-id", "mcp-protocol-version"]);
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/;
/** Default for new tools from a known upstream: held, like a changed one (see docs/gateway.md, "Pinned descriptions"). */
const DEFAULT_NEW_TOOLS = "quarantine";
const UPSTREAM_FIELDS = [
  "url", "headers", "groups", "visibility", "risk", "confirm", "tools", "prefix", "refreshSeconds", "timeoutMs", "allowPrivate", "newTools", "auth",
];
const VISIBILITIES = ["public", "restricted"] as const;
const RISKS = ["safe", "sensitive", "dangerous"] as const;
const CONFIRMS = ["session", "always"] as const;

/** visibility, risk and confirm of an object (the upstream's body, or one entry of `tools`). */
function readGuardSettings(object: JsonObject, prefix: string): UpstreamGuardSettings {
  const settings: UpstreamGuardSettings = {};
  const visibility = optionalOneOf(object, "visibility", prefix, VISIBILITIES);
  if (visibility !== undefined) settings.visibility = visibility;
  const risk = optionalOneOf(object, "risk", prefix, RISKS);
  if (risk !== undefined) settings.risk = risk;
  const confirm = optionalOneOf(object, "confirm", prefix, CONFIRMS);
  if (confirm !== undefined) settings.confirm = confirm;
  return settings;
}

/** `tools`: the server's tool name → that tool's guard settings. */
function readToolSettings(body: JsonObject): Record<string, UpstreamGuardSettings> | undefined {
  if (body.tools === undefined) return undefined;
  const entries = Object.entries(expectObject(body.tools, "tools"));
  if (entries.length > UPSTREAM_LIMITS.toolSettings) throw badField("tools", `names more than ${UPSTREAM_LIMITS.toolSettings} tools`);
  const read: Record<string, UpstreamGuardSettings> = {};
  for (const [name, value] of entries) {
    const prefix = `tools["${name.slice(0, 64)}"]`;
    if (name.length === 0 || name.length > 256) throw badField(prefix, "a tool name has 1 to 256 characters");
    const object = expectObject(value, prefix);
    rejectUnknownFields(object, ["visibility", "risk", "confirm"], prefix);
    read[name] = readGuardSettings(object, prefix);
  }
  return read;
}

function upstreamId(request: RouteRequest): string {
  const id = request.params.id;
  if (id === undefined || !UPSTREAM_ID_PATTERN.test(id)) throw badField("id", `an upstream id must match ${UPSTREAM_ID_PATTERN.source}`);
  return id;
}

function readHeaders(body: JsonObject): Record<string, string> {
  if (body.headers === undefined) return {};
  const headers = expectObject(body.headers, "headers");
  const entries = Object.entries(headers);
  if (entries.length > UPSTREAM_LIMITS.headers) throw badField("headers", `has more than ${UPSTREAM_LIMITS.headers} headers`);
  const read: Record<string, string> = {};
  for (const [name, secret] of entries) {
    const field = `headers["${name.slice(0, 64)}"]`;
    if (!HEADER_NAME.test(name)) throw badField(field, "is not a valid HTTP header name");
    if (RESERVED_HEADERS.has(name.toLowerCase())) throw badField(field, "is set by the MCP transport itself");
    if (typeof secret !== "string" || !SECRET_NAME_PATTERN.test(secret) || !secret.startsWith(TOOL_SECRET_PREFIX)) {
      throw badField(field, `must name a ${TOOL_SECRET_PREFIX}* Worker secret, never hold the value itself`);
    }
    read[name] = secret;
  }
  return read;
}

function readUrl(body: JsonObject, allowPrivate: boolean): string {
  const text = requiredString(body, "url", "", { maxLength: UPSTREAM_LIMITS.urlChars });
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw badField("url", "must be an absolute URL");
  }
  if (url.username !== "" || url.password !== "") throw badField("url", "must not carry credentials (use headers with a secret)");
  const refusal = upstreamUrlRefusal(url.protocol, url.hostname, allowPrivate);
  if (refusal !== undefined) throw badField("url", refusal);
  url.hash = "";
  return url.href;
}

/** The body of PUT /v1/upstreams/:id, every field checked. */
export function readUpstreamConfig(id: string, body: JsonObject): UpstreamConfig {
  rejectUnknownFields(body, UPSTREAM_FIELDS);
  let allowPrivate = false;
  if (body.allowPrivate !== undefined) {
    if (typeof body.allowPrivate !== "boolean") throw badField("allowPrivate", "must be true or false");
    allowPrivate = body.allowPrivate;
  }
  const config: UpstreamConfig = {
    id,
    url: readUrl(body, allowPrivate),
    headers: readHeaders(body),
    prefix: optionalString(body, "prefix", "", {
      maxLength: UPSTREAM_LIMITS.prefixChars,
      pattern: /^[a-zA-Z0-9_-]+$/,
      patternText: "letters, digits, _ and -",
    }) ?? id,
    timeoutMs: optionalInteger(body, "timeoutMs", "", UPSTREAM_LIMITS.minTimeoutMs, UPSTREAM_LIMITS.maxTimeoutMs) ?? UPSTREAM_LIMITS.defaultTimeoutMs,
    allowPrivate,
    newTools: optionalOneOf(body, "newTools", "", NEW_TOOLS_POLICIES) ?? DEFAULT_NEW_TOOLS,
  };
  const groups = optionalStringArray(body, "groups", "", 32, { pattern: GROUP_NAME_PATTERN, patternText: GROUP_NAME_PATTERN.source });
  if (groups !== undefined && groups.length > 0) config.groups = [...new Set(groups)];
  Object.assign(config, readGuardSettings(body, ""));
  const tools = readToolSettings(body);
  if (tools !== undefined) config.tools = tools;
  const refreshSeconds = optionalInteger(body, "refreshSeconds", "", UPSTREAM_LIMITS.minRefreshSeconds, UPSTREAM_LIMITS.maxRefreshSeconds);
  if (refreshSeconds !== undefined) config.refreshSeconds = refreshSeconds;
  if (body.auth !== undefined) {
    const read = readUpstreamAuth(body.auth, SECRET_NAME_PATTERN, TOOL_SECRET_PREFIX);
    if ("problem" in read) throw badField(read.field, read.problem);
    // Each call carries the caller's own token in Authorization: a static one beside it would be sent for everyone.
    const fixed = Object.keys(config.headers).find((name) => name.toLowerCase() === "authorization");
    if (fixed !== undefined) throw badField(`headers["${fixed}"]`, "cannot be set on an upstream with auth: each user's own grant is sent there");
    config.auth = read.auth;
  }
  return config;
}

/** An upstream object's answer as a response (errors as HttpErrors); the registry version is noted for this isolate. */
function answer<T>(outcome: UpstreamAnswer<T>, status = 200): Response {
  if (!outcome.ok) {
    if (outcome.code === "not_found") throw new HttpError(404, "upstream_not_found", "no upstream MCP server with this id");
    throw new HttpError(409, outcome.code, outcome.message);
  }
  if (outcome.registry) noteRegistryVersion(outcome.registry);
  return Response.json({ upstream: outcome.value, ...(outcome.registry ? { version: outcome.registry.version } : {}) }, { status });
}

/** An import's answer, once the imported tools' vectors are being stored (with an embeddings provider). */
async function withToolVectors(call: Call, response: Response): Promise<Response> {
  await storeToolVectors(call.env, call.settings.config.semantic, () => currentRegistry(call.env, call.settings), call.ctx);
  return response;
}

export async function putUpstream(request: RouteRequest, call: Call): Promise<Response> {
  requireOwner(call.principal);
  const id = upstreamId(request);
  const body = await readJsonObject(request, call.settings.config.limits.maxBodyBytes);
  const config = readUpstreamConfig(id, body);
  await enforceRateLimit(call);
  if (!(await registryStub(call.env).addUpstream(id, UPSTREAM_LIMITS.upstreams))) {
    throw new HttpError(409, "too_many_upstreams", `at most ${UPSTREAM_LIMITS.upstreams} upstream MCP servers can be configured`);
  }
  const outcome = await upstreamStub(call.env, id).configure(config, call.settings.config.limits.maxTools, call.principal.id);
  return withToolVectors(call, answer(outcome, outcome.created ? 201 : 200));
}

export async function listUpstreams(_request: RouteRequest, call: Call): Promise<Response> {
  requireOwner(call.principal);
  await enforceRateLimit(call);
  const ids = await registryStub(call.env).upstreamIds();
  const summaries = await Promise.all(ids.map((id) => upstreamStub(call.env, id).summary()));
  return Response.json({ upstreams: summaries.filter((summary) => summary !== null) });
}

/** One `…cursor` / `…limit` pair of GET /v1/upstreams/:id's query: which page of a list to show. */
function readPage(
  params: ReadonlyMap<string, string>,
  names: { cursor: string; limit: string; nextCursor: string },
  bounds: { defaultLimit: number; maxLimit: number },
): { start?: ToolPageStart; limit: number } {
  const limitText = params.get(names.limit);
  let limit = bounds.defaultLimit;
  if (limitText !== undefined) {
    limit = /^[0-9]{1,9}$/.test(limitText) ? Number(limitText) : 0;
    if (limit < 1 || limit > bounds.maxLimit) throw badField(names.limit, `must be an integer from 1 to ${bounds.maxLimit}`);
  }
  const cursorText = params.get(names.cursor);
  if (cursorText === undefined) return { limit };
  const start = decodeToolCursor(cursorText);
  if (start === undefined) throw badField(names.cursor, `is not a cursor this route gave (send the ${names.nextCursor} of the page before, as it came)`);
  return { start, limit };
}

/** `?cursor&limit` (the registered tools) and `?quarantineCursor&quarantineLimit` (the held ones). */
function readDetailPages(url: string): DetailPages {
  const params = queryParams(url, ["cursor", "limit", "quarantineCursor", "quarantineLimit"]);
  return {
    tools: readPage(params, { cursor: "cursor", limit: "limit", nextCursor: "nextCursor" }, TOOL_PAGE),
    quarantine: readPage(params, { cursor: "quarantineCursor", limit: "quarantineLimit", nextCursor: "quarantineNextCursor" }, QUARANTINE_PAGE),
  };
}

export async function getUpstream(request: RouteRequest, call: Call): Promise<Response> {
  requireOwner(call.principal);
  const id = upstreamId(request);
  const pages = readDetailPages(request.url);
  await enforceRateLimit(call);
  const detail = await upstreamStub(call.env, id).detail(pages);
  if (detail === null) throw new HttpError(404, "upstream_not_found", "no upstream MCP server with this id");
  return Response.json({ upstream: detail });
}

export async function deleteUpstream(request: RouteRequest, call: Call): Promise<Response> {
  requireOwner(call.principal);
  const id = upstreamId(request);
  await enforceRateLimit(call);
  const outcome = await upstreamStub(call.env, id).remove(id);
  noteRegistryVersion(outcome);
  if (!outcome.removed) throw new HttpError(404, "upstream_not_found", "no upstream MCP server with this id");
  return Response.json({ removed: id, tools: outcome.tools, grantsDeleted: outcome.grantsDeleted, version: outcome.version });
}

export async function refreshUpstream(request: RouteRequest, call: Call): Promise<Response> {
  requireOwner(call.principal);
  const id = upstreamId(request);
  await enforceRateLimit(call);
  return withToolVectors(call, answer(await upstreamStub(call.env, id).refresh(true)));
}

/**
 * `{"tools": [{"name", "digest"}]}`: each quarantined tool named with the digest GET /v1/upstreams/:id showed, so that
 * what is accepted is the version the owner looked at (409 quarantine_changed when the upstream listed another since).
 * A bare name, or no list, is refused: it would accept whatever the upstream listed last.
 */
export function readAcceptChoices(body: JsonObject): AcceptChoice[] {
  rejectUnknownFields(body, ["tools"]);
  const items = requiredArray(body, "tools", "", UPSTREAM_LIMITS.acceptPerRequest);
  if (items.length === 0) throw badField("tools", "must name at least one quarantined tool");
  return items.map((item, index) => {
    const prefix = `tools[${index}]`;
    if (typeof item === "string") {
      throw badField(prefix, 'must be {"name", "digest"}: the digest GET /v1/upstreams/:id shows for the version you accept');
    }
    const object = expectObject(item, prefix);
    rejectUnknownFields(object, ["name", "digest"], prefix);
    return {
      name: requiredString(object, "name", prefix, { maxLength: 256 }),
      digest: requiredString(object, "digest", prefix, { maxLength: 64, pattern: /^[0-9a-f]{64}$/, patternText: "64 lowercase hex digits" }),
    };
  });
}

export async function acceptUpstream(request: RouteRequest, call: Call): Promise<Response> {
  requireOwner(call.principal);
  const id = upstreamId(request);
  // No body reads as `{}`, which names no tool: refused with the shape to send.
  const choices = readAcceptChoices(await readJsonObject(request, call.settings.config.limits.maxBodyBytes, { emptyIsObject: true }));
  await enforceRateLimit(call);
  return withToolVectors(call, answer(await upstreamStub(call.env, id).accept(choices)));
}
