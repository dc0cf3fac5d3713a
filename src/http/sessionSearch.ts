// One search in a session's catalog (its client tools, else the registry); the tools it returns join the session's
// discovered set at once. Shared by the search route and by execute of `search_tools`.
import type { SearchMode } from "../core/config.ts";
import { visibleCatalog } from "../core/tools/visibleCatalog.ts";
import { runSearchTools } from "../core/turn/searchTools.ts";
import type { SearchToolsParams, SearchToolsResult } from "../core/turn/searchTools.ts";
import { isSessionRefusal } from "../durable/sessionLimit.ts";
import { currentRegistry, registrySearchIndex } from "../isolate/registryCache.ts";
import { semanticSearchIndex } from "../isolate/semanticSearch.ts";
import { sessionStub } from "../durable/stubs.ts";
import { sessionIdentity } from "./stage.ts";
import type { Call } from "./stage.ts";
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
  const loaded = await currentRegistry(call.env, call.settings);
  // Over the tools the caller's groups show, and an index of those only: hidden tools move nothing.
  const catalog = visibleCatalog(loaded.definitions, enabledGroups);
  // With an embeddings provider, the index fused with the tools' vectors (isolate/semanticSearch.ts).
  const { index, stats } = await semanticSearchIndex(
    { env: call.env, semantic: call.settings.config.semantic, ctx: call.ctx },
    loaded,
    { index: registrySearchIndex(loaded, mode, enabledGroups), catalog, mode, query: params.query },
  );
  const ranked = runSearchTools(params, { catalog, index, enabledGroups: undefined, config: call.settings.config });
  const result = stats === undefined ? ranked : { ...ranked, stats };
  const registryNames = result.tools.map((tool) => tool.name);
  const inClientCatalog = await session.search({ identity, params, mode, enabledGroups, config: call.settings.config, registryNames });
  // A new session past the principal's limit keeps nothing: 429 (the search itself is not kept either).
  if (isSessionRefusal(inClientCatalog)) throw tooManySessions(inClientCatalog);
  countUsage(call, { searches: 1 });
  return inClientCatalog ?? result;
}
