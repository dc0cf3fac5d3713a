// The isolate's sharded registry searches (config searchShards; docs/scaling.md, "Past one isolate"): past the
// configured registry size, a registry search asks the search shards of the isolate's registry version
// (src/durable/searchShardObject.ts) instead of an index in this isolate's memory; the ranking is the same
// (core/search/shardedSearch.ts). One ShardedSearch per registry version, mode and view (the callers' group sets),
// which keeps the whole catalog's counts of substring keywords; at or below the size, nothing of this runs.
import type { SearchMode } from "../core/config.ts";
import { ShardedSearch } from "../core/search/shardedSearch.ts";
import type { IndexShard } from "../core/search/shardedSearch.ts";
import { viewKey, visibleCatalog } from "../core/tools/visibleCatalog.ts";
import type { RegistryVersion } from "../durable/registryObject.ts";
import { StaleShardError } from "../durable/searchShardObject.ts";
import type { ShardSpec } from "../durable/searchShardObject.ts";
import { searchShardStub } from "../durable/stubs.ts";
import type { LoadedRegistry } from "./registryCache.ts";
import type { Settings } from "./settings.ts";

/** Sharded searches kept (a few views of the current registry version). */
const KEPT = 8;
const searches = new Map<string, ShardedSearch>();

/** Whether registry searches of `loaded` go to shards under `settings`. */
export function isSharded(settings: Settings, loaded: LoadedRegistry): boolean {
  return shardsPast(settings, loaded.definitions.length);
}

/** Whether a registry of `tools` tools is searched through shards under `settings`. */
export function shardsPast(settings: Settings, tools: number): boolean {
  const shards = settings.config.searchShards;
  return shards !== undefined && tools > shards.aboveTools;
}

/**
 * The sharded search of the registry for a mode over the tools a caller holding `groups` sees, or undefined when
 * the registry is not past the configured size (search the isolate's own index then: registrySearchIndex).
 */
export function shardedRegistrySearch(env: Env, settings: Settings, loaded: LoadedRegistry, mode: SearchMode, groups: readonly string[] | undefined): ShardedSearch | undefined {
  const shards = settings.config.searchShards;
  if (shards === undefined || !isSharded(settings, loaded)) return undefined;
  const { locale } = settings.config;
  const key = JSON.stringify([loaded.key, mode, locale, settings.demoCatalog, shards.count, viewKey(loaded.definitions, groups)]);
  const kept = searches.get(key);
  if (kept !== undefined) {
    searches.delete(key);
    searches.set(key, kept);
    return kept;
  }
  const view = groups === undefined ? undefined : [...groups];
  const clients = Array.from({ length: shards.count }, (_, part): IndexShard => {
    const spec: ShardSpec = { version: loaded.version, mode, locale, demoCatalog: settings.demoCatalog, part, count: shards.count };
    const stub = () => searchShardStub(env, spec);
    return {
      search: async (query, known, count, excluded, withRelevance) => {
        const answer = await stub().search(spec, view, query, known, count, [...excluded], withRelevance);
        if ("stale" in answer) throw new StaleShardError(answer.stale);
        return answer;
      },
    };
  });
  const search = new ShardedSearch(mode, visibleCatalog(loaded.definitions, groups), clients);
  if (searches.size >= KEPT) {
    const oldest = searches.keys().next();
    if (oldest.done !== true) searches.delete(oldest.value);
  }
  searches.set(key, search);
  return search;
}

/** The newer registry version a shard refused to build an older one for (StaleShardError), or undefined for another error. */
export function staleShardVersion(error: unknown): RegistryVersion | undefined {
  return error instanceof StaleShardError ? error.version : undefined;
}
