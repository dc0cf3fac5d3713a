// Mints a development token: npm run token -- --sub alice --level 1 --groups web,files [--owner] [--ttl 3600]
// The secret comes from AUTH_JWT_SECRET, or else from .dev.vars (the one `npm start` uses).
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { SignJWT } from "jose";

function fail(message: string): never {
  console.error(`token: ${message}`);
  process.exit(2);
}

function devSecret(): string {
  if (process.env.AUTH_JWT_SECRET) return process.env.AUTH_JWT_SECRET;
  try {
    const text = readFileSync(new URL("../.dev.vars", import.meta.url), "utf8");
    const line = text.split("\n").find((l) => l.startsWith("AUTH_JWT_SECRET="));
    if (line) return line.slice("AUTH_JWT_SECRET=".length).trim();
  } catch {
    // fall through to the error below
  }
  return fail("no secret: set AUTH_JWT_SECRET or keep .dev.vars");
}

const { values } = parseArgs({
  options: {
    sub: { type: "string" },
    level: { type: "string", default: "0" },
    groups: { type: "string", default: "" },
    owner: { type: "boolean", default: false },
    ttl: { type: "string", default: "86400" },
    aud: { type: "string" },
    iss: { type: "string" },
  },
});

if (!values.sub) fail("--sub is required (the principal)");
const level = Number(values.level);
if (!Number.isInteger(level)) fail(`--level must be an integer, got ${values.level}`);
const ttl = Number(values.ttl);
if (!Number.isInteger(ttl) || ttl <= 0) fail(`--ttl must be a positive number of seconds, got ${values.ttl}`);
const groups = values.groups.split(",").map((g) => g.trim()).filter(Boolean);

let jwt = new SignJWT({ level, owner: values.owner, groups })
  .setProtectedHeader({ alg: "HS256", typ: "JWT" })
  .setSubject(values.sub)
  .setIssuedAt()
  .setExpirationTime(Math.floor(Date.now() / 1000) + ttl);
if (values.aud) jwt = jwt.setAudience(values.aud);
if (values.iss) jwt = jwt.setIssuer(values.iss);
console.log(await jwt.sign(new TextEncoder().encode(devSecret())));
