// An upstream MCP server as the owner configures it (PUT /v1/upstreams/:id), its limits, and the rule for its URL.
import { isLocalHost } from "../boundary/hosts.ts";
import { isRecord } from "../records.ts";
import type { DeclaredConfirm, Risk, Visibility } from "../types.ts";
import type { NewToolsPolicy } from "./pins.ts";
import type { UpstreamGuardSettings } from "./toolGuard.ts";

export interface UpstreamConfig {
  id: string;
  url: string;
  /** Header name → name of the TOOL_SECRET_* secret holding its value. */
  headers: Record<string, string>;
  /** Tool names are `<prefix>__<tool>`; the id by default. */
  prefix: string;
  groups?: string[];
  visibility?: Visibility;
  risk?: Risk;
  confirm?: DeclaredConfirm;
  /** Per upstream tool (by the server's name): guard settings that replace the upstream's for that tool. */
  tools?: Record<string, UpstreamGuardSettings>;
  /** Re-list every this many seconds (a Durable Object alarm); absent: only on refresh and list_changed. */
  refreshSeconds?: number;
  timeoutMs: number;
  allowPrivate: boolean;
  newTools: NewToolsPolicy;
  /** Each user's own OAuth grant to the server (upstreamAuth.ts); absent: the static headers only. */
  auth?: UpstreamOAuth;
}

/**
 * `auth: {type: "oauth"}`: toolgate is the OAuth client of the server's authorization server, and every call carries
 * the calling principal's own grant. The client is registered by toolgate (a metadata document or dynamic
 * registration) unless the owner names one.
 */
export interface UpstreamOAuth {
  type: "oauth";
  /** A client the owner registered at the authorization server; absent: toolgate registers itself. */
  clientId?: string;
  /** The TOOL_SECRET_* Worker secret holding that client's secret (a confidential client). */
  clientSecretSecret?: string;
  /** Scopes asked for; absent: the server's `scopes_supported`, else none. */
  scopes?: string[];
}

export const UPSTREAM_LIMITS = Object.freeze({
  /** Upstream servers per deployment. */
  upstreams: 50,
  /**
   * Bytes of JSON that one upstream's registered tools may take, in list order (the rest are left out, each with the
   * reason). Its object keeps every tool, pin and quarantined copy as a row of its own, so no storage value bounds
   * this; the whole set goes to the registry in one call, which must stay well under the 32 MiB an RPC message may be.
   * There is no count of tools per upstream below the registry's own `maxTools`.
   */
  toolBytesPerUpstream: 16 * 1024 * 1024,
  /** tools/list pages read in one refresh before giving up (a server that pages for ever). */
  listPages: 1_000,
  /** Bytes of one tools/list answer (one page); calls use limits.maxResponseBytes. */
  listResponseBytes: 16 * 1024 * 1024,
  /** Bytes of tools (their JSON) all the pages of one refresh may bring: what the list holds in memory at once. */
  listBytesPerRefresh: 32 * 1024 * 1024,
  /** Tools one accept may name. */
  acceptPerRequest: 10_000,
  /** Tools the owner's `tools` settings may name (they are stored with the configuration, in one value). */
  toolSettings: 1_000,
  /** Entries of `rejectedTools` kept (and shown); the count past it is told in the last one. */
  rejectedShown: 1_000,
  minTimeoutMs: 100,
  maxTimeoutMs: 120_000,
  defaultTimeoutMs: 15_000,
  minRefreshSeconds: 60,
  /** A tools/list_changed lists again at most this soon after the last list (a storm of them costs one list). */
  listChangedGapMs: 10_000,
  maxRefreshSeconds: 7 * 24 * 3600,
  urlChars: 2_048,
  headers: 32,
  prefixChars: 32,
});

/** Contexts that start with this belong to upstreams: the owner's tools may not be put there (a refresh replaces them). */
export const UPSTREAM_CONTEXT_PREFIX = "upstream:";

/** The context an upstream's tools are registered in (DELETE /v1/contexts/:id disposes it too). */
export function upstreamContext(id: string): string {
  return `${UPSTREAM_CONTEXT_PREFIX}${id}`;
}

/**
 * Why an upstream URL's scheme and host are refused, or undefined. The owner chooses upstream URLs (the model never
 * does), so a private or loopback host is allowed when the owner says `allowPrivate`; plain http only then too
 * (a secret header must not cross the internet in clear text).
 */
export function upstreamUrlRefusal(protocol: string, hostname: string, allowPrivate: boolean): string | undefined {
  if (protocol !== "https:" && protocol !== "http:") return "must be an https:// URL";
  if (protocol === "http:" && !allowPrivate) return "must be https:// (plain http only with allowPrivate, for a server on a private network)";
  if (!allowPrivate && isLocalHost(hostname)) return `${hostname} is a local or private address; set allowPrivate to use it`;
  return undefined;
}

const AUTH_FIELDS = new Set(["type", "clientId", "clientSecretSecret", "scopes"]);
/** An OAuth scope token (RFC 6749 §3.3): printable ASCII without space, quote or backslash. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]{1,128}$/;
const CLIENT_ID = /^[\x21-\x7E]{1,512}$/;
const MAX_SCOPES = 32;

/**
 * The `auth` field of an upstream, checked: the configuration, or the problem with the field that has it (named as
 * `auth.<field>`). `secretPattern` is the rule for Worker secret names; only TOOL_SECRET_* secrets are usable.
 */
export function readUpstreamAuth(value: unknown, secretPattern: RegExp, secretPrefix: string): { auth: UpstreamOAuth } | { field: string; problem: string } {
  if (!isRecord(value)) return { field: "auth", problem: 'must be an object such as {"type": "oauth"}' };
  const record = value;
  for (const key of Object.keys(record)) {
    if (!AUTH_FIELDS.has(key)) return { field: `auth.${key.slice(0, 64)}`, problem: "is not a known field (type, clientId, clientSecretSecret, scopes)" };
  }
  if (record.type !== "oauth") return { field: "auth.type", problem: 'must be "oauth"' };
  const auth: UpstreamOAuth = { type: "oauth" };
  if (record.clientId !== undefined) {
    if (typeof record.clientId !== "string" || !CLIENT_ID.test(record.clientId)) return { field: "auth.clientId", problem: "must be 1 to 512 printable ASCII characters" };
    auth.clientId = record.clientId;
  }
  if (record.clientSecretSecret !== undefined) {
    const name = record.clientSecretSecret;
    if (typeof name !== "string" || !secretPattern.test(name) || !name.startsWith(secretPrefix)) {
      return { field: "auth.clientSecretSecret", problem: `must name a ${secretPrefix}* Worker secret, never hold the value itself` };
    }
    if (auth.clientId === undefined) return { field: "auth.clientSecretSecret", problem: "needs auth.clientId (the client whose secret it is)" };
    auth.clientSecretSecret = name;
  }
  if (record.scopes !== undefined) {
    const scopes = record.scopes;
    if (!Array.isArray(scopes) || scopes.length > MAX_SCOPES) return { field: "auth.scopes", problem: `must be a list of at most ${MAX_SCOPES} scopes` };
    for (const [index, scope] of scopes.entries()) {
      if (typeof scope !== "string" || !SCOPE_TOKEN.test(scope)) return { field: `auth.scopes[${index}]`, problem: "must be an OAuth scope token (printable ASCII, no space, quote or backslash)" };
    }
    auth.scopes = [...new Set(scopes.filter((scope): scope is string => typeof scope === "string"))];
  }
  return { auth };
}
