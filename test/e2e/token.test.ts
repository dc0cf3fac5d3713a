// `npm run token` (scripts/token.ts): usage for --help (exit 0), the reason and the usage for a wrong command line
// (exit 2, stderr), never a stack trace. Plain Node: npx vitest run --config vitest.e2e.config.ts test/e2e/token.test.ts.
import { spawnSync } from "node:child_process";
import { delimiter, join } from "node:path";
import { decodeJwt } from "jose";
import { describe, expect, it } from "vitest";
import { ROOT } from "./devServer.ts";

const BIN = join(ROOT, "node_modules", ".bin");

function token(args: string[], env: Record<string, string> = {}): { code: number | null; stdout: string; stderr: string } {
  const run = spawnSync("node", ["scripts/token.ts", ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, PATH: `${BIN}${delimiter}${process.env["PATH"] ?? ""}`, ...env },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const USAGE = /^usage: npm run token -- --sub <principal>/m;
const STACK = /^\s+at /m;

describe("npm run token", () => {
  it("prints the usage on stdout for --help and -h, exit 0", () => {
    for (const flag of ["--help", "-h"]) {
      const run = token([flag]);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(USAGE);
      expect(run.stderr).toBe("");
    }
  });

  it.each([
    [["--sub", "alice", "--bogus"], /^token: Unknown option '--bogus'/],
    [["--sub", "alice", "stray"], /^token: Unexpected argument 'stray'/],
    [["--sub"], /^token: Option '--sub <value>' argument missing/],
    [["--level", "1"], /^token: --sub is required/],
    [["--sub", "alice", "--level", "high"], /^token: --level must be an integer, got high/],
    [["--sub", "alice", "--ttl", "0"], /^token: --ttl must be a positive number of seconds/],
  ])("answers %j with the reason and the usage on stderr, exit 2, no stack trace", (args, reason) => {
    const run = token(args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(reason);
    expect(run.stderr).toMatch(USAGE);
    expect(run.stderr).not.toMatch(STACK);
  });

  it("still mints a token from a good command line", () => {
    const run = token(["--sub", "alice", "--level", "1", "--groups", "web, files", "--owner"]);
    expect(run.code).toBe(0);
    expect(decodeJwt(run.stdout.trim())).toMatchObject({ sub: "alice", level: 1, groups: ["web", "files"], owner: true });
  });
});
