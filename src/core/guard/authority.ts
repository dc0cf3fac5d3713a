// Authority levels, confirmation modes and denied capabilities (docs/DESIGN.md, "The guard"): pure decisions, no storage.
import type { GatewayConfig } from "../config.ts";
import { texts } from "../locale.ts";
import type { ConfirmMode, Locale, Principal, ToolDefinition } from "../types.ts";

export type AuthorityConfig = Pick<GatewayConfig, "authorityOverrides" | "confirmOverrides" | "deniedCapabilities">;

/** The principal of a call without a token (anonymous access), and of a guarded call without a principal. */
export const ANONYMOUS_PRINCIPAL_ID = "anonymous";

/** `tool:<name>`, the capability key overrides and denials use. */
export function capabilityKey(name: string): string {
  return `tool:${name}`;
}

const VISIBILITY_LEVEL = { public: 0, restricted: 2 } as const;
const RISK_LEVEL = { safe: 0, sensitive: 1, dangerous: 2 } as const;

/** public → 0, restricted → 2; risk sensitive → 1, dangerous → 2; the highest applies; an override replaces it. */
export function minimumLevel(tool: ToolDefinition, config: AuthorityConfig): number {
  const key = capabilityKey(tool.name);
  // Own keys only: a tool named "constructor" must not read Object.prototype.
  const override = Object.hasOwn(config.authorityOverrides, key) ? config.authorityOverrides[key] : undefined;
  if (typeof override === "number") return override;
  return Math.max(VISIBILITY_LEVEL[tool.visibility ?? "public"], RISK_LEVEL[tool.risk ?? "safe"]);
}

/** Declared confirm, else 'session' for dangerous tools, else 'off'; an override replaces it. */
export function confirmMode(tool: ToolDefinition, config: AuthorityConfig): ConfirmMode {
  const key = capabilityKey(tool.name);
  const override = Object.hasOwn(config.confirmOverrides, key) ? config.confirmOverrides[key] : undefined;
  if (override !== undefined) return override;
  return tool.confirm ?? (tool.risk === "dangerous" ? "session" : "off");
}

const compiledPatterns = new Map<string, RegExp>();
const MAX_CACHED_PATTERNS = 1_000;

/** Glob over capability keys: `*` any run of characters, `?` one character; the whole key must match. */
export function matchesCapability(pattern: string, capability: string): boolean {
  let regex = compiledPatterns.get(pattern);
  if (!regex) {
    let source = "";
    for (const char of pattern) {
      if (char === "*") source += "[\\s\\S]*";
      else if (char === "?") source += "[\\s\\S]";
      else source += char.replace(/[\\^$.|+()[\]{}/]/g, "\\$&");
    }
    // `u`: `?` is one character (code point), not one UTF-16 unit.
    regex = new RegExp(`^${source}$`, "u");
    if (compiledPatterns.size >= MAX_CACHED_PATTERNS) compiledPatterns.clear();
    compiledPatterns.set(pattern, regex);
  }
  return regex.test(capability);
}

export type AuthorityVerdict =
  | { kind: "allow" }
  | { kind: "deny"; code: "banned" | "level" | "denied"; required?: number }
  | { kind: "confirm"; mode: "session" | "always"; capability: string };

/**
 * The guard's decision for one call. `principal` undefined = anonymous (level 0, not owner). `granted` = an unexpired
 * grant covers this capability in this session. Order: denied capability (even the owner) → banned → level (owner
 * passes) → confirmation (unless granted) → allow.
 *
 * A negative level bans even an owner (the order puts "banned" before the owner's pass: fail closed on a contradictory
 * credential). Confirmation applies to the owner too: it is about the model acting, not about who may act.
 */
export function decideAuthority(input: {
  tool: ToolDefinition;
  principal: Principal | undefined;
  config: AuthorityConfig;
  granted: boolean;
}): AuthorityVerdict {
  const { tool, principal, config, granted } = input;
  const capability = capabilityKey(tool.name);
  if (config.deniedCapabilities.some((pattern) => matchesCapability(pattern, capability))) {
    return { kind: "deny", code: "denied" };
  }
  const level = principal?.level ?? 0;
  // `!(level >= 0)`, not `level < 0`: a NaN level must not slip past both this and the level check (fail closed).
  if (!(level >= 0)) return { kind: "deny", code: "banned" };
  const required = minimumLevel(tool, config);
  if (!principal?.owner && level < required) return { kind: "deny", code: "level", required };
  const mode = confirmMode(tool, config);
  if (mode !== "off" && !granted) return { kind: "confirm", mode, capability };
  return { kind: "allow" };
}

/** The model-facing reason of a denial. */
export function denialText(
  verdict: Extract<AuthorityVerdict, { kind: "deny" }>,
  toolName: string,
  principal: Principal | undefined,
  locale: Locale = "en",
): string {
  const t = texts(locale);
  if (verdict.code === "denied") return t.capabilityDenied(capabilityKey(toolName));
  if (verdict.code === "banned") return t.banned;
  return t.levelTooLow(toolName, verdict.required ?? 0, principal?.level ?? 0);
}
