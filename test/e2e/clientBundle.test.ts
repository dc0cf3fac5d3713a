// toolgate/client as a plain ES module (npm run build:client): one file with no imports, loaded by plain Node,
// working with nothing but the platform's fetch.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "./devServer.ts";

const dir = mkdtempSync(join(tmpdir(), "toolgate-client-"));
const outfile = join(dir, "toolgate-client.js");

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("npm run build:client", () => {
  it("writes one dependency-free ES module that plain Node loads and uses", async () => {
    execFileSync(process.execPath, [join(ROOT, "scripts", "build-client.ts"), "--outfile", outfile], { cwd: ROOT, stdio: "pipe" });
    const code = readFileSync(outfile, "utf8");
    expect(code).not.toMatch(/^\s*import\b|\brequire\(|\bimport\(/m);
    expect(code.length).toBeLessThan(40_000);

    const loaded: unknown = await import(pathToFileURL(outfile).href);
    if (typeof loaded !== "object" || loaded === null || !("createToolgate" in loaded) || typeof loaded.createToolgate !== "function") {
      throw new Error("no createToolgate export");
    }
    expect(Object.keys(loaded).toSorted()).toEqual(["ToolgateError", "chatCompletions", "createToolgate", "runTurn"]);
    const client: unknown = loaded.createToolgate({
      url: "http://gateway.test",
      fetch: async () => Response.json({ error: { code: "unauthorized", message: "missing token" } }, { status: 401 }),
    });
    if (typeof client !== "object" || client === null || !("search" in client) || typeof client.search !== "function") throw new Error("no search");
    const answer: unknown = client.search("s1", { query: "x" });
    await expect(answer).rejects.toMatchObject({ name: "ToolgateError", status: 401, code: "unauthorized" });
  });
});
