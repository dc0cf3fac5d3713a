// One nesting limit (MAX_BODY_DEPTH) for every JSON a request carries, with the same answer everywhere: the HTTP
// API's bodies, `execute`'s `arguments` given as JSON text, /mcp bodies (a JSON-RPC error under 400), and call_tool's
// JSON-text `arguments` on /mcp (a tool error). Never an uncaught RangeError, never "internal error".
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { MAX_BODY_DEPTH } from "../../src/http/body.ts";
import { VALIDATION_LIMITS } from "../../src/core/jsonSchema/validate.ts";
import { anError, api, errorOf, json, sessionId, token } from "./helpers.ts";
import { initializeBody, rpc, warmUp } from "../mcp/helpers.ts";

/** An object `levels` deep: {a: {a: … 1}} (the outer object is level 1). */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { a: 1 };
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

let caller = "";
beforeAll(async () => {
  caller = await token({ sub: `depth-${crypto.randomUUID()}` });
  await warmUp();
}, 60_000);

const errors = vi.spyOn(console, "error");
afterEach(() => {
  // Nothing below may reach the last-resort handlers (they log the uncaught error, then answer "internal error").
  const logged = errors.mock.calls.flat().join(" ");
  errors.mockClear();
  if (/RangeError|internal error/.test(logged)) throw new Error(`an error reached the last-resort handler: ${logged.slice(0, 500)}`);
});

async function session(): Promise<Record<string, string>> {
  const init = await rpc(initializeBody(), { authorization: `Bearer ${caller}` });
  expect(init.status).toBe(200);
  await init.arrayBuffer();
  return { authorization: `Bearer ${caller}`, "mcp-session-id": init.headers.get("mcp-session-id") ?? "", "mcp-protocol-version": "2025-11-25" };
}

async function execute(args: unknown): Promise<Response> {
  return api(`/v1/sessions/${sessionId("depth")}/execute`, { token: caller, body: { name: "echo", arguments: args } });
}

describe("execute: arguments as an object or as JSON text meet the same limit", () => {
  // `arguments` is the body's level 2: arguments of MAX_BODY_DEPTH - 1 levels fit, one more does not.
  const fits = nested(MAX_BODY_DEPTH - 1);
  const tooDeep = nested(MAX_BODY_DEPTH);

  it("refuses the deeper arguments with the same 400, in either form", async () => {
    const asObject = await errorOf(await execute(tooDeep));
    const asText = await errorOf(await execute(JSON.stringify(tooDeep)));
    expect(asObject).toMatchObject(anError(400, "too_deep"));
    expect(asText).toEqual(asObject);
    expect(asText.message).toBe(`arguments.a.a.a…: nests more than ${MAX_BODY_DEPTH} levels deep`);
  });

  it("takes the deepest allowed arguments in either form alike (a tool error from the validator, 200)", async () => {
    const asObject = await execute(fits);
    const asText = await execute(JSON.stringify(fits));
    expect(asObject.status).toBe(200);
    expect(asText.status).toBe(200);
    expect(await json(asText)).toEqual(await json(asObject));
  });

  it("refuses text thousands of levels deep without overflowing anything", async () => {
    const text = `${'{"a":'.repeat(50_000)}1${"}".repeat(50_000)}`;
    expect(await errorOf(await execute(text))).toMatchObject(anError(400, "too_deep"));
  });
});

describe("/mcp: the same limit, as a JSON-RPC error", () => {
  it("answers a tools/call with too deep arguments 400 too_deep, with no id", async () => {
    const headers = await session();
    const response = await rpc({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: nested(5_000) } }, headers);
    expect(response.status).toBe(400);
    const body = await json<{ error: { code: number; message: string; data: { code: string } }; id: null }>(response);
    expect(body.id).toBeNull();
    expect(body.error.code).toBe(-32600);
    expect(body.error.data.code).toBe("too_deep");
    expect(body.error.message).toBe(`params.arguments.a.a…: nests more than ${MAX_BODY_DEPTH} levels deep`);
  });

  it("refuses any deep body, whatever the message (an initialize, a response)", async () => {
    const deepInit = {
      jsonrpc: "2.0", id: 1, method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: nested(200), clientInfo: { name: "deep", version: "0" } },
    };
    const response = await rpc(deepInit, { authorization: `Bearer ${caller}` });
    expect(response.status).toBe(400);
    expect(await json(response)).toMatchObject({ error: { code: -32600, data: { code: "too_deep" } } });
  });

  it("answers call_tool's JSON-text arguments nested too deep with a tool error naming the limit", async () => {
    const headers = await session();
    const inner = JSON.stringify(nested(10_000));
    const response = await rpc({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "call_tool", arguments: { name: "echo", arguments: inner } } }, headers);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain(`nest more than ${VALIDATION_LIMITS.argumentDepth} levels deep`);
    expect(text).toContain('"isError":true');
  });
});
