// No request may stall the isolate. Each attack the outside testers sent (10-60 s of CPU, or a 500) answers
// at once with a clear answer: a tool error from execute, or a 400 naming the field. The outcome is asserted, not the
// time (a timed test is flaky); the bench (`npm run bench -- --adversarial`) times the same cases.
import { beforeAll, describe, expect, it } from "vitest";
import { texts } from "../../src/core/locale.ts";
import { MAX_BODY_DEPTH } from "../../src/http/body.ts";
import { anError, api, errorOf, json, ownerToken, sessionId, token } from "./helpers.ts";

interface ExecuteBody {
  content: string;
  isError: boolean;
}

let caller = "";
let owner = "";
beforeAll(async () => {
  // Level 0, the weakest caller there is; the maps group holds get_directions.
  caller = await token({ sub: "bounds-caller", groups: ["maps"] });
  owner = await ownerToken("bounds-owner");
  await api("/v1/health");
}, 60_000);

const t = texts("en");

/** One OpenAI Chat client tool, plus a few plain ones so that the list is not passed through whole. */
function clientTools(name: string, parameters: Record<string, unknown>): Record<string, unknown>[] {
  const plain = Array.from({ length: 6 }, (_, i) => ({
    type: "function",
    function: { name: `plain_${i}`, description: `Plain tool ${i}`, parameters: { type: "object", properties: {} } },
  }));
  return [{ type: "function", function: { name, description: `The ${name} tool`, parameters } }, ...plain];
}

function prepare(sid: string, body: Record<string, unknown>): Promise<Response> {
  return api(`/v1/sessions/${sid}/prepare`, { token: caller, body });
}

async function execute(sid: string, name: string, args: unknown): Promise<ExecuteBody> {
  const response = await api(`/v1/sessions/${sid}/execute`, { token: caller, body: { name, arguments: args } });
  expect(response.status).toBe(200);
  return json<ExecuteBody>(response);
}

/** Prepares a session whose catalog holds `parameters` as the tool `name`. */
async function sessionWith(name: string, parameters: Record<string, unknown>): Promise<string> {
  const sid = sessionId("bounds");
  const response = await prepare(sid, { messages: [], tools: clientTools(name, parameters) });
  expect(response.status).toBe(200);
  return sid;
}

function errorText(result: ExecuteBody): string {
  const parsed: unknown = JSON.parse(result.content);
  if (typeof parsed !== "object" || parsed === null || !("error" in parsed) || typeof parsed.error !== "string") {
    throw new Error(`not a tool error: ${result.content}`);
  }
  return parsed.error;
}

/** `count` distinct rows of 25 one-letter keys: 5,000 stay under the 1 MB body limit, like the testers' 964 KB. */
function rows(count: number): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) => Object.fromEntries(Array.from({ length: 25 }, (_key, k) => [String.fromCharCode(97 + k), k === 0 ? i : k])));
}

