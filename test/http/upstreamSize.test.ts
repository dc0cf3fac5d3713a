// An upstream MCP server of 10,000 tools (test/fixtures/mcp-upstream.ts, listed over 50 pages): imported whole, its
// tools found by search and run; a refresh of the unchanged server writes no row; one changed description holds that
// one tool only. A file of its own: its 10,000 tools would slow every search of the other upstream tests.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { TOOL_PAGE } from "../../src/core/upstream/toolPage.ts";
import { generatedWord } from "../fixtures/mcp-upstream.ts";
import { api, json, ownerToken, sessionId } from "./helpers.ts";

interface Detail {
  status: string;
  toolNames: { name: string }[];
  nextCursor?: string;
  tools: number;
  quarantined: number;
  lastError: string | null;
  quarantine: { name: string; reason: string; diff: { field: string }[] }[];
  rejectedTools: unknown[];
}
interface Answer {
  upstream: Detail;
  version?: number;
}

const owner = await ownerToken();
const GENERATED = 9_991;
const PAGE_SIZE = 200;

async function setState(url: string, body: Record<string, unknown>): Promise<void> {
  const response = await env.TOOL_REMOTE.fetch(url, { method: "POST", body: JSON.stringify(body) });
  expect(response.status).toBe(200);
}

async function refreshed(id: string): Promise<Answer> {
  const response = await api(`/v1/upstreams/${id}/refresh`, { method: "POST", token: owner });
  expect(response.status).toBe(200);
  return json(response);
}

async function execute(name: string, args: Record<string, unknown>): Promise<{ content: string; isError: boolean }> {
  const response = await api(`/v1/sessions/${sessionId("up-size")}/execute`, { token: owner, body: { name, arguments: args } });
  expect(response.status).toBe(200);
  return json(response);
}

describe("an upstream MCP server with 10,000 tools", () => {
  it("imports whole, is searched and run; an unchanged refresh writes no row, one changed description holds one tool", async () => {
    const key = `size-${crypto.randomUUID().slice(0, 8)}`;
    const url = `https://mcp.fixture.example/mcp-upstream/${key}`;
    // The fixture's 9 tools and 9,991 generated ones, 200 a page: 50 pages.
    await setState(`${url}/state`, { generated: GENERATED, pageSize: PAGE_SIZE });
    const put = await api(`/v1/upstreams/${key}`, { method: "PUT", token: owner, body: { url, timeoutMs: 60_000 } });
    expect(put.status).toBe(201);
    const { upstream } = await json<Answer>(put);
    expect(upstream).toMatchObject({ status: "ok", tools: 10_000, quarantined: 0, lastError: null, rejectedTools: [] });
    // The answers show one page of the tools (megabytes otherwise); the pages, followed, show each tool once.
    expect(upstream.toolNames).toHaveLength(TOOL_PAGE.defaultLimit);
    const first = await api(`/v1/upstreams/${key}`, { token: owner });
    const firstText = await first.text();
    expect(firstText.length).toBeLessThan(256 * 1024);
    const seen = new Set<string>();
    expect(firstText).toContain('"nextCursor":');
    let cursor = "";
    let pages = 0;
    do {
      const page = await json<Answer>(await api(`/v1/upstreams/${key}?limit=${TOOL_PAGE.maxLimit}${cursor === "" ? "" : `&cursor=${cursor}`}`, { token: owner }));
      for (const tool of page.upstream.toolNames) seen.add(tool.name);
      cursor = page.upstream.nextCursor ?? "";
      pages += 1;
    } while (cursor !== "" && pages < 10);
    expect([pages, seen.size]).toEqual([10_000 / TOOL_PAGE.maxLimit, 10_000]);

    const search = await api(`/v1/sessions/${sessionId("up-size")}/search`, { token: owner, body: { query: `parcels depot ${generatedWord(7_777)}`, limit: 5 } });
    const found = await json<{ tools: { name?: string; function?: { name: string } }[] }>(search);
    expect(found.tools.map((tool) => tool.function?.name ?? tool.name)).toContain(`${key}__gen_7777`);
    const ran = await execute(`${key}__gen_7777`, { shelf: 3 });
    expect(ran.isError).toBe(false);
    expect(ran.content).toContain("gen_7777: 12 parcels on shelf 3");

    const stub = env.UPSTREAM.getByName(key);
    const before = await stub.storageWrites();
    const again = await refreshed(key);
    const unchanged = await stub.storageWrites();
    // Nothing changed: no row of tools, pins, quarantine or refusals; only the head (the time of the last list).
    expect(unchanged.rows - before.rows).toBe(0);
    expect(unchanged.heads - before.heads).toBe(1);
    expect(again.upstream.tools).toBe(10_000);

    await setState(`${url}/state`, { generatedChanged: 4_321 });
    const changed = await refreshed(key);
    expect(changed.upstream).toMatchObject({ tools: 9_999, quarantined: 1 });
    expect(changed.upstream.quarantine.map((held) => [held.name, held.reason, held.diff.map((change) => change.field)])).toEqual([["gen_4321", "changed", ["description"]]]);
    const afterChange = await stub.storageWrites();
    // The held tool's registered row goes and its quarantine row comes: two rows, not 10,000.
    expect(afterChange.rows - unchanged.rows).toBe(2);
    const held = await execute(`${key}__gen_4321`, { shelf: 1 });
    expect(held.isError).toBe(true);
    expect((await execute(`${key}__gen_4320`, { shelf: 1 })).content).toContain("gen_4320: 12 parcels");

    expect((await api(`/v1/upstreams/${key}`, { method: "DELETE", token: owner })).status).toBe(200);
  }, 180_000);
});
