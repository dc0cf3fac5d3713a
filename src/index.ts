import { DurableObject } from "cloudflare:workers";

export class SessionObject extends DurableObject<Env> {}
export class RegistryObject extends DurableObject<Env> {}
export class PrincipalObject extends DurableObject<Env> {}
export class RateLimiterObject extends DurableObject<Env> {}

export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === "/v1/health") return Response.json({ ok: true, version: "0.1.0" });
    return Response.json({ error: { code: "not_found", message: "no such route" } }, { status: 404 });
  },
} satisfies ExportedHandler<Env>;
