// The Worker: the HTTP API of SPEC §4, and the Durable Object classes its bindings name.
import { toErrorResponse } from "./http/errors.ts";
import { createRouter, isApiPath, staticAsset } from "./http/router.ts";

export { PrincipalObject } from "./durable/principal.ts";
export { RateLimiterObject } from "./durable/rateLimiter.ts";
export { RegistryObject } from "./durable/registry.ts";
export { SessionObject } from "./durable/session.ts";

const router = createRouter();

export default {
  async fetch(request, env, ctx) {
    try {
      if (!isApiPath(new URL(request.url).pathname)) return await staticAsset(request, env);
      const response: unknown = await router.fetch(request, env, ctx);
      if (response instanceof Response) return response;
      throw new Error("a route answered no Response");
    } catch (error) {
      return toErrorResponse(error, request);
    }
  },
} satisfies ExportedHandler<Env>;
