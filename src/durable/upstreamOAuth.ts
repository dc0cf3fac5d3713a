// The OAuth side of an upstream with `auth: {type: "oauth"}`, inside its Durable Object: what was discovered of the
// server and its authorization server, the clients toolgate registered there (one per redirect URI, that is per
// origin toolgate is reached at; a client secret sealed like a grant), the registration generation that every grant
// is tied to, and the principals holding a grant (so that removing the upstream deletes their grants). The grants
// themselves live in each principal's own object (durable/upstreamGrants.ts); this module fetches, refreshes and
// revokes them through it. A refresh is done once at a time per principal: rotation would otherwise make the second
// of two concurrent refreshes fail and lose the grant.
import { ANONYMOUS_PRINCIPAL_ID } from "../core/guard/authority.ts";
import { secretHeaderValues } from "../core/boundary/secrets.ts";
import { upstreamUrlRefusal } from "../core/upstream/config.ts";
import type { UpstreamConfig, UpstreamOAuth } from "../core/upstream/config.ts";
import { openText, sealText } from "./grantCipher.ts";
import {
  authorizationUrl, configuredClient, discoverResource, discoverServer, exchangeCode, OAuthError, randomToken, refreshTokens,
  registerClient, revokeToken,
} from "./oauthClient.ts";
import type { OAuthClient, OAuthFetch, ResourceMetadata, ServerMetadata, TokenSet } from "./oauthClient.ts";
import { cappedFetchFor } from "./modernUpstream.ts";
import { principalStub } from "./stubs.ts";
import { grantKey } from "./upstreamGrants.ts";

/** Refresh when the access token has less than this left. */
export const REFRESH_MARGIN_MS = 60_000;
/** Bytes of one answer of the authorization server or the metadata. */
const OAUTH_ANSWER_BYTES = 64 * 1024;
/** Grants deleted in the removal itself (the rest are refused by their generation). */
const REMOVAL_FAN_OUT = 1_000;
const REMOVAL_BATCH = 50;
const CLIENT_NAME = "toolgate";

interface StoredClient {
  clientId: string;
  sealedSecret?: string;
  authMethod: OAuthClient["authMethod"];
  registration: OAuthClient["registration"];
}

interface OAuthState {
  /** Random, new whenever the upstream is added, or its URL or auth changes: grants of another generation are refused. */
  generation: string;
  /** The principal who configured the upstream: its grant lists the tools when the server's list is not public. */
  owner: string;
  /** The auth configuration and URL this state was made for. */
  basis: string;
  resource?: ResourceMetadata;
  server?: ServerMetadata;
  /** redirect URI → the client registered for it. */
  clients: Record<string, StoredClient>;
}

const STATE_KEY = "oauth";

/** The paths toolgate serves for an upstream's sign-in, under its origin. */
export function signInPaths(origin: string, upstreamId: string): { redirectUri: string; clientMetadata: string } {
  const base = `${origin}/v1/upstreams/${upstreamId}/oauth`;
  return { redirectUri: `${base}/callback`, clientMetadata: `${base}/client.json` };
}

