// One search in a session's catalog (its client tools, else the registry); the tools it returns join the session's
// discovered set at once. Shared by the search route and by execute of `search_tools`.
import type { SearchMode } from "../core/config.ts";
import { visibleCatalog } from "../core/tools/visibleCatalog.ts";
import { runSearchTools, SEARCH_TOOLS_NAME, searchPageLength, searchToolsAnswer } from "../core/turn/searchTools.ts";
import type { SearchToolsParams, SearchToolsResult } from "../core/turn/searchTools.ts";
import { isSessionRefusal } from "../durable/sessionLimit.ts";
import { withLearning } from "../core/learning/overlay.ts";
import type { LearnedOverlay } from "../core/learning/overlay.ts";
import { currentRegistry, noteRegistryVersion, registrySearchIndex } from "../isolate/registryCache.ts";
import type { LoadedRegistry } from "../isolate/registryCache.ts";
import { semanticSearchIndex } from "../isolate/semanticSearch.ts";
import { currentLearning } from "../isolate/learningCache.ts";
import { shardedRegistrySearch, staleShardVersion } from "../isolate/shardedSearches.ts";
import { sessionStub } from "../durable/stubs.ts";
import { sessionIdentity } from "./stage.ts";
import type { Call } from "./stage.ts";
import { searchLearnTerms } from "./learning.ts";
import { tooManySessions } from "./limits.ts";
import { countUsage } from "./usage.ts";

export async function searchSession(
  call: Call,
  sessionId: string,
  params: SearchToolsParams,
  mode: SearchMode,
  enabledGroups: string[],
): Promise<SearchToolsResult> {
  const session = sessionStub(call.env, call.principal.id, sessionId);
  const identity = sessionIdentity(call, sessionId);
  // The registry is searched in the isolate first (its version cached per isolate: no registry round trip); then one
  // session RPC either searches the session's client catalog (search and discovery in one atomic step) or, without
  // one, adds the registry result's names to the discovered set. One Durable Object round trip per search.
  const [loaded, learned] = await Promise.all([currentRegistry(call.env, call.settings), currentLearning(call.env, call.settings)]);
  // A sharded registry is searched by its shards (no learned field or provider vectors there yet); else in the isolate.
  const result = await shardedSearch(call, loaded, params, mode, enabledGroups)
    ?? await isolateSearch(call, { loaded, learned }, params, mode, enabledGroups);
  const registryNames = result.tools.map((tool) => tool.name);
  const learnTerms = searchLearnTerms(call, params.query);
  const inClientCatalog = await session.search({
    identity, params, mode, enabledGroups, config: call.settings.config, registryNames, ...(learnTerms ? { learnTerms } : {}),
  });
  // A new session past the principal's limit keeps nothing: 429 (the search itself is not kept either).
  if (isSessionRefusal(inClientCatalog)) throw tooManySessions(inClientCatalog);
  countUsage(call, { searches: 1 });
  return inClientCatalog ?? result;
}

/**
 * The registry search in the isolate: over the tools the caller's groups show, and an index of those only (hidden
 * tools move nothing); with an embeddings provider, fused with the tools' vectors (isolate/semanticSearch.ts); what
 * calls taught (learning on) moves ranks among them (docs/search.md, "Learning from calls").
 */
async function isolateSearch(
  call: Call,
  state: { loaded: LoadedRegistry; learned: LearnedOverlay | undefined },
  params: SearchToolsParams,
  mode: SearchMode,
  enabledGroups: string[],
): Promise<SearchToolsResult> {
  const { loaded, learned } = state;
  const catalog = visibleCatalog(loaded.definitions, enabledGroups);
  const { index, stats } = await semanticSearchIndex(
    { env: call.env, semantic: call.settings.config.semantic, ctx: call.ctx },
    loaded,
    { index: registrySearchIndex(loaded, mode, enabledGroups), catalog, mode, query: params.query },
  );
  const ranked = runSearchTools(params, { catalog, index: withLearning(index, learned, (name) => loaded.registry.get(name)?.definition, mode), enabledGroups: undefined, config: call.settings.config });
  return stats === undefined ? ranked : { ...ranked, stats };
}

/**
 * The registry search through the search shards when the registry is past config searchShards.aboveTools (undefined:
 * not sharded), over the same view and with the same answer as the isolate's own index would give. A shard that finds
 * the registry moved past the isolate's version says which version: the isolate takes it up and searches once more.
 */
async function shardedSearch(call: Call, loaded: LoadedRegistry, params: SearchToolsParams, mode: SearchMode, enabledGroups: string[], retried = false): Promise<SearchToolsResult | undefined> {
  const sharded = shardedRegistrySearch(call.env, call.settings, loaded, mode, enabledGroups);
  if (sharded === undefined) return undefined;
  const catalog = visibleCatalog(loaded.definitions, enabledGroups);
  try {
    const ranked = await sharded.searchPage(params.query, searchPageLength(params, call.settings.config), [SEARCH_TOOLS_NAME]);
    return searchToolsAnswer(params, ranked, { catalog, enabledGroups: undefined, config: call.settings.config });
  } catch (error) {
    const newer = staleShardVersion(error);
    if (newer === undefined || retried) throw error;
    noteRegistryVersion(newer);
    return shardedSearch(call, await currentRegistry(call.env, call.settings), params, mode, enabledGroups, true);
  }
}
