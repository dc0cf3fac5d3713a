// toolgate as an OAuth client of an upstream's authorization server, against answers made here (a fetch that serves
// a table of URLs): discovery from the 401's challenge and the well-known URLs, the checks on what the metadata says
// (the resource is this server, the issuer is the one asked, S256 is offered), registration, the authorization URL,
// and the token answers.
import { describe, expect, it } from "vitest";
import {
  authorizationUrl, bearerChallenge, configuredClient, discoverResource, discoverServer, exchangeCode, OAuthError, pkceChallenge, refreshTokens,
  registerClient, resourceCovers,
} from "../../src/durable/oauthClient.ts";
import type { OAuthFetch, ServerMetadata } from "../../src/durable/oauthClient.ts";

type Route = (init: RequestInit) => Response;

/** A request body the client sent (always text here: JSON or a form). */
function bodyText(init: RequestInit | undefined): string {
  const body = init?.body;
  if (typeof body !== "string") throw new Error("the request had no text body");
  return body;
}

function served(routes: Record<string, Route>, seen: { url: string; init: RequestInit }[] = []): OAuthFetch {
  return (url, init) => {
    seen.push({ url, init });
    const route = routes[url];
    return Promise.resolve(route ? route(init) : new Response("not found", { status: 404 }));
  };
}

const SERVER = "https://mcp.example/notes/mcp";
const ISSUER = "https://auth.example/tenant";

function serverMetadata(extra: Record<string, unknown> = {}): Route {
  return () => Response.json({
    issuer: ISSUER,
    authorization_endpoint: `${ISSUER}/authorize`,
    token_endpoint: `${ISSUER}/token`,
    registration_endpoint: `${ISSUER}/register`,
    code_challenge_methods_supported: ["S256"],
    ...extra,
  });
}

const METADATA: ServerMetadata = {
  issuer: ISSUER,
  authorizationEndpoint: `${ISSUER}/authorize`,
  tokenEndpoint: `${ISSUER}/token`,
  registrationEndpoint: `${ISSUER}/register`,
  clientIdMetadataDocuments: false,
  tokenAuthMethods: ["client_secret_basic"],
};

