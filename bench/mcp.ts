// MCP round trips for the HTTP load (bench/http.ts): raw Streamable HTTP requests to /mcp, as a client sends them.
// One "round" is what a client does to reach its first search: initialize, notifications/initialized, tools/list and
// a tools/call of search_tools (an SSE answer, read to its end).

const ACCEPT = "application/json, text/event-stream";
const VERSION = "2025-11-25";

function post(base: string, bearer: string, body: unknown, sessionId?: string): Promise<Response> {
  return fetch(`${base}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${bearer}`,
      "content-type": "application/json",
      accept: ACCEPT,
      ...(sessionId === undefined ? {} : { "mcp-session-id": sessionId, "mcp-protocol-version": VERSION }),
    },
    body: JSON.stringify(body),
  });
}

/** Opens an MCP session (initialize, then notifications/initialized); its id. */
export async function openMcpSession(base: string, bearer: string): Promise<string> {
  const init = await post(base, bearer, {
    jsonrpc: "2.0", id: 1, method: "initialize",
    params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: "bench", version: "0" } },
  });
  await init.arrayBuffer();
  const sessionId = init.headers.get("mcp-session-id");
  if (!init.ok || sessionId === null) throw new Error(`MCP initialize answered ${init.status}`);
  const initialized = await post(base, bearer, { jsonrpc: "2.0", method: "notifications/initialized" }, sessionId);
  await initialized.arrayBuffer();
  return sessionId;
}

export function mcpListTools(base: string, bearer: string, sessionId: string): Promise<Response> {
  return post(base, bearer, { jsonrpc: "2.0", id: 2, method: "tools/list" }, sessionId);
}

export function mcpSearch(base: string, bearer: string, sessionId: string, query: string): Promise<Response> {
  return post(base, bearer, { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "search_tools", arguments: { query } } }, sessionId);
}

/** A whole round (a new session each time); the last answer, for the load's status count. */
export async function mcpRound(base: string, bearer: string, query: string): Promise<Response> {
  const sessionId = await openMcpSession(base, bearer);
  const listed = await mcpListTools(base, bearer, sessionId);
  await listed.arrayBuffer();
  if (!listed.ok) return listed;
  return mcpSearch(base, bearer, sessionId, query);
}
