// The router (itty-router v5): the route table, 405 for a known path with another method, 404 otherwise, and one
// place where errors become `{"error": {"code", "message"}}`. Every route but the open ones (health) has the caller
// stage in front of its handler (stage.ts), attached here from the table: a new route cannot forget it.
import { AutoRouter } from "itty-router";
import { errorResponse, HttpError, toErrorResponse } from "./errors.ts";
import type { RouteRequest } from "./request.ts";
import { withCaller } from "./stage.ts";
import type { CallerHandler } from "./stage.ts";
import { clearMemory, health, wrapUntrusted } from "./routes/misc.ts";
import { openApiDocument } from "./openapi.ts";
import { answerApproval, approvalPage } from "./routes/approvals.ts";
import { resolveConfirmation } from "./routes/confirmations.ts";
import { execute } from "./routes/execute.ts";
import { applyLearning, deleteApplyToolLearning, deleteLearning, deleteToolLearning, getLearning } from "./routes/learning.ts";
import { prepare } from "./routes/prepare.ts";
import { search } from "./routes/search.ts";
import { stats } from "./routes/stats.ts";
import { deleteContext, deleteTool, listTools, putTool, putTools } from "./routes/tools.ts";
import { acceptUpstream, deleteUpstream, getUpstream, listUpstreams, putUpstream, refreshUpstream } from "./routes/upstreams.ts";
import { clientMetadataDocument, connectLink, connectPage, deleteGrant, oauthCallback } from "./routes/upstreamGrants.ts";

export type Handler = (request: RouteRequest, env: Env, ctx?: ExecutionContext) => Response | Promise<Response>;
export type Method = "GET" | "POST" | "PUT" | "DELETE";

function methodNotAllowed(allowed: readonly Method[]): Handler {
  return (request) =>
    errorResponse(
      new HttpError(405, "method_not_allowed", `${request.method} is not allowed here; use ${allowed.join(", ")}`, {
        Allow: allowed.join(", "),
      }),
    );
}

const notFound = (): Response => errorResponse(new HttpError(404, "not_found", "no such route"));

/** Whether a path belongs to the API or to another face's `paths` (everything else is the playground's files). */
export function isApiPath(pathname: string, paths: readonly string[] = []): boolean {
  return pathname === "/v1" || pathname.startsWith("/v1/") || paths.includes(pathname);
}

/** Outside /v1 the playground's static files answer (when the assets did not already, in front of the Worker). */
export async function staticAsset(request: Request, env: Env): Promise<Response> {
  if (request.method !== "GET" && request.method !== "HEAD") {
    return errorResponse(new HttpError(405, "method_not_allowed", `${request.method} is not allowed here; use GET`, { Allow: "GET, HEAD" }));
  }
  const response = await env.ASSETS.fetch(request);
  return response.status === 404 ? notFound() : response;
}

/** A route: its path (itty syntax, `:name` for a parameter) and a handler per method. */
export type RouteSpec =
  /** Open: no caller needed (its handler gets the env). */
  | { path: string; open: true; methods: readonly (readonly [Method, Handler])[] }
  /** Every other route: the caller stage runs first, and the handler gets the Call. */
  | { path: string; open?: false; methods: readonly (readonly [Method, CallerHandler])[] };

/** Every route of the API (docs/http-api.md describes them). */
export const ROUTES: readonly RouteSpec[] = [
  { path: "/v1/health", open: true, methods: [["GET", health]] },
  { path: "/v1/openapi.json", open: true, methods: [["GET", () => Response.json(openApiDocument())]] },
  { path: "/v1/tools", methods: [["GET", listTools], ["PUT", putTools]] },
  { path: "/v1/tools/:name", methods: [["PUT", putTool], ["DELETE", deleteTool]] },
  { path: "/v1/contexts/:id", methods: [["DELETE", deleteContext]] },
  { path: "/v1/upstreams", methods: [["GET", listUpstreams]] },
  { path: "/v1/upstreams/:id", methods: [["GET", getUpstream], ["PUT", putUpstream], ["DELETE", deleteUpstream]] },
  { path: "/v1/upstreams/:id/refresh", methods: [["POST", refreshUpstream]] },
  { path: "/v1/upstreams/:id/accept", methods: [["POST", acceptUpstream]] },
  // Each user's own grant to an OAuth upstream: the link (POST) and the grant (DELETE) are the caller's; the browser's
  // side (the link's open, the callback, the client metadata document) carries no bearer token: the sealed ticket and
  // state are its credentials (routes/upstreamGrants.ts).
  { path: "/v1/upstreams/:id/connect", methods: [["POST", connectLink]] },
  { path: "/v1/upstreams/:id/grant", methods: [["DELETE", deleteGrant]] },
  { path: "/v1/upstreams/:id/oauth/connect", open: true, methods: [["GET", connectPage]] },
  { path: "/v1/upstreams/:id/oauth/callback", open: true, methods: [["GET", oauthCallback]] },
  { path: "/v1/upstreams/:id/oauth/client.json", open: true, methods: [["GET", clientMetadataDocument]] },
  { path: "/v1/sessions/:sid/prepare", methods: [["POST", prepare]] },
  { path: "/v1/sessions/:sid/search", methods: [["POST", search]] },
  { path: "/v1/sessions/:sid/execute", methods: [["POST", execute]] },
  { path: "/v1/sessions/:sid/confirmations/:id", methods: [["POST", resolveConfirmation]] },
  // The approval page of a held call: its token is its credential (approvalLinks.ts), so no caller stage.
  { path: "/v1/approvals/:token", open: true, methods: [["GET", approvalPage], ["POST", answerApproval]] },
  { path: "/v1/memory/clear", methods: [["POST", clearMemory]] },
  { path: "/v1/untrusted/wrap", methods: [["POST", wrapUntrusted]] },
  { path: "/v1/stats", methods: [["GET", stats]] },
  { path: "/v1/learning", methods: [["GET", getLearning], ["DELETE", deleteLearning]] },
  // A tool named `apply` is forgotten here: this route, matched first, would answer its DELETE with 405.
  { path: "/v1/learning/apply", methods: [["POST", applyLearning], ["DELETE", deleteApplyToolLearning]] },
  { path: "/v1/learning/:tool", methods: [["DELETE", deleteToolLearning]] },
];

/** The route's handlers as the router runs them: the caller stage attached to all of a route that is not open. */
function handlersOf(route: RouteSpec): (readonly [Method, Handler])[] {
  if (route.open === true) return [...route.methods];
  return route.methods.map(([method, handler]) => [method, withCaller(handler)] as const);
}

export function createRouter(routes: readonly RouteSpec[] = ROUTES) {
  const router = AutoRouter<RouteRequest, [Env, ExecutionContext]>({
    catch: (error, request) => toErrorResponse(error, request),
    missing: notFound,
  });
  for (const route of routes) {
    const { path } = route;
    const methods = handlersOf(route);
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
