// Authentication (the caller stage, docs/DESIGN.md "Flows"): a Bearer JWT verified with jose (HS256 secret or a JWKS URL), or the anonymous
// principal when the settings allow it. Also the rule that a request's enabledGroups never exceed the token's.
import { createRemoteJWKSet, errors, jwtVerify } from "jose";
import type { JWTPayload, JWTVerifyGetKey } from "jose";
import { ANONYMOUS_PRINCIPAL_ID } from "../core/guard/authority.ts";
import type { Principal } from "../core/types.ts";
import type { AuthSettings } from "../isolate/settings.ts";
import { HttpError } from "./errors.ts";

export function anonymousPrincipal(): Principal {
  return { id: ANONYMOUS_PRINCIPAL_ID, level: 0, owner: false, groups: [] };
}

/** Never "none", never a symmetric algorithm through the JWKS (that would let a public key act as an HMAC secret). */
const SYMMETRIC_ALGORITHMS = ["HS256"] as const;
const ASYMMETRIC_ALGORITHMS = [
  "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "Ed25519",
] as const;

const CLOCK_TOLERANCE_SECONDS = 5;
/** How far an issuer's clock may run ahead of ours: a later `iat` is refused; `exp - now` may exceed the maximum by it. */
export const MAX_CLOCK_SKEW_SECONDS = 60;
const MAX_SUBJECT_LENGTH = 256;
const MAX_TOKEN_GROUPS = 256;

const REALM = 'Bearer realm="toolgate"';

function unauthorized(message: string, withError: boolean): HttpError {
  const header = withError
    ? `${REALM}, error="invalid_token", error_description="${message.replaceAll('"', "'")}"`
    : REALM;
  return new HttpError(401, withError ? "invalid_token" : "unauthorized", message, { "WWW-Authenticate": header });
}

const remoteKeySets = new Map<string, JWTVerifyGetKey>();

/** One remote key set per URL and isolate, so that jose's key cache and cooldown work across requests. */
function remoteKeySet(url: URL): JWTVerifyGetKey {
  let keySet = remoteKeySets.get(url.href);
  if (!keySet) {
    keySet = createRemoteJWKSet(url, { timeoutDuration: 5_000, cooldownDuration: 30_000 });
    remoteKeySets.set(url.href, keySet);
  }
  return keySet;
}

function allowedAlgorithms(auth: AuthSettings): string[] {
  if (!auth.jwt) return [];
  return [...(auth.secret ? SYMMETRIC_ALGORITHMS : []), ...(auth.jwksUrl ? ASYMMETRIC_ALGORITHMS : [])];
}

function bearerToken(authorization: string): string {
  const match = /^Bearer[ \t]+([A-Za-z0-9._~+/-]+=*)[ \t]*$/i.exec(authorization);
  if (!match?.[1]) throw unauthorized("malformed Authorization header: expected `Bearer <JWT>`", true);
  return match[1];
}

function tokenError(error: unknown): HttpError {
  if (error instanceof errors.JWTExpired) return unauthorized("token expired", true);
  if (error instanceof errors.JWTClaimValidationFailed) {
    return unauthorized(`token claim \`${error.claim}\` is invalid: ${error.reason === "missing" ? "missing" : error.message}`, true);
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return unauthorized("token signature is invalid", true);
  if (error instanceof errors.JOSEAlgNotAllowed) return unauthorized("token algorithm is not allowed", true);
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) {
    return unauthorized("no key of the key set matches the token", true);
  }
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) {
    return new HttpError(503, "auth_unavailable", "the key set (AUTH_JWKS_URL) cannot be read");
  }
  if (error instanceof errors.JOSEError) return unauthorized("malformed token", true);
  console.error(`token verification failed: ${error instanceof Error ? error.message : String(error)}`);
  return new HttpError(503, "auth_unavailable", "tokens cannot be verified right now");
}

