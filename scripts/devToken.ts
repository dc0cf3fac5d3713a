// Development tokens, signed with the secret `npm start` uses (AUTH_JWT_SECRET, or else the one in .dev.vars).
import { readFileSync } from "node:fs";
import { SignJWT } from "jose";

export interface DevClaims {
  sub: string;
  level: number;
  groups: string[];
  owner: boolean;
  ttlSeconds: number;
  aud?: string;
  iss?: string;
}

export function devSecret(): string {
  if (process.env.AUTH_JWT_SECRET) return process.env.AUTH_JWT_SECRET;
  let text = "";
  try {
    text = readFileSync(new URL("../.dev.vars", import.meta.url), "utf8");
  } catch {
    // no .dev.vars: the error below says what to do
  }
  const line = text.split("\n").find((l) => l.startsWith("AUTH_JWT_SECRET="));
  if (!line) throw new Error("no secret: set AUTH_JWT_SECRET or keep .dev.vars");
  return line.slice("AUTH_JWT_SECRET=".length).trim();
}

export async function mintDevToken(claims: DevClaims): Promise<string> {
  let jwt = new SignJWT({ level: claims.level, owner: claims.owner, groups: claims.groups })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(claims.sub)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + claims.ttlSeconds);
  if (claims.aud) jwt = jwt.setAudience(claims.aud);
  if (claims.iss) jwt = jwt.setIssuer(claims.iss);
  return jwt.sign(new TextEncoder().encode(devSecret()));
}
