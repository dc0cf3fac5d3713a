// POST /v1/sessions/:sid/prepare: the tool list for one LLM turn, in the shape the client uses (docs/DESIGN.md, "Flows").
import type { DiscoveryReceipt } from "../../core/guard/audit.ts";
import { detectMessagesShape, latestUserText } from "../../core/turn/history.ts";
import type { SearchIndex } from "../../core/search/types.ts";
import { nativeDeferredTools } from "../../core/turn/nativeDeferral.ts";
import { discoveredInHistory, prepareTurn, WarnOnce } from "../../core/turn/prepare.ts";
import { TOOL_SHAPES, toShape } from "../../core/tools/shapes.ts";
import type { ToolShape } from "../../core/tools/shapes.ts";
import { countTokens } from "../../core/tools/tokens.ts";
import { toolTokens } from "../../core/tools/toolTokens.ts";
import type { ToolDefinition } from "../../core/types.ts";
import type { ClientCatalog } from "../../durable/sessionObject.ts";
import { isSessionRefusal } from "../../durable/sessionLimit.ts";
import { catalogSearchIndex, currentRegistry, noteRegistryVersion, registrySearchIndex } from "../../isolate/registryCache.ts";
import { scoredHead, type ShardedSearch } from "../../core/search/shardedSearch.ts";
import { shardedRegistrySearch, staleShardVersion } from "../../isolate/shardedSearches.ts";
import { sessionStub } from "../../durable/stubs.ts";
import { readJsonObject } from "../body.ts";
import { recordTurn } from "../usage.ts";
import { readClientTools } from "../clientTools.ts";
import { internCatalog } from "../../isolate/clientCatalogs.ts";
import { sessionIdentity } from "../stage.ts";
import type { Call } from "../stage.ts";
import { readEnabledGroups } from "../groups.ts";
import { enforceRateLimit, tooManySessions } from "../limits.ts";
import type { RouteRequest } from "../request.ts";
import { optionalArray, optionalOneOf, rejectUnknownFields, requiredArray, requireSessionId } from "../validate.ts";

/** prepareTurn's warnings (an always-direct tool that is missing) are logged once per isolate, not per turn. */
const warnings = new WarnOnce(console);

/** `{names: {fitted: original}}` when a client tool's name was fitted, else undefined (the answer stays as it was). */
function fittedNames(tools: readonly ToolDefinition[]): { names: Record<string, string> } | undefined {
  const names: Record<string, string> = {};
  let any = false;
  for (const tool of tools) {
    if (tool.originalName === undefined) continue;
    names[tool.name] = tool.originalName;
    any = true;
  }
  return any ? { names } : undefined;
}

