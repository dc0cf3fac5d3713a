// The Worker's settings, read from its vars and secrets once per isolate (docs/configuration.md).
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
  /** Whether bearer JWTs are accepted (AUTH_MODE has "jwt"; the default). */
  jwt: boolean;
  /** The gateway's own authorization server (AUTH_MODE has "oauth"); absent when off. */
  oauth?: OAuthSettings;
}

/**
 * The OAuth mode: toolgate issues its own tokens after a sign-in at the deployment's OpenID Connect provider. The
 * claims of the provider's ID token give the principal's level, groups and owner flag (docs/deploy.md, "Sign-in by
 * OAuth"); the client never does.
 */
export interface OAuthSettings {
  /** The provider's issuer (OIDC_ISSUER): its discovery document is `<issuer>/.well-known/openid-configuration`. */
  oidcIssuer: string;
  oidcClientId: string;
  oidcClientSecret: string;
  /** The scopes asked of the provider (OIDC_SCOPES); always with `openid`. */
  oidcScopes: readonly string[];
  /** The ID-token claims read for the principal (OIDC_LEVEL_CLAIM, OIDC_GROUPS_CLAIM, OIDC_OWNER_CLAIM). */
  levelClaim: string;
  groupsClaim: string;
  ownerClaim: string;
}

export interface Settings {
  config: GatewayConfig;
  auth: AuthSettings;
  /** Origins that browsers may call the API from (CORS_ALLOW_ORIGINS); "*" for any; empty: no CORS headers. */
  corsOrigins: readonly string[] | "*";
  /**
   * Whether the built-in demo catalog (83 tools) joins the registry (DEMO_CATALOG="true"): on for `npm start` through
   * its --var flag, off unless set, so that a deployment never serves the demo's tools by accident.
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
  "CORS_ALLOW_ORIGINS", "AUTH_MAX_TOKEN_LIFETIME_SECONDS", "DEMO_CATALOG", "MCP_STATE_SECRET", "AUTH_MODE", "OIDC_ISSUER",
  "OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET", "OIDC_SCOPES", "OIDC_LEVEL_CLAIM", "OIDC_GROUPS_CLAIM", "OIDC_OWNER_CLAIM",
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

function readHttpsUrl(text: string, name: Variable): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(name, "is not a valid URL");
  }
  const local = url.hostname === "localhost" || url.hostname === "127.0.0.1" || url.hostname === "[::1]";
  if (url.protocol !== "https:" && !(url.protocol === "http:" && local)) {
    throw new ConfigError(name, "must be an https URL (http only for localhost)");
  }
  return url;
}

/** AUTH_MODE: "jwt" (the default), "oauth", or both ("jwt,oauth"). */
function readAuthModes(text: string | undefined): { jwt: boolean; oauth: boolean } {
  const modes = (text ?? "jwt").split(",").map((mode) => mode.trim()).filter((mode) => mode !== "");
  const unknown = modes.find((mode) => mode !== "jwt" && mode !== "oauth");
  if (unknown !== undefined || modes.length === 0) {
    throw new ConfigError("AUTH_MODE", `must be "jwt", "oauth" or "jwt,oauth", got ${JSON.stringify(text)}`);
  }
  return { jwt: modes.includes("jwt"), oauth: modes.includes("oauth") };
}

const CLAIM_NAME = /^[A-Za-z0-9_:./-]{1,100}$/;

function readClaimName(vars: SettingsVars, name: Variable, fallback: string): string {
  const value = optionalText(vars, name) ?? fallback;
  if (!CLAIM_NAME.test(value)) throw new ConfigError(name, `must be a claim name (letters, digits, _ : . / -), got ${JSON.stringify(value)}`);
  return value;
}

function required(vars: SettingsVars, name: Variable): string {
  const value = optionalText(vars, name);
  if (value === undefined) throw new ConfigError(name, 'is required when AUTH_MODE has "oauth"');
  return value;
}

function readOAuthSettings(vars: SettingsVars): OAuthSettings {
  // The issuer as configured, without a trailing slash: ID tokens must name it exactly as discovery does.
  const issuer = readHttpsUrl(required(vars, "OIDC_ISSUER"), "OIDC_ISSUER").href.replace(/\/$/, "");
  const scopes = (optionalText(vars, "OIDC_SCOPES") ?? "openid profile email").split(/\s+/).filter((scope) => scope !== "");
  if (scopes.some((scope) => !/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(scope))) {
    throw new ConfigError("OIDC_SCOPES", "must be scope tokens separated by spaces");
  }
  return {
    oidcIssuer: issuer,
    oidcClientId: required(vars, "OIDC_CLIENT_ID"),
    oidcClientSecret: required(vars, "OIDC_CLIENT_SECRET"),
    oidcScopes: scopes.includes("openid") ? scopes : ["openid", ...scopes],
    levelClaim: readClaimName(vars, "OIDC_LEVEL_CLAIM", "toolgate_level"),
    groupsClaim: readClaimName(vars, "OIDC_GROUPS_CLAIM", "groups"),
    ownerClaim: readClaimName(vars, "OIDC_OWNER_CLAIM", "toolgate_owner"),
  };
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

  const modes = readAuthModes(optionalText(vars, "AUTH_MODE"));
  const auth: AuthSettings = {
    allowAnonymous: anonymous === "true",
    maxTokenLifetimeSeconds: readMaxTokenLifetime(optionalText(vars, "AUTH_MAX_TOKEN_LIFETIME_SECONDS")),
    jwt: modes.jwt,
  };
  if (modes.oauth) auth.oauth = readOAuthSettings(vars);
  const secret = optionalText(vars, "AUTH_JWT_SECRET");
  if (secret !== undefined) {
    if (secret.length < MIN_SECRET_LENGTH) {
      throw new ConfigError("AUTH_JWT_SECRET", `must be at least ${MIN_SECRET_LENGTH} characters`);
    }
    auth.secret = new TextEncoder().encode(secret);
  }
  const jwksUrl = optionalText(vars, "AUTH_JWKS_URL");
  if (jwksUrl !== undefined) auth.jwksUrl = readHttpsUrl(jwksUrl, "AUTH_JWKS_URL");
  const audience = optionalText(vars, "AUTH_AUDIENCE");
  if (audience !== undefined) auth.audience = audience;
  const issuer = optionalText(vars, "AUTH_ISSUER");
  if (issuer !== undefined) auth.issuer = issuer;

  if (auth.jwt && !auth.secret && !auth.jwksUrl && !auth.allowAnonymous) {
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
