// Mints a development token: npm run token -- --sub alice --level 1 --groups web,files [--owner] [--ttl 3600]
import { parseArgs } from "node:util";
import { mintDevToken } from "./devToken.ts";

const USAGE = `usage: npm run token -- --sub <principal> [--level N] [--groups a,b] [--owner] [--ttl seconds] [--aud A] [--iss I]

Prints a development token: HS256, signed with AUTH_JWT_SECRET, else the secret in .dev.vars (what npm start uses).
  --sub <principal>   the token's sub (required)
  --level N           authority level, an integer (default 0; negative = banned)
  --groups a,b        tool groups the principal may enable, comma-separated ('*' = every group)
  --owner             the owner: owner routes, any group, every level
  --ttl seconds       lifetime (default 86400)
  --aud A, --iss I    aud and iss claims (for AUTH_AUDIENCE / AUTH_ISSUER)
  --help              this text`;

/** A usage error: the reason and the usage on stderr, exit 2. */
function fail(message: string): never {
  console.error(`token: ${message}\n\n${USAGE}`);
  process.exit(2);
}

function parse(): ReturnType<typeof parseOptions> {
  try {
    return parseOptions();
  } catch (error) {
    // parseArgs throws TypeErrors with a code (unknown option, missing value, positional argument): say it plainly.
    return fail(error instanceof Error ? error.message : String(error));
  }
}

function parseOptions() {
  return parseArgs({
    options: {
      sub: { type: "string" },
      level: { type: "string", default: "0" },
      groups: { type: "string", default: "" },
      owner: { type: "boolean", default: false },
      ttl: { type: "string", default: "86400" },
      aud: { type: "string" },
      iss: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  }).values;
}

const values = parse();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
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
  // Not a usage error (no secret, say): the reason alone, exit 1.
  console.error(`token: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
