// The `service` executor: POST the tool's JSON arguments to another Worker through a service binding.
//
// The binding must be a Fetcher of the env (not ASSETS, which serves our own static files). The answer is another
// party's text, so it is wrapped as untrusted content unless the definition says `untrusted: false` (same default as
// `http`: a service binding says where the text comes from, not that it is safe to obey).
import type { GatewayConfig } from "../core/config.ts";
import type { ExecutorSpec } from "../core/types.ts";
import { wrapFetchedContent } from "../core/boundary/untrusted.ts";
import { fetchFailure, readTextBody, type ReadOptions } from "./response.ts";

export type ServiceExecutorSpec = Extract<ExecutorSpec, { type: "service" }>;

/** Bindings a service executor may never use. */
const RESERVED_BINDINGS = new Set(["ASSETS"]);

interface FetcherLike {
  fetch(input: Request | string | URL, init?: RequestInit): Promise<Response>;
}

function isFetcher(value: unknown): value is FetcherLike {
  return typeof value === "object" && value !== null && typeof (value as { fetch?: unknown }).fetch === "function";
}

export function serviceFetcher(binding: string, env: Record<string, unknown>): FetcherLike {
  if (RESERVED_BINDINGS.has(binding)) throw new Error(`binding "${binding}" cannot be used by a tool`);
  const value = Object.hasOwn(env, binding) ? env[binding] : undefined;
  if (value === undefined) throw new Error(`service binding "${binding}" is not configured on the gateway`);
  if (!isFetcher(value)) throw new Error(`binding "${binding}" is not a service binding`);
  return value;
}

export async function runServiceExecutor(
  spec: ServiceExecutorSpec,
  args: Record<string, unknown>,
  config: GatewayConfig,
  env: Record<string, unknown>,
): Promise<string> {
  const fetcher = serviceFetcher(spec.binding, env);
  const path = (spec.path ?? "").replace(/^\/+/, "");
  const timeoutMs = config.limits.executorTimeoutMs;
  const signal = AbortSignal.timeout(timeoutMs);
  const origin = `service ${spec.binding}`;
  const options: ReadOptions = { origin, maxBytes: config.limits.maxResponseBytes, signal, timeoutMs };
  let response: Response;
  try {
    response = await fetcher.fetch(`https://service/${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/*;q=0.9" },
      body: JSON.stringify(args),
      signal,
      redirect: "manual",
    });
  } catch (error) {
    throw fetchFailure(error, options);
  }
  const text = await readTextBody(response, options);
  if (spec.untrusted === false) return text;
  return wrapFetchedContent(text, `service ${spec.binding}/${path}`, { locale: config.locale, maxChars: config.limits.maxUntrustedChars });
}
