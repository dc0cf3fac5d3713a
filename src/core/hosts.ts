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
