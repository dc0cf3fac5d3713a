// .dev.vars on a fresh clone: made from the committed example with a secret of its own, never overwritten, and the
// example (whose entries a Deploy to Cloudflare button deploys as secrets) turns on nothing a deployment should not have.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ensureDevVars, localDevVarArgs } from "../../scripts/devVars.ts";
import { ROOT } from "./devServer.ts";

const EXAMPLE = readFileSync(join(ROOT, ".dev.vars.example"), "utf8");
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function clone(): string {
  const folder = mkdtempSync(join(tmpdir(), "toolgate-devvars-"));
  folders.push(folder);
  writeFileSync(join(folder, ".dev.vars.example"), EXAMPLE);
  return folder;
}

function entries(text: string): Map<string, string> {
  const lines = text.split("\n").filter((line) => /^[A-Z_][A-Z0-9_]*=/.test(line));
  return new Map(lines.map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1).trim()]));
}

describe(".dev.vars", () => {
  it("is made from the example with a random secret of 64 hex digits, different per clone", () => {
    const first = clone();
    const second = clone();
    expect(ensureDevVars(first)).toBe(true);
    expect(ensureDevVars(second)).toBe(true);
    const secretA = entries(readFileSync(join(first, ".dev.vars"), "utf8")).get("AUTH_JWT_SECRET");
    const secretB = entries(readFileSync(join(second, ".dev.vars"), "utf8")).get("AUTH_JWT_SECRET");
    expect(secretA).toMatch(/^[0-9a-f]{64}$/);
    expect(secretB).toMatch(/^[0-9a-f]{64}$/);
    expect(secretA).not.toBe(secretB);
  });

  it("is never overwritten once it exists", () => {
    const folder = clone();
    writeFileSync(join(folder, ".dev.vars"), "AUTH_JWT_SECRET=mine-and-only-mine-0123456789abcdef\n");
    expect(ensureDevVars(folder)).toBe(false);
    expect(readFileSync(join(folder, ".dev.vars"), "utf8")).toBe("AUTH_JWT_SECRET=mine-and-only-mine-0123456789abcdef\n");
  });

  it("the committed example holds only the secret, empty: no anonymous access, no demo catalog, no known secret", () => {
    expect([...entries(EXAMPLE)]).toEqual([["AUTH_JWT_SECRET", ""]]);
  });

  it("anonymous access and the demo catalog are wrangler dev flags of npm start, not file entries", () => {
    expect(localDevVarArgs()).toEqual(["--var", "ALLOW_ANONYMOUS:true", "--var", "DEMO_CATALOG:true"]);
  });

  it("is git-ignored, and the package describes the secret for the deploy button", () => {
    expect(readFileSync(join(ROOT, ".gitignore"), "utf8").split("\n")).toEqual(expect.arrayContaining([".dev.vars*", "!.dev.vars.example"]));
    const pkg: unknown = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    expect(pkg).toMatchObject({ license: "MIT", cloudflare: { bindings: { AUTH_JWT_SECRET: { description: expect.any(String) } } } });
  });
});
