// The OAuth mode (AUTH_MODE "oauth"): the gateway as its own authorization server, the sign-in at the test OpenID
// Connect provider (test/fixtures/oidc-provider.ts), the consent page, and the issued tokens on /v1 and /mcp; the
// attacks a client or a page could try. The MCP SDK's own client flow is test/mcp/oauthClient.test.ts.
import { describe, expect, it } from "vitest";
import {
  answer, authorizeUrl, Browser, consentHandle, exchangeCode, IDP_ISSUER, locationOf, OAUTH_BASE, OAUTH_ENV, oauthFetch,
  pkcePair, registerClient, signIn, throughSignIn, tokenRequest,
} from "../support/oauthBrowser.ts";
import { token } from "./helpers.ts";

// Each test runs whole sign-in flows (ten requests or more): a loaded machine needs more than the default 5 s.

function bearer(accessToken: string | undefined): { authorization: string } {
  if (accessToken === undefined) throw new Error("no access token");
  return { authorization: `Bearer ${accessToken}` };
}

async function statsOf(accessToken: string | undefined, query = "", overrides?: Record<string, unknown>): Promise<Response> {
  return oauthFetch(`${OAUTH_BASE}/v1/stats${query}`, { headers: bearer(accessToken) }, overrides);
}

async function servers(overrides: Record<string, unknown>, suffix: string): Promise<unknown> {
  return (await oauthFetch(`${OAUTH_BASE}/.well-known/oauth-protected-resource${suffix}`, {}, overrides)).json<Record<string, unknown>>();
}

async function listed(authorization: string): Promise<unknown> {
  return (await oauthFetch(`${OAUTH_BASE}/v1/tools?format=summary`, { headers: { authorization } })).json();
}

const MCP_INIT = JSON.stringify({
  jsonrpc: "2.0", id: 1, method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "oauth-test", version: "1" } },
});

function mcpInit(accessToken: string | undefined): Promise<Response> {
  return oauthFetch(`${OAUTH_BASE}/mcp`, {
    method: "POST",
    headers: { ...bearer(accessToken), "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: MCP_INIT,
  });
}

function user(label: string, claims: Record<string, unknown> = {}): Record<string, unknown> {
  return { sub: `${label}-${crypto.randomUUID()}`, ...claims };
}

describe("OAuth mode: metadata", { timeout: 60_000 }, () => {
  it("serves RFC 8414 metadata with S256 only, registration, client metadata documents and iss in responses", async () => {
    const response = await oauthFetch(`${OAUTH_BASE}/.well-known/oauth-authorization-server`);
    expect(response.status).toBe(200);
    const metadata = await response.json<Record<string, unknown>>();
    expect(metadata).toMatchObject({
      issuer: OAUTH_BASE,
      authorization_endpoint: `${OAUTH_BASE}/oauth/authorize`,
      token_endpoint: `${OAUTH_BASE}/oauth/token`,
      registration_endpoint: `${OAUTH_BASE}/oauth/register`,
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
      scopes_supported: ["toolgate", "toolgate:owner", "offline_access"],
    });
    expect(metadata.revocation_endpoint).toEqual(expect.any(String));
    expect(metadata.protected_resources).toEqual(expect.arrayContaining([OAUTH_BASE, `${OAUTH_BASE}/mcp`, `${OAUTH_BASE}/v1`]));
  });

  it("names the right authorization server in the protected-resource metadata of each mode", async () => {
    const issuer = "https://issuer.example";
    expect(await servers({ AUTH_ISSUER: issuer }, "/mcp")).toMatchObject({ resource: `${OAUTH_BASE}/mcp`, authorization_servers: [issuer] });
    expect(await servers({ ...OAUTH_ENV, AUTH_MODE: "oauth" }, "/mcp")).toMatchObject({
      resource: `${OAUTH_BASE}/mcp`, authorization_servers: [OAUTH_BASE], scopes_supported: ["toolgate"],
    });
    expect(await servers({ ...OAUTH_ENV, AUTH_ISSUER: issuer }, "/v1")).toMatchObject({
      resource: `${OAUTH_BASE}/v1`, authorization_servers: [OAUTH_BASE, issuer],
    });
    expect(await servers({ ...OAUTH_ENV, AUTH_ISSUER: issuer }, "")).toMatchObject({ resource: OAUTH_BASE });
  });

  it("has no authorization server in the default JWT mode", async () => {
    for (const path of ["/.well-known/oauth-authorization-server", "/oauth/authorize", "/oauth/token", "/oauth/register"]) {
      const response = await oauthFetch(`${OAUTH_BASE}${path}`, {}, {});
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
    }
  });

  it("answers a 401 on /v1 and /mcp with the resource's metadata and the scope to ask for", async () => {
    const api = await oauthFetch(`${OAUTH_BASE}/v1/stats`);
    expect(api.status).toBe(401);
    expect(api.headers.get("www-authenticate")).toContain(`resource_metadata="${OAUTH_BASE}/.well-known/oauth-protected-resource/v1"`);
    expect(api.headers.get("www-authenticate")).toContain('scope="toolgate"');
    const mcp = await mcpInit("not-a-token");
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get("www-authenticate")).toContain(`resource_metadata="${OAUTH_BASE}/.well-known/oauth-protected-resource/mcp"`);
  });

  it("refuses to start with the OAuth mode half configured, naming the variable", async () => {
    const response = await oauthFetch(`${OAUTH_BASE}/v1/stats`, {}, { AUTH_MODE: "oauth", OIDC_ISSUER: IDP_ISSUER });
    expect(response.status).toBe(503);
    expect(await response.text()).toContain("OIDC_CLIENT_ID");
  });
});

