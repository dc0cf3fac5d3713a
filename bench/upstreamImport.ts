// Importing a large upstream (part of `npm run bench -- --upstream`): wrangler dev in front of an MCP server on
// loopback that lists `tools` tools over `pages` pages of tools/list. Times PUT /v1/upstreams/:id (list, pin, register),
// a refresh of the unchanged server, and a refresh after one tool's description changed (that one tool is held).
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { serveMcp } from "./upstream.ts";

export interface UpstreamImport {
  tools: number;
  pages: number;
  /** PUT /v1/upstreams/:id: every page listed, every tool pinned and registered. */
  importMs: number;
  imported: number;
  /** POST refresh, nothing changed (nothing written but the time of the list). */
  unchangedRefreshMs: number;
  /** POST refresh after one description changed. */
  changedRefreshMs: number;
  /** Tools registered and held after the changed refresh: tools - 1 and 1 when only the changed tool is held. */
  afterChange: { tools: number; quarantined: number };
}

/** An MCP server listing `tools` generated tools, `pageSize` a page; `change(n)` alters tool n's description. */
async function largeUpstream(tools: number, pageSize: number): Promise<{ url: string; change: (n: number) => void; close: () => Promise<void> }> {
  let changed = -1;
  const tool = (n: number): Record<string, unknown> => ({
    name: `tool_${n}`,
    description: `Reads record ${n} of the inventory${n === changed ? ", with its history" : ""}.`,
    inputSchema: { type: "object", properties: { id: { type: "string" } } },
    annotations: { readOnlyHint: true },
  });
  const mcpServer = (): Server => {
    const server = new Server({ name: "bench-large-upstream", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, (request) => {
      const start = Number(request.params?.cursor ?? "0");
      const end = Math.min(tools, start + pageSize);
      return { tools: Array.from({ length: end - start }, (_, i) => tool(start + i)), ...(end < tools ? { nextCursor: String(end) } : {}) };
    });
    return server;
  };
  const served = await serveMcp(mcpServer);
  return {
    ...served,
    change: (n) => {
      changed = n;
    },
  };
}

interface Answer {
  upstream?: { status?: string; tools?: number; quarantined?: number };
}

export async function upstreamImport(base: string, owner: string, tools: number, pages: number): Promise<UpstreamImport> {
  const upstream = await largeUpstream(tools, Math.ceil(tools / pages));
  const headers = { authorization: `Bearer ${owner}`, "content-type": "application/json" };
  const timed = async (path: string, init: RequestInit): Promise<{ ms: number; answer: Answer }> => {
    const started = performance.now();
    const response = await fetch(`${base}${path}`, { ...init, headers });
    const answer: Answer = await response.json();
    if (!response.ok || answer.upstream?.status !== "ok") throw new Error(`${path} answered ${response.status}: ${JSON.stringify(answer).slice(0, 300)}`);
    return { ms: Math.round(performance.now() - started), answer };
  };
  try {
    const put = await timed("/v1/upstreams/large", { method: "PUT", body: JSON.stringify({ url: upstream.url, allowPrivate: true, timeoutMs: 60_000 }) });
    const unchanged = await timed("/v1/upstreams/large/refresh", { method: "POST" });
    upstream.change(Math.floor(tools / 2));
    const changed = await timed("/v1/upstreams/large/refresh", { method: "POST" });
    await fetch(`${base}/v1/upstreams/large`, { method: "DELETE", headers });
    return {
      tools,
      pages,
      importMs: put.ms,
      imported: put.answer.upstream?.tools ?? 0,
      unchangedRefreshMs: unchanged.ms,
      changedRefreshMs: changed.ms,
      afterChange: { tools: changed.answer.upstream?.tools ?? 0, quarantined: changed.answer.upstream?.quarantined ?? 0 },
    };
  } finally {
    await upstream.close();
  }
}
