// A principal's own grants to OAuth upstreams, and its sign-ins under way, kept in that principal's Durable Object.
// Tokens are sealed (core/upstream/grantCipher.ts) with the grant key and the grant's place as additional data; only
// the expiry is stored in clear (it says when to refresh, nothing more). A grant is tied to its upstream's
// registration generation: an upstream removed and added again has a new one, and an older grant is never used.
import { deriveGrantKey, openText, sealText } from "./grantCipher.ts";
import type { TokenSet } from "./oauthClient.ts";
import { isRecord } from "../core/records.ts";

/** A sign-in under way: what the callback needs, kept from the link's first open until the callback takes it. */
export interface PendingSignIn {
  upstreamId: string;
  generation: string;
  /** The PKCE verifier. */
  verifier: string;
  /** SHA-256 (base64url) of the cookie the connect page set: the callback must come from the same browser. */
  browserHash: string;
  redirectUri: string;
}

/** The Worker secrets the grant key is derived from, the first one set: its own, else the state or the JWT secret. */
export const GRANT_KEY_SECRETS = ["UPSTREAM_GRANT_KEY", "MCP_STATE_SECRET", "AUTH_JWT_SECRET"] as const;

const keys = new Map<string, Promise<CryptoKey>>();

/** The grant key of this deployment; throws (naming the secrets, never a value) when none is set. */
export function grantKey(env: object): Promise<CryptoKey> {
  for (const name of GRANT_KEY_SECRETS) {
    const value: unknown = Reflect.get(env, name);
    if (typeof value === "string" && value !== "") {
      let key = keys.get(value);
      if (!key) {
        key = deriveGrantKey(value).catch((error: unknown) => {
          keys.delete(value);
          throw new Error(`${name}: ${error instanceof Error ? error.message : String(error)}`);
        });
        keys.set(value, key);
      }
      return key;
    }
  }
  return Promise.reject(new Error(`upstream grants need a key: set the Worker secret ${GRANT_KEY_SECRETS.join(" or ")}`));
}

function place(principalId: string, upstreamId: string, generation: string, kind: "grant" | "verifier"): string {
  return JSON.stringify([kind, principalId, upstreamId, generation]);
}

function readTokens(text: string | undefined): TokenSet | undefined {
  if (text === undefined) return undefined;
  const value: unknown = JSON.parse(text);
  if (!isRecord(value) || typeof value.accessToken !== "string") return undefined;
  return {
    accessToken: value.accessToken,
    ...(typeof value.refreshToken === "string" ? { refreshToken: value.refreshToken } : {}),
    ...(typeof value.expiresAt === "number" ? { expiresAt: value.expiresAt } : {}),
    ...(typeof value.scope === "string" ? { scope: value.scope } : {}),
  };
}

export class UpstreamGrantStore {
  private readonly storage: DurableObjectStorage;
  private readonly env: object;

  constructor(storage: DurableObjectStorage, env: object) {
    this.storage = storage;
    this.env = env;
  }

  createTables(): void {
    const { sql } = this.storage;
    sql.exec("CREATE TABLE IF NOT EXISTS upstream_grants (upstream_id TEXT PRIMARY KEY, generation TEXT NOT NULL, sealed TEXT NOT NULL, expires_at INTEGER, updated INTEGER NOT NULL)");
    // A row per link opened: body NULL once the callback took it (a used link stays refused until it expires).
    sql.exec("CREATE TABLE IF NOT EXISTS upstream_signins (nonce TEXT PRIMARY KEY, body TEXT, expires_at INTEGER NOT NULL)");
  }