describe("OAuth mode: sign-in, consent and tokens", { timeout: 60_000 }, () => {
  it("signs a user in at the provider and issues a token with the sign-in's principal, for /mcp", async () => {
    const claims = user("alice", { toolgate_level: 1, groups: ["web"] });
    const signedIn = await signIn(claims);
    // RFC 9207: the authorization response names the issuer; the client's state comes back.
    expect(signedIn.redirect.searchParams.get("iss")).toBe(OAUTH_BASE);
    expect(signedIn.redirect.searchParams.get("state")).toBe("client-state");
    expect(`${signedIn.redirect.origin}${signedIn.redirect.pathname}`).toBe(signedIn.client.redirectUri);
    const { status, body } = await exchangeCode(signedIn);
    expect(status).toBe(200);
    expect(body.refresh_token).toEqual(expect.any(String));
    const init = await mcpInit(body.access_token);
    expect(init.status).toBe(200);
    // A token for /mcp is not a token for /v1 (RFC 8707): the audience is one resource.
    const api = await statsOf(body.access_token);
    expect(api.status).toBe(401);
  });

  it("gives a token for the whole gateway the principal, level and groups of the sign-in, never the client's", async () => {
    const claims = user("bob", { toolgate_level: 2, groups: ["files", "mail"], toolgate_owner: false });
    const signedIn = await signIn(claims, { resource: OAUTH_BASE, scopes: ["toolgate", "toolgate:owner"] });
    const { body } = await exchangeCode(signedIn, OAUTH_BASE);
    const stats = await statsOf(body.access_token);
    expect(stats.status).toBe(200);
    expect((await stats.json<{ principal: string }>()).principal).toBe(claims.sub);
    // Not an owner: the owner's scope was not granted, and another principal's figures stay closed.
    expect(body.scope?.split(" ")).not.toContain("toolgate:owner");
    expect((await statsOf(body.access_token, "?principal=someone-else")).status).toBe(403);
    // The tool list is what a JWT with the same groups and level sees.
    const jwt = await token({ sub: "jwt-twin", level: 2, groups: ["files", "mail"] });
    expect(await listed(bearer(body.access_token).authorization)).toEqual(await listed(`Bearer ${jwt}`));
    const ungrouped = await token({ sub: "jwt-none", level: 2, groups: [] });
    expect(await listed(bearer(body.access_token).authorization)).not.toEqual(await listed(`Bearer ${ungrouped}`));
  });

  it("makes an owner's token an owner's only with the toolgate:owner scope", async () => {
    const claims = user("carol", { toolgate_owner: true });
    const withScope = await signIn(claims, { resource: OAUTH_BASE, scopes: ["toolgate", "toolgate:owner"] });
    const owner = await exchangeCode(withScope, OAUTH_BASE);
    expect((await statsOf(owner.body.access_token, "?principal=someone-else")).status).toBe(200);
    const without = await signIn(claims, { resource: OAUTH_BASE, scopes: ["toolgate"] });
    const plain = await exchangeCode(without, OAUTH_BASE);
    expect((await statsOf(plain.body.access_token, "?principal=someone-else")).status).toBe(403);
  });

  it("refuses a token without the toolgate scope (403 insufficient_scope)", async () => {
    const signedIn = await signIn(user("dave"), { resource: OAUTH_BASE, scopes: ["offline_access"] });
    const { body } = await exchangeCode(signedIn, OAUTH_BASE);
    const response = await statsOf(body.access_token);
    expect(response.status).toBe(403);
    expect(response.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
  });

  it("refuses a sign-in whose claims do not fit the rule, and a banned user", async () => {
    const client = await registerClient();
    const { challenge } = await pkcePair();
    const badLevel = await throughSignIn(new Browser(), authorizeUrl(client, challenge), user("eve", { toolgate_level: "high" }));
    expect(badLevel.status).toBe(403);
    expect(await badLevel.text()).toContain("toolgate_level");
    const banned = await throughSignIn(new Browser(), authorizeUrl(client, challenge), user("mallory", { toolgate_level: -1 }));
    expect(banned.status).toBe(403);
    expect(await banned.text()).toContain("banned");
  });

  it("shows the consent page with the client, the redirect host and the groups, and never in a frame", async () => {
    const client = await registerClient("https://app.test/callback", "<b>Evil</b> app");
    const { challenge } = await pkcePair();
    const page = await throughSignIn(new Browser(), authorizeUrl(client, challenge), user("frank", { groups: ["research"] }));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("&#60;b&#62;Evil&#60;/b&#62; app");
    expect(html).not.toContain("<b>Evil</b>");
    expect(html).toContain("app.test");
    expect(html).toContain("<code>research</code>");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  });

  it("turns a declined consent into access_denied at the client, with iss", async () => {
    const client = await registerClient();
    const { challenge } = await pkcePair();
    const browser = new Browser();
    const page = await throughSignIn(browser, authorizeUrl(client, challenge), user("grace"));
    const denied = locationOf(await answer(browser, consentHandle(await page.text()), "deny", []));
    expect(denied.searchParams.get("error")).toBe("access_denied");
    expect(denied.searchParams.get("iss")).toBe(OAUTH_BASE);
  });

  it("accepts both an issued token and a JWT when both modes are on, and only issued ones in the OAuth mode", async () => {
    const jwt = await token({ sub: "jwt-user" });
    expect((await oauthFetch(`${OAUTH_BASE}/v1/stats`, { headers: { authorization: `Bearer ${jwt}` } })).status).toBe(200);
    const oauthOnly = { ...OAUTH_ENV, AUTH_MODE: "oauth" };
    expect((await oauthFetch(`${OAUTH_BASE}/v1/stats`, { headers: { authorization: `Bearer ${jwt}` } }, oauthOnly)).status).toBe(401);
    const signedIn = await signIn(user("heidi"), { resource: OAUTH_BASE });
    const { body } = await exchangeCode(signedIn, OAUTH_BASE);
    expect((await statsOf(body.access_token, "", oauthOnly)).status).toBe(200);
  });
});

describe("OAuth mode: attacks", { timeout: 60_000 }, () => {
  it("never redirects to a redirect_uri the client did not register", async () => {
    const client = await registerClient();
    const { challenge } = await pkcePair();
    const response = await new Browser().go(authorizeUrl({ ...client, redirectUri: "https://attacker.test/callback" }, challenge).href);
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
    // The code's redirect_uri must match at the token endpoint too.
    const signedIn = await signIn(user("ivan"));
    const { status, body } = await tokenRequest({
      grant_type: "authorization_code", code: signedIn.code, client_id: signedIn.client.clientId,
      redirect_uri: "https://attacker.test/callback", code_verifier: signedIn.verifier, resource: `${OAUTH_BASE}/mcp`,
    });
    expect(status).toBe(400);
    expect(body.access_token).toBeUndefined();
  });

  it("demands S256 PKCE: a missing or plain challenge goes back as invalid_request, a missing or wrong verifier gets no token", async () => {
    const client = await registerClient();
    const missing = authorizeUrl(client, "");
    missing.searchParams.delete("code_challenge");
    missing.searchParams.delete("code_challenge_method");
    for (const url of [missing, (() => {
      const plain = authorizeUrl(client, "a".repeat(43));
      plain.searchParams.set("code_challenge_method", "plain");
      return plain;
    })()]) {
      const back = locationOf(await new Browser().go(url.href));
      expect(back.searchParams.get("error")).toBe("invalid_request");
      expect(back.searchParams.get("iss")).toBe(OAUTH_BASE);
    }
    const signedIn = await signIn(user("judy"));
    const base = { grant_type: "authorization_code", code: signedIn.code, client_id: signedIn.client.clientId, redirect_uri: signedIn.client.redirectUri };
    expect((await tokenRequest(base)).body.access_token).toBeUndefined();
    expect((await tokenRequest({ ...base, code_verifier: "x".repeat(43) })).body.access_token).toBeUndefined();
  });

  it("honours a code once: a replay gets no token", async () => {
    const signedIn = await signIn(user("ken"));
    const first = await exchangeCode(signedIn);
    expect(first.status).toBe(200);
    const replay = await exchangeCode(signedIn);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe("invalid_grant");
  });

  it("binds a token to its resource: another origin's resource is refused, a /mcp token does not open /v1", async () => {
    const client = await registerClient();
    const { challenge } = await pkcePair();
    const foreign = locationOf(await new Browser().go(authorizeUrl(client, challenge, { resource: "https://other.test/mcp" }).href));
    expect(foreign.searchParams.get("error")).toBe("invalid_target");
    const signedIn = await signIn(user("leo"));
    const { body } = await exchangeCode(signedIn, `${OAUTH_BASE}/mcp`);
    expect((await statsOf(body.access_token)).status).toBe(401);
    // …nor the same gateway on another host.
    const elsewhere = await oauthFetch("https://elsewhere.test/v1/stats", { headers: bearer(body.access_token) });
    expect(elsewhere.status).toBe(401);
  });

  it("rotates refresh tokens: an old one reused after its successor was used gets nothing", async () => {
    const signedIn = await signIn(user("mia"), { resource: OAUTH_BASE });
    const first = await exchangeCode(signedIn, OAUTH_BASE);
    const refresh = (refreshToken: string | undefined): Promise<{ status: number; body: { access_token?: string; refresh_token?: string; error?: string } }> =>
      tokenRequest({ grant_type: "refresh_token", refresh_token: refreshToken ?? "", client_id: signedIn.client.clientId });
    const second = await refresh(first.body.refresh_token);
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(first.body.refresh_token);
    expect((await statsOf(second.body.access_token)).status).toBe(200);
    const third = await refresh(second.body.refresh_token);
    expect(third.status).toBe(200);
    const reused = await refresh(first.body.refresh_token);
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe("invalid_grant");
  });

  it("revokes a token at the revocation endpoint", async () => {
    const signedIn = await signIn(user("nina"), { resource: OAUTH_BASE });
    const { body } = await exchangeCode(signedIn, OAUTH_BASE);
    expect((await statsOf(body.access_token)).status).toBe(200);
    const revoked = await oauthFetch(`${OAUTH_BASE}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: body.access_token ?? "", client_id: signedIn.client.clientId }).toString(),
    });
    expect(revoked.status).toBe(200);
    expect((await statsOf(body.access_token)).status).toBe(401);
  });

  it("refuses a consent answer from another browser (a forged or framed form), and a handle used twice", async () => {
    const client = await registerClient();
    const { challenge } = await pkcePair();
    const browser = new Browser();
    const page = await throughSignIn(browser, authorizeUrl(client, challenge), user("oscar"));
    const handle = consentHandle(await page.text());
    const forged = await answer(new Browser(), handle, "approve", ["toolgate"]);
    expect(forged.status).toBe(400);
    expect(forged.headers.get("location")).toBeNull();
    expect(forged.headers.get("x-frame-options")).toBe("DENY");
    const real = await answer(browser, handle, "approve", ["toolgate"]);
    expect(locationOf(real).searchParams.get("code")).toEqual(expect.any(String));
    const again = await answer(browser, handle, "approve", ["toolgate"]);
    expect(again.status).toBe(400);
  });

  it("refuses a callback that did not start here (no state cookie), and an answer of the provider's refusal", async () => {
    const client = await registerClient();
    const { challenge } = await pkcePair();
    const browser = new Browser();
    const toProvider = locationOf(await browser.go(authorizeUrl(client, challenge).href));
    toProvider.searchParams.set("test_claims", JSON.stringify(user("pat")));
    const back = locationOf(await browser.go(toProvider.href));
    expect((await new Browser().go(back.href)).status).toBe(400);
    toProvider.searchParams.set("test_error", "1");
    const declined = locationOf(await browser.go(toProvider.href));
    const atClient = locationOf(await browser.go(declined.href));
    expect(atClient.searchParams.get("error")).toBe("access_denied");
  });
});
