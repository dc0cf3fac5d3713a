// Registering tools in any shape (PUT /v1/tools and /v1/tools/:name): OpenAI Chat, OpenAI Responses, Anthropic, MCP
// (one tool, a list, a whole tools/list result), MCP annotations read as guard settings the owner can override, and
// names that not every provider accepts fitted to one that all do, the source's spelling kept.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { fitToolName } from "../../src/core/tools/toolNames.ts";
import { registryStub } from "../../src/durable/stubs.ts";
import { anError, api, errorOf, fetchWithEnv, json, request, sessionId, suiteConfig, token } from "./helpers.ts";
import { nameInShape } from "./shapes.ts";

let owner = "";
beforeAll(async () => {
  owner = await token({ sub: "owner-import", owner: true });
}, 60_000);

const echoExecutor = { type: "builtin", name: "echo" } as const;
const schema = { type: "object", properties: { text: { type: "string" } } };

interface BulkAnswer {
  registered: number;
  shape: string;
  warnings?: string[];
}
interface OneAnswer {
  tool: Record<string, unknown>;
  context: string;
  shape: string;
}
interface ToolsBody {
  tools: Record<string, unknown>[];
}

function putAll(body: unknown): Promise<Response> {
  return api("/v1/tools", { method: "PUT", token: owner, body });
}

async function registered(name: string): Promise<Record<string, unknown> | undefined> {
  const { tools } = await json<ToolsBody>(await api("/v1/tools?format=summary", { token: owner }));
  return tools.find((tool) => tool.name === name);
}

async function execute(name: string, args: Record<string, unknown> = { text: "hi" }): Promise<Record<string, unknown>> {
  const response = await api(`/v1/sessions/${sessionId("import")}/execute`, { method: "POST", token: owner, body: { name, arguments: args } });
  expect(response.status).toBe(200);
  return json(response);
}

async function remove(name: string): Promise<number> {
  return (await api(`/v1/tools/${encodeURIComponent(name)}`, { method: "DELETE", token: owner })).status;
}

