// Development tokens, signed with the secret `npm start` uses (AUTH_JWT_SECRET, or else the one in .dev.vars).
import { readFileSync } from "node:fs";
import { SignJWT } from "jose";
import { DEFAULT_MAX_TOKEN_LIFETIME_SECONDS } from "../src/isolate/settings.ts";
import { ensureDevVars } from "./devVars.ts";

export interface DevClaims {
  sub: string;
  level: number;
  groups: string[];
  owner: boolean;
  ttlSeconds: number;
  aud?: string;
  iss?: string;
}

/** A variable from the environment, else from .dev.vars (what `wrangler dev` reads), else undefined. */
function devVar(name: string): string | undefined {
  if (process.env[name]) return process.env[name];
  let text = "";
  ensureDevVars();
  try {
    text = readFileSync(new URL("../.dev.vars", import.meta.url), "utf8");
  } catch {
    return undefined;
  }
  const line = text.split("\n").find((l) => l.startsWith(`${name}=`));
  return line?.slice(name.length + 1).trim();
}

export function devSecret(): string {
  const secret = devVar("AUTH_JWT_SECRET");
  if (!secret) throw new Error("no secret: set AUTH_JWT_SECRET, or a value for it in .dev.vars (made from .dev.vars.example)");
  return secret;
}

/** The longest lifetime the local gateway accepts (AUTH_MAX_TOKEN_LIFETIME_SECONDS, default one day). */
export function devMaxTokenLifetime(): number {
  const text = devVar("AUTH_MAX_TOKEN_LIFETIME_SECONDS");
  return text === undefined || text === "" ? DEFAULT_MAX_TOKEN_LIFETIME_SECONDS : Number(text);
}

export async function mintDevToken(claims: DevClaims): Promise<string> {
  const max = devMaxTokenLifetime();
  if (claims.ttlSeconds > max) {
    throw new Error(`a lifetime of ${claims.ttlSeconds} s is over the gateway's maximum of ${max} s (AUTH_MAX_TOKEN_LIFETIME_SECONDS)`);
  }
  let jwt = new SignJWT({ level: claims.level, owner: claims.owner, groups: claims.groups })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(claims.sub)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + claims.ttlSeconds);
  if (claims.aud) jwt = jwt.setAudience(claims.aud);
  if (claims.iss) jwt = jwt.setIssuer(claims.iss);
  return jwt.sign(new TextEncoder().encode(devSecret()));
}
