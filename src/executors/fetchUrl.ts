// The `fetch_url` builtin: GET a model-chosen URL and hand back its text inside the untrusted-content boundary.
//
// The URL comes from the model, which may be under a prompt injection, so it is checked before every hop: http or
// https only, no credentials in it, no local or private address literal, no name that only resolves locally
// (single-label names, `.local`, `.internal`, … see core/boundary/hosts.ts), and the owner's `fetchUrl` host lists. Redirects
// are followed by hand (at most MAX_REDIRECTS) so that each target passes the same checks. One timeout covers every
// hop and the body.
//
// What this cannot check: where a public-looking name resolves. A Worker cannot resolve DNS, so a name whose records
// point at a private address (or change between checks: DNS rebinding) passes. On Cloudflare that is harmless, since
// the Worker's outbound fetch does not reach private networks; on self-hosted workerd or `wrangler dev` it is the
// network around the process that must keep the fetch out (or an allow list).
import type { GatewayConfig } from "../core/config.ts";
import { hostListRefusal, isLocalHost } from "../core/boundary/hosts.ts";
import type { HostLists } from "../core/boundary/hosts.ts";
import { wrapFetchedContent } from "../core/boundary/untrusted.ts";
import { fetchFailure, readTextBody, type ReadOptions } from "./response.ts";

/** Longest URL accepted; 8 KiB is what common servers and proxies accept. */
export const MAX_URL_LENGTH = 8192;
export const MAX_REDIRECTS = 5;

/**
 * The URL if the model may fetch it; throws a message for the model otherwise. `hosts` are the owner's lists
 * (TOOL_SEARCH_CONFIG.fetchUrl); the built-in refusals apply whatever they say.
 */
export function checkFetchUrl(raw: unknown, hosts: HostLists = { denyHosts: [] }): URL {
  if (typeof raw !== "string" || raw.trim() === "") throw new Error('"url" must be a non-empty string');
  if (raw.length > MAX_URL_LENGTH) throw new Error(`the URL is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new Error(`"${raw.slice(0, 200)}" is not a valid absolute URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`only http and https URLs can be fetched, not ${url.protocol.replace(/:$/, "")}`);
  }
  if (url.username !== "" || url.password !== "") throw new Error("URLs with credentials (user:password@) are refused");
  if (isLocalHost(url.hostname)) throw new Error(`refusing to fetch a local or private address (${url.hostname})`);
  const refusal = hostListRefusal(hosts, url.hostname);
  if (refusal === "denied") throw new Error(`refusing to fetch ${url.hostname}: the gateway's owner denies this host`);
  if (refusal === "not_allowed") {
    throw new Error(`refusing to fetch ${url.hostname}: it is not among the hosts the gateway's owner allows`);
  }
  url.hash = "";
  return url;
}

export async function fetchUrl(args: Record<string, unknown>, config: GatewayConfig): Promise<string> {
  let url = checkFetchUrl(args.url, config.fetchUrl);
  const timeoutMs = config.limits.executorTimeoutMs;
  const signal = AbortSignal.timeout(timeoutMs);
  for (let hop = 0; ; hop++) {
    const options: ReadOptions = { origin: url.host, maxBytes: config.limits.maxResponseBytes, signal, timeoutMs };
    let response: Response;
    try {
      response = await fetch(url, {
        method: "GET",
        redirect: "manual",
        signal,
        headers: {
          accept: "text/html, text/plain;q=0.9, application/json;q=0.9, text/*;q=0.8, */*;q=0.1",
          "user-agent": "toolgate-fetch_url/1",
        },
      });
    } catch (error) {
      throw fetchFailure(error, options);
    }
    if (response.status >= 300 && response.status < 400 && response.status !== 304) {
      await response.body?.cancel().catch(() => undefined);
      const location = response.headers.get("location");
      if (location === null) throw new Error(`HTTP ${response.status} from ${url.host} without a Location`);
      if (hop >= MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects, starting from ${url.host}`);
      let target: string;
      try {
        target = new URL(location, url).href;
      } catch {
        throw new Error(`HTTP ${response.status} from ${url.host} with an invalid Location`);
      }
      url = checkFetchUrl(target, config.fetchUrl);
      continue;
    }
    const text = await readTextBody(response, options);
    return wrapFetchedContent(text, `fetch_url ${url.href}`, {
      locale: config.locale,
      maxChars: config.limits.maxUntrustedChars,
    });
  }
}
