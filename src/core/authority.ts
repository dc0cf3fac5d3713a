// Authority levels, confirmation modes and denied capabilities (SPEC §1): pure decisions, no storage.
import type { GatewayConfig } from "./config.ts";
import type { ConfirmMode, Principal, ToolDefinition } from "./types.ts";

export type AuthorityConfig = Pick<GatewayConfig, "authorityOverrides" | "confirmOverrides" | "deniedCapabilities">;

/** `tool:<name>`, the capability key overrides and denials use. */
export function capabilityKey(name: string): string {
  return `tool:${name}`;
}

/** public → 0, restricted → 2; risk sensitive → 1, dangerous → 2; the highest applies; an override replaces it. */
export function minimumLevel(_tool: ToolDefinition, _config: AuthorityConfig): number { throw new Error("not implemented"); }

/** Declared confirm, else 'session' for dangerous tools, else 'off'; an override replaces it. */
export function confirmMode(_tool: ToolDefinition, _config: AuthorityConfig): ConfirmMode { throw new Error("not implemented"); }

/** Glob over capability keys: `*` any run of characters, `?` one character; the whole key must match. */
export function matchesCapability(_pattern: string, _capability: string): boolean { throw new Error("not implemented"); }

export type AuthorityVerdict =
  | { kind: "allow" }
  | { kind: "deny"; code: "banned" | "level" | "denied"; required?: number }
  | { kind: "confirm"; mode: "session" | "always"; capability: string };

/**
 * The guard's decision for one call. `principal` undefined = anonymous (level 0, not owner). `granted` = an unexpired
 * grant covers this capability in this session. Order: denied capability (even the owner) → banned → level (owner
 * passes) → confirmation (unless granted) → allow.
 */
export function decideAuthority(_input: {
  tool: ToolDefinition;
  principal: Principal | undefined;
  config: AuthorityConfig;
  granted: boolean;
}): AuthorityVerdict {
  throw new Error("not implemented");
}