/** Verified claims → principal; a claim of the wrong type makes the token invalid (never a silent default). */
export function principalFromClaims(payload: JWTPayload): Principal {
  const { sub, level, owner, groups } = payload;
  if (typeof sub !== "string" || sub.length === 0 || sub.length > MAX_SUBJECT_LENGTH) {
    throw unauthorized(`token claim \`sub\` must be a string of 1 to ${MAX_SUBJECT_LENGTH} characters`, true);
  }
  // A lone surrogate cannot be URI-encoded into an object name (a 500), and would map to U+FFFD in UTF-8 names,
  // where two different subjects could meet.
  if (!sub.isWellFormed()) throw unauthorized("token claim `sub` must be well-formed Unicode", true);
  // The anonymous principal's id is reserved, so that a token can never share its sessions.
  if (sub === ANONYMOUS_PRINCIPAL_ID) throw unauthorized(`token claim \`sub\` must not be "${ANONYMOUS_PRINCIPAL_ID}"`, true);
  if (level !== undefined && (typeof level !== "number" || !Number.isSafeInteger(level))) {
    throw unauthorized("token claim `level` must be an integer", true);
  }
  if (owner !== undefined && typeof owner !== "boolean") throw unauthorized("token claim `owner` must be a boolean", true);
  if (
    groups !== undefined &&
    (!Array.isArray(groups) || groups.length > MAX_TOKEN_GROUPS ||
      !groups.every((group) => typeof group === "string" && group.length > 0))
  ) {
    throw unauthorized("token claim `groups` must be an array of non-empty strings", true);
  }
  return {
    id: sub,
    level: level ?? 0,
    owner: owner ?? false,
    groups: (groups as string[] | undefined) ?? [],
  };
}

/**
 * The token's time claims against the maximum lifetime (jose has checked their types, `exp` and `nbf`): an `iat` in
 * the future (beyond the clock skew), `exp - iat` over the maximum, or `exp` further than the maximum from now
 * (which bounds a token without `iat` too).
 */
export function checkTokenLifetime(payload: JWTPayload, maxLifetimeSeconds: number, nowSeconds: number): void {
  const { iat, exp } = payload;
  if (typeof iat === "number" && iat > nowSeconds + MAX_CLOCK_SKEW_SECONDS) {
    throw unauthorized("token claim `iat` is in the future", true);
  }
  if (typeof exp !== "number") throw unauthorized("token claim `exp` is invalid: missing", true);
  const limit = `the maximum of ${maxLifetimeSeconds} s (AUTH_MAX_TOKEN_LIFETIME_SECONDS)`;
  if (typeof iat === "number" && exp - iat > maxLifetimeSeconds) {
    throw unauthorized(`token lifetime (exp - iat = ${exp - iat} s) exceeds ${limit}`, true);
  }
  if (exp - nowSeconds > maxLifetimeSeconds + MAX_CLOCK_SKEW_SECONDS) {
    throw unauthorized(`token expires in ${exp - nowSeconds} s, beyond ${limit}`, true);
  }
}

/**
 * Tokens this isolate has verified, per settings (a changed secret or key set is another settings object): a client
 * sends the same token on every request, and verifying it (base64, JSON, HMAC or a signature) was a large share of a
 * request's CPU. A verified token stays valid until its `exp` (every other check only gets easier with time: `nbf`
 * has passed, `iat` and `exp - now` shrink), but a key set may drop a key meanwhile, so an entry is trusted for at
 * most VERIFIED_TTL_MS. Only verified tokens are kept (a bad one is checked, and refused, every time).
 */
const verifiedTokens = new WeakMap<AuthSettings, Map<string, { principal: Principal; validUntilMs: number }>>();
const VERIFIED_TTL_MS = 60_000;
const VERIFIED_CAPACITY = 1_000;

function verifiedPrincipal(auth: AuthSettings, token: string, nowMs: number): Principal | undefined {
  const tokens = verifiedTokens.get(auth);
  const entry = tokens?.get(token);
  if (!tokens || !entry) return undefined;
  if (nowMs >= entry.validUntilMs) {
    tokens.delete(token);
    return undefined;
  }
  // A copy: a route may not change what the next request of the same token gets.
  return { ...entry.principal, groups: [...entry.principal.groups] };
}

