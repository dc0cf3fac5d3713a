// The caller stage in front of every route of both faces: driven by the route tables themselves (the API's and MCP's,
// as the Worker joins them), so that a route added later is covered without touching this test. Without a token
// (anonymous access off) every route but health and the protected-resource metadata answers 401; the static page
// needs no caller either.
import { describe, expect, it } from "vitest";
import { ROUTES } from "../../src/http/router.ts";
import { MCP_METADATA_PATHS, MCP_ROUTES } from "../../src/mcp/routes.ts";
import { fetchWithEnv, request } from "./helpers.ts";

/** The routes that answer without a caller; any other open route must be added here on purpose. */
const OPEN_PATHS: readonly string[] = ["/v1/health", "/v1/openapi.json", ...MCP_METADATA_PATHS];
/** Open, with a credential of their own in the path (test/http/approvalLinks.test.ts covers them). */
const LINK_PATHS: readonly string[] = [
  "/v1/approvals/:token",
  // A sign-in to an OAuth upstream: the link's ticket and the state are the credentials, and the client metadata
  // document is public by design (test/http/upstreamOAuth.test.ts covers them).
  "/v1/upstreams/:id/oauth/connect", "/v1/upstreams/:id/oauth/callback", "/v1/upstreams/:id/oauth/client.json",
];
/** Open in the table because the face runs the same stage itself, after its Origin check (src/mcp/handler.ts). */
const SELF_STAGED = ["/mcp"];
const TABLE = [...ROUTES, ...MCP_ROUTES];
const ANONYMOUS_OFF = { ALLOW_ANONYMOUS: "false" };

/** The route's path with every `:parameter` filled in with a valid value. */
function concrete(path: string): string {
  return path.replaceAll(/:[A-Za-z]+/g, "p1");
}

/** The error code of either face's answer: `{error: {code}}` (the API) or JSON-RPC's `{error: {data: {code}}}` (MCP). */
async function errorCodeOf(response: Response): Promise<unknown> {
  const body: { error?: { code?: unknown; data?: { code?: unknown } } } = await response.json();
  return typeof body.error?.code === "string" ? body.error.code : body.error?.data?.code;
}

const calls = TABLE.flatMap((route) => route.methods.map(([method]) => ({ method, path: route.path })));

describe("the caller stage", () => {
  it("is left out only for the open routes", () => {
    expect(TABLE.filter((route) => route.open === true).map((route) => route.path).toSorted()).toEqual([...OPEN_PATHS, ...LINK_PATHS, ...SELF_STAGED].toSorted());
    expect(calls.length).toBeGreaterThan(10);
  });

  it.each(calls.filter((call) => !OPEN_PATHS.includes(call.path) && !LINK_PATHS.includes(call.path)))(
    "$method $path answers 401 without a token",
    async ({ method, path }) => {
      const body = method === "GET" || method === "DELETE" ? undefined : {};
      const response = await fetchWithEnv(ANONYMOUS_OFF, request(concrete(path), { method, body }));
      // MCP's challenge also names its resource metadata (the MCP authorization spec).
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer realm="toolgate"(, resource_metadata="[^"]+")?$/);
      expect(response.status).toBe(401);
      expect(await errorCodeOf(response)).toBe("unauthorized");
    },
  );

  it("lets health and the static page answer without one", async () => {
    for (const path of OPEN_PATHS) expect((await fetchWithEnv(ANONYMOUS_OFF, request(path))).status).toBe(200);
    const page = await fetchWithEnv(ANONYMOUS_OFF, request("/"));
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
  });
});
