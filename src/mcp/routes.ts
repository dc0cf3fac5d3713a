// The MCP face's routes, joined to the API's route table by the Worker's entry (src/index.ts), so that the HTTP layer
// never imports the face. The server and the SDK under it load on the first /mcp request of an isolate: the API's
// requests never pay for evaluating them (zod and the SDK are most of the bundle). `/mcp` is open in the table
// because the face runs the same caller stage itself (callerStage, in handler.ts) after its Origin check, to answer
// in JSON-RPC with the MCP authorization challenge; the protected-resource metadata is public by RFC 9728.
import type { Handler, RouteSpec } from "../http/router.ts";
import { requireSettings } from "../http/stage.ts";
import { MCP_PATH, protectedResourceMetadata, RESOURCE_METADATA_PATH } from "./http.ts";

const mcpPost: Handler = async (request, env, ctx) => (await import("./handler.ts")).mcpPost(request, env, ctx);
const mcpDelete: Handler = async (request, env, ctx) => (await import("./handler.ts")).mcpDelete(request, env, ctx);
const resourceMetadata: Handler = (request, env) => protectedResourceMetadata(request, requireSettings(env));

/**
 * The protected-resource metadata, plain (the whole gateway) and suffixed with a resource's path (both forms of
 * RFC 9728): /mcp, and the HTTP API under /v1.
 */
export const MCP_METADATA_PATHS = [RESOURCE_METADATA_PATH, `${RESOURCE_METADATA_PATH}${MCP_PATH}`, `${RESOURCE_METADATA_PATH}/v1`] as const;

export const MCP_ROUTES: readonly RouteSpec[] = [
  // Streamable HTTP without a GET stream: every request has its own server (405 is the spec's answer to GET).
  { path: MCP_PATH, open: true, methods: [["POST", mcpPost], ["DELETE", mcpDelete]] },
  ...MCP_METADATA_PATHS.map((path): RouteSpec => ({ path, open: true, methods: [["GET", resourceMetadata]] })),
];

/** Every path of the face, for the entry to tell them from the playground's files. */
export const MCP_PATHS: readonly string[] = MCP_ROUTES.map((route) => route.path);
