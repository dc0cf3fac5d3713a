// Ranked search with an embeddings provider, end to end through the Worker's fetch: tools' vectors computed when
// they are stored (registry writes, upstream imports), kept in the registry object and never computed again (a cold
// isolate reads them), each query embedded once per isolate, the fused ranking; the fallbacks (error, timeout, the
// circuit breaker) and the configuration's checks. The provider is the OpenAI-compatible fixture server
// (test/fixtures/embeddings-server.ts) or a stand-in Workers AI binding answering the binding's documented shapes.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { REGISTRY_OBJECT_NAME } from "../../src/durable/names.ts";
import { resetIsolateRegistry } from "../../src/isolate/registryCache.ts";
import { heldToolVectorNames, resetSemanticState } from "../../src/isolate/semanticSearch.ts";
import { hashedEmbedding } from "../fixtures/hashedEmbeddings.ts";
import { anError, errorOf, fetchWithEnv, json, ownerToken, request, sessionId, token } from "../http/helpers.ts";

const owner = await ownerToken();
const caller = await token({ sub: "semantic-caller" });
const unique = crypto.randomUUID().slice(0, 8);
const CAR = `sem_car_rental_${unique}`;
const BOOK = `sem_book_finder_${unique}`;
const PAINT = `sem_paint_mixer_${unique}`;

interface Tally {
  calls: number;
  texts: number;
  inputs: string[];
  authorization: string | null;
}

interface SearchAnswer {
  found: string;
  tools: { name: string }[];
  hint: string;
  stats?: { semantic: string; reason?: string };
}

let tags = 0;
/** A fixture endpoint of its own (counts apart from every other test's). */
function endpoint(mode: "ok" | "fail" | "slow"): { url: string; calls: string } {
  tags += 1;
  const base = `https://embeddings.fixture.example/embeddings/${mode}-${tags}-${crypto.randomUUID().slice(0, 6)}`;
  return { url: `${base}/v1/embeddings`, calls: `${base}/calls` };
}

async function tally(calls: string): Promise<Tally> {
  return json<Tally>(await env.TOOL_REMOTE.fetch(calls));
}

function vars(settings: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const base: unknown = JSON.parse(env.TOOL_SEARCH_CONFIG);
  const config = { ...(typeof base === "object" && base !== null ? base : {}), searchMode: "minisearch", ...settings };
  return { TOOL_SEARCH_CONFIG: JSON.stringify(config), ...extra };
}

function openAi(url: string, more: Record<string, unknown> = {}): Record<string, unknown> {
  return { semantic: { provider: "openai-compatible", url, model: "fixture-hashed", apiKeySecret: "EMBEDDINGS_KEY", ...more } };
}

const KEY = { EMBEDDINGS_KEY: "sk-fixture-key" };

async function search(settings: Record<string, unknown>, query: string, extra: Record<string, unknown> = KEY): Promise<{ text: string; body: SearchAnswer; ms: number }> {
  const started = Date.now();
  const response = await fetchWithEnv(vars(settings, extra), request(`/v1/sessions/${sessionId("sem")}/search`, { token: caller, body: { query, limit: 5 } }));
  expect(response.status).toBe(200);
  const text = await response.text();
  const body: SearchAnswer = JSON.parse(text);
  return { text, body, ms: Date.now() - started };
}

async function store(settings: Record<string, unknown>, tools: Record<string, unknown>[], extra: Record<string, unknown> = KEY): Promise<void> {
  const response = await fetchWithEnv(vars(settings, extra), request("/v1/tools", { method: "PUT", token: owner, body: { tools } }));
  expect(response.status).toBe(200);
}

const PARAMETERS = { type: "object", properties: {} };
const TOOLS = [
  { name: CAR, description: "Rent a car for a road trip, by pick-up city and dates.", parameters: PARAMETERS },
  { name: BOOK, description: "Find a book in the library catalogue by its title or author.", parameters: PARAMETERS },
  { name: PAINT, description: "Mix two paint colours and name the shade.", parameters: PARAMETERS },
];

/** The first endpoint, which stored every tool's vector (the model's id is the same for every fixture endpoint). */
const first = endpoint("ok");

beforeAll(async () => {
  await store(openAi(first.url), TOOLS);
});

