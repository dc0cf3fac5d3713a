// The official MCP client's OAuth flow against the gateway as its own authorization server (AUTH_MODE "oauth"):
// the SDK's StreamableHTTPClientTransport meets a 401, discovers the protected-resource and authorization-server
// metadata, registers itself (dynamic registration), sends the user to authorize with S256 PKCE; the test is the
// user's browser (the provider's sign-in, the consent page); the SDK exchanges the code, calls /mcp, refreshes; a
// second client, starting from a 401 of the HTTP API, does the same for /v1.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { auth, extractWWWAuthenticateParams, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { describe, expect, it } from "vitest";
import { answer, Browser, consentHandle, locationOf, OAUTH_BASE, OAUTH_ENV, oauthFetch, throughSignIn } from "../support/oauthBrowser.ts";
import { envFetch } from "./helpers.ts";

const REDIRECT_URL = "https://app.test/oauth/callback";

/** The client application's storage: what a real MCP client keeps between the redirect and the callback. */
class MemoryProvider implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrl: URL | undefined;

  get redirectUrl(): string {
    return REDIRECT_URL;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "MCP SDK test client",
      redirect_uris: [REDIRECT_URL],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.information;
  }

  saveClientInformation(information: OAuthClientInformationMixed): void {
    this.information = information;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }
}

const sdkFetch = envFetch(OAUTH_ENV);

/** The user in the browser: the provider's sign-in and the consent page; the code (and iss) the client receives. */
async function userAuthorizes(url: URL | undefined, claims: Record<string, unknown>): Promise<string> {
  if (url === undefined) throw new Error("the client sent the user nowhere");
  const browser = new Browser();
  const page = await throughSignIn(browser, url, claims);
  expect(page.status).toBe(200);
  const back = locationOf(await answer(browser, consentHandle(await page.text()), "approve", ["toolgate", "offline_access"]));
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URL);
  // What the client checks (RFC 9207) before it uses the code.
  expect(back.searchParams.get("iss")).toBe(OAUTH_BASE);
  const code = back.searchParams.get("code");
  if (code === null) throw new Error(`no code in ${back.href}`);
  return code;
}

function mcpClient(provider: MemoryProvider): { client: Client; transport: StreamableHTTPClientTransport } {
  const transport = new StreamableHTTPClientTransport(new URL(`${OAUTH_BASE}/mcp`), { authProvider: provider, fetch: sdkFetch });
  const client = new Client({ name: "oauth-sdk-test", version: "0" }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  return { client, transport };
}

describe("the MCP SDK's OAuth client against the gateway", { timeout: 60_000 }, () => {
  it("discovers from the 401, registers, authorizes with PKCE, gets and refreshes a token, and calls /mcp and /v1", async () => {
    const sub = `sdk-user-${crypto.randomUUID()}`;
    const claims = { sub, toolgate_level: 1, groups: ["files"] };
    const provider = new MemoryProvider();

    // No token: the connection fails with the SDK's UnauthorizedError once the user has been sent to authorize.
    const first = mcpClient(provider);
    await expect(first.client.connect(first.transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.information?.client_id).toEqual(expect.any(String));
    const authorizationUrl = provider.authorizationUrl;
    expect(authorizationUrl?.href.startsWith(`${OAUTH_BASE}/oauth/authorize?`)).toBe(true);
    expect(authorizationUrl?.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorizationUrl?.searchParams.get("resource")).toBe(`${OAUTH_BASE}/mcp`);
    expect(authorizationUrl?.searchParams.get("scope")).toBe("toolgate");

    const code = await userAuthorizes(authorizationUrl, claims);
    await first.transport.finishAuth(code);
    const issued = provider.saved;
    expect(issued?.access_token).toEqual(expect.any(String));
    expect(issued?.refresh_token).toEqual(expect.any(String));

    const connected = mcpClient(provider);
    await connected.client.connect(connected.transport);
    const { tools } = await connected.client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("search_tools");
    const found = await connected.client.callTool({ name: "search_tools", arguments: { query: "read a file" } });
    expect(found.isError).not.toBe(true);
    await connected.client.close();

    // Refresh: with a refresh token stored, the SDK's auth() trades it for a new pair (rotated), and /mcp takes it.
    expect(await auth(provider, { serverUrl: `${OAUTH_BASE}/mcp`, fetchFn: sdkFetch })).toBe("AUTHORIZED");
    expect(provider.saved?.access_token).not.toBe(issued?.access_token);
    expect(provider.saved?.refresh_token).not.toBe(issued?.refresh_token);
    const refreshed = mcpClient(provider);
    await refreshed.client.connect(refreshed.transport);
    expect((await refreshed.client.listTools()).tools.length).toBeGreaterThan(0);
    await refreshed.client.close();

    // The /mcp token is not the HTTP API's: /v1 answers 401, naming its own metadata, where a client starts again.
    const refused = await oauthFetch(`${OAUTH_BASE}/v1/stats`, { headers: { authorization: `Bearer ${provider.saved?.access_token ?? ""}` } });
    expect(refused.status).toBe(401);
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(refused);
    expect(resourceMetadataUrl?.href).toBe(`${OAUTH_BASE}/.well-known/oauth-protected-resource/v1`);
    const apiProvider = new MemoryProvider();
    const options = { serverUrl: `${OAUTH_BASE}/v1`, resourceMetadataUrl, scope, fetchFn: sdkFetch };
    expect(await auth(apiProvider, options)).toBe("REDIRECT");
    expect(apiProvider.authorizationUrl?.searchParams.get("resource")).toBe(`${OAUTH_BASE}/v1`);
    const apiCode = await userAuthorizes(apiProvider.authorizationUrl, claims);
    expect(await auth(apiProvider, { ...options, authorizationCode: apiCode })).toBe("AUTHORIZED");
    const stats = await oauthFetch(`${OAUTH_BASE}/v1/stats`, { headers: { authorization: `Bearer ${apiProvider.saved?.access_token ?? ""}` } });
    expect(stats.status).toBe(200);
    expect((await stats.json<{ principal: string }>()).principal).toBe(sub);
  });
});
