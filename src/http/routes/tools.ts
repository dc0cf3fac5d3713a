// The registry routes: list (anyone, gated by groups), register / replace / remove / dispose (the owner only).
import { ID_PATTERN } from "../../core/ids.ts";
import { readName, ToolDefinitionError } from "../../core/tools/definition.ts";
import { TOOL_SHAPES, toShape } from "../../core/tools/shapes.ts";
import type { ToolDefinition } from "../../core/types.ts";
import { registryStub } from "../../durable/stubs.ts";
import { currentRegistry, noteRegistryVersion } from "../../isolate/registryCache.ts";
import { storeToolVectors } from "../../isolate/semanticSearch.ts";
import { effectiveGroups, requireOwner } from "../auth.ts";
import { readJsonObject } from "../body.ts";
import { itemShape, readContext, readDefaults, readTool } from "../toolImport.ts";
import type { ImportShape } from "../toolImport.ts";
import { badField, HttpError } from "../errors.ts";
import { GROUP_NAME_MAX } from "../groups.ts";
import { enforceRateLimit } from "../limits.ts";
import type { RouteRequest } from "../request.ts";
import type { Call } from "../stage.ts";
import { expectObject, isOneOf, optionalString, queryParams, rejectUnknownFields, requiredArray } from "../validate.ts";

const LIST_FORMATS = [...TOOL_SHAPES, "summary"] as const;

function parseGroupList(text: string): string[] {
  const groups = text.split(",").map((group) => group.trim()).filter((group) => group.length > 0);
  for (const group of groups) {
    if (group.length > GROUP_NAME_MAX) throw badField("groups", `a group name must be at most ${GROUP_NAME_MAX} characters`);
  }
  return groups;
}

function isUpstreamTool(tool: ToolDefinition): boolean {
  return tool.executor?.type === "mcp";
}

/** What an upstream tool's annotations and the owner's settings mapped to (upstream/toolGuard.ts), as declared. */
function upstreamGuardView(tool: ToolDefinition): Record<string, unknown> {
  const executor = tool.executor?.type === "mcp" ? tool.executor : undefined;
  const risk = tool.risk ?? "safe";
  return {
    id: executor?.upstream, tool: executor?.tool,
    visibility: tool.visibility ?? "public", risk, confirm: tool.confirm ?? (risk === "dangerous" ? "session" : "off"),
  };
}

export async function listTools(request: RouteRequest, call: Call): Promise<Response> {
  const params = queryParams(request.url, ["groups", "format"]);
  const format = params.get("format") ?? "openai";
  if (!isOneOf(LIST_FORMATS, format)) throw badField("format", `must be one of ${LIST_FORMATS.join(", ")}`);
  const requested = params.has("groups") ? parseGroupList(params.get("groups") ?? "") : undefined;
  const groups = effectiveGroups(call.principal, requested);
  await enforceRateLimit(call);
  const { registry } = await currentRegistry(call.env, call.settings);
  if (format === "summary") {
    const upstreamTools = new Map(registry.getDefinitions({ groups }).filter(isUpstreamTool).map((tool) => [tool.name, tool]));
    return Response.json({
      tools: registry.getSummaries({ groups }).map((summary) => {
        const tool = upstreamTools.get(summary.name);
        return tool ? { ...summary, upstream: upstreamGuardView(tool) } : summary;
      }),
    });
  }
  return Response.json({ tools: registry.getDefinitions({ groups }).map((tool) => toShape(tool, format)) });
}

/**
 * A tool name from the path, as given: the catalog's (portable) name, or the name as its source spelled it (`a.b`, an
 * MCP server's name), which reaches the tool it was fitted to at registration (fitToolName).
 */
function pathToolName(value: string | undefined): { given: string; name: string } {
  // The router leaves path parameters percent-encoded: `fs%2Fread` is the MCP name `fs/read`.
  let given: string | undefined;
  try {
    given = value === undefined ? undefined : decodeURIComponent(value);
  } catch {
    throw badField("name", "is not valid percent-encoded UTF-8");
  }
  try {
    return { given: given ?? "", name: readName(given, undefined).name };
  } catch (error) {
    if (error instanceof ToolDefinitionError) throw badField("name", error.problem);
    throw error;
  }
}

