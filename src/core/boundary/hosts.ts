// Host names for fetch_url: names that only ever resolve inside a private network, and the owner's allow / deny
// patterns (`example.com` one host, `*.example.com` every name under it). Pure functions; fetch_url and the
// configuration both use them.

/**
 * Top-level names (and the zones under them) that never name a public web site, so a fetch of one can only reach
 * something local or private:
 * - `localhost` (RFC 6761 §6.3), `local` (mDNS, RFC 6762), `invalid` (RFC 6761 §6.4, never resolves),
 *   `onion` (RFC 7686, Tor only), `alt` (RFC 9476, outside the DNS);
 * - `arpa` (RFC 3172, infrastructure): the `in-addr.arpa` / `ip6.arpa` reverse zones and `home.arpa` (RFC 8375,
 *   residential networks);
 * - `internal`: reserved by ICANN for private use (2024; draft-davies-internal-tld);
 * - `intranet`, `private`, `corp`, `home`, `lan`: the names RFC 6762 Appendix G lists as in use on private networks
 *   (`corp` and `home` are also withheld from delegation by ICANN's name-collision decisions).
 *
 * `test` and `example` are left out on purpose: RFC 6761 §6.2 and §6.5 ask applications not to treat them as
 * special, and the public DNS never answers for them anyway; an owner whose own resolver maps them adds
 * `*.test` / `*.example` to `fetchUrl.denyHosts`.
 */
export const LOCAL_TOP_LEVEL_NAMES: readonly string[] = [
  "localhost", "local", "invalid", "onion", "alt", "arpa", "internal", "intranet", "private", "corp", "home", "lan",
];

/** Lower case, without the trailing dots of a fully qualified name (`Example.COM.` → `example.com`). */
export function normalizeHost(host: string): string {
  return host.toLowerCase().replace(/\.+$/, "");
}

/**
 * Whether a host name (not an address literal) can only be local: a single label (`intranet`, `router`; no public
 * name is dotless: ICANN forbids dotless top-level domains) or a name under LOCAL_TOP_LEVEL_NAMES.
 */
export function isLocalName(host: string): boolean {
  const name = normalizeHost(host);
  if (name.startsWith("[")) return false; // an IPv6 literal: checked as an address
  const labels = name.split(".");
  const top = labels.at(-1) ?? "";
  return labels.length < 2 || LOCAL_TOP_LEVEL_NAMES.includes(top);
}

const LABEL = "[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?";
/** `host.name` or `*.host.name` (the wildcard only as a whole first label), lower case ASCII (IDNs in xn-- form). */
export const HOST_PATTERN = new RegExp(`^(?:\\*\\.)?${LABEL}(?:\\.${LABEL})*$`);
export const MAX_HOST_LENGTH = 253;

/** `example.com` matches that host only; `*.example.com` matches every name under it (any depth), not itself. */
export function hostMatches(pattern: string, host: string): boolean {
  const name = normalizeHost(host);
  if (pattern.startsWith("*.")) return name.endsWith(pattern.slice(1)) && name.length > pattern.length - 1;
  return name === pattern;
}

export interface HostLists {
  /** When set, only hosts matching one of these pass. */
  allowHosts?: readonly string[];
  /** Hosts matching one of these never pass (deny wins over allow). */
  denyHosts: readonly string[];
}

/** Why the owner's lists refuse a host, or undefined when they let it through. */
export function hostListRefusal(lists: HostLists, host: string): "denied" | "not_allowed" | undefined {
  if (lists.denyHosts.some((pattern) => hostMatches(pattern, host))) return "denied";
  if (lists.allowHosts !== undefined && !lists.allowHosts.some((pattern) => hostMatches(pattern, host))) {
    return "not_allowed";
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Address literals

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

/**
 * Hosts that never name a public site: private, loopback and reserved address literals, and local names. (The URL
 * parser has already normalised IPv4 spellings like 0x7f.1.) fetch_url refuses them; an upstream needs allowPrivate.
 */
export function isLocalHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.+$/, ""); // "localhost." and "localhost.." name localhost too
  return isPrivateIPv4(host) || isPrivateIPv6(host) || isLocalName(host);
}
