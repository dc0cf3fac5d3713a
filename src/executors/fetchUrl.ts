// The `fetch_url` builtin: GET a model-chosen URL and hand back its text inside the untrusted-content boundary.
//
// The URL comes from the model, which may be under a prompt injection, so it is checked before every hop: http or
// https only, no credentials in it, no local or private address literal, no name that only resolves locally
// (single-label names, `.local`, `.internal`, … see core/hosts.ts), and the owner's `fetchUrl` host lists. Redirects
// are followed by hand (at most MAX_REDIRECTS) so that each target passes the same checks. One timeout covers every
// hop and the body.
//
// What this cannot check: where a public-looking name resolves. A Worker cannot resolve DNS, so a name whose records
// point at a private address (or change between checks: DNS rebinding) passes. On Cloudflare that is harmless, since
// the Worker's outbound fetch does not reach private networks; on self-hosted workerd or `wrangler dev` it is the
// network around the process that must keep the fetch out (or an allow list).
import type { GatewayConfig } from "../core/config.ts";
import { hostListRefusal, isLocalName } from "../core/hosts.ts";
import type { HostLists } from "../core/hosts.ts";
import { wrapFetchedContent } from "../core/untrusted.ts";
import { fetchFailure, readTextBody, type ReadOptions } from "./response.ts";

/** Longest URL accepted; 8 KiB is what common servers and proxies accept. */
export const MAX_URL_LENGTH = 8192;
export const MAX_REDIRECTS = 5;

const PRIVATE_IPV4: readonly [number, number][] = [
  // [network, prefix length]: this network, private, shared (CGNAT), loopback, link-local, multicast and reserved.
  [0x00000000, 8],
  [0x0a000000, 8],
  [0x64400000, 10],
  [0x7f000000, 8],
  [0xa9fe0000, 16],
  [0xac100000, 12],
  [0xc0a80000, 16],
  [0xe0000000, 3],
  // IETF protocol assignments and benchmarking: not globally reachable either (RFC 6890).
  [0xc0000000, 24],
  [0xc6120000, 15],
];

function isPrivateIPv4(host: string): boolean {
  const parts = host.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return false;
  const address = parts.reduce((acc, p) => acc * 256 + Number(p), 0);
  return PRIVATE_IPV4.some(([network, prefix]) => Math.floor(address / 2 ** (32 - prefix)) === Math.floor(network / 2 ** (32 - prefix)));
}

function hexGroups(part: string): number[] {
  return part === "" ? [] : part.split(":").map((group) => Number.parseInt(group, 16));
}

/** The eight 16-bit groups of a bracketed IPv6 host as the URL parser prints it (compressed, lower case, no IPv4 tail). */
function ipv6Groups(host: string): number[] | undefined {
  const address = host.slice(1, -1).toLowerCase();
  const [head = "", tail, extra] = address.split("::");
  if (extra !== undefined) return undefined;
  const left = hexGroups(head);
  const right = tail === undefined ? [] : hexGroups(tail);
  const groups = tail === undefined ? left : [...left, ...Array<number>(Math.max(0, 8 - left.length - right.length)).fill(0), ...right];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

function ipv4FromGroups(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".");
}

function isPrivateIPv6(host: string): boolean {
  if (!host.startsWith("[")) return false;
  const groups = ipv6Groups(host);
  if (!groups) return true; // not an address we can read: fail closed
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, , , g6 = 0, g7 = 0] = groups;
  return (
    // ::/64 holds the unspecified and loopback addresses and every IPv4-compatible, -mapped (::ffff:0:0/96) and
    // -translated (::ffff:0:0:0/96) form, which can name any IPv4 address, private ones included.
    (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0) ||
    // NAT64 (64:ff9b::/96, 64:ff9b:1::/48) and 6to4 (2002::/16) carry an IPv4 address that a gateway reaches.
    (g0 === 0x64 && g1 === 0xff9b && isPrivateIPv4(ipv4FromGroups(g6, g7))) ||
    (g0 === 0x64 && g1 === 0xff9b && g2 === 1) ||
    (g0 === 0x2002 && isPrivateIPv4(ipv4FromGroups(g1, g2))) ||
    (g0 & 0xfe00) === 0xfc00 || // unique local fc00::/7
    (g0 & 0xff80) === 0xfe80 || // link-local fe80::/10 and the old site-local fec0::/10
    (g0 & 0xff00) === 0xff00 // multicast ff00::/8
  );
}

/** Hosts that never name a public site. (The URL parser has already normalised IPv4 spellings like 0x7f.1.) */
function isLocalHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.+$/, ""); // "localhost." and "localhost.." name localhost too
  return isPrivateIPv4(host) || isPrivateIPv6(host) || isLocalName(host);
}

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
