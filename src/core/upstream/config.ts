// An upstream MCP server as the owner configures it (PUT /v1/upstreams/:id), its limits, and the rule for its URL.
import { isLocalHost } from "../boundary/hosts.ts";
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