describe("an OpenAI-compatible provider", () => {
  it("computes each tool's vector when the tool is stored, in batches, with the configured key", async () => {
    const seen = await tally(first.calls);
    expect(seen.authorization).toBe("Bearer sk-fixture-key");
    for (const tool of TOOLS) expect(seen.inputs.some((text) => text.includes(tool.description))).toBe(true);
    // Every tool the registry holds, once each: a batch holds many texts.
    expect(seen.texts).toBe(new Set(seen.inputs).size);
    expect(seen.calls).toBeLessThan(seen.texts);
  });

  it("ranks by meaning a tool that shares no word with the request, and says the ranking used vectors", async () => {
    const lexical = await search({}, "vroomcart");
    expect(lexical.body.tools.map((tool) => tool.name)).not.toContain(CAR);
    expect(lexical.body.stats).toBeUndefined();
    const fused = await search(openAi(first.url), "vroomcart");
    expect(fused.body.tools[0]?.name).toBe(CAR);
    expect(fused.body.stats).toEqual({ semantic: "vectors" });
  });

  it("embeds a query once per isolate and never a stored tool again, even in a cold isolate", async () => {
    const own = endpoint("ok");
    const settings = openAi(own.url);
    await search(settings, "colour shade mixing");
    expect(await tally(own.calls)).toMatchObject({ calls: 1, texts: 1, inputs: ["colour shade mixing"] });
    await search(settings, "colour shade mixing");
    expect((await tally(own.calls)).texts).toBe(1);
    // A cold isolate: nothing in memory; the tools' vectors are read from the registry object.
    resetSemanticState();
    resetIsolateRegistry();
    const cold = await search(settings, "colour shade mixing");
    expect(cold.body.tools[0]?.name).toBe(PAINT);
    expect(cold.body.stats).toEqual({ semantic: "vectors" });
    expect(await tally(own.calls)).toMatchObject({ calls: 2, texts: 2 });
  });

  it("computes the vector of a changed tool only", async () => {
    const own = endpoint("ok");
    await store(openAi(own.url), [{ name: BOOK, description: "Find a book in the library catalogue by its title, author or subject.", parameters: PARAMETERS }]);
    const seen = await tally(own.calls);
    expect(seen.texts).toBe(1);
    expect(seen.inputs[0]).toContain("by its title, author or subject");
  });

  it("answers lexically, byte for byte, when the provider fails, and the stats say why", async () => {
    const failing = endpoint("fail");
    const plain = await search({}, "library book title");
    const fallback = await search(openAi(failing.url), "library book title");
    expect(fallback.body.stats).toEqual({ semantic: "fallback", reason: "error" });
    const { stats: _stats, ...rest } = fallback.body;
    expect(JSON.stringify(rest)).toBe(plain.text);
    expect(plain.body.tools[0]?.name).toBe(BOOK);
  });

  it("answers lexically when the provider is slower than timeoutMs", async () => {
    const slow = endpoint("slow");
    const answer = await search(openAi(slow.url, { timeoutMs: 100 }), "library book title");
    expect(answer.body.stats).toEqual({ semantic: "fallback", reason: "timeout" });
    expect(answer.body.tools[0]?.name).toBe(BOOK);
    expect(answer.ms).toBeLessThan(1_500);
  });

  it("skips a provider that keeps failing for a while (circuit breaker)", async () => {
    const failing = endpoint("fail");
    const settings = openAi(failing.url);
    for (const query of ["first request", "second request", "third request"]) {
      expect((await search(settings, query)).body.stats).toEqual({ semantic: "fallback", reason: "error" });
    }
    const skipped = await search(settings, "fourth request");
    expect(skipped.body.stats).toEqual({ semantic: "fallback", reason: "circuit_open" });
    expect((await tally(failing.calls)).calls).toBe(3);
  });

  it("leaves search without a provider as it was: no stats, the lexical ranking", async () => {
    const answer = await search({}, "rent a car");
    expect(Object.keys(answer.body)).not.toContain("stats");
    expect(answer.body.tools[0]?.name).toBe(CAR);
  });

  it("leaves the substring mode and a blank query alone", async () => {
    const own = endpoint("ok");
    const substring = await search({ ...openAi(own.url), searchMode: "substring" }, "paint");
    expect(substring.body.stats).toBeUndefined();
    const blank = await search(openAi(own.url), "");
    expect(blank.body.stats).toBeUndefined();
    expect((await tally(own.calls)).calls).toBe(0);
  });

  it("computes the vectors of an upstream server's imported tools", async () => {
    const own = endpoint("ok");
    const id = `sem-up-${crypto.randomUUID().slice(0, 6)}`;
    const url = `https://mcp.fixture.example/mcp-upstream/${id}`;
    const response = await fetchWithEnv(vars(openAi(own.url), KEY), request(`/v1/upstreams/${id}`, { method: "PUT", token: owner, body: { url } }));
    expect(response.status).toBe(201);
    const seen = await tally(own.calls);
    expect(seen.inputs.some((text) => text.includes("Erases every file on the server's disk."))).toBe(true);
  });
});

