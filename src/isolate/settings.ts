// The Worker's settings, read from its vars and secrets once per isolate (the README's Configuration).
// A bad value makes every route but /v1/health answer 503 with a message naming the variable.
import { ConfigError, parseConfigText } from "../core/config.ts";
import type { GatewayConfig } from "../core/config.ts";

export interface AuthSettings {
  /** HS256 secret (AUTH_JWT_SECRET). */
  secret?: Uint8Array;
  /** JWKS endpoint (AUTH_JWKS_URL) for asymmetric tokens. */
  jwksUrl?: URL;
  audience?: string;
  issuer?: string;
  allowAnonymous: boolean;
  /** Longest token lifetime accepted, in seconds (AUTH_MAX_TOKEN_LIFETIME_SECONDS): `exp - iat` and `exp - now`. */
  maxTokenLifetimeSeconds: number;
}

export interface Settings {
  config: GatewayConfig;
  auth: AuthSettings;
  /** Origins that browsers may call the API from (CORS_ALLOW_ORIGINS); "*" for any; empty: no CORS headers. */
  corsOrigins: readonly string[] | "*";
  /**
   * Whether the built-in demo catalog (83 tools) joins the registry (DEMO_CATALOG="true"): on for `npm start` through
   * .dev.vars, off unless set, so that a deployment never serves the demo's tools by accident.
   */
  demoCatalog: boolean;
  /** HMAC secret of MCP request states (MCP_STATE_SECRET); without it one is derived from AUTH_JWT_SECRET. */
  mcpStateSecret?: Uint8Array;
}

export type SettingsResult = { ok: true; settings: Settings } | { ok: false; error: ConfigError };

/** Shortest HS256 secret accepted: 256 bits, the size of the hash (RFC 7518 §3.2). */
export const MIN_SECRET_LENGTH = 32;

/**
 * Tokens cannot be revoked (there is no deny list), so their lifetime bounds how long a leaked one works: one day by
 * default, enough for a working session or a daily token refresh. AUTH_MAX_TOKEN_LIFETIME_SECONDS sets it, from
 * one minute to 30 days.
 */
export const DEFAULT_MAX_TOKEN_LIFETIME_SECONDS = 86_400;
export const MAX_TOKEN_LIFETIME_RANGE: readonly [number, number] = [60, 30 * 86_400];

const VARIABLES = [
  "TOOL_SEARCH_CONFIG", "AUTH_JWT_SECRET", "AUTH_JWKS_URL", "AUTH_AUDIENCE", "AUTH_ISSUER", "ALLOW_ANONYMOUS",
  "CORS_ALLOW_ORIGINS", "AUTH_MAX_TOKEN_LIFETIME_SECONDS", "DEMO_CATALOG", "MCP_STATE_SECRET",
] as const;
type Variable = (typeof VARIABLES)[number];
export type SettingsVars = Partial<Record<Variable, string>>;

/** The settings variables of an env (undeclared ones are absent from the generated Env type, so read them by name). */
export function settingsVars(env: object): SettingsVars {
  const vars: SettingsVars = {};
  for (const name of VARIABLES) {
    const value: unknown = Reflect.get(env, name);
    if (value === undefined || value === null) continue;
    if (typeof value !== "string") throw new ConfigError(name, "must be a string");
    vars[name] = value;
  }
  return vars;
}

function optionalText(vars: SettingsVars, name: Variable): string | undefined {
  const value = vars[name]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

function readJwksUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError("AUTH_JWKS_URL", "is not a valid URL");
  }
  const local = url.hostname === "localhost" || url.hostname === "127.0.0.1" || url.hostname === "[::1]";
  if (url.protocol !== "https:" && !(url.protocol === "http:" && local)) {
    throw new ConfigError("AUTH_JWKS_URL", "must be an https URL (http only for localhost)");
  }
  return url;
}

/** `*`, or a comma-separated list of origins (`https://app.example.com`, `chrome-extension://<id>`). */
function readCorsOrigins(text: string | undefined): readonly string[] | "*" {
  if (text === undefined) return [];
  if (text === "*") return "*";
  return text.split(",").map((item) => item.trim()).filter((item) => item !== "").map((item) => {
    let url: URL | undefined;
    try {
      url = new URL(item);
    } catch {
      url = undefined;
    }
    // An origin is scheme://host[:port] and nothing else: no path, no trailing slash, no wildcard inside.
    const valid = !url || url.origin === "null" ? /^[a-z][a-z0-9+.-]*:\/\/[^/\s*]+$/i.test(item) : url.origin === item;
    if (!valid || item.includes("*")) {
      throw new ConfigError("CORS_ALLOW_ORIGINS", `"${item}" is not an origin (scheme://host[:port], or * alone)`);
    }
    return item;
  });
}

