// One shard of a sharded registry search (core/search/shardedSearch.ts): the index of one part of the registry (by a
// hash of the tool name: core/search/catalogParts.ts) at one registry version, for one search mode. The object is
// named after all of these (searchShardName), so a registry write makes new shards rather than changing these: an
// isolate still on the version before searches the shards of that version, consistent with its own registry. A shard
// builds its part itself, from the registry object's rows (partPage: only its part's texts travel), validated by the
// same code as the isolate's registry, once per object; its index per view (the tools a caller's groups show) once per
// view. Nothing is stored: an evicted shard builds again on its next call.
import { DurableObject } from "cloudflare:workers";
import { DEMO_CONTEXT, demoCatalog } from "../catalog/demo.ts";
import type { SearchMode } from "../core/config.ts";
import type { PartCatalog, PartPage, TermCounts, WholeCatalog } from "../core/search/catalogParts.ts";
import { partOf } from "../core/search/catalogParts.ts";
import { createIndexPart, type IndexPart } from "../core/search/indexPart.ts";
import { registerStoredTools } from "../core/tools/storedTools.ts";
import type { StoredTool } from "../core/tools/storedTools.ts";
import { ToolRegistry } from "../core/tools/toolRegistry.ts";
import { viewKey, visibleCatalog } from "../core/tools/visibleCatalog.ts";
import type { Locale, ToolDefinition } from "../core/types.ts";
import type { RegistryVersion } from "./registryObject.ts";
import { registryStub } from "./stubs.ts";

/** What a shard is of: the registry version, the search mode and the settings its catalog depends on, and its part. */
export interface ShardSpec {
  version: RegistryVersion;
  mode: SearchMode;
  locale: Locale;
  /** Whether the demo catalog is part of the registry (settings.demoCatalog). */
  demoCatalog: boolean;
  part: number;
  count: number;
}

/** The object's name: everything its part depends on. */
export function searchShardName(spec: ShardSpec): string {
  return `${spec.mode}/${spec.locale}/${spec.demoCatalog ? "demo" : "nodemo"}/${spec.version.epoch}:${spec.version.version}/${spec.part}of${spec.count}`;
}

/** The registry moved past the shard's version while it read it: the caller is to read the registry version again. */
export const STALE_SHARD = "the registry moved past this search shard's version";

/** Views kept per shard (callers' group lists repeat a few). */
const VIEWS_PER_SHARD = 8;

interface PartTools {
  tools: readonly ToolDefinition[];
  /** Each tool's place in the whole registry's order: demo tools by their place in the demo catalog, then stored ones. */
  positions: readonly number[];
}

export class SearchShardObject extends DurableObject<Env> {
  #spec: ShardSpec | undefined;
  #tools: Promise<PartTools> | undefined;
  readonly #views = new Map<string, IndexPart>();

  /** The part's tools, read once from the registry object (a failed read is read again next time). */
  #partTools(spec: ShardSpec): Promise<PartTools> {
    if (this.#spec !== undefined && searchShardName(this.#spec) !== searchShardName(spec)) {
      throw new Error(`this search shard is ${searchShardName(this.#spec)}, not ${searchShardName(spec)}`);
    }
    this.#spec = spec;
    if (this.#tools === undefined) {
      const reading = this.#read(spec);
      this.#tools = reading;
      reading.catch(() => {
        if (this.#tools === reading) this.#tools = undefined;
      });
    }
    return this.#tools;
  }

  async #read(spec: ShardSpec): Promise<PartTools> {
    const registry = registryStub(this.env);
    const stored: StoredTool[] = [];
    const seqOf = new Map<string, number>();
    let after = 0;
    let demo: { removed: string[]; disposed: boolean } | undefined;
    for (;;) {
      const page = await registry.partPage(after, spec.part, spec.count);
      // The isolate learns the newer version from the message (shardedSearches.ts, staleShardVersion).
      if (page.epoch !== spec.version.epoch || page.version !== spec.version.version) throw new Error(`${STALE_SHARD}: ${page.epoch} ${page.version}`);
      demo ??= { removed: page.removedBuiltins, disposed: page.demoDisposed };
      page.tools.forEach((tool, i) => {
        stored.push(tool);
        seqOf.set(tool.name, page.seqs[i] ?? 0);
      });
      if (page.next === undefined) break;
      after = page.next;
    }
    // As the isolate's registry is built (src/isolate/registryCache.ts): the demo tools no stored tool replaces and
    // none removed, then the stored tools in registration order; validated by the same code.
    const partRegistry = new ToolRegistry({ logger: console, locale: spec.locale });
    const catalog = demoCatalog();
    const demoPlace = new Map(catalog.map((tool, i) => [tool.name, i]));
    if (spec.demoCatalog && demo !== undefined && !demo.disposed) {
      const removed = new Set(demo.removed);
      partRegistry.registerMany(catalog.filter((tool) => partOf(tool.name, spec.count) === spec.part && !removed.has(tool.name) && !seqOf.has(tool.name)), DEMO_CONTEXT);
    }
    registerStoredTools(partRegistry, stored, new Map(), (name, error) => {
      console.error(`search shard: skipped stored tool "${name}": ${error instanceof Error ? error.message : String(error)}`);
    });
    const tools = partRegistry.getDefinitions({ groups: ["*"] });
    const positions = tools.map((tool) => {
      const seq = seqOf.get(tool.name);
      return seq === undefined ? (demoPlace.get(tool.name) ?? 0) : catalog.length + seq;
    });
    return { tools, positions };
  }

  /** The part's index over the tools a caller holding `groups` sees (undefined: every tool). */
  async #view(spec: ShardSpec, groups: readonly string[] | undefined): Promise<IndexPart> {
    const { tools, positions } = await this.#partTools(spec);
    const key = viewKey(tools, groups);
    const kept = this.#views.get(key);
    if (kept !== undefined) {
      this.#views.delete(key);
      this.#views.set(key, kept);
      return kept;
    }
    const view = visibleCatalog(tools, groups);
    const placeOf = new Map(tools.map((tool, i) => [tool.name, positions[i] ?? 0]));
    const part = createIndexPart(spec.mode, view, view.map((tool) => placeOf.get(tool.name) ?? 0));
    if (this.#views.size >= VIEWS_PER_SHARD) {
      const oldest = this.#views.keys().next();
      if (oldest.done !== true) this.#views.delete(oldest.value);
    }
    this.#views.set(key, part);
    return part;
  }

  async catalog(spec: ShardSpec, groups: string[] | undefined): Promise<PartCatalog> {
    return (await this.#view(spec, groups)).catalog();
  }

  async termCounts(spec: ShardSpec, groups: string[] | undefined, query: string, whole: PartCatalog): Promise<TermCounts> {
    return (await this.#view(spec, groups)).termCounts(query, whole);
  }

  async bestLexical(spec: ShardSpec, groups: string[] | undefined, query: string, whole: WholeCatalog): Promise<number> {
    return (await this.#view(spec, groups)).bestLexical(query, whole);
  }

  async page(spec: ShardSpec, groups: string[] | undefined, query: string, whole: WholeCatalog, count: number, excluded: string[], withRelevance: boolean): Promise<PartPage> {
    return (await this.#view(spec, groups)).page(query, whole, count, excluded, withRelevance);
  }
}