describe("PUT /v1/tools in every shape", () => {
  it.each([
    ["openai", { type: "function", function: { name: "imp_openai", description: "OpenAI Chat import.", parameters: schema } }],
    ["responses", { type: "function", name: "imp_responses", description: "Responses import.", parameters: schema }],
    ["anthropic", { name: "imp_anthropic", description: "Anthropic import.", input_schema: schema }],
    ["mcp", { name: "imp_mcp", description: "MCP import.", inputSchema: schema }],
    ["toolgate", { name: "imp_toolgate", description: "toolgate's own shape.", parameters: schema }],
  ] as const)("reads the %s shape, says so, and the tool runs with its guard fields", async (shape, tool) => {
    const answer = await putAll({ tools: [{ ...tool, executor: echoExecutor, groups: ["imports"] }], context: "imports" });
    expect(answer.status).toBe(200);
    const body = await json<BulkAnswer>(answer);
    expect(body).toMatchObject({ registered: 1, shape });
    const name = `imp_${shape}`;
    const listed = await registered(name);
    expect(listed).toMatchObject({ name, groups: ["imports"] });
    expect(await execute(name)).toMatchObject({ isError: false });
    expect(await remove(name)).toBe(200);
  });

  it("takes a whole MCP tools/list result, annotations as the guard's settings, and warns of a further page", async () => {
    const page = {
      tools: [
        { name: "notes/read", description: "Reads a note.", inputSchema: schema, annotations: { readOnlyHint: true } },
        { name: "notes/delete", description: "Deletes a note.", inputSchema: schema, annotations: { destructiveHint: true } },
        { name: "notes_list", title: "List notes", description: "Lists notes.", inputSchema: { type: "object" } },
      ],
      nextCursor: "page-2",
    };
    const answer = await putAll({ ...page, context: "notes", defaults: { groups: ["notes"] } });
    expect(answer.status).toBe(200);
    const body = await json<BulkAnswer>(answer);
    expect(body).toMatchObject({ registered: 3, shape: "mcp" });
    expect(body.warnings?.[0]).toMatch(/nextCursor/);

    const { tools } = await json<ToolsBody>(await api("/v1/tools?format=mcp&groups=notes", { token: owner }));
    const names = tools.map((tool) => tool.name);
    const readName = fitToolName("notes/read");
    const deleteName = fitToolName("notes/delete");
    expect(names).toEqual(expect.arrayContaining([readName, deleteName, "notes_list"]));
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);

    // destructiveHint → dangerous: the owner's call waits for a confirmation; readOnlyHint → public and safe.
    const put = await api(`/v1/tools/${deleteName}`, { method: "PUT", token: owner, body: {
      name: "notes/delete", description: "Deletes a note.", inputSchema: schema, annotations: { destructiveHint: true }, executor: echoExecutor,
    } });
    expect(put.status).toBe(200);
    const one = await json<OneAnswer>(put);
    expect(one).toMatchObject({ shape: "mcp", tool: { name: deleteName, originalName: "notes/delete", risk: "dangerous" } });
    expect(await execute(deleteName)).toMatchObject({ confirmation: { tool: deleteName } });

    // The owner's own setting beats the annotation.
    const overridden = await api(`/v1/tools/${deleteName}`, { method: "PUT", token: owner, body: {
      name: "notes/delete", description: "Deletes a note.", inputSchema: schema, annotations: { destructiveHint: true }, risk: "safe", executor: echoExecutor,
    } });
    expect(await json<OneAnswer>(overridden)).toMatchObject({ tool: { risk: "safe" } });
    expect(await execute(deleteName)).toMatchObject({ isError: false });

    expect((await api("/v1/contexts/notes", { method: "DELETE", token: owner })).status).toBe(200);
  });

  it("answers 400 for a list that mixes shapes, a tool in no shape, and a bad defaults field", async () => {
    const mixed = await putAll({ tools: [
      { name: "mix_a", description: "A.", inputSchema: schema },
      { name: "mix_b", description: "B.", input_schema: schema },
    ] });
    expect(await errorOf(mixed)).toMatchObject({ ...anError(400, "invalid_request"), message: expect.stringMatching(/^tools\[1\]: is in anthropic shape but tools\[0\] is in mcp shape/) });
    const server = await putAll({ tools: [{ type: "web_search_20250305", name: "web_search" }] });
    expect(await errorOf(server)).toMatchObject({ ...anError(400, "invalid_request"), message: expect.stringMatching(/^tools\[0\]: is not a tool in toolgate, OpenAI Chat/) });
    const defaults = await putAll({ tools: [], defaults: { executor: echoExecutor } });
    expect(await errorOf(defaults)).toMatchObject({ ...anError(400, "invalid_request"), message: expect.stringMatching(/^defaults\.executor: unknown field/) });
    const noDescription = await putAll({ tools: [{ type: "function", function: { name: "no_description", parameters: schema } }] });
    expect(await errorOf(noDescription)).toMatchObject({ ...anError(400, "invalid_request"), message: expect.stringMatching(/^tools\[0\]\.function\.description: /) });
    const badSchema = await putAll({ tools: [{ name: "bad_schema", description: "x", input_schema: { type: "object", properties: { a: { type: "nope" } } } }] });
    expect(await errorOf(badSchema)).toMatchObject({ ...anError(400, "invalid_request"), message: expect.stringMatching(/^tools\[0\]\.input_schema\.properties\.a/) });
    const badName = await putAll({ tools: [{ type: "function", function: { name: "line\nbreak", description: "x" } }] });
    expect(await errorOf(badName)).toMatchObject({ ...anError(400, "invalid_request"), message: expect.stringMatching(/^tools\[0\]\.function\.name: /) });
    // Nothing of a refused list was registered.
    expect(await registered("mix_a")).toBeUndefined();
  });
});

