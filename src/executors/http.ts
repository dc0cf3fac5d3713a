// The `http` executor: send the tool's JSON arguments to the URL of its definition, with header values taken from
// Worker secrets that the definition names (never values in the definition itself).
//
// - Only secrets named `TOOL_SECRET_*` can be used, so that a tool definition (which an owner may paste from
//   elsewhere) cannot send the gateway's own secrets (AUTH_JWT_SECRET, …) to a third party.
// - POST, PUT, PATCH, DELETE send the arguments as a JSON body; GET sends them as query parameters (strings as they
//   are, anything else as JSON), because a GET has no body.
// - Redirects are not followed: a redirect would carry the secret headers to wherever it points.
// - The answer is external content, wrapped by default (`untrusted: false` hands back the raw text).
import type { GatewayConfig } from "../core/config.ts";
import type { ExecutorSpec } from "../core/types.ts";
import { secretHeaderValues, TOOL_SECRET_PREFIX } from "../core/boundary/secrets.ts";
import { wrapFetchedContent } from "../core/boundary/untrusted.ts";
import { fetchFailure, readTextBody, type ReadOptions } from "./response.ts";

export type HttpExecutorSpec = Extract<ExecutorSpec, { type: "http" }>;

export { TOOL_SECRET_PREFIX };

/** The headers of `spec` with their secret values; throws naming the secret (never its value) when one is unusable. */
export function resolveSecretHeaders(spec: HttpExecutorSpec, env: Record<string, unknown>): Headers {
  const headers = new Headers();
  for (const [header, value] of Object.entries(secretHeaderValues(spec.headers ?? {}, env))) {
    try {
      headers.set(header, value);
    } catch {
      throw new Error(`"${header}" is not a valid header name, or secret "${spec.headers?.[header] ?? ""}" holds an invalid header value`);
    }
  }
  return headers;
}

function targetUrl(spec: HttpExecutorSpec): URL {
  let url: URL;
  try {
    url = new URL(spec.url);
  } catch {
    throw new Error(`the tool's URL "${spec.url.slice(0, 200)}" is not a valid absolute URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("the tool's URL must be http or https");
  if (url.username !== "" || url.password !== "") throw new Error("the tool's URL must not carry credentials");
  return url;
}

export async function runHttpExecutor(
  spec: HttpExecutorSpec,
  args: Record<string, unknown>,
  config: GatewayConfig,
  env: Record<string, unknown>,
): Promise<string> {
  const url = targetUrl(spec);
  const method = spec.method ?? "POST";
  const headers = resolveSecretHeaders(spec, env);
  if (!headers.has("accept")) headers.set("accept", "application/json, text/*;q=0.9");
  let body: string | undefined;
  if (method === "GET") {
    for (const [key, value] of Object.entries(args)) url.searchParams.set(key, typeof value === "string" ? value : JSON.stringify(value));
  } else {
    body = JSON.stringify(args);
    headers.set("content-type", "application/json");
  }

  const timeoutMs = spec.timeoutMs ?? config.limits.executorTimeoutMs;
  const signal = AbortSignal.timeout(timeoutMs);
  const options: ReadOptions = { origin: url.host, maxBytes: config.limits.maxResponseBytes, signal, timeoutMs };
  let response: Response;
  try {
    response = await fetch(url, { method, headers, body, signal, redirect: "manual" });
  } catch (error) {
    throw fetchFailure(error, options);
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`HTTP ${response.status} from ${url.host} (redirects are not followed)`);
  }
  const text = await readTextBody(response, options);
  if (spec.untrusted === false) return text;
  return wrapFetchedContent(text, `http ${method} ${spec.url}`, { locale: config.locale, maxChars: config.limits.maxUntrustedChars });
}
