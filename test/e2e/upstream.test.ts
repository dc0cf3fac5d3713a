// toolgate in front of an MCP server nobody here wrote: @modelcontextprotocol/server-everything (a pinned dev
// dependency) in its Streamable HTTP mode on loopback, registered as an upstream of `wrangler dev`. Its tools are
// found by search_tools, its `echo` runs through toolgate's guard, and the answer comes back wrapped. Offline: both
// servers run from node_modules.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { texts } from "../../src/core/locale.ts";
import { sanitizeSource } from "../../src/core/boundary/untrusted.ts";
import { devToken, freePort, ROOT, startDevServer } from "./devServer.ts";
import type { DevServer } from "./devServer.ts";

const UPSTREAM_ID = "everything";
const SERVER = join(ROOT, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");

let gateway: DevServer | undefined;
interface Everything {
  child: ChildProcess;
  url: string;
  output: () => string;
}
let everything: Everything | undefined;
/** The same server in its legacy HTTP+SSE mode: toolgate falls back to that transport. */
let legacy: Everything | undefined;
let ownerToken = "";

/** `PORT=<port> mcp-server-everything <mode>`, on the pinned Node, until it answers. */
async function startEverything(mode: "streamableHttp" | "sse"): Promise<Everything> {
  const port = await freePort();
  const child = spawn(join(ROOT, "node_modules", ".bin", "node"), [SERVER, mode], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString("utf8")).slice(-10_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const url = `http://127.0.0.1:${port}/${mode === "sse" ? "sse" : "mcp"}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      // Any answer means it listens.
      const response = await fetch(url, { method: "POST", body: "{}", signal: AbortSignal.timeout(1_000) });
      await response.body?.cancel();
      return { child, url, output: () => output };
    } catch {
      if (Date.now() > deadline || child.exitCode !== null) {
        child.kill("SIGKILL");
        throw new Error(`server-everything did not start:\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

interface UpstreamDetail {
  status: string;
  tools: number;
  transport: string;
  toolNames: { name: string; upstreamName: string }[];
}
interface Answer {
  upstream?: UpstreamDetail;
  upstreams?: unknown[];
  tools?: { name?: string; function?: { name: string } }[];
  content?: string;
  isError?: boolean;
}

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: Answer }> {
  if (!gateway) throw new Error("no gateway");
  const init: RequestInit = { method, headers: { authorization: `Bearer ${ownerToken}`, "content-type": "application/json" } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const response = await fetch(`${gateway.origin}${path}`, init);
  const json: Answer = await response.json();
  return { status: response.status, json };
}

function toolNames(answer: Answer): (string | undefined)[] {
  return (answer.tools ?? []).map((tool) => tool.function?.name ?? tool.name);
}

beforeAll(async () => {
  [gateway, everything, legacy] = await Promise.all([startDevServer(), startEverything("streamableHttp"), startEverything("sse")]);
  ownerToken = await devToken("upstream-e2e-owner", { owner: true });
});

afterAll(async () => {
  await gateway?.stop();
  everything?.child.kill("SIGTERM");
  legacy?.child.kill("SIGTERM");
});

describe("server-everything as an upstream of wrangler dev", () => {
  it("is registered and listed", async () => {
    if (!everything) throw new Error("no server");
    const put = await call("PUT", `/v1/upstreams/${UPSTREAM_ID}`, { url: everything.url, allowPrivate: true, timeoutMs: 20_000 });
    const upstream = put.json.upstream;
    if (put.status !== 201 || !upstream) throw new Error(`PUT answered ${put.status}: ${JSON.stringify(put.json)}\n${everything.output()}`);
    if (upstream.status !== "ok") throw new Error(`not listed: ${JSON.stringify(upstream)}\n${everything.output()}`);
    expect(upstream).toMatchObject({ status: "ok", transport: "streamable-http" });
    expect(upstream.tools).toBeGreaterThan(5);
    // Restricted by default (no visibility given): the owner's token runs them, a level-0 caller would not.
    expect(upstream.toolNames).toContainEqual(expect.objectContaining({ name: `${UPSTREAM_ID}__echo`, upstreamName: "echo", visibility: "restricted" }));
    const listed = await call("GET", "/v1/upstreams");
    expect(listed.json.upstreams).toContainEqual(expect.objectContaining({ id: UPSTREAM_ID, status: "ok", tools: upstream.tools }));
  });

  it("has its tools found by search_tools", async () => {
    const found = await call("POST", "/v1/sessions/upstream-e2e/search", { query: "echo" });
    expect(found.status).toBe(200);
    expect(toolNames(found.json)).toContain(`${UPSTREAM_ID}__echo`);
  });

  it("runs its echo through toolgate's guard and wraps the answer", async () => {
    const executed = await call("POST", "/v1/sessions/upstream-e2e/execute", { name: `${UPSTREAM_ID}__echo`, arguments: { message: "hello from toolgate" } });
    expect(executed.status).toBe(200);
    if (executed.json.isError !== false) throw new Error(`echo failed: ${JSON.stringify(executed.json)}`);
    const content = String(executed.json.content);
    expect(content).toContain("hello from toolgate");
    // The untrusted-content banner first, naming the upstream and the tool as the source.
    expect(content.startsWith(texts("en").untrustedBanner(sanitizeSource(`mcp ${UPSTREAM_ID} echo`)))).toBe(true);
    // The guard checked the arguments against the upstream's schema before anything was sent.
    const refused = await call("POST", "/v1/sessions/upstream-e2e/execute", { name: `${UPSTREAM_ID}__echo`, arguments: { message: 5 } });
    expect(refused.json.isError).toBe(true);
  });

  it("falls back to the legacy HTTP+SSE transport for a server that refuses Streamable HTTP", async () => {
    if (!legacy) throw new Error("no legacy server");
    const put = await call("PUT", "/v1/upstreams/legacy", { url: legacy.url, allowPrivate: true, timeoutMs: 20_000 });
    const upstream = put.json.upstream;
    if (upstream?.status !== "ok") throw new Error(`not listed: ${JSON.stringify(put.json)}\n${legacy.output()}`);
    expect(upstream.transport).toBe("sse");
    const executed = await call("POST", "/v1/sessions/upstream-e2e/execute", { name: "legacy__echo", arguments: { message: "over sse" } });
    if (executed.json.isError !== false) throw new Error(`echo failed: ${JSON.stringify(executed.json)}\n${legacy.output()}`);
    expect(executed.json.content?.startsWith(texts("en").untrustedBanner(sanitizeSource("mcp legacy echo")))).toBe(true);
    expect(executed.json.content).toContain("over sse");
    expect((await call("DELETE", "/v1/upstreams/legacy")).status).toBe(200);
  });

  it("takes its tools away when removed", async () => {
    const removed = await call("DELETE", `/v1/upstreams/${UPSTREAM_ID}`);
    expect(removed.status).toBe(200);
    const found = await call("POST", "/v1/sessions/upstream-e2e-2/search", { query: "echo" });
    expect(toolNames(found.json)).not.toContain(`${UPSTREAM_ID}__echo`);
  });
});