describe("names every provider accepts", () => {
  it("fits a dotted name, keeps the source's spelling, and reaches the tool by either name", async () => {
    const source = "github.create_issue";
    const fitted = fitToolName(source);
    expect(fitted).toMatch(/^github_create_issue_[0-9a-z]{10}$/);
    const put = await api(`/v1/tools/${source}`, { method: "PUT", token: owner, body: { description: "Opens an issue.", parameters: schema, executor: echoExecutor } });
    expect(put.status).toBe(201);
    expect(await json<OneAnswer>(put)).toMatchObject({ shape: "toolgate", tool: { name: fitted, originalName: source } });

    const { tools } = await json<ToolsBody>(await api("/v1/tools?format=openai", { token: owner }));
    const names = tools.map((tool) => nameInShape(tool, "openai"));
    expect(names).toContain(fitted);
    expect(names).not.toContain(source);
    expect(await registered(fitted)).toStrictEqual({ name: fitted, originalName: source, description: "Opens an issue." });

    expect(await execute(fitted)).toMatchObject({ isError: false });
    expect(await execute(source)).toMatchObject({ isError: false });
    expect(await remove(source)).toBe(200);
    expect(await remove(fitted)).toBe(404);
    // A slash travels percent-encoded in the path.
    const slashed = await api(`/v1/tools/${encodeURIComponent("fs/read")}`, { method: "PUT", token: owner, body: { description: "Reads a file.", parameters: schema } });
    expect(await json<OneAnswer>(slashed)).toMatchObject({ tool: { name: fitToolName("fs/read"), originalName: "fs/read" } });
    expect(await remove("fs/read")).toBe(200);
    expect(await errorOf(await api("/v1/tools/%E0%A4%A", { method: "DELETE", token: owner }))).toMatchObject(anError(400, "invalid_request"));
  });

  it("reads a definition it answered back in again (round trip of GET's toolgate fields)", async () => {
    const first = await json<OneAnswer>(await api("/v1/tools/a.b", { method: "PUT", token: owner, body: { description: "Round trip.", parameters: schema } }));
    const again = await api(`/v1/tools/${String(first.tool.name)}`, { method: "PUT", token: owner, body: first.tool });
    expect(again.status).toBe(200);
    expect((await json<OneAnswer>(again)).tool).toStrictEqual(first.tool);
    const badSource = await api("/v1/tools/a_b", { method: "PUT", token: owner, body: { ...first.tool, name: "a_b", originalName: "a\u0000b" } });
    expect(await errorOf(badSource)).toMatchObject({ ...anError(400, "invalid_request"), message: expect.stringMatching(/^originalName: must not hold control/) });
    expect(await remove("a.b")).toBe(200);
  });

  it("fits a tool an earlier version stored under a dotted name when the registry loads it, and removes it by that name", async () => {
    const fresh = suiteConfig({ registryVersionTtlMs: 0 });
    const stored = await registryStub(env).put([{ context: "legacy", definition: { name: "legacy.tool", description: "Stored before names were fitted.", parameters: schema, executor: echoExecutor } }], 50_000);
    expect(stored.ok).toBe(true);
    const list = await fetchWithEnv(fresh, request("/v1/tools?format=summary", { token: owner }));
    const names = (await json<ToolsBody>(list)).tools.map((tool) => tool.name);
    expect(names).toContain(fitToolName("legacy.tool"));
    expect(names).not.toContain("legacy.tool");
    const run = await fetchWithEnv(fresh, request(`/v1/sessions/${sessionId("legacy")}/execute`, { method: "POST", token: owner, body: { name: "legacy.tool", arguments: { text: "old" } } }));
    expect(await json(run)).toMatchObject({ isError: false });
    const removed = await fetchWithEnv(fresh, request("/v1/tools/legacy.tool", { method: "DELETE", token: owner }));
    expect(removed.status).toBe(200);
  });

  it("fits a client's tool names in prepare and says which name is whose", async () => {
    const response = await api(`/v1/sessions/${sessionId("names")}/prepare`, { method: "POST", token: owner, body: {
      messages: [{ role: "user", content: "hello" }],
      tools: [
        { name: "fs/read file", description: "Reads a file.", inputSchema: schema },
        { name: "plain_tool", description: "Plain.", inputSchema: schema },
      ],
    } });
    expect(response.status).toBe(200);
    const body = await json<{ names?: Record<string, string> }>(response);
    expect(body.names).toStrictEqual({ [fitToolName("fs/read file")]: "fs/read file" });
  });
});