function readMaxTokenLifetime(text: string | undefined): number {
  if (text === undefined) return DEFAULT_MAX_TOKEN_LIFETIME_SECONDS;
  const [min, max] = MAX_TOKEN_LIFETIME_RANGE;
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError("AUTH_MAX_TOKEN_LIFETIME_SECONDS", `must be a whole number of seconds from ${min} to ${max}, got ${JSON.stringify(text)}`);
  }
  return value;
}

/** Parses the variables; throws ConfigError naming the first bad one. */
export function parseSettings(vars: SettingsVars): Settings {
  const config = parseConfigText(vars.TOOL_SEARCH_CONFIG, "TOOL_SEARCH_CONFIG");

  const anonymous = optionalText(vars, "ALLOW_ANONYMOUS") ?? "false";
  if (anonymous !== "true" && anonymous !== "false") {
    throw new ConfigError("ALLOW_ANONYMOUS", `must be "true" or "false", got ${JSON.stringify(anonymous)}`);
  }

  const auth: AuthSettings = {
    allowAnonymous: anonymous === "true",
    maxTokenLifetimeSeconds: readMaxTokenLifetime(optionalText(vars, "AUTH_MAX_TOKEN_LIFETIME_SECONDS")),
  };
  const secret = optionalText(vars, "AUTH_JWT_SECRET");
  if (secret !== undefined) {
    if (secret.length < MIN_SECRET_LENGTH) {
      throw new ConfigError("AUTH_JWT_SECRET", `must be at least ${MIN_SECRET_LENGTH} characters`);
    }
    auth.secret = new TextEncoder().encode(secret);
  }
  const jwksUrl = optionalText(vars, "AUTH_JWKS_URL");
  if (jwksUrl !== undefined) auth.jwksUrl = readJwksUrl(jwksUrl);
  const audience = optionalText(vars, "AUTH_AUDIENCE");
  if (audience !== undefined) auth.audience = audience;
  const issuer = optionalText(vars, "AUTH_ISSUER");
  if (issuer !== undefined) auth.issuer = issuer;

  if (!auth.secret && !auth.jwksUrl && !auth.allowAnonymous) {
    throw new ConfigError("AUTH_JWT_SECRET", 'no way to authenticate: set AUTH_JWT_SECRET or AUTH_JWKS_URL, or ALLOW_ANONYMOUS="true"');
  }
  const demo = optionalText(vars, "DEMO_CATALOG") ?? "false";
  if (demo !== "true" && demo !== "false") {
    throw new ConfigError("DEMO_CATALOG", `must be "true" or "false", got ${JSON.stringify(demo)}`);
  }
  const settings: Settings = { config, auth, corsOrigins: readCorsOrigins(optionalText(vars, "CORS_ALLOW_ORIGINS")), demoCatalog: demo === "true" };
  const stateSecret = optionalText(vars, "MCP_STATE_SECRET");
  if (stateSecret !== undefined) {
    if (stateSecret.length < MIN_SECRET_LENGTH) throw new ConfigError("MCP_STATE_SECRET", `must be at least ${MIN_SECRET_LENGTH} characters`);
    settings.mcpStateSecret = new TextEncoder().encode(stateSecret);
  }
  return settings;
}

let cached: { key: string; result: SettingsResult } | undefined;

/** The settings of this env, parsed once per isolate (re-parsed only if the variables change). */
export function loadSettings(env: object): SettingsResult {
  let vars: SettingsVars;
  try {
    vars = settingsVars(env);
  } catch (error) {
    if (error instanceof ConfigError) return { ok: false, error };
    throw error;
  }
  const key = JSON.stringify(VARIABLES.map((name) => vars[name] ?? null));
  if (cached?.key === key) return cached.result;
  let result: SettingsResult;
  try {
    result = { ok: true, settings: parseSettings(vars) };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    result = { ok: false, error };
  }
  cached = { key, result };
  return result;
}