  /** Whether anything here must outlive the principal's last session (spent or expired sign-ins do not). */
  holdsAny(): boolean {
    this.storage.sql.exec("DELETE FROM upstream_signins WHERE expires_at < ?", Date.now());
    const count = (table: string): number => this.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).one().n;
    return count("upstream_grants") > 0 || count("upstream_signins") > 0;
  }

  /** The grant for the upstream in this generation; one of an older generation (or that no longer opens) is deleted. */
  async grant(principalId: string, upstreamId: string, generation: string): Promise<TokenSet | undefined> {
    const row = this.storage.sql
      .exec<{ generation: string; sealed: string }>("SELECT generation, sealed FROM upstream_grants WHERE upstream_id = ?", upstreamId)
      .toArray()[0];
    if (!row) return undefined;
    const tokens = row.generation === generation
      ? readTokens(await openText(await grantKey(this.env), row.sealed, place(principalId, upstreamId, generation, "grant")))
      : undefined;
    if (!tokens) this.storage.sql.exec("DELETE FROM upstream_grants WHERE upstream_id = ? AND sealed = ?", upstreamId, row.sealed);
    return tokens;
  }

  async putGrant(principalId: string, upstreamId: string, generation: string, tokens: TokenSet): Promise<void> {
    const sealed = await sealText(await grantKey(this.env), JSON.stringify(tokens), place(principalId, upstreamId, generation, "grant"));
    this.storage.sql.exec(
      "INSERT INTO upstream_grants (upstream_id, generation, sealed, expires_at, updated) VALUES (?, ?, ?, ?, ?) ON CONFLICT (upstream_id) DO UPDATE SET generation = excluded.generation, sealed = excluded.sealed, expires_at = excluded.expires_at, updated = excluded.updated",
      upstreamId, generation, sealed, tokens.expiresAt ?? null, Date.now(),
    );
  }

  /**
   * Deletes the grant and answers what it held (for revocation at the server). With `onlyIfAccessToken`, only when it
   * still holds that access token: a call that saw it refused does not delete a newer grant signed in meanwhile.
   */
  async deleteGrant(principalId: string, upstreamId: string, onlyIfAccessToken?: string): Promise<{ deleted: boolean; tokens?: TokenSet }> {
    const row = this.storage.sql
      .exec<{ generation: string; sealed: string }>("SELECT generation, sealed FROM upstream_grants WHERE upstream_id = ?", upstreamId)
      .toArray()[0];
    if (!row) return { deleted: false };
    const tokens = readTokens(await openText(await grantKey(this.env), row.sealed, place(principalId, upstreamId, row.generation, "grant")).catch(() => undefined));
    if (onlyIfAccessToken !== undefined && tokens?.accessToken !== onlyIfAccessToken) return { deleted: false };
    this.storage.sql.exec("DELETE FROM upstream_grants WHERE upstream_id = ? AND sealed = ?", upstreamId, row.sealed);
    return { deleted: true, ...(tokens ? { tokens } : {}) };
  }

  /** Records a link's first open; false when the link (its nonce) was opened before. Expired rows are dropped first. */
  async beginSignIn(principalId: string, nonce: string, pending: PendingSignIn, expiresAt: number): Promise<boolean> {
    this.storage.sql.exec("DELETE FROM upstream_signins WHERE expires_at < ?", Date.now());
    const used = this.storage.sql.exec("SELECT 1 FROM upstream_signins WHERE nonce = ?", nonce).toArray().length > 0;
    if (used) return false;
    const verifier = await sealText(await grantKey(this.env), pending.verifier, place(principalId, pending.upstreamId, pending.generation, "verifier"));
    this.storage.sql.exec("INSERT INTO upstream_signins (nonce, body, expires_at) VALUES (?, ?, ?)", nonce, JSON.stringify({ ...pending, verifier }), expiresAt);
    return true;
  }

  /** The sign-in, once: the row stays (body cleared) so that the same state is refused again until it expires. */
  async takeSignIn(principalId: string, nonce: string): Promise<PendingSignIn | undefined> {
    const row = this.storage.sql
      .exec<{ body: string | null; expires_at: number }>("SELECT body, expires_at FROM upstream_signins WHERE nonce = ?", nonce)
      .toArray()[0];
    if (!row || row.body === null) return undefined;
    this.storage.sql.exec("UPDATE upstream_signins SET body = NULL WHERE nonce = ?", nonce);
    if (row.expires_at < Date.now()) return undefined;
    const body: unknown = JSON.parse(row.body);
    if (!isRecord(body)) return undefined;
    const { upstreamId, generation, verifier, browserHash, redirectUri } = body;
    if (typeof upstreamId !== "string" || typeof generation !== "string" || typeof verifier !== "string" || typeof browserHash !== "string" || typeof redirectUri !== "string") {
      return undefined;
    }
    const opened = await openText(await grantKey(this.env), verifier, place(principalId, upstreamId, generation, "verifier"));
    if (opened === undefined) return undefined;
    return { upstreamId, generation, verifier: opened, browserHash, redirectUri };
  }
}
