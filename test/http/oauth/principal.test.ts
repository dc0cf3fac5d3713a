// The sign-in's claim rule (src/http/oauth/principal.ts): what an ID token's claims make of the principal.
import { describe, expect, it } from "vitest";
import { grantUserId, isGrantProps, principalFromSignIn, SignInError } from "../../../src/http/oauth/principal.ts";

const NAMES = { levelClaim: "toolgate_level", groupsClaim: "groups", ownerClaim: "toolgate_owner" };

describe("principalFromSignIn", () => {
  it("maps sub, the level, the groups and the owner flag", () => {
    expect(principalFromSignIn({ sub: "alice", toolgate_level: 2, groups: ["web", "files", "web"], toolgate_owner: true }, NAMES))
      .toEqual({ id: "alice", level: 2, groups: ["web", "files"], owner: true });
  });

  it("defaults what is absent to the least: level 0, no group, not the owner", () => {
    expect(principalFromSignIn({ sub: "bob", email: "bob@example.com" }, NAMES)).toEqual({ id: "bob", level: 0, groups: [], owner: false });
  });

  it("takes a level and an owner flag given as strings, and one group given as a string", () => {
    expect(principalFromSignIn({ sub: "c", toolgate_level: "3", groups: "admins", toolgate_owner: "false" }, NAMES))
      .toEqual({ id: "c", level: 3, groups: ["admins"], owner: false });
  });

  it("reads a nested claim by a dotted name when no claim has the whole name", () => {
    const names = { ...NAMES, groupsClaim: "realm_access.roles", levelClaim: "app.level" };
    expect(principalFromSignIn({ sub: "d", realm_access: { roles: ["ops"] }, app: { level: 1 } }, names))
      .toEqual({ id: "d", level: 1, groups: ["ops"], owner: false });
    expect(principalFromSignIn({ sub: "d", "realm_access.roles": ["flat"], realm_access: { roles: ["ops"] } }, names).groups).toEqual(["flat"]);
  });

  it("refuses a claim of another shape, naming it, rather than defaulting", () => {
    const refusals: [Record<string, unknown>, string][] = [
      [{ toolgate_level: 1 }, "sub"],
      [{ sub: "" }, "sub"],
      [{ sub: "x".repeat(257) }, "sub"],
      [{ sub: "anonymous" }, "anonymous"],
      [{ sub: "e", toolgate_level: 1.5 }, "toolgate_level"],
      [{ sub: "e", toolgate_level: "high" }, "toolgate_level"],
      [{ sub: "e", groups: [1] }, "groups"],
      [{ sub: "e", groups: [""] }, "groups"],
      [{ sub: "e", groups: { web: true } }, "groups"],
      [{ sub: "e", toolgate_owner: "yes" }, "toolgate_owner"],
    ];
    for (const [claims, named] of refusals) {
      expect(() => principalFromSignIn(claims, NAMES)).toThrow(SignInError);
      expect(() => principalFromSignIn(claims, NAMES)).toThrow(named);
    }
  });
});

describe("grantUserId", () => {
  it("is base64url (no colon, whatever the subject) and one per principal", () => {
    const ids = ["tenant:user", "ünïcode", "a", "tenant:user2"].map(grantUserId);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(new Set(ids).size).toBe(4);
  });
});

describe("isGrantProps", () => {
  it("accepts only a grant record with a principal", () => {
    expect(isGrantProps({ principal: { id: "a", level: 0, owner: false, groups: [] }, signIn: { issuer: "i", subject: "a" } })).toBe(true);
    expect(isGrantProps({ principal: { id: "a", level: "0", owner: false, groups: [] }, signIn: {} })).toBe(false);
    expect(isGrantProps(null)).toBe(false);
  });
});
