// Mints a development token: npm run token -- --sub alice --level 1 --groups web,files [--owner] [--ttl 3600]
import { parseArgs } from "node:util";
import { mintDevToken } from "./devToken.ts";

function fail(message: string): never {
  console.error(`token: ${message}`);
  process.exit(2);
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
const ttlSeconds = Number(values.ttl);
if (!Number.isInteger(ttlSeconds) || ttlSeconds <= 0) fail(`--ttl must be a positive number of seconds, got ${values.ttl}`);
const groups = values.groups.split(",").map((g) => g.trim()).filter(Boolean);

try {
  console.log(
    await mintDevToken({ sub: values.sub, level, groups, owner: values.owner, ttlSeconds, aud: values.aud, iss: values.iss }),
  );
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
