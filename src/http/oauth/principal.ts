// The principal of a sign-in: the rule that turns the OpenID Connect provider's verified ID-token claims into the
// gateway's caller (docs/deploy.md, "Sign-in by OAuth"), and the record a grant keeps of it. The client that asked
// for the token has no say in any of it.
//
//   id     = `sub`, as the provider states it (the same subject as a JWT's `sub`: one principal in both modes)
//   level  = the level claim (OIDC_LEVEL_CLAIM, default `toolgate_level`): an integer, or a string of one; absent → 0
//   groups = the groups claim (OIDC_GROUPS_CLAIM, default `groups`): an array of names, or one name; absent → none
//   owner  = the owner claim (OIDC_OWNER_CLAIM, default `toolgate_owner`) is true (or "true"); absent → false
//
// A claim name with dots reads a nested claim when no claim has the whole name (`realm_access.roles`). A claim of
// another shape refuses the sign-in rather than defaulting: a mistyped mapping must not hand out level 0 silently.
import { ANONYMOUS_PRINCIPAL_ID } from "../../core/guard/authority.ts";
import { isRecord } from "../../core/records.ts";
import type { Principal } from "../../core/types.ts";
import { GROUP_NAME_MAX, MAX_ENABLED_GROUPS } from "../groups.ts";
import { toBase64Url } from "../../core/base64url.ts";

export interface ClaimNames {
  levelClaim: string;
  groupsClaim: string;
  ownerClaim: string;
}

/** What a grant stores (encrypted by the provider library): the principal, and who vouched for it. */
export interface GrantProps {
  principal: Principal;
  /** The OpenID Connect issuer and subject of the sign-in. */
  signIn: { issuer: string; subject: string };
}

const MAX_SUBJECT_LENGTH = 256;
const MAX_LEVEL = 1_000_000;

export class SignInError extends Error {}

function claimValue(claims: Readonly<Record<string, unknown>>, name: string): unknown {
  if (Object.hasOwn(claims, name)) return claims[name];
  if (!name.includes(".")) return undefined;
  let value: unknown = claims;
  for (const part of name.split(".")) {
    if (!isRecord(value) || !Object.hasOwn(value, part)) return undefined;
    value = value[part];
  }
  return value;
}

function levelOf(value: unknown, name: string): number {
  if (value === undefined || value === null) return 0;
  const level = typeof value === "string" && /^-?\d{1,7}$/.test(value) ? Number(value) : value;
  if (typeof level !== "number" || !Number.isSafeInteger(level) || Math.abs(level) > MAX_LEVEL) {
    throw new SignInError(`the claim ${name} must be an integer`);
  }
  return level;
}

function groupsOf(value: unknown, name: string): string[] {
  if (value === undefined || value === null) return [];
  const list: unknown[] = typeof value === "string" ? [value] : Array.isArray(value) ? value : [undefined];
  if (list.length > MAX_ENABLED_GROUPS) throw new SignInError(`the claim ${name} names more than ${MAX_ENABLED_GROUPS} groups`);
  const groups = list.map((group) => {
    if (typeof group !== "string" || group === "" || group.length > GROUP_NAME_MAX || !group.isWellFormed()) {
      throw new SignInError(`the claim ${name} must be group names of 1 to ${GROUP_NAME_MAX} characters`);
    }
    return group;
  });
  return [...new Set(groups)];
}

function ownerOf(value: unknown, name: string): boolean {
  if (value === undefined || value === null) return false;
  if (value === true || value === "true") return true;
  if (value === false || value === "false") return false;
  throw new SignInError(`the claim ${name} must be true or false`);
}

/** The rule above; throws SignInError naming the claim that does not fit. */
export function principalFromSignIn(claims: Readonly<Record<string, unknown>>, names: ClaimNames): Principal {
  const { sub } = claims;
  if (typeof sub !== "string" || sub.length === 0 || sub.length > MAX_SUBJECT_LENGTH || !sub.isWellFormed()) {
    throw new SignInError(`the claim sub must be a string of 1 to ${MAX_SUBJECT_LENGTH} characters`);
  }
  if (sub === ANONYMOUS_PRINCIPAL_ID) throw new SignInError(`the subject "${ANONYMOUS_PRINCIPAL_ID}" is reserved`);
  return {
    id: sub,
    level: levelOf(claimValue(claims, names.levelClaim), names.levelClaim),
    groups: groupsOf(claimValue(claims, names.groupsClaim), names.groupsClaim),
    owner: ownerOf(claimValue(claims, names.ownerClaim), names.ownerClaim),
  };
}

/**
 * The provider library's user id for a principal: `:` separates the parts of its tokens and keys, so the id is
 * base64url (one principal, one user id, in its grant listings too).
 */
export function grantUserId(principalId: string): string {
  return toBase64Url(new TextEncoder().encode(principalId));
}

function isPrincipal(value: unknown): value is Principal {
  if (!isRecord(value)) return false;
  const { id, level, owner, groups } = value;
  return typeof id === "string" && typeof level === "number" && typeof owner === "boolean" &&
    Array.isArray(groups) && groups.every((group) => typeof group === "string");
}

export function isGrantProps(value: unknown): value is GrantProps {
  if (!isRecord(value)) return false;
  const { principal, signIn } = value;
  return isPrincipal(principal) && typeof signIn === "object" && signIn !== null;
}
