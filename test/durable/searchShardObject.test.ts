// A search shard keeps each view's part as a snapshot in its SQLite: a new instance of the object (as after an
// eviction) answers from it without reading the registry's rows; a snapshot with a changed byte is dropped, never
// served, and the part is built again from the rows; the clean-up alarm deletes the snapshots once the registry moved on.
// The whole catalog's statistics a shard added up from the others are kept there too: a new instance asks no other
// shard for them, and a corrupt copy is dropped and asked for again.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { REGISTRY_OBJECT_NAME } from "../../src/durable/names.ts";
import { SearchShardObject, searchShardName, type ShardSpec } from "../../src/durable/searchShardObject.ts";
import { generatedCatalog } from "../support/generatedCatalog.ts";

const catalog = generatedCatalog(60, 17);
const registry = () => env.REGISTRY.getByName(REGISTRY_OBJECT_NAME);

async function register(prefix: string, count: number): Promise<{ epoch: string; version: number }> {
  const tools = catalog.tools.slice(0, count).map((tool, i) => ({ ...tool, name: `${prefix}_${tool.name}`, ...(i % 2 === 0 ? { groups: [`${prefix}_g`] } : {}) }));
  const put = await registry().put(tools.map((definition) => ({ definition, context: prefix })), 100_000, false);
  if (!put.ok) throw new Error(put.message);
  return { epoch: put.epoch, version: put.version };
}

/** One search's answer of a shard that is the whole catalog (part 0 of 1); substring keyword counts asked first. */
async function answer(shard: Pick<SearchShardObject, "search">, spec: ShardSpec, groups: string[] | undefined, query: string): Promise<unknown> {
  const first = await shard.search(spec, groups, query, {}, 5, [], true);
  if (!("counts" in first)) return first;
  return shard.search(spec, groups, query, first.counts, 5, [], true);
}

const snapshotRows = (state: DurableObjectState): number => state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM part_snapshots").one().n;