function rememberVerified(auth: AuthSettings, token: string, principal: Principal, expSeconds: number, nowMs: number): void {
  let tokens = verifiedTokens.get(auth);
  if (!tokens) {
    tokens = new Map();
    verifiedTokens.set(auth, tokens);
  }
  if (tokens.size >= VERIFIED_CAPACITY) {
    const oldest = tokens.keys().next();
    if (!oldest.done) tokens.delete(oldest.value);
  }
  const validUntilMs = Math.min(nowMs + VERIFIED_TTL_MS, (expSeconds + CLOCK_TOLERANCE_SECONDS) * 1000);
  tokens.set(token, { principal: { ...principal, groups: [...principal.groups] }, validUntilMs });
}

/** The caller of a request: 401 (with WWW-Authenticate) unless its token verifies or anonymous access applies. */
export async function authenticate(authorization: string | null, auth: AuthSettings): Promise<Principal> {
  if (authorization === null || authorization.trim() === "") {
    if (auth.allowAnonymous) return anonymousPrincipal();
    throw unauthorized("missing bearer token", false);
  }
  const token = bearerToken(authorization);
  const nowMs = Date.now();
  const known = verifiedPrincipal(auth, token, nowMs);
  if (known) return known;
  const algorithms = allowedAlgorithms(auth);
  if (algorithms.length === 0) {
    throw unauthorized(auth.jwt ? "this gateway accepts no tokens (anonymous access only)" : "this gateway accepts only the tokens it issues (AUTH_MODE)", true);
  }
  const { secret, jwksUrl } = auth;
  const key: JWTVerifyGetKey = async (header, input) => {
    if (header.alg === "HS256" && secret) return secret;
    if (jwksUrl && header.alg !== "HS256") return remoteKeySet(jwksUrl)(header, input);
    throw new errors.JOSEAlgNotAllowed("algorithm not allowed");
  };
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, key, {
      algorithms,
      requiredClaims: ["exp", "sub"],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      ...(auth.audience !== undefined ? { audience: auth.audience } : {}),
      ...(auth.issuer !== undefined ? { issuer: auth.issuer } : {}),
    }));
  } catch (error) {
    throw tokenError(error);
  }
  checkTokenLifetime(payload, auth.maxTokenLifetimeSeconds, Math.floor(nowMs / 1000));
  const principal = principalFromClaims(payload);
  // checkTokenLifetime has refused a token without a numeric `exp`.
  if (typeof payload.exp === "number") rememberVerified(auth, token, principal, payload.exp, nowMs);
  return principal;
}

/** A negative level bans the principal, the owner flag notwithstanding (`!(>= 0)`: a NaN level fails closed too). */
export function isBanned(principal: Principal): boolean {
  return !(principal.level >= 0);
}

/**
 * 403 for a banned principal, on every route that has a caller: a ban cuts the principal off, reads included (tool
 * lists and searches are gated by its groups, and its sessions cost storage), and an owner flag does not lift it.
 */
export function refuseBanned(principal: Principal): void {
  if (isBanned(principal)) throw new HttpError(403, "banned", "this principal is banned (its token's level is negative)");
}

export function requireOwner(principal: Principal): void {
  refuseBanned(principal);
  if (!principal.owner) throw new HttpError(403, "forbidden", "this route is for the owner only");
}

/**
 * The groups a request may enable: what it asks for, within what its token allows. Absent → every group the
 * principal may enable. The owner may enable any group ('*' included); a token group '*' allows any group;
 * otherwise '*' means all of the principal's own groups and other names are intersected with them.
 */
export function effectiveGroups(principal: Principal, requested: readonly string[] | undefined): string[] {
  const unlimited = principal.owner || principal.groups.includes("*");
  if (requested === undefined) return unlimited ? ["*"] : [...principal.groups];
  if (unlimited) return [...new Set(requested)];
  if (requested.includes("*")) return [...principal.groups];
  const allowed = new Set(principal.groups);
  return [...new Set(requested.filter((group) => allowed.has(group)))];
}