function nested(levels: number): unknown {
  let value: unknown = "leaf";
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

describe("argument validation has bounded cost", () => {
  it("runs a nested-quantifier pattern of a client tool in linear time: ^(a+)+$ against 29 a's and a !", async () => {
    const sid = await sessionWith("redos", { type: "object", properties: { s: { type: "string", pattern: "^(a+)+$" } } });
    const result = await execute(sid, "redos", { s: `${"a".repeat(29)}!` });
    expect(result.isError).toBe(true);
    expect(errorText(result)).toBe(t.invalidArguments("redos", [t.argument.invalid("s", 'does not match the pattern "^(a+)+$"')]));
    // 20,000 characters are still checked (linear); a million would be refused by the budget before RE2 runs.
    const long = await execute(sid, "redos", { s: `${"a".repeat(20_000)}!` });
    expect(errorText(long)).toBe(t.invalidArguments("redos", [t.argument.invalid("s", 'does not match the pattern "^(a+)+$"')]));
    const huge = await execute(sid, "redos", { s: `${"a".repeat(900_000)}!` });
    expect(errorText(huge)).toBe(t.invalidArguments("redos", [t.argument.tooCostly]));
    expect((await execute(sid, "redos", { s: "aaaa" })).isError).toBe(false);
  });

  it("refuses, at prepare, a client tool whose pattern needs backtracking (backreference, lookahead)", async () => {
    for (const [pattern, reason] of [["^(a)\\1$", "backreference"], ["^(?=a)a$", "lookahead"]] as const) {
      const response = await prepare(sessionId("bounds"), { messages: [], tools: clientTools("backtracks", { type: "object", properties: { s: { type: "string", pattern } } }) });
      const error = await errorOf(response);
      expect(error).toMatchObject(anError(400, "invalid_request"));
      expect(error.message).toMatch(/^tools\[0\]\..*parameters\.properties\.s\.pattern: /);
      expect(error.message).toContain(reason);
    }
  });

  it("stops a $ref fan-out (2^20 applications of one argument) at its budget, with a tool error", async () => {
    const $defs: Record<string, unknown> = { l20: { type: "string" } };
    for (let level = 0; level < 20; level++) {
      $defs[`l${level}`] = { allOf: [{ $ref: `#/$defs/l${level + 1}` }, { $ref: `#/$defs/l${level + 1}` }] };
    }
    const parameters = { type: "object", $defs, properties: { x: { $ref: "#/$defs/l0" } } };
    expect(JSON.stringify(parameters).length).toBeLessThan(2_048);
    const sid = await sessionWith("fanout", parameters);
    const result = await execute(sid, "fanout", { x: "a" });
    expect(result.isError).toBe(true);
    expect(errorText(result)).toBe(t.invalidArguments("fanout", [t.argument.tooCostly]));
  });

  it("answers uniqueItems over 5,000 objects of 25 keys at once: the demo's get_directions.avoid, and a client tool", async () => {
    const many = rows(5_000);
    const directions = await execute(sessionId("bounds"), "get_directions", { origin: "a", destination: "b", avoid: many });
    expect(directions.isError).toBe(true);
    const problems = errorText(directions);
    expect(problems).toMatch(/^Invalid arguments for "get_directions": argument "avoid\[0\]" must be string; /);
    expect(problems.endsWith(t.argument.tooCostly)).toBe(true);

    const sid = await sessionWith("rows", { type: "object", properties: { rows: { type: "array", uniqueItems: true } } });
    expect(errorText(await execute(sid, "rows", { rows: many }))).toBe(t.invalidArguments("rows", [t.argument.tooCostly]));
    // A thousand rows are hashed, and a repeated one is found.
    const thousand = rows(1_000);
    const distinct = await execute(sid, "rows", { rows: thousand });
    expect(distinct).toEqual({ isError: false, content: t.clientRuns("rows") });
    const repeated = await execute(sid, "rows", { rows: [...thousand.slice(0, 999), thousand[0]] });
    expect(errorText(repeated)).toBe(t.invalidArguments("rows", [t.argument.invalid("rows", "has the same item twice (at 0 and 999)")]));
  });
});

describe("request bodies have a bounded depth", () => {
  it("answers 400 too_deep for a parameters.default 2,500 levels deep, to the owner's PUT and to a client's prepare", async () => {
    const parameters = { type: "object", properties: { x: { type: "array", default: nested(2_500) } } };
    const put = await errorOf(await api("/v1/tools/deep_default", { method: "PUT", token: owner, body: { description: "Deep.", parameters } }));
    expect(put).toMatchObject(anError(400, "too_deep"));
    expect(put.message).toBe(`parameters.properties.x.default…: nests more than ${MAX_BODY_DEPTH} levels deep`);

    const prepared = await errorOf(await prepare(sessionId("bounds"), { messages: [], tools: clientTools("deep", parameters) }));
    expect(prepared).toMatchObject(anError(400, "too_deep"));
    expect(prepared.message).toBe(`tools[0].function.parameters…: nests more than ${MAX_BODY_DEPTH} levels deep`);
  });

  it("takes a default nested within the cap", async () => {
    const parameters = { type: "object", properties: { x: { type: "array", default: nested(100) } } };
    const response = await api("/v1/tools/fairly_deep_default", { method: "PUT", token: owner, body: { description: "Fairly deep.", parameters } });
    expect(response.status).toBe(201);
    expect((await api("/v1/tools/fairly_deep_default", { method: "DELETE", token: owner })).status).toBe(200);
  });

  it("answers 400 too_deep for deep messages in prepare, and reads a history nested within the cap", async () => {
    const deep = await errorOf(await prepare(sessionId("bounds"), { messages: [{ role: "user", content: nested(2_500) }] }));
    expect(deep).toMatchObject(anError(400, "too_deep"));
    const fine = await prepare(sessionId("bounds"), { messages: [{ role: "user", content: nested(MAX_BODY_DEPTH - 4) }] });
    expect(fine.status).toBe(200);
  });

  it("answers an execute whose arguments nest past the validator's depth as a tool error", async () => {
    const sid = await sessionWith("tree", { type: "object", properties: { tree: { $ref: "#/$defs/node" } }, $defs: { node: { type: "array", items: { $ref: "#/$defs/node" } } } });
    const result = await execute(sid, "tree", { tree: nested(100) });
    expect(result.isError).toBe(true);
    expect(errorText(result)).toBe(t.invalidArguments("tree", [t.argument.tooDeep(64)]));
  });
});
