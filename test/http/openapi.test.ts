// GET /v1/openapi.json cannot drift from the code: every route of both tables is documented and every documented
// operation is a route, every ErrorCode is listed by some operation, and every documented example request is sent
// through the real router and gets the status the document gives it.
import { beforeAll, describe, expect, it } from "vitest";
import { ERROR_STATUS } from "../../src/http/errors.ts";
import { OPERATIONS, openApiPath, ROUTER_ERRORS } from "../../src/http/openapi.ts";
import type { OperationExample } from "../../src/http/openapi.ts";
import { ROUTES } from "../../src/http/router.ts";
import { MCP_ROUTES } from "../../src/mcp/routes.ts";
import { api, json, token } from "./helpers.ts";

const TABLE = [...ROUTES, ...MCP_ROUTES];
const routeKeys = TABLE.flatMap((route) => route.methods.map(([method]) => `${method} ${route.path}`)).toSorted();
const documentedKeys = OPERATIONS.map((operation) => `${operation.method} ${operation.path}`).toSorted();

let user = "";
let owner = "";
beforeAll(async () => {
  user = await token({ sub: "openapi-user" });
  owner = await token({ sub: "openapi-owner", owner: true });
});

function concrete(path: string, params: Record<string, string> = {}): string {
  return path.replaceAll(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(params[name] ?? "p1"));
}

interface Document {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  components: { schemas: { ErrorCode: { enum: string[] } } };
}

describe("GET /v1/openapi.json", () => {
  it("documents every route of both tables, and nothing else", () => {
    expect(documentedKeys).toEqual(routeKeys);
  });

  it("is served without a token, OpenAPI 3.1, with every path, method and documented status", async () => {
    const response = await api("/v1/openapi.json");
    expect(response.status).toBe(200);
    const document = await json<Document>(response);
    expect(document.openapi).toBe("3.1.0");
    for (const operation of OPERATIONS) {
      const entry = document.paths[openApiPath(operation.path)]?.[operation.method.toLowerCase()];
      expect(entry, `${operation.method} ${operation.path}`).toBeDefined();
      const statuses = Object.keys(entry?.responses ?? {});
      for (const example of operation.examples) expect(statuses).toContain(String(example.status));
    }
    expect(document.components.schemas.ErrorCode.enum.toSorted()).toEqual(Object.keys(ERROR_STATUS).toSorted());
  });

  it("lists every ErrorCode under some operation (or as the router's own answer)", async () => {
    const listed = new Set<string>([...OPERATIONS.flatMap((operation) => operation.errors), ...ROUTER_ERRORS]);
    const unknown = await api("/v1/no-such-route");
    expect(unknown.status).toBe(ERROR_STATUS.not_found);
    expect(await json(unknown)).toMatchObject({ error: { code: "not_found" } });
    expect(Object.keys(ERROR_STATUS).filter((code) => !listed.has(code))).toEqual([]);
  });

  const examples = OPERATIONS.flatMap((operation) =>
    operation.examples.map((example): { key: string; method: string; path: string; example: OperationExample } => ({
      key: `${operation.method} ${operation.path}: ${example.summary}`,
      method: operation.method,
      path: operation.path,
      example,
    })),
  );
  it.each(examples)("$key answers as documented", async ({ method, path, example }) => {
    const bearer = example.token === "user" ? user : example.token === "owner" ? owner : undefined;
    const url = `${concrete(path, example.params)}${example.query === undefined ? "" : `?${example.query}`}`;
    const response = await api(url, { method, body: example.body, ...(bearer === undefined ? {} : { token: bearer }) });
    expect(response.status).toBe(example.status);
    await response.arrayBuffer();
  });
});
