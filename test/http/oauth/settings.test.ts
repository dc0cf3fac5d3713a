// The OAuth mode's variables (src/isolate/settings.ts): AUTH_MODE and the OpenID Connect provider's settings.
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/core/config.ts";
import { parseSettings } from "../../../src/isolate/settings.ts";

const SECRET = "a-secret-of-thirty-two-characters-at-least";
const PROVIDER = { OIDC_ISSUER: "https://idp.example/realms/main/", OIDC_CLIENT_ID: "toolgate", OIDC_CLIENT_SECRET: "s3cret" };

describe("AUTH_MODE", () => {
  it("is the JWT mode alone by default", () => {
    const { auth } = parseSettings({ AUTH_JWT_SECRET: SECRET });
    expect(auth.jwt).toBe(true);
    expect(auth.oauth).toBeUndefined();
  });

  it("turns the OAuth mode on alone or beside the JWT mode, with the claim rule's defaults", () => {
    const alone = parseSettings({ AUTH_MODE: "oauth", ...PROVIDER }).auth;
    expect(alone.jwt).toBe(false);
    expect(alone.oauth).toEqual({
      oidcIssuer: "https://idp.example/realms/main",
      oidcClientId: "toolgate",
      oidcClientSecret: "s3cret",
      oidcScopes: ["openid", "profile", "email"],
      levelClaim: "toolgate_level",
      groupsClaim: "groups",
      ownerClaim: "toolgate_owner",
    });
    const both = parseSettings({ AUTH_MODE: "jwt, oauth", AUTH_JWT_SECRET: SECRET, ...PROVIDER, OIDC_SCOPES: "groups email" }).auth;
    expect(both.jwt).toBe(true);
    expect(both.oauth?.oidcScopes).toEqual(["openid", "groups", "email"]);
  });

  it("fails naming the variable: an unknown mode, a missing provider setting, a bad claim name or issuer", () => {
    const cases: [Record<string, string>, string][] = [
      [{ AUTH_MODE: "saml", AUTH_JWT_SECRET: SECRET }, "AUTH_MODE"],
      [{ AUTH_MODE: "oauth", OIDC_CLIENT_ID: "a", OIDC_CLIENT_SECRET: "b" }, "OIDC_ISSUER"],
      [{ AUTH_MODE: "oauth", ...PROVIDER, OIDC_CLIENT_SECRET: "" }, "OIDC_CLIENT_SECRET"],
      [{ AUTH_MODE: "oauth", ...PROVIDER, OIDC_ISSUER: "http://idp.example" }, "OIDC_ISSUER"],
      [{ AUTH_MODE: "oauth", ...PROVIDER, OIDC_GROUPS_CLAIM: "groups claim" }, "OIDC_GROUPS_CLAIM"],
      [{ AUTH_MODE: "jwt" }, "AUTH_JWT_SECRET"],
    ];
    for (const [vars, named] of cases) {
      let error: unknown;
      try {
        parseSettings(vars);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect(String(error)).toContain(named);
    }
  });
});