export async function putTool(request: RouteRequest, call: Call): Promise<Response> {
  requireOwner(call.principal);
  // The path's spelling becomes the tool's originalName when the body names it no other way and it had to be fitted.
  const name = pathToolName(request.params.name).given;
  const body = await readJsonObject(request, call.settings.config.limits.maxBodyBytes);
  const shape = itemShape(body, "");
  const entry = readTool(body, shape, "", call.settings.config.locale, { pathName: name });
  const outcome = await registryStub(call.env).put([entry], call.settings.config.limits.maxTools, call.settings.demoCatalog);
  if (!outcome.ok) throw new HttpError(409, outcome.code, outcome.message);
  noteRegistryVersion(outcome);
  await storeToolVectors(call.env, call.settings.config.semantic, () => currentRegistry(call.env, call.settings), call.ctx);
  return Response.json(
    { tool: entry.definition, context: entry.context, version: outcome.version, shape },
    { status: outcome.created > 0 ? 201 : 200 },
  );
}

export async function putTools(request: RouteRequest, call: Call): Promise<Response> {
  requireOwner(call.principal);
  const { limits } = call.settings.config;
  const body = await readJsonObject(request, limits.maxBulkBodyBytes);
  // `nextCursor`: a whole MCP tools/list result may be sent as it came (one page of it; the answer says so).
  rejectUnknownFields(body, ["tools", "context", "defaults", "nextCursor"]);
  const defaultContext = readContext(body, "");
  const defaults = readDefaults(body);
  const nextCursor = optionalString(body, "nextCursor", "", { maxLength: 4_096 });
  const items = requiredArray(body, "tools", "", limits.maxTools);
  const seen = new Map<string, number>();
  let shape: ImportShape | undefined;
  const entries = items.map((item, index) => {
    const prefix = `tools[${index}]`;
    const object = expectObject(item, prefix);
    const itemsShape = itemShape(object, prefix);
    if (shape !== undefined && itemsShape !== shape) {
      throw badField(prefix, `is in ${itemsShape} shape but tools[0] is in ${shape} shape; one list takes one shape`);
    }
    shape = itemsShape;
    const entry = readTool(object, itemsShape, prefix, call.settings.config.locale, { defaults });
    if (object.context === undefined && defaultContext !== undefined) entry.context = defaultContext;
    const first = seen.get(entry.definition.name);
    if (first !== undefined) throw badField(`${prefix}.name`, `"${entry.definition.name}" is also tools[${first}]`);
    seen.set(entry.definition.name, index);
    return entry;
  });
  const outcome = await registryStub(call.env).put(entries, limits.maxTools, call.settings.demoCatalog);
  if (!outcome.ok) throw new HttpError(409, outcome.code, outcome.message);
  noteRegistryVersion(outcome);
  await storeToolVectors(call.env, call.settings.config.semantic, () => currentRegistry(call.env, call.settings), call.ctx);
  return Response.json({
    registered: entries.length,
    created: outcome.created,
    replaced: outcome.replaced,
    version: outcome.version,
    shape: shape ?? "toolgate",
    ...(nextCursor === undefined
      ? {}
      : { warnings: ["the list has a nextCursor: this is one page of it; fetch the next page and PUT it as well"] }),
  });
}

export async function deleteTool(request: RouteRequest, call: Call): Promise<Response> {
  requireOwner(call.principal);
  const { given, name } = pathToolName(request.params.name);
  let outcome = await registryStub(call.env).remove(name, call.settings.demoCatalog);
  // A tool an earlier version stored under a name that is no longer portable (`a.b`) is stored under that name.
  if (!outcome.removed && given !== name) outcome = await registryStub(call.env).remove(given, call.settings.demoCatalog);
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