describe("oauthClient", () => {
  it("reads a Bearer challenge's parameters, quoted or not", () => {
    expect(bearerChallenge('Bearer resource_metadata="https://x.example/.well-known/a", error="invalid_token", scope=notes'))
      .toEqual({ resource_metadata: "https://x.example/.well-known/a", error: "invalid_token", scope: "notes" });
    expect(bearerChallenge('Basic realm="x"')).toEqual({});
    expect(bearerChallenge(null)).toEqual({});
  });

  it("takes a resource only on the server's origin and over its path", () => {
    expect(resourceCovers("https://mcp.example/notes", SERVER)).toBe(true);
    expect(resourceCovers(SERVER, SERVER)).toBe(true);
    expect(resourceCovers("https://mcp.example/other", SERVER)).toBe(false);
    expect(resourceCovers("https://mcp.example/no", SERVER)).toBe(false);
    expect(resourceCovers("https://evil.example/notes/mcp", SERVER)).toBe(false);
    expect(resourceCovers("not a url", SERVER)).toBe(false);
  });

  it("discovers the resource from the challenge's URL first, then the well-known URLs", async () => {
    const named = "https://mcp.example/.well-known/oauth-protected-resource/notes/mcp";
    const seen: { url: string; init: RequestInit }[] = [];
    const fetch = served({ [named]: () => Response.json({ resource: SERVER, authorization_servers: [ISSUER], scopes_supported: ["notes"] }) }, seen);
    expect(await discoverResource(fetch, SERVER, `Bearer resource_metadata="${named}"`)).toEqual({ resource: SERVER, authorizationServers: [ISSUER], scopesSupported: ["notes"] });
    // A challenge naming another origin is not followed; the well-known URL (path form first) is.
    seen.length = 0;
    await discoverResource(fetch, SERVER, 'Bearer resource_metadata="https://evil.example/meta"');
    expect(seen.map((request) => request.url)).toEqual([named]);
    // Nothing published: the server is its own authorization server (the 2025-03-26 rule).
    expect(await discoverResource(served({}), SERVER, null)).toEqual({ resource: SERVER, authorizationServers: ["https://mcp.example"] });
  });

  it("refuses metadata naming another resource, or none", async () => {
    const url = "https://mcp.example/.well-known/oauth-protected-resource/notes/mcp";
    await expect(discoverResource(served({ [url]: () => Response.json({ resource: "https://evil.example/", authorization_servers: [ISSUER] }) }), SERVER, null))
      .rejects.toThrow(/not this server/);
    await expect(discoverResource(served({ [url]: () => Response.json({ resource: SERVER, authorization_servers: [] }) }), SERVER, null))
      .rejects.toThrow(/no authorization server/);
    await expect(discoverResource(served({ [url]: () => new Response("nope", { status: 500 }) }), SERVER, null)).rejects.toThrow(/HTTP 500/);
  });

  it("reads the authorization server's metadata and refuses another issuer, or no S256", async () => {
    const wellKnown = "https://auth.example/.well-known/oauth-authorization-server/tenant";
    expect(await discoverServer(served({ [wellKnown]: serverMetadata({ client_id_metadata_document_supported: true }) }), ISSUER)).toMatchObject({
      issuer: ISSUER, tokenEndpoint: `${ISSUER}/token`, clientIdMetadataDocuments: true,
    });
    await expect(discoverServer(served({ [wellKnown]: serverMetadata({ issuer: "https://evil.example" }) }), ISSUER)).rejects.toThrow(/names issuer/);
    await expect(discoverServer(served({ [wellKnown]: serverMetadata({ code_challenge_methods_supported: ["plain"] }) }), ISSUER)).rejects.toThrow(/S256/);
    // OpenID Connect discovery when RFC 8414's URL has nothing.
    const oidc = `${ISSUER}/.well-known/openid-configuration`;
    expect((await discoverServer(served({ [oidc]: serverMetadata() }), ISSUER)).issuer).toBe(ISSUER);
    await expect(discoverServer(served({}), ISSUER)).rejects.toThrow(/no authorization server metadata/);
  });

  it("registers by metadata document when taken, else dynamically, else asks for a configured client", async () => {
    const options = { redirectUri: "https://gw.example/cb", clientName: "toolgate", clientUri: "https://gw.example", metadataDocumentUrl: "https://gw.example/client.json" };
    expect(await registerClient(served({}), { ...METADATA, clientIdMetadataDocuments: true }, options))
      .toEqual({ clientId: "https://gw.example/client.json", authMethod: "none", registration: "metadata-document" });
    const seen: { url: string; init: RequestInit }[] = [];
    const registered = await registerClient(served({ [`${ISSUER}/register`]: () => Response.json({ client_id: "c1", client_secret: "s1", token_endpoint_auth_method: "client_secret_post" }, { status: 201 }) }, seen), METADATA, options);
    expect(registered).toEqual({ clientId: "c1", clientSecret: "s1", authMethod: "client_secret_post", registration: "dynamic" });
    expect(JSON.parse(bodyText(seen[0]?.init))).toMatchObject({ redirect_uris: ["https://gw.example/cb"], grant_types: ["authorization_code", "refresh_token"] });
    const { registrationEndpoint: _none, ...withoutRegistration } = METADATA;
    await expect(registerClient(served({}), withoutRegistration, options)).rejects.toThrow(/configure auth.clientId/);
    await expect(registerClient(served({ [`${ISSUER}/register`]: () => Response.json({ error: "invalid_client_metadata" }, { status: 400 }) }), METADATA, options))
      .rejects.toThrow(/invalid_client_metadata/);
  });

  it("asks for code, S256, state and resource, and sends the client's secret as the server takes it", async () => {
    const client = configuredClient(METADATA, "owner-client", "owner secret");
    expect(client.authMethod).toBe("client_secret_basic");
    const url = new URL(authorizationUrl(METADATA, client, { redirectUri: "https://gw.example/cb", state: "st", codeChallenge: await pkceChallenge("v"), resource: SERVER, scopes: ["a", "b"] }));
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: "code", client_id: "owner-client", code_challenge_method: "S256", state: "st", resource: SERVER, scope: "a b",
    });
    // base64url(SHA-256(verifier)), without padding: the value Node's crypto gives for this verifier.
    expect(await pkceChallenge("dBjftJeZ4CVP-mJ92IZUhUu4X4-_Kt9hArjeQa6h5CU")).toBe("oDYDOKssUM5UtehfEVloJzzLYNZrABxd01IRydDAQ14");

    const seen: { url: string; init: RequestInit }[] = [];
    const fetch = served({ [`${ISSUER}/token`]: () => Response.json({ access_token: "at", token_type: "bearer", expires_in: 60, refresh_token: "rt" }) }, seen);
    const tokens = await exchangeCode(fetch, METADATA, client, { code: "c", verifier: "v", redirectUri: "https://gw.example/cb", resource: SERVER });
    expect(tokens).toMatchObject({ accessToken: "at", refreshToken: "rt" });
    expect(tokens.expiresAt).toBeGreaterThan(Date.now());
    const headers = new Headers(seen[0]?.init.headers);
    expect(headers.get("authorization")).toBe(`Basic ${btoa("owner-client:owner+secret")}`);
    expect(Object.fromEntries(new URLSearchParams(bodyText(seen[0]?.init)))).toEqual({
      grant_type: "authorization_code", code: "c", code_verifier: "v", redirect_uri: "https://gw.example/cb", resource: SERVER,
    });
  });

  it("keeps the refresh token a server did not rotate; refuses a token answer that is not a Bearer token", async () => {
    const client = configuredClient(METADATA, "public-client", undefined);
    const kept = await refreshTokens(served({ [`${ISSUER}/token`]: () => Response.json({ access_token: "at2", token_type: "Bearer" }) }), METADATA, client, { refreshToken: "rt1", resource: SERVER });
    expect(kept).toEqual({ accessToken: "at2", refreshToken: "rt1" });
    await expect(refreshTokens(served({ [`${ISSUER}/token`]: () => Response.json({ access_token: "x", token_type: "mac" }) }), METADATA, client, { refreshToken: "rt1", resource: SERVER }))
      .rejects.toThrow(/not Bearer/);
    const refused = await refreshTokens(served({ [`${ISSUER}/token`]: () => Response.json({ error: "invalid_grant" }, { status: 400 }) }), METADATA, client, { refreshToken: "rt1", resource: SERVER })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OAuthError);
    expect(refused instanceof OAuthError ? refused.code : undefined).toBe("invalid_grant");
  });
});
