// The Worker: the playground page or the router (docs/DESIGN.md, "Flows"), and the Durable Object classes that its
// bindings name.
import { preflight, withCors } from "./http/cors.ts";
import { toErrorResponse } from "./http/errors.ts";
import { createRouter, isApiPath, ROUTES, staticAsset } from "./http/router.ts";
import { OAUTH_PATHS } from "./http/oauth/paths.ts";
import { loadSettings } from "./isolate/settings.ts";
import { provideBundledTokenRanks } from "./isolate/tokenRanks.ts";
import { provideBundledWarmUpSnapshots, warmUpIsolate } from "./isolate/warmUp.ts";
import { provideBundledWordVectors } from "./isolate/wordVectors.ts";
import { env as startEnv } from "cloudflare:workers";
import { MCP_PATHS, MCP_ROUTES } from "./mcp/routes.ts";

export { LearningObject } from "./durable/learningObject.ts";
export { PrincipalObject } from "./durable/principalObject.ts";
export { RateLimiterObject } from "./durable/rateLimiterObject.ts";
export { RegistryObject } from "./durable/registryObject.ts";
export { SearchShardObject } from "./durable/searchShardObject.ts";
export { SessionObject } from "./durable/sessionObject.ts";
export { UpstreamObject } from "./durable/upstreamObject.ts";

// The ranked mode's word vectors and the tokenizer's ranks, for this isolate (its Durable Objects' too): decoded on
// first use.
provideBundledWordVectors();
provideBundledTokenRanks();
provideBundledWarmUpSnapshots();

// The configured search mode's code run once at the isolate's start, on a small catalog of its own, rather than by its
// first request (src/core/turn/warmUp.ts): a start's CPU is no request's.
await warmUpIsolate(startEnv);

// Two faces on one router: the HTTP API (/v1) and MCP (/mcp), each behind the same caller stage.
const router = createRouter([...ROUTES, ...MCP_ROUTES]);

export default {
  async fetch(request, env, ctx) {
    try {
      const { pathname } = new URL(request.url);
      // The authorization server (AUTH_MODE "oauth") answers for itself: its endpoints have their own CORS and errors.
      // Loaded on its first request, as the MCP face is: the provider library costs the API's requests nothing.
      if (OAUTH_PATHS.includes(pathname)) return await (await import("./http/oauth/routes.ts")).oauthFetch(request, env, ctx);
      if (!isApiPath(pathname, MCP_PATHS)) return await staticAsset(request, env);
      const loaded = loadSettings(env);
      const settings = loaded.ok ? loaded.settings : undefined;
      const early = settings && preflight(request, settings);
      if (early) return early;
      const response: unknown = await router.fetch(request, env, ctx);
      if (!(response instanceof Response)) throw new Error("a route answered no Response");
      return settings ? withCors(response, request, settings) : response;
    } catch (error) {
      return toErrorResponse(error, request);
    }
  },
} satisfies ExportedHandler<Env>;
