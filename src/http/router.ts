// The router (itty-router v5): every route of SPEC §4, 405 for a known path with another method, 404 otherwise,
// and one place where errors become `{"error": {"code", "message"}}`.
import { AutoRouter } from "itty-router";
import { MCP_PATH, protectedResourceMetadata, RESOURCE_METADATA_PATH } from "../mcp/http.ts";
import { errorResponse, HttpError, toErrorResponse } from "./errors.ts";
import type { RouteRequest } from "./request.ts";
import { requireSettings } from "./context.ts";
import { clearMemory, health, wrapUntrusted } from "./routes/misc.ts";
import { resolveConfirmation } from "./routes/confirmations.ts";
import { execute } from "./routes/execute.ts";
import { prepare } from "./routes/prepare.ts";
import { search } from "./routes/search.ts";
import { deleteContext, deleteTool, listTools, putTool, putTools } from "./routes/tools.ts";

type Handler = (request: RouteRequest, env: Env) => Response | Promise<Response>;
type Method = "GET" | "POST" | "PUT" | "DELETE";

function methodNotAllowed(allowed: readonly Method[]): Handler {
  return (request) =>
    errorResponse(
      new HttpError(405, "method_not_allowed", `${request.method} is not allowed here; use ${allowed.join(", ")}`, {
        Allow: allowed.join(", "),
      }),
    );
}

const notFound = (): Response => errorResponse(new HttpError(404, "not_found", "no such route"));

/** Whether a path belongs to the API or the MCP server (everything else is the playground's static files). */
export function isApiPath(pathname: string): boolean {
  return pathname === "/v1" || pathname.startsWith("/v1/") || pathname === MCP_PATH ||
    pathname === RESOURCE_METADATA_PATH || pathname === `${RESOURCE_METADATA_PATH}${MCP_PATH}`;
}

/** Outside /v1 the playground's static files answer (when the assets did not already, in front of the Worker). */
export async function staticAsset(request: Request, env: Env): Promise<Response> {
  if (request.method !== "GET" && request.method !== "HEAD") {
    return errorResponse(new HttpError(405, "method_not_allowed", `${request.method} is not allowed here; use GET`, { Allow: "GET, HEAD" }));
  }
  const response = await env.ASSETS.fetch(request);
  return response.status === 404 ? notFound() : response;
}

/**
 * The MCP server (src/mcp) and the SDK under it load on the first /mcp request of an isolate, so that the API's
 * requests never pay for evaluating them (zod and the SDK are most of the bundle).
 */
const mcpPost: Handler = async (request, env) => (await import("../mcp/handler.ts")).mcpPost(request, env);
const mcpDelete: Handler = async (request, env) => (await import("../mcp/handler.ts")).mcpDelete(request, env);
const resourceMetadata: Handler = (request, env) => protectedResourceMetadata(request, requireSettings(env));

interface RouteSpec {
  path: string;
  methods: [Method, Handler][];
}

export function createRouter() {
  const router = AutoRouter<RouteRequest, [Env, ExecutionContext]>({
    catch: (error, request) => toErrorResponse(error, request),
    missing: notFound,
  });
  const routes: RouteSpec[] = [
    { path: "/v1/health", methods: [["GET", health]] },
    { path: "/v1/tools", methods: [["GET", listTools], ["PUT", putTools]] },
    { path: "/v1/tools/:name", methods: [["PUT", putTool], ["DELETE", deleteTool]] },
    { path: "/v1/contexts/:id", methods: [["DELETE", deleteContext]] },
    { path: "/v1/sessions/:sid/prepare", methods: [["POST", prepare]] },
    { path: "/v1/sessions/:sid/search", methods: [["POST", search]] },
    { path: "/v1/sessions/:sid/execute", methods: [["POST", execute]] },
    { path: "/v1/sessions/:sid/confirmations/:id", methods: [["POST", resolveConfirmation]] },
    { path: "/v1/memory/clear", methods: [["POST", clearMemory]] },
    { path: "/v1/untrusted/wrap", methods: [["POST", wrapUntrusted]] },
    // MCP Streamable HTTP (src/mcp): no GET stream, since every request has its own server (405 is the spec's answer).
    { path: MCP_PATH, methods: [["POST", mcpPost], ["DELETE", mcpDelete]] },
    { path: RESOURCE_METADATA_PATH, methods: [["GET", resourceMetadata]] },
    { path: `${RESOURCE_METADATA_PATH}${MCP_PATH}`, methods: [["GET", resourceMetadata]] },
  ];
  for (const { path, methods } of routes) {
    for (const [method, handler] of methods) {
      switch (method) {
        case "GET": router.get(path, handler); break;
        case "POST": router.post(path, handler); break;
        case "PUT": router.put(path, handler); break;
        case "DELETE": router.delete(path, handler); break;
      }
    }
    router.all(path, methodNotAllowed(methods.map(([method]) => method)));
  }
  return router;
}