/** The rows of every snapshot table there is (a table made again, empty, by a late read holds none). */
const allSnapshotRows = (sql: SqlStorage): number =>
  sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND (name LIKE 'part_snapshot%' OR name LIKE 'whole_statistics%')")
    .toArray()
    .reduce((rows, { name }) => rows + sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${name}`).one().n, 0);

describe.each(["minisearch", "substring"] as const)("search shard snapshots, %s", (mode) => {
  it("answers from its snapshot after an eviction, and drops a corrupt one", async () => {
    const prefix = `sso_${mode}_${crypto.randomUUID().slice(0, 8)}`;
    const version = await register(prefix, 40);
    const spec: ShardSpec = { version, mode, locale: "en", demoCatalog: false, part: 0, count: 1 };
    const stub = env.SEARCH_SHARD.getByName(searchShardName(spec));
    const query = catalog.words[12] ?? "data";
    const first = await answer(stub, spec, undefined, query);
    const grouped = await answer(stub, spec, [`${prefix}_g`], query);
    expect(first).not.toEqual(grouped);
    await runInDurableObject(stub, (_instance: SearchShardObject, state) => expect(snapshotRows(state)).toBe(2));
    // The registry moves on: a shard that read the rows now would refuse (STALE_SHARD); one that reads its snapshot answers.
    const later = await register(`${prefix}_later`, 3);
    await runInDurableObject(stub, async (_instance: SearchShardObject, state) => {
      const evicted = new SearchShardObject(state, env);
      expect(await answer(evicted, spec, undefined, query)).toEqual(first);
      expect(await answer(evicted, spec, [`${prefix}_g`], query)).toEqual(grouped);
      // One byte changed in the first chunk of the whole view's snapshot: refused, dropped, and the rows read (stale now).
      const row = state.storage.sql.exec<{ bytes: ArrayBuffer }>("SELECT bytes FROM part_snapshot_chunks WHERE view = '' AND chunk = 0").one();
      const bytes = new Uint8Array(row.bytes);
      bytes[bytes.length - 9] = (bytes[bytes.length - 9] ?? 0) ^ 0x10;
      state.storage.sql.exec("UPDATE part_snapshot_chunks SET bytes = ? WHERE view = '' AND chunk = 0", bytes);
      const corrupt = new SearchShardObject(state, env);
      // Said as an answer (the version found), not thrown: no RPC rejects for it.
      expect(await answer(corrupt, spec, undefined, query)).toEqual({ stale: later });
      expect(snapshotRows(state)).toBe(1);
      // The alarm finds the registry past the shard's version: every snapshot goes.
      expect(await state.storage.getAlarm()).not.toBeNull();
      await corrupt.alarm();
      expect(state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM sqlite_master WHERE name LIKE 'part_snapshot%'").one().n).toBe(0);
      expect(await state.storage.getAlarm()).toBeNull();
    });
  });
});

const wholeRows = (state: DurableObjectState): number => state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM whole_statistics").one().n;

describe("search shard whole statistics", () => {
  it("are read from the shard's SQLite by a new instance, which asks no other shard; a corrupt copy is dropped and asked again", async () => {
    const prefix = `ssw_${crypto.randomUUID().slice(0, 8)}`;
    const version = await register(prefix, 40);
    const spec: ShardSpec = { version, mode: "minisearch", locale: "en", demoCatalog: false, part: 0, count: 2 };
    const stub = env.SEARCH_SHARD.getByName(searchShardName(spec));
    const query = `${catalog.words[12] ?? "data"} ${catalog.words[30] ?? "file"}`;
    const first = await answer(stub, spec, undefined, query);
    let asked = 0;
    // The shards' namespace, each RPC on one of its stubs counted.
    const shards = new Proxy(env.SEARCH_SHARD, {
      get(target, property) {
        if (property !== "getByName") return Reflect.get(target, property);
        return (name: string) => {
          const other = target.getByName(name);
          return new Proxy(other, {
            get(stubTarget, method) {
              asked += 1;
              return Reflect.get(stubTarget, method);
            },
          });
        };
      },
    });
    const counted: Env = { ...env, SEARCH_SHARD: shards };
    await runInDurableObject(stub, async (_instance: SearchShardObject, state) => {
      expect(wholeRows(state)).toBe(1);
      const evicted = new SearchShardObject(state, counted);
      expect(await answer(evicted, spec, undefined, query)).toEqual(first);
      expect(asked).toBe(0);
      // One byte changed in the statistics' first chunk: refused, dropped, asked of the other shard again, kept again.
      const row = state.storage.sql.exec<{ bytes: ArrayBuffer }>("SELECT bytes FROM whole_statistics_chunks WHERE view = '' AND chunk = 0").one();
      const bytes = new Uint8Array(row.bytes);
      bytes[bytes.length - 5] = (bytes[bytes.length - 5] ?? 0) ^ 0x04;
      state.storage.sql.exec("UPDATE whole_statistics_chunks SET bytes = ? WHERE view = '' AND chunk = 0", bytes);
      const corrupt = new SearchShardObject(state, counted);
      expect(await answer(corrupt, spec, undefined, query)).toEqual(first);
      expect(asked).toBe(1);
      expect(wholeRows(state)).toBe(1);
      const again = new SearchShardObject(state, counted);
      expect(await answer(again, spec, undefined, query)).toEqual(first);
      expect(asked).toBe(1);
    });
  });
});

describe("search shards of a version the registry moved past", () => {
  it("say so as an answer over RPC, not a rejection; a snapshot written then is cleaned up at once, not in an hour", async () => {
    const prefix = `sss_${crypto.randomUUID().slice(0, 8)}`;
    const version = await register(prefix, 20);
    const spec: ShardSpec = { version, mode: "substring", locale: "en", demoCatalog: false, part: 0, count: 1 };
    const stub = env.SEARCH_SHARD.getByName(searchShardName(spec));
    const query = catalog.words[12] ?? "data";
    await answer(stub, spec, undefined, query);
    const alarmOf = (): Promise<number | null> => runInDurableObject(stub, (_instance: SearchShardObject, state) => state.storage.getAlarm());
    // Current: the snapshot's clean-up is an hour away.
    await vi.waitFor(async () => expect(await alarmOf()).toBeGreaterThan(Date.now() + 30 * 60_000));
    const later = await register(`${prefix}_later`, 2);
    // A new view of the shard that still holds the rows it read: built, written, and its clean-up brought to now.
    await answer(stub, spec, [`${prefix}_g`], query);
    // (Due now: it may have run already, leaving no alarm.)
    await vi.waitFor(async () => expect((await alarmOf()) ?? 0).toBeLessThanOrEqual(Date.now()));
    // The answer's other snapshot (the view's whole statistics) may be written after that alarm ran, and arms its own
    // clean-up at once again: the snapshots are gone once no write is left to come.
    await vi.waitFor(async () => {
      await runDurableObjectAlarm(stub);
      expect(await runInDurableObject(stub, (_instance: SearchShardObject, state) => allSnapshotRows(state.storage.sql))).toBe(0);
    });

    // Shards of that version never built: each says which version it found, through its stub (search asks the
    // other shard's statistics, which answers the same).
    const parts = [0, 1].map((part): ShardSpec => ({ ...spec, part, count: 2 }));
    const [first, second] = parts.map((part) => env.SEARCH_SHARD.getByName(searchShardName(part)));
    expect(await first?.search(parts[0] ?? spec, undefined, query, {}, 5, [], false)).toEqual({ stale: later });
    expect(await second?.statistics(parts[1] ?? spec, undefined)).toEqual({ stale: later });
  });
});
