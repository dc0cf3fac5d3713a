// The providers' requests and answers: the OpenAI-compatible endpoint through a fetch of the test's, Workers AI
// through a binding of the test's (the binding's documented shapes: run(model, {text}) → {shape, data}).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { EmbeddingTimeout } from "../../src/core/search/embeddingProvider.ts";
import { openAiCompatibleProvider, providerOf, workersAiProvider } from "../../src/isolate/embeddingProviders.ts";

function answering(body: unknown, answer: ResponseInit = {}): { fetch: typeof fetch; requests: { url: string; init: RequestInit | undefined }[] } {
  const requests: { url: string; init: RequestInit | undefined }[] = [];
  const fake: typeof fetch = (input, init) => {
    requests.push({ url: typeof input === "string" ? input : input instanceof URL ? input.href : input.url, init });
    return Promise.resolve(Response.json(body, answer));
  };
  return { fetch: fake, requests };
}

describe("openAiCompatibleProvider", () => {
  it("posts the model and the texts with the key, and orders the answer by index", async () => {
    const server = answering({ data: [{ index: 1, embedding: [0, 1] }, { index: 0, embedding: [1, 0] }] });
    const provider = openAiCompatibleProvider({ url: "https://embed.example/v1/embeddings", model: "m-1", apiKey: "sk-1", fetch: server.fetch });
    expect(provider.id).toBe("openai-compatible:m-1");
    expect(await provider.embed(["first", "second"], 1_000)).toEqual([[1, 0], [0, 1]]);
    const sent = server.requests[0];
    expect(sent?.url).toBe("https://embed.example/v1/embeddings");
    expect(new Headers(sent?.init?.headers).get("authorization")).toBe("Bearer sk-1");
    const body = sent?.init?.body;
    expect(JSON.parse(typeof body === "string" ? body : "null")).toEqual({ model: "m-1", input: ["first", "second"], encoding_format: "float" });
  });

  it("sends no Authorization header without a key", async () => {
    const server = answering({ data: [{ index: 0, embedding: [1] }] });
    await openAiCompatibleProvider({ url: "http://local/v1/embeddings", model: "m", apiKey: undefined, fetch: server.fetch }).embed(["x"], 1_000);
    expect(new Headers(server.requests[0]?.init?.headers).has("authorization")).toBe(false);
  });

  it.each([
    ["an error status", answering({ error: "overloaded" }, { status: 503 }), /answered 503/],
    ["a redirect", answering(null, { status: 302, headers: { location: "https://elsewhere.example/" } }), /answered 302/],
    ["too few vectors", answering({ data: [{ index: 0, embedding: [1] }] }), /expected 2 vectors/],
    ["a vector of strings", answering({ data: [{ index: 0, embedding: ["1"] }, { index: 1, embedding: [1] }] }), /not a list of numbers/],
    ["no data", answering({ embeddings: [] }), /no data list/],
  ])("rejects %s", async (_label, server, message) => {
    const provider = openAiCompatibleProvider({ url: "https://embed.example/v1/embeddings", model: "m", apiKey: undefined, fetch: server.fetch });
    await expect(provider.embed(["a", "b"], 1_000)).rejects.toThrow(message);
  });

  it("gives up past the timeout, and aborts the request", async () => {
    let signal: AbortSignal | undefined;
    const never: typeof fetch = (_input, init) => {
      signal = init?.signal ?? undefined;
      return new Promise(() => undefined);
    };
    const provider = openAiCompatibleProvider({ url: "https://embed.example/v1/embeddings", model: "m", apiKey: undefined, fetch: never });
    await expect(provider.embed(["a"], 20)).rejects.toBeInstanceOf(EmbeddingTimeout);
    expect(signal?.aborted).toBe(true);
  });
});

describe("workersAiProvider", () => {
  it("runs the model on the texts and reads {shape, data}", async () => {
    const calls: unknown[][] = [];
    const binding = {
      run: (...args: unknown[]) => {
        calls.push(args);
        return Promise.resolve({ shape: [2, 3], data: [[1, 0, 0], [0, 1, 0]], pooling: "cls" });
      },
    };
    const provider = workersAiProvider(binding, "@cf/baai/bge-m3");
    expect(provider.id).toBe("workers-ai:@cf/baai/bge-m3");
    expect(await provider.embed(["a", "b"], 1_000)).toEqual([[1, 0, 0], [0, 1, 0]]);
    expect(calls[0]?.slice(0, 2)).toEqual(["@cf/baai/bge-m3", { text: ["a", "b"] }]);
  });

  it("rejects an answer without vectors, and a missing binding", async () => {
    const binding = { run: () => Promise.resolve({ response: [{ id: 0, score: 0.5 }] }) };
    await expect(workersAiProvider(binding, "m").embed(["a"], 1_000)).rejects.toThrow(/expected 1 vectors/);
    await expect(workersAiProvider(undefined, "m").embed(["a"], 1_000)).rejects.toThrow(/AI binding is missing/);
  });

  it("is found on the environment by providerOf, with the OpenAI-compatible key from its secret", async () => {
    const binding = { run: () => Promise.resolve({ shape: [1, 1], data: [[1]] }) };
    const withBinding = Object.assign({}, env, { AI: binding });
    expect(await providerOf(withBinding, { provider: "workers-ai", model: "m", timeoutMs: 300, weight: 0.5 }).embed(["a"], 1_000)).toEqual([[1]]);
    const missing = providerOf({ ...env }, { provider: "openai-compatible", url: "https://x/v1/embeddings", model: "m", apiKeySecret: "ABSENT_KEY", timeoutMs: 300, weight: 0.5 });
    await expect(missing.embed(["a"], 1_000)).rejects.toThrow(/ABSENT_KEY is not set/);
  });
});
