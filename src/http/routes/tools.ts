// The registry routes: list (anyone, gated by groups), register / replace / remove / dispose (the owner only).
import { ID_PATTERN } from "../../core/ids.ts";
import { TOOL_NAME_PATTERN } from "../../core/definition.ts";
import { TOOL_SHAPES, toShape } from "../../core/shapes.ts";
import type { Locale } from "../../core/types.ts";
import type { StoredTool } from "../../durable/registryObject.ts";
import { registryStub } from "../../durable/stubs.ts";
import { executorProblems } from "../../executors/index.ts";
import { currentRegistry, noteRegistryVersion } from "../../isolate/registryCache.ts";
import { effectiveGroups, requireOwner } from "../auth.ts";
import { readJsonObject } from "../body.ts";
import { readToolDefinition } from "../definitions.ts";
import { badField, HttpError } from "../errors.ts";
import { GROUP_NAME_MAX } from "../groups.ts";
import { enforceRateLimit } from "../limits.ts";
import type { RouteRequest } from "../request.ts";
import type { Call } from "../stage.ts";
import { expectObject, fieldPath, isOneOf, optionalString, rejectUnknownFields, requiredArray } from "../validate.ts";
import type { JsonObject } from "../validate.ts";

export const DEFAULT_CONTEXT = "runtime";
const LIST_FORMATS = [...TOOL_SHAPES, "summary"] as const;

/** `?a=b` parameters, each at most once, none unknown. */
function queryParams(request: RouteRequest, allowed: readonly string[]): Map<string, string> {
  const params = new Map<string, string>();
  for (const [key, value] of new URL(request.url).searchParams) {
    if (!allowed.includes(key)) throw badField(key, `unknown query parameter; allowed: ${allowed.join(", ")}`);
    if (params.has(key)) throw badField(key, "given more than once");
    params.set(key, value);
  }
  return params;
}

function parseGroupList(text: string): string[] {
  const groups = text.split(",").map((group) => group.trim()).filter((group) => group.length > 0);
  for (const group of groups) {
    if (group.length > GROUP_NAME_MAX) throw badField("groups", `a group name must be at most ${GROUP_NAME_MAX} characters`);
  }
  return groups;
}

export async function listTools(request: RouteRequest, call: Call): Promise<Response> {
  const params = queryParams(request, ["groups", "format"]);
  const format = params.get("format") ?? "openai";
  if (!isOneOf(LIST_FORMATS, format)) throw badField("format", `must be one of ${LIST_FORMATS.join(", ")}`);
  const requested = params.has("groups") ? parseGroupList(params.get("groups") ?? "") : undefined;
  const groups = effectiveGroups(call.principal, requested);
  await enforceRateLimit(call);
  const { registry } = await currentRegistry(call.env, call.settings);
  if (format === "summary") return Response.json({ tools: registry.getSummaries({ groups }) });
  return Response.json({ tools: registry.getDefinitions({ groups }).map((tool) => toShape(tool, format)) });
}

function toolName(value: string | undefined): string {
  if (value === undefined || !TOOL_NAME_PATTERN.test(value)) {
    throw badField("name", "a tool name must match ^[a-zA-Z0-9_.-]{1,64}$");
  }
  return value;
}

/** One tool of a request body → its validated definition and context. `prefix` names it in errors. */
function readTool(body: JsonObject, prefix: string, locale: Locale, pathName?: string): StoredTool {
  const context = optionalString(body, "context", prefix, { pattern: ID_PATTERN, patternText: ID_PATTERN.source });
  const input: JsonObject = { ...body };
  delete input.context;
  if (pathName !== undefined) {
    if (input.name !== undefined && input.name !== pathName) {
      throw badField(fieldPath(prefix, "name"), "must match the name in the path");
    }
    input.name = pathName;
  }
  const definition = readToolDefinition(input, prefix, { locale });
  if (definition.executor) {
    const problems = executorProblems(definition.executor);
    if (problems.length > 0) throw badField(fieldPath(prefix, "executor"), problems.join("; "));
  }
  return { definition, context: context ?? DEFAULT_CONTEXT };
}

export async function putTool(request: RouteRequest, call: Call): Promise<Response> {
  requireOwner(call.principal);
  const name = toolName(request.params.name);
  const body = await readJsonObject(request, call.settings.config.limits.maxBodyBytes);
  const entry = readTool(body, "", call.settings.config.locale, name);
  const outcome = await registryStub(call.env).put([entry], call.settings.config.limits.maxTools, call.settings.demoCatalog);
  if (!outcome.ok) throw new HttpError(409, outcome.code, outcome.message);
  noteRegistryVersion(outcome);
  return Response.json(
    { tool: entry.definition, context: entry.context, version: outcome.version },
    { status: outcome.created > 0 ? 201 : 200 },
  );
}

export async function putTools(request: RouteRequest, call: Call): Promise<Response> {
  requireOwner(call.principal);
  const { limits } = call.settings.config;
  const body = await readJsonObject(request, limits.maxBulkBodyBytes);
  rejectUnknownFields(body, ["tools", "context"]);
  const defaultContext = optionalString(body, "context", "", { pattern: ID_PATTERN, patternText: ID_PATTERN.source });
  const items = requiredArray(body, "tools", "", limits.maxTools);
  const seen = new Map<string, number>();
  const entries = items.map((item, index) => {
    const prefix = `tools[${index}]`;
    const object = expectObject(item, prefix);
    const entry = readTool(object, prefix, call.settings.config.locale);
    if (object.context === undefined && defaultContext !== undefined) entry.context = defaultContext;
    const first = seen.get(entry.definition.name);
    if (first !== undefined) throw badField(`${prefix}.name`, `"${entry.definition.name}" is also tools[${first}]`);
    seen.set(entry.definition.name, index);
    return entry;
  });
  const outcome = await registryStub(call.env).put(entries, limits.maxTools, call.settings.demoCatalog);
  if (!outcome.ok) throw new HttpError(409, outcome.code, outcome.message);
  noteRegistryVersion(outcome);
  return Response.json({
    registered: entries.length,
    created: outcome.created,
    replaced: outcome.replaced,
    version: outcome.version,
  });
}

export async function deleteTool(request: RouteRequest, call: Call): Promise<Response> {
  requireOwner(call.principal);
  const name = toolName(request.params.name);
  const outcome = await registryStub(call.env).remove(name, call.settings.demoCatalog);
  noteRegistryVersion(outcome);
  if (!outcome.removed) throw new HttpError(404, "tool_not_found", `no tool named "${name}"`);
  return Response.json({ removed: name, version: outcome.version });
}

export async function deleteContext(request: RouteRequest, call: Call): Promise<Response> {
  requireOwner(call.principal);
  const context = request.params.id;
  if (context === undefined || !ID_PATTERN.test(context)) {
    throw badField("id", `a context id must match ${ID_PATTERN.source}`);
  }
  const outcome = await registryStub(call.env).disposeContext(context);
  noteRegistryVersion(outcome);
  return Response.json({ context, removed: outcome.removed, version: outcome.version });
}
