// .dev.vars is local only and never committed: it is made from the committed .dev.vars.example on first use (by npm
// start, the vitest configs and the development tokens), with a random AUTH_JWT_SECRET filled in, so that a fresh
// clone works without a secret anyone else knows. An existing .dev.vars is never touched.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/**
 * The local-only settings that `npm start` and the e2e dev servers pass to wrangler dev as `--var`: anonymous callers
 * (who see only ungrouped tools) and the demo catalog. They are not in .dev.vars.example, whose entries a Deploy to
 * Cloudflare button turns into a deployment's secrets.
 */
export const LOCAL_DEV_VARS: Readonly<Record<string, string>> = { ALLOW_ANONYMOUS: "true", DEMO_CATALOG: "true" };

/** `--var NAME:value` arguments for wrangler dev, one pair per local-only setting. */
export function localDevVarArgs(): string[] {
  return Object.entries(LOCAL_DEV_VARS).flatMap(([name, value]) => ["--var", `${name}:${value}`]);
}

/** The example with every empty `NAME=` of a secret filled in with 32 random bytes (hex). */
export function fillExample(example: string): string {
  return example
    .split("\n")
    .map((line) => (/^AUTH_JWT_SECRET=\s*$/.test(line) ? `AUTH_JWT_SECRET=${randomBytes(32).toString("hex")}` : line))
    .join("\n");
}

/** Creates `<root>/.dev.vars` from `<root>/.dev.vars.example` when it is absent; returns whether it did. */
export function ensureDevVars(root: string = ROOT): boolean {
  const target = join(root, ".dev.vars");
  if (existsSync(target)) return false;
  const example = readFileSync(join(root, ".dev.vars.example"), "utf8");
  try {
    writeFileSync(target, fillExample(example), { flag: "wx" });
  } catch (error) {
    // Another process (a parallel test run) made it first: keep theirs.
    if (error instanceof Error && "code" in error && error.code === "EEXIST") return false;
    throw error;
  }
  return true;
}