export type SignInStart = { ok: true; authorizationUrl: string; generation: string; redirectUri: string } | { ok: false; error: string };

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class UpstreamOAuthSide {
  private readonly storage: DurableObjectStorage;
  private readonly env: Env;
  private readonly refreshing = new Map<string, Promise<TokenSet | undefined>>();

  constructor(storage: DurableObjectStorage, env: Env) {
    this.storage = storage;
    this.env = env;
    this.createTables();
  }

  createTables(): void {
    this.storage.sql.exec("CREATE TABLE IF NOT EXISTS upstream_grant_holders (principal_id TEXT PRIMARY KEY)");
  }

  private state(): OAuthState | undefined {
    return this.storage.kv.get<OAuthState>(STATE_KEY);
  }

  /** After a configuration: a new generation when the URL or the auth changed (every earlier grant is then refused). */
  configure(config: UpstreamConfig, owner: string): void {
    if (!config.auth) {
      this.storage.kv.delete(STATE_KEY);
      return;
    }
    const basis = JSON.stringify([config.url, config.auth, config.allowPrivate]);
    const previous = this.state();
    if (previous?.basis === basis) {
      this.storage.kv.put(STATE_KEY, { ...previous, owner });
      return;
    }
    this.storage.kv.put(STATE_KEY, { generation: randomToken(16), owner, basis, clients: {} } satisfies OAuthState);
  }

  generation(): string | undefined {
    return this.state()?.generation;
  }

  owner(): string | undefined {
    return this.state()?.owner;
  }

  /** fetch for the authorization server: the upstream's URL rule, no redirects, capped answers, the upstream's timeout. */
  private fetcher(config: UpstreamConfig): OAuthFetch {
    return async (url, init) => {
      const target = new URL(url);
      const refusal = upstreamUrlRefusal(target.protocol, target.hostname, config.allowPrivate);
      if (refusal !== undefined) throw new OAuthError(`${target.origin}: ${refusal}`);
      const fetchCapped = cappedFetchFor(OAUTH_ANSWER_BYTES, new AbortController());
      return fetchCapped(url, { ...init, signal: AbortSignal.timeout(config.timeoutMs) });
    };
  }

  /** The resource and authorization server, discovered once per generation (a 401's challenge names the metadata). */
  private async discovered(config: UpstreamConfig, challenge: string | null): Promise<{ resource: ResourceMetadata; server: ServerMetadata }> {
    const state = this.state();
    if (!state) throw new OAuthError("this upstream does not use OAuth");
    if (state.resource && state.server) return { resource: state.resource, server: state.server };
    const fetch = this.fetcher(config);
    let wwwAuthenticate = challenge;
    if (wwwAuthenticate === null) {
      // An unauthenticated request to the server: its 401 names the metadata (RFC 9728 §5.1).
      const probe = await fetch(config.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "ping" }),
      }).catch(() => undefined);
      wwwAuthenticate = probe?.status === 401 ? probe.headers.get("www-authenticate") : null;
      await probe?.body?.cancel();
    }
    const resource = await discoverResource(fetch, config.url, wwwAuthenticate);
    const issuer = resource.authorizationServers[0];
    if (issuer === undefined) throw new OAuthError("no authorization server");
    const server = await discoverServer(fetch, issuer);
    for (const endpoint of [server.authorizationEndpoint, server.tokenEndpoint]) {
      const url = new URL(endpoint);
      const refusal = upstreamUrlRefusal(url.protocol, url.hostname, config.allowPrivate);
      if (refusal !== undefined) throw new OAuthError(`the authorization server's endpoint ${url.origin}: ${refusal}`);
    }
    const latest = this.state();
    if (latest?.generation === state.generation) this.storage.kv.put(STATE_KEY, { ...latest, resource, server });
    return { resource, server };
  }

  private async client(config: UpstreamConfig, auth: UpstreamOAuth, server: ServerMetadata, origin: string | undefined, generation: string): Promise<OAuthClient> {
    if (auth.clientId !== undefined) {
      const secret = auth.clientSecretSecret === undefined ? undefined : secretHeaderValues({ secret: auth.clientSecretSecret }, { ...this.env })["secret"];
      return configuredClient(server, auth.clientId, secret);
    }
    const state = this.state();
    const key = await grantKey(this.env);
    const place = JSON.stringify(["client", config.id, generation]);
    const known = Object.entries(state?.clients ?? {}).find(([redirectUri]) => origin === undefined || redirectUri === signInPaths(origin, config.id).redirectUri);
    if (known) {
      const [, stored] = known;
      const secret = stored.sealedSecret === undefined ? undefined : await openText(key, stored.sealedSecret, place);
      return { clientId: stored.clientId, authMethod: stored.authMethod, registration: stored.registration, ...(secret !== undefined ? { clientSecret: secret } : {}) };
    }
    if (origin === undefined) throw new OAuthError("no client is registered at the authorization server yet");
    const paths = signInPaths(origin, config.id);
    const client = await registerClient(this.fetcher(config), server, {
      redirectUri: paths.redirectUri,
      clientName: CLIENT_NAME,
      clientUri: origin,
      metadataDocumentUrl: paths.clientMetadata,
    });
    const stored: StoredClient = {
      clientId: client.clientId,
      authMethod: client.authMethod,
      registration: client.registration,
      ...(client.clientSecret !== undefined ? { sealedSecret: await sealText(key, client.clientSecret, place) } : {}),
    };
    const latest = this.state();
    if (latest?.generation === generation) this.storage.kv.put(STATE_KEY, { ...latest, clients: { ...latest.clients, [paths.redirectUri]: stored } });
    return client;
  }

  /** The authorization URL of a new sign-in (discovery and registration first, when not done yet). */
  async beginSignIn(config: UpstreamConfig, origin: string, state: string, codeChallenge: string): Promise<SignInStart> {
    const oauth = this.state();
    if (!config.auth || !oauth) return { ok: false, error: "this upstream does not use OAuth" };
    try {
      const { resource, server } = await this.discovered(config, null);
      const client = await this.client(config, config.auth, server, origin, oauth.generation);
      const { redirectUri } = signInPaths(origin, config.id);
      const scopes = config.auth.scopes ?? resource.scopesSupported ?? [];
      return {
        ok: true,
        authorizationUrl: authorizationUrl(server, client, { redirectUri, state, codeChallenge, resource: resource.resource, scopes }),
        generation: oauth.generation,
        redirectUri,
      };
    } catch (error) {
      return { ok: false, error: errorText(error) };
    }
  }

  /** The callback's code for tokens, stored in the principal's own object; the error text when it fails. */
  async completeSignIn(
    config: UpstreamConfig,
    principalId: string,
    flow: { generation: string; code: string; verifier: string; redirectUri: string; issuer: string | undefined },
  ): Promise<{ ok: true } | { ok: false; error: string }> {
    const oauth = this.state();
    if (!config.auth || !oauth || oauth.generation !== flow.generation) return { ok: false, error: "the upstream was reconfigured or removed since the sign-in began; start again" };
    try {
      const { resource, server } = await this.discovered(config, null);
      // RFC 9207: an `iss` in the answer must be this server's (a mix-up attack otherwise).
      if (flow.issuer !== undefined && flow.issuer !== server.issuer) return { ok: false, error: "the authorization answer came from another issuer" };
      const client = await this.client(config, config.auth, server, new URL(flow.redirectUri).origin, flow.generation);
      const tokens = await exchangeCode(this.fetcher(config), server, client, {
        code: flow.code,
        verifier: flow.verifier,
        redirectUri: flow.redirectUri,
        resource: resource.resource,
      });
      await principalStub(this.env, principalId).putUpstreamGrant(principalId, config.id, flow.generation, tokens);
      this.storage.sql.exec("INSERT OR IGNORE INTO upstream_grant_holders (principal_id) VALUES (?)", principalId);
      return { ok: true };
    } catch (error) {
      return { ok: false, error: errorText(error) };
    }
  }

  /**
   * A usable access token of the principal's grant, refreshed when it is about to expire; undefined when there is none
   * (never signed in, refused at refresh, expired without a refresh token). The anonymous principal never has one.
   */
  async accessToken(config: UpstreamConfig, principalId: string): Promise<string | undefined> {
    const generation = this.generation();
    if (generation === undefined || principalId === ANONYMOUS_PRINCIPAL_ID) return undefined;
    const principal = principalStub(this.env, principalId);
    const tokens = await principal.upstreamGrant(principalId, config.id, generation);
    if (!tokens) return undefined;
    if (tokens.expiresAt === undefined || tokens.expiresAt - Date.now() > REFRESH_MARGIN_MS) return tokens.accessToken;
    const running = this.refreshing.get(principalId);
    if (running) return (await running)?.accessToken;
    const refresh = this.refreshGrant(config, principalId, generation, tokens);
    this.refreshing.set(principalId, refresh);
    try {
      return (await refresh)?.accessToken;
    } finally {
      this.refreshing.delete(principalId);
    }
  }

  private async refreshGrant(config: UpstreamConfig, principalId: string, generation: string, tokens: TokenSet): Promise<TokenSet | undefined> {
    const principal = principalStub(this.env, principalId);
    const stillValid = tokens.expiresAt !== undefined && tokens.expiresAt > Date.now();
    if (tokens.refreshToken === undefined || !config.auth) {
      if (!stillValid) await principal.deleteUpstreamGrant(principalId, config.id, tokens.accessToken);
      return stillValid ? tokens : undefined;
    }
    try {
      const { resource, server } = await this.discovered(config, null);
      const client = await this.client(config, config.auth, server, undefined, generation);
      const fresh = await refreshTokens(this.fetcher(config), server, client, { refreshToken: tokens.refreshToken, resource: resource.resource });
      await principal.putUpstreamGrant(principalId, config.id, generation, fresh);
      return fresh;
    } catch (error) {
      // Refused (revoked, rotated away, expired): the grant is gone and the user signs in again. Anything else (the
      // server is down): the old token while it lasts.
      if (error instanceof OAuthError && error.code !== undefined) {
        await principal.deleteUpstreamGrant(principalId, config.id, tokens.accessToken);
        return undefined;
      }
      return stillValid ? tokens : undefined;
    }
  }

  /**
   * The upstream refused this access token (401): the grant holding it is deleted, so the next call asks again. False
   * when the grant holds another token by now (refreshed meanwhile): it is kept.
   */
  async forget(config: UpstreamConfig, principalId: string, accessToken: string): Promise<boolean> {
    const outcome = await principalStub(this.env, principalId).deleteUpstreamGrant(principalId, config.id, accessToken);
    if (outcome.deleted) return true;
    const generation = this.generation();
    const current = generation === undefined ? undefined : await principalStub(this.env, principalId).upstreamGrant(principalId, config.id, generation);
    return current === undefined;
  }

  /** The principal's grant deleted, and revoked at the authorization server when it has an endpoint for it. */
  async deleteGrant(config: UpstreamConfig | undefined, principalId: string): Promise<{ deleted: boolean; revoked: boolean }> {
    const id = config?.id;
    this.storage.sql.exec("DELETE FROM upstream_grant_holders WHERE principal_id = ?", principalId);
    if (id === undefined) return { deleted: false, revoked: false };
    const outcome = await principalStub(this.env, principalId).deleteUpstreamGrant(principalId, id);
    let revoked = false;
    const state = this.state();
    if (outcome.tokens && config?.auth && state?.server) {
      try {
        const client = await this.client(config, config.auth, state.server, undefined, state.generation);
        const token = outcome.tokens.refreshToken ?? outcome.tokens.accessToken;
        revoked = await revokeToken(this.fetcher(config), state.server, client, token, outcome.tokens.refreshToken ? "refresh_token" : "access_token");
      } catch {
        // The grant is gone here either way; the server's copy expires on its own.
      }
    }
    return { deleted: outcome.deleted, revoked };
  }

  /** On removal: every holder's grant deleted (up to REMOVAL_FAN_OUT; any others are refused by their generation). */
  async removeAll(upstreamId: string): Promise<number> {
    const holders = this.storage.sql
      .exec<{ principal_id: string }>("SELECT principal_id FROM upstream_grant_holders LIMIT ?", REMOVAL_FAN_OUT)
      .toArray()
      .map((row) => row.principal_id);
    let deleted = 0;
    for (let start = 0; start < holders.length; start += REMOVAL_BATCH) {
      const outcomes = await Promise.all(
        holders.slice(start, start + REMOVAL_BATCH).map((principalId) =>
          principalStub(this.env, principalId).deleteUpstreamGrant(principalId, upstreamId).catch(() => ({ deleted: false })),
        ),
      );
      deleted += outcomes.filter((outcome) => outcome.deleted).length;
    }
    return deleted;
  }
}

