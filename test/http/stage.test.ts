// The caller stage in front of every route: driven by the router's own table, so that a route added later is covered
// without touching this test. Without a token (anonymous access off) every route but health answers 401; the static
// page needs no caller either.
import { describe, expect, it } from "vitest";
import { ROUTES } from "../../src/http/router.ts";
import { anError, errorOf, fetchWithEnv, request } from "./helpers.ts";

/** The routes that answer without a caller; any other open route must be added here on purpose. */
const OPEN_PATHS = ["/v1/health"];
const ANONYMOUS_OFF = { ALLOW_ANONYMOUS: "false" };

/** The route's path with every `:parameter` filled in with a valid value. */
function concrete(path: string): string {
  return path.replaceAll(/:[A-Za-z]+/g, "p1");
}

const calls = ROUTES.flatMap((route) => route.methods.map(([method]) => ({ method, path: route.path })));

describe("the caller stage", () => {
  it("is left out only for the open routes", () => {
    expect(ROUTES.filter((route) => route.open === true).map((route) => route.path)).toEqual(OPEN_PATHS);
    expect(calls.length).toBeGreaterThan(10);
  });

  it.each(calls.filter((call) => !OPEN_PATHS.includes(call.path)))(
    "$method $path answers 401 without a token",
    async ({ method, path }) => {
      const body = method === "GET" || method === "DELETE" ? undefined : {};
      const response = await fetchWithEnv(ANONYMOUS_OFF, request(concrete(path), { method, body }));
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="toolgate"');
      expect(await errorOf(response)).toMatchObject(anError(401, "unauthorized"));
    },
  );

  it("lets health and the static page answer without one", async () => {
    for (const path of OPEN_PATHS) expect((await fetchWithEnv(ANONYMOUS_OFF, request(path))).status).toBe(200);
    const page = await fetchWithEnv(ANONYMOUS_OFF, request("/"));
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
  });
});