export async function prepare(request: RouteRequest, call: Call): Promise<Response> {
  const sessionId = requireSessionId(request.params.sid);
  const { config } = call.settings;
  const body = await readJsonObject(request, config.limits.maxBodyBytes);
  rejectUnknownFields(body, ["messages", "tools", "enabledGroups", "format"]);
  const messages = requiredArray(body, "messages", "", config.limits.maxMessages);
  const items = optionalArray(body, "tools", "", config.limits.maxTools);
  const groups = readEnabledGroups(call, body);
  const format = optionalOneOf(body, "format", "", TOOL_SHAPES);
  await enforceRateLimit(call);
  const started = Date.now();

  let toolsShape: ToolShape | undefined;
  let tools: readonly ToolDefinition[];
  // Given tools become the session's catalog; without them the turn uses the registry and the catalog is dropped.
  let catalog: ClientCatalog | null = null;
  let receipt: Pick<DiscoveryReceipt, "catalog" | "catalogVersion" | "withheldByGate">;
  /** The index auto-discovery searches: the catalog's, built once per catalog version (only when it is on). */
  let searchIndex: () => SearchIndex;
  /** The registry's sharded search, past config searchShards.aboveTools: auto-discovery asks it instead. */
  let sharded: ShardedSearch | undefined;
  if (items !== undefined) {
    const client = readClientTools(items, config.locale);
    toolsShape = client.shape;
    tools = client.tools;
    // The same catalog as an earlier turn's is the same definition objects (their token counts are kept with them).
    const clientCatalog = await internCatalog(client.tools);
    catalog = clientCatalog;
    tools = clientCatalog.tools;
    searchIndex = () => catalogSearchIndex(clientCatalog.hash, clientCatalog.tools, config.searchMode);
    receipt = { catalog: "client", catalogVersion: catalog.hash, withheldByGate: 0 };
  } else {
    const loaded = await currentRegistry(call.env, call.settings);
    tools = loaded.registry.getDefinitions({ groups });
    // An index of the tools the caller's groups show only: hidden tools never move what auto-discovery sends.
    searchIndex = () => registrySearchIndex(loaded, config.searchMode, groups);
    sharded = shardedRegistrySearch(call.env, call.settings, loaded, config.searchMode, groups);
    receipt = { catalog: "registry", catalogVersion: loaded.key, withheldByGate: loaded.definitions.length - tools.length };
  }
  // The answer's shape: `format` first, since a client that names a shape means it (a gateway between an MCP tool list
  // and an OpenAI model asks for openai); then the tools' shape, the most direct sign of what the client sends its
  // model; then the history's shape (detectMessagesShape: what only one shape has); else openai.
  const shape: ToolShape = format ?? toolsShape ?? detectMessagesShape(messages) ?? "openai";

  // The history is read once, here, and merged inside the session object (atomically, with the same rule as the
  // core: only names this turn's tools hold); prepareTurn then only shapes the turn from the merged set.
  const prepared = await sessionStub(call.env, call.principal.id, sessionId).prepare({
    identity: sessionIdentity(call, sessionId),
    historyNames: discoveredInHistory(messages, tools),
    catalog,
    config,
  });
  if (isSessionRefusal(prepared)) throw tooManySessions(prepared);
  const { discovered, foundOrder } = prepared;
  // Provider-native deferral (config nativeDeferral, Anthropic and Responses shapes): the provider's search tool and
  // every tool deferred, the same list on every turn; the session's discovered set is kept all the same. The
  // provider's search then decides what is loaded: no auto-discovery.
  const native = nativeDeferredTools(tools, config, shape);
  const autoDiscovering = config.autoDiscover.topK > 0 && !native;
  const userText = autoDiscovering ? latestUserText(messages, config.limits.maxQueryLength) ?? "" : "";
  // Sharded: the head of the ranking, long enough for topK once the tools the turn sends anyway (at most the meta-tools,
  // the always-direct and the discovered ones) are left out.
  const discoveryIndex = !autoDiscovering ? undefined : sharded === undefined ? searchIndex()
    : await shardedDiscovery(call, { sharded, groups }, userText, config.autoDiscover.topK + 2 + config.alwaysDirectTools.length + discovered.length);
  const output = prepareTurn({
    tools,
    messages: [],
    discovered,
    foundOrder,
    config,
    warnings,
    shape,
    ...(discoveryIndex === undefined ? {} : { searchIndex: discoveryIndex, userText }),
  });
  const answerTools = native ?? output.tools.map((tool) => toShape(tool, shape));
  const stats = native ? { ...output.stats, sent: native.length, tokensSent: countTokens(JSON.stringify(native)) } : output.stats;
  recordTurn(call, sessionId, {
    ...receipt,
    visible: stats.total,
    sent: stats.sent,
    tokensAll: stats.tokensAll,
    tokensSent: stats.tokensSent,
  }, started);
  return Response.json({
    tools: answerTools,
    applied: output.applied,
    discovered: output.discovered,
    // tokensPerTool: each answered tool's tokens, so that a client (the playground) can tell what a provider's prefix
    // cache keeps from one answer to the next (the leading tools equal to the previous answer's).
    // autoDiscovered (when autoDiscover is on): the tools sent this turn because the user's message matched them; they
    // are the last ones in `tools` and join `discovered` only once called.
    stats: {
      ...stats,
      tokensPerTool: native ? native.map((tool) => countTokens(JSON.stringify(tool))) : output.tools.map((tool) => toolTokens(tool, shape)),
      ...(config.autoDiscover.topK > 0 ? { autoDiscovered: output.autoDiscovered } : {}),
    },
    ...(native ? { deferral: "native" } : {}),
    // The client's names that had to be fitted (toolNames.ts): the model calls the fitted one; run the original.
    ...fittedNames(tools),
  });
}

/**
 * Auto-discovery's head of the registry's sharded ranking. A shard that finds the registry moved past the isolate's
 * version says which: the isolate takes it up and asks that version once more (a tool of it that this turn's list
 * does not hold is never sent: prepareTurn takes only the tools the turn holds).
 */
async function shardedDiscovery(call: Call, searched: { sharded: ShardedSearch; groups: string[] | undefined }, query: string, length: number): Promise<Pick<SearchIndex, "scored">> {
  try {
    return await scoredHead(searched.sharded, query, length);
  } catch (error) {
    const newer = staleShardVersion(error);
    if (newer === undefined) throw error;
    noteRegistryVersion(newer);
    const loaded = await currentRegistry(call.env, call.settings);
    const { searchMode } = call.settings.config;
    const again = shardedRegistrySearch(call.env, call.settings, loaded, searchMode, searched.groups);
    return again === undefined ? registrySearchIndex(loaded, searchMode, searched.groups) : await scoredHead(again, query, length);
  }
}