/** A stand-in `AI` binding: `run(model, {text})` answers `{shape, data}`, as the text embedding models do. */
function aiBinding(answer: "vectors" | "error"): { binding: { run: (model: string, inputs: { text: string[] }) => Promise<unknown> }; seen: { model: string; text: string[] }[] } {
  const seen: { model: string; text: string[] }[] = [];
  return {
    seen,
    binding: {
      run: (model, inputs) => {
        seen.push({ model, text: inputs.text });
        if (answer === "error") return Promise.reject(new Error("3040: capacity temporarily exceeded"));
        const data = inputs.text.map((text) => hashedEmbedding(text));
        return Promise.resolve({ shape: [data.length, data[0]?.length ?? 0], data, pooling: "cls" });
      },
    },
  };
}

describe("a Workers AI provider", () => {
  const settings = { semantic: { provider: "workers-ai", model: "@cf/baai/bge-m3" } };

  it("embeds through the AI binding when tools are stored, and ranks with its vectors", async () => {
    const ai = aiBinding("vectors");
    await store(settings, TOOLS, { AI: ai.binding });
    expect(ai.seen.length).toBeGreaterThan(0);
    expect(ai.seen.every((call) => call.model === "@cf/baai/bge-m3")).toBe(true);
    const texts = ai.seen.flatMap((call) => call.text);
    for (const tool of TOOLS) expect(texts.some((text) => text.includes(tool.description))).toBe(true);
    const stored = ai.seen.length;
    const answer = await search(settings, "vroomcart", { AI: ai.binding });
    expect(answer.body.tools[0]?.name).toBe(CAR);
    expect(answer.body.stats).toEqual({ semantic: "vectors" });
    // The query only: the tools' vectors were stored.
    expect(ai.seen.slice(stored).map((call) => call.text)).toEqual([["vroomcart"]]);
  });

  it("falls back when the binding errors, or is missing", async () => {
    await store(settings, TOOLS, { AI: aiBinding("vectors").binding });
    const failing = aiBinding("error");
    const answer = await search(settings, "a request never seen", { AI: failing.binding });
    expect(answer.body.stats).toEqual({ semantic: "fallback", reason: "error" });
    expect(failing.seen.map((call) => call.text)).toEqual([["a request never seen"]]);
    const missing = await search(settings, "another request never seen", {});
    expect(missing.body.stats).toEqual({ semantic: "fallback", reason: "error" });
  });
});

const registry = env.REGISTRY.getByName(REGISTRY_OBJECT_NAME);

/** The stored vectors of `names`, name → digest. */
async function vectorRows(names: string[]): Promise<Record<string, string>> {
  const rows = await registry.readToolVectors(names);
  return Object.fromEntries(rows.map((row) => [row.name, row.digest]));
}

/** The owner's request, with the provider on; it must answer 200. */
async function owned(method: string, path: string, body?: unknown): Promise<Response> {
  const response = await fetchWithEnv(vars(openAi(first.url), KEY), request(path, { method, token: owner, ...(body === undefined ? {} : { body }) }));
  expect(response.status).toBe(200);
  return response;
}

