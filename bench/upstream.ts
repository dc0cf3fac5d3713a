// Concurrent upstream calls (`npm run bench -- --upstream`, a few seconds): `wrangler dev` in front of a slow MCP
// server on loopback (the SDK's server over Streamable HTTP, stateless), `callers` principals each making `calls`
// calls one after the other, all callers at once, through POST /v1/sessions/:sid/execute. Every call must answer (no
// caller's call cut off by another's, none skipped after others' failures) and reach the server exactly once.
import { createServer, type IncomingMessage, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { startBenchServer } from "./http.ts";
import { summarize, type Distribution } from "./stats.ts";
import { upstreamImport, type UpstreamImport } from "./upstreamImport.ts";

export type UpstreamSection =
  | { skipped: string }
  | {
    server: string;
    callers: number;
    callsPerCaller: number;
    /** Milliseconds the upstream tool waits before it answers. */
    toolMs: number;
    calls: number;
    failures: number;
    /** Up to three failures' texts. */
    failureExamples: string[];
    /** tools/call requests the upstream received: `calls` when every call ran exactly once. */
    upstreamCalls: number;
    /** Milliseconds per call, through toolgate. */
    latency: Distribution;
    wallMs: number;
    /** A large upstream imported, refreshed unchanged and refreshed with one change (bench/upstreamImport.ts). */
    largeImport: UpstreamImport;
  };

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  const text = Buffer.concat(chunks).toString("utf8");
  return text === "" ? undefined : JSON.parse(text);
}

/** A slow MCP server: one tool, `wait`, answering after `ms` milliseconds; counts the calls it gets. */
async function slowUpstream(): Promise<{ url: string; calls: () => number; close: () => Promise<void> }> {
  let calls = 0;
  const mcpServer = (): Server => {
    const server = new Server({ name: "bench-slow-upstream", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: "wait", description: "Answers after ms milliseconds.", inputSchema: { type: "object", properties: { ms: { type: "integer" } } }, annotations: { readOnlyHint: true } }],
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      calls += 1;
      await sleep(Number(request.params.arguments?.ms ?? 0));
      return { content: [{ type: "text", text: "waited" }] };
    });
    return server;
  };
  const served = await serveMcp(mcpServer);
  return { ...served, calls: () => calls };
}

/** Serves MCP over stateless Streamable HTTP on loopback: a server (from `mcpServer`) and a transport per request. */
export async function serveMcp(mcpServer: () => Server): Promise<{ url: string; close: () => Promise<void> }> {
  const http: HttpServer = createServer((request, response) => {
    void (async () => {
      // Stateless: a server and a transport per request, as a server that keeps no MCP session does.
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      await mcpServer().connect(transport);
      await transport.handleRequest(request, response, request.method === "POST" ? await readBody(request) : undefined);
    })().catch(() => {
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () => new Promise((resolve) => {
      http.closeAllConnections();
      http.close(() => resolve());
    }),
  };
}

/** The large upstream: 10,000 tools over 50 pages of tools/list. */
const LARGE_UPSTREAM = { tools: 10_000, pages: 50 } as const;

export async function upstreamSection(options: {
  repository: string;
  callers: number;
  callsPerCaller: number;
  toolMs: number;
  log: (message: string) => void;
}): Promise<UpstreamSection> {
  const { repository, callers, callsPerCaller, toolMs, log } = options;
  const upstream = await slowUpstream();
  const server = await startBenchServer(repository, "off", log);
  const { base } = server;
  try {
    await server.ready();
    const owner = await server.token({ owner: true }, "bench-owner");
    const put = await fetch(`${base}/v1/upstreams/slow`, {
      method: "PUT",
      headers: { authorization: `Bearer ${owner}`, "content-type": "application/json" },
      body: JSON.stringify({ url: upstream.url, allowPrivate: true, visibility: "public", timeoutMs: 20_000 }),
    });
    const added: { upstream?: { status?: string } } = await put.json();
    if (put.status !== 201 || added.upstream?.status !== "ok") return { skipped: `PUT /v1/upstreams/slow answered ${put.status}: ${JSON.stringify(added).slice(0, 300)}` };
    const tokens = await Promise.all(Array.from({ length: callers }, (_, n) => server.token({ level: 0 }, `bench-caller-${n}`)));
    log(`upstream: ${callers} callers x ${callsPerCaller} calls of a ${toolMs} ms tool`);
    const latencies: number[] = [];
    const failures: string[] = [];
    const started = performance.now();
    await Promise.all(tokens.map(async (bearer, caller) => {
      for (let call = 0; call < callsPerCaller; call++) {
        const begun = performance.now();
        const response = await fetch(`${base}/v1/sessions/bench-upstream-${caller}/execute`, {
          method: "POST",
          headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
          body: JSON.stringify({ name: "slow__wait", arguments: { ms: toolMs } }),
        });
        const answer: { isError?: boolean; content?: string } = await response.json();
        latencies.push(performance.now() - begun);
        if (!response.ok || answer.isError !== false) failures.push(`${response.status} ${(answer.content ?? JSON.stringify(answer)).slice(-300)}`);
      }
    }));
    const wallMs = performance.now() - started;
    log(`upstream: importing ${LARGE_UPSTREAM.tools} tools over ${LARGE_UPSTREAM.pages} pages`);
    const largeImport = await upstreamImport(base, owner, LARGE_UPSTREAM.tools, LARGE_UPSTREAM.pages);
    return {
      server: `wrangler dev on ${base}, upstream ${upstream.url}`,
      callers,
      callsPerCaller,
      toolMs,
      calls: callers * callsPerCaller,
      failures: failures.length,
      failureExamples: failures.slice(0, 3),
      upstreamCalls: upstream.calls(),
      latency: summarize(latencies),
      wallMs: Math.round(wallMs),
      largeImport,
    };
  } catch (error) {
    return { skipped: server.failure(error) };
  } finally {
    await server.stop();
    await upstream.close();
  }
}
