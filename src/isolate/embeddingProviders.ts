// The embeddings providers a deployment may configure (`semantic.provider`; docs/search.md, "Embeddings providers"):
// Workers AI through the optional `AI` binding, or any OpenAI-compatible `/v1/embeddings` endpoint. Each answers the
// core's EmbeddingProvider: one vector per text, a failure or a timeout as a rejection.
import type { SemanticConfig } from "../core/config.ts";
import { EmbeddingTimeout } from "../core/search/embeddingProvider.ts";
import type { EmbeddingProvider } from "../core/search/embeddingProvider.ts";
import { isRecord } from "../core/records.ts";

/** The binding's name in wrangler.toml (optional: without it, a workers-ai provider fails every call, and says so). */
export const AI_BINDING = "AI";

/** Texts per Workers AI call (the embedding models take up to 100 inputs) and per OpenAI-compatible call. */
const WORKERS_AI_BATCH = 100;
const OPENAI_BATCH = 256;
/** Largest embeddings answer read, in bytes (256 vectors of 3,072 dimensions as JSON text fit). */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/** The part of the Workers AI binding used here: `run(model, {text: [...]})`. */
interface AiBinding {
  run(model: string, inputs: { text: string[] }, options?: { signal?: AbortSignal }): Promise<unknown>;
}

function aiBindingOf(env: Env): AiBinding | undefined {
  const binding: unknown = Reflect.get(env, AI_BINDING);
  if (typeof binding !== "object" || binding === null || !("run" in binding) || typeof binding.run !== "function") return undefined;
  const run = binding.run;
  return { run: (model, inputs, options) => Promise.resolve<unknown>(Reflect.apply(run, binding, [model, inputs, options])) };
}

/** `promise`, or a rejection with EmbeddingTimeout past `ms` (the abort signal asks the call itself to stop too). */
async function withTimeout<T>(ms: number, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new EmbeddingTimeout(ms));
    }, ms);
  });
  try {
    return await Promise.race([call(controller.signal), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Each item a list of finite numbers, `count` of them, or an error naming what is wrong. */
function vectorsOf(items: unknown, count: number, source: string): number[][] {
  if (!Array.isArray(items) || items.length !== count) {
    throw new Error(`${source}: expected ${count} vectors, got ${Array.isArray(items) ? items.length : typeof items}`);
  }
  return items.map((item: unknown, index) => {
    const values: unknown[] = Array.isArray(item) ? item : [];
    const numbers = values.filter((value): value is number => typeof value === "number" && Number.isFinite(value));
    if (numbers.length === 0 || numbers.length !== values.length) throw new Error(`${source}: vector ${index} is not a list of numbers`);
    return numbers;
  });
}

/**
 * Workers AI: `env.AI.run(model, {text: [...]})` answers `{shape: [n, dims], data: number[][]}` (the text embedding
 * models' documented output, e.g. @cf/baai/bge-m3).
 */
export function workersAiProvider(binding: AiBinding | undefined, model: string): EmbeddingProvider {
  return {
    id: `workers-ai:${model}`,
    batchSize: WORKERS_AI_BATCH,
    embed: (texts, timeoutMs) => withTimeout(timeoutMs, async (signal) => {
      if (binding === undefined) throw new Error(`the ${AI_BINDING} binding is missing (wrangler.toml [ai]; docs/deploy.md)`);
      const answer = await binding.run(model, { text: [...texts] }, { signal });
      if (!isRecord(answer)) throw new Error("Workers AI: the answer is not an object");
      return vectorsOf(answer.data, texts.length, "Workers AI");
    }),
  };
}

/**
 * An OpenAI-compatible endpoint: POST `{model, input: [...]}` with `Authorization: Bearer <key>` (when a key is
 * configured), answered by `{data: [{index, embedding}]}`.
 */
export function openAiCompatibleProvider(options: { url: string; model: string; apiKey: string | undefined; fetch?: typeof fetch }): EmbeddingProvider {
  const send = options.fetch ?? fetch;
  return {
    id: `openai-compatible:${options.model}`,
    batchSize: OPENAI_BATCH,
    embed: (texts, timeoutMs) => withTimeout(timeoutMs, async (signal) => {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (options.apiKey !== undefined) headers["authorization"] = `Bearer ${options.apiKey}`;
      const response = await send(options.url, {
        method: "POST",
        headers,
        body: JSON.stringify({ model: options.model, input: texts, encoding_format: "float" }),
        signal,
        // A redirect is not followed (the key would go with it): its 3xx is a failure below.
        redirect: "manual",
      });
      if (!response.ok) {
        await response.body?.cancel();
        throw new Error(`embeddings endpoint answered ${response.status}`);
      }
      const length = Number(response.headers.get("content-length") ?? "0");
      if (length > MAX_ANSWER_BYTES) {
        await response.body?.cancel();
        throw new Error(`embeddings answer of ${length} bytes is over ${MAX_ANSWER_BYTES}`);
      }
      const text = await response.text();
      if (text.length > MAX_ANSWER_BYTES) throw new Error(`embeddings answer is over ${MAX_ANSWER_BYTES} bytes`);
      const body: unknown = JSON.parse(text);
      const data = isRecord(body) ? body.data : undefined;
      if (!Array.isArray(data)) throw new Error("embeddings endpoint: the answer has no data list");
      // Items carry their input's index; an endpoint may list them in another order.
      const ordered: unknown[] = Array.from({ length: texts.length }, () => undefined);
      data.forEach((item: unknown, at) => {
        const index = isRecord(item) && typeof item.index === "number" ? item.index : at;
        if (isRecord(item) && Number.isInteger(index) && index >= 0 && index < texts.length) ordered[index] = item.embedding;
      });
      return vectorsOf(data.length === texts.length ? ordered : data, texts.length, "embeddings endpoint");
    }),
  };
}

/** The provider `semantic` configures, over this environment's binding or secret. */
export function providerOf(env: Env, semantic: SemanticConfig): EmbeddingProvider {
  if (semantic.provider === "workers-ai") return workersAiProvider(aiBindingOf(env), semantic.model);
  const secret = semantic.apiKeySecret;
  const key: unknown = secret === undefined ? undefined : Reflect.get(env, secret);
  const provider = openAiCompatibleProvider({ url: semantic.url, model: semantic.model, apiKey: typeof key === "string" && key !== "" ? key : undefined });
  if (secret === undefined || (typeof key === "string" && key !== "")) return provider;
  // A key was configured but is not there: every call fails, saying which secret to set, and nothing is sent.
  return { ...provider, embed: () => Promise.reject(new Error(`the secret ${secret} is not set (wrangler secret put ${secret})`)) };
}