describe("stored tool vectors", () => {

  it("leave with their tools: a removed tool, a disposed context, and a tool an upstream stopped listing take their rows", async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const names = ["prune_alpha", "prune_beta", "prune_gamma"].map((name) => `${name}_${tag}`);
    const [alpha = "", beta = "", gamma = ""] = names;
    await owned("PUT", "/v1/tools", { tools: names.map((name) => ({ name, description: `Prunes the ${name} hedge.`, parameters: PARAMETERS })) });
    const inContext = `prune_delta_${tag}`;
    await owned("PUT", "/v1/tools", { context: `prune-${tag}`, tools: [{ name: inContext, description: "Trims the delta hedge.", parameters: PARAMETERS }] });
    expect(Object.keys(await vectorRows([...names, inContext])).toSorted()).toEqual([...names, inContext].toSorted());

    // A changed text replaces the name's row (a new digest), it does not add one.
    const before = await vectorRows([gamma]);
    await owned("PUT", `/v1/tools/${gamma}`, { description: "Prunes the gamma hedge in spring.", parameters: PARAMETERS });
    const after = await vectorRows([gamma]);
    expect(Object.keys(after)).toEqual([gamma]);
    expect(after[gamma]).not.toBe(before[gamma]);

    // This isolate read them for a search, then forgets a removed tool's vector at the next version it reads.
    await search(openAi(first.url), "prune the hedge");
    expect(heldToolVectorNames()).toEqual(expect.arrayContaining(names));
    await owned("DELETE", `/v1/tools/${alpha}`);
    expect(Object.keys(await vectorRows([...names, inContext])).toSorted()).toEqual([beta, gamma, inContext].toSorted());
    await search(openAi(first.url), "prune the hedge");
    expect(heldToolVectorNames()).toEqual(expect.arrayContaining([beta, gamma]));
    expect(heldToolVectorNames()).not.toContain(alpha);
    await owned("DELETE", `/v1/contexts/prune-${tag}`);
    expect(Object.keys(await vectorRows([...names, inContext])).toSorted()).toEqual([beta, gamma].toSorted());

    // An upstream's refresh that no longer lists a tool; then the upstream removed with the rest of its tools.
    const id = `prune-${tag}`;
    const url = `https://mcp.fixture.example/mcp-upstream/${id}`;
    const leaving = { name: "leaving", description: "A tool the server lists once.", inputSchema: { type: "object", properties: {} } };
    expect((await env.TOOL_REMOTE.fetch(`${url}/state`, { method: "POST", body: JSON.stringify({ extra: [leaving] }) })).status).toBe(200);
    const put = await fetchWithEnv(vars(openAi(first.url), KEY), request(`/v1/upstreams/${id}`, { method: "PUT", token: owner, body: { url, newTools: "accept" } }));
    expect(put.status).toBe(201);
    const upstreamNames = [`${id}__leaving`, `${id}__echo`, `${id}__lookup`];
    expect(Object.keys(await vectorRows(upstreamNames)).toSorted()).toEqual(upstreamNames.toSorted());
    expect((await env.TOOL_REMOTE.fetch(`${url}/state`, { method: "POST", body: JSON.stringify({ extra: [] }) })).status).toBe(200);
    await owned("POST", `/v1/upstreams/${id}/refresh`);
    expect(Object.keys(await vectorRows(upstreamNames)).toSorted()).toEqual([`${id}__echo`, `${id}__lookup`]);
    await owned("DELETE", `/v1/upstreams/${id}`);
    expect(await vectorRows(upstreamNames)).toEqual({});
    await owned("DELETE", `/v1/tools/${beta}`);
    await owned("DELETE", `/v1/tools/${gamma}`);
    expect(await vectorRows(names)).toEqual({});
  });

  it("are not kept for a name that is no tool (one removed while its vector was computed)", async () => {
    const name = `prune_never_${crypto.randomUUID().slice(0, 8)}`;
    const vector = new Int8Array([1, 2, 3]).buffer;
    expect(await registry.writeToolVectors([{ name, digest: "d", vector }])).toBe(0);
    expect(await vectorRows([name])).toEqual({});
    // The demo catalog's tools are tools (where it is on), though no row holds them.
    expect(await registry.writeToolVectors([{ name: "get_weather_forecast", digest: "d", vector }])).toBe(1);
  });
});

describe("the semantic setting", () => {
  it.each([
    ["TOOL_SEARCH_CONFIG.semantic.provider", { provider: "cohere", model: "m" }],
    ["TOOL_SEARCH_CONFIG.semantic.model", { provider: "workers-ai" }],
    ["TOOL_SEARCH_CONFIG.semantic.url", { provider: "openai-compatible", model: "m", url: "ftp://x/v1/embeddings" }],
    ["TOOL_SEARCH_CONFIG.semantic.url", { provider: "openai-compatible", model: "m", url: "https://user:pw@x/v1/embeddings" }],
    ["TOOL_SEARCH_CONFIG.semantic.apiKeySecret", { provider: "openai-compatible", model: "m", url: "https://x/v1/embeddings", apiKeySecret: "sk-inline-key" }],
    ["TOOL_SEARCH_CONFIG.semantic.timeoutMs", { provider: "workers-ai", model: "m", timeoutMs: 0 }],
    ["TOOL_SEARCH_CONFIG.semantic.url", { provider: "workers-ai", model: "m", url: "https://x" }],
  ])("is refused when wrong, naming %s", async (field, semantic) => {
    const response = await fetchWithEnv(vars({ semantic }), request(`/v1/sessions/${sessionId("bad")}/search`, { token: caller, body: { query: "x" } }));
    const error = await errorOf(response);
    expect(error).toMatchObject(anError(503, "misconfigured"));
    expect(error.message).toContain(field);
  });
});
