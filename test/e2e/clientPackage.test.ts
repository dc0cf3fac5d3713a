// @toolgate/client as a user gets it: `npm pack` of packages/client, installed from the tarball into fresh projects
// (plain Node 20, Node 22+, a `tsc --init` TypeScript project, a Worker project as create-cloudflare makes it), each
// importing it, type-checking where it is TypeScript, and running a search and a tool call against the dev server.
// Nothing is installed from the network: the tarball has no dependencies (installed with --offline and one npm cache
// for all projects), and TypeScript and wrangler are the repository's own (node_modules/.bin).
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devToken, freePort, ROOT, startDevServer } from "./devServer.ts";
import type { DevServer } from "./devServer.ts";

const BIN = join(ROOT, "node_modules", ".bin");
/** The machine's Node 20 (the global `node`); the tests themselves run on the pinned Node 24. */
const NODE20 = process.env["TOOLGATE_NODE20"] ?? "/usr/bin/node";
const work = mkdtempSync(join(tmpdir(), "toolgate-pack-"));
const cache = join(work, "npm-cache");
/** node_modules/.bin first, as under npm: tsc, wrangler and `node` (24) are the repository's. */
const ENV = { ...process.env, PATH: `${BIN}${delimiter}${process.env["PATH"] ?? ""}`, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" };

let server: DevServer;
let tarball = "";
let token = "";

function run(command: string, args: readonly string[], cwd: string): string {
  try {
    return execFileSync(command, args, { cwd, env: ENV, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 120_000 });
  } catch (error) {
    const output = error instanceof Error && "stdout" in error && "stderr" in error ? `${String(error.stdout)}\n${String(error.stderr)}` : "";
    throw new Error(`${command} ${args.join(" ")} in ${cwd} failed:\n${output}`, { cause: error });
  }
}

/** A fresh project folder with these files, the packed client installed into it from the tarball. */
function project(name: string, files: Readonly<Record<string, string>>): string {
  const dir = join(work, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  run("npm", ["install", tarball, "--offline", "--cache", cache, "--no-audit", "--no-fund", "--loglevel", "error"], dir);
  return dir;
}

/** What each program prints: the tools a search found and the result of running one of them. */
interface Outcome {
  found: string[];
  result: { content: string; isError: boolean };
}

/** The program every project runs, as TypeScript (types: true) or JavaScript; the gateway and token are literals. */
function program(types: boolean): string {
  const annotate = (text: string): string => (types ? text : "");
  return `import { createToolgate, ToolgateError } from "@toolgate/client";
${types ? 'import type { ExecuteAnswer, SearchAnswer, Toolgate } from "@toolgate/client";\n' : ""}
export async function main()${annotate(": Promise<{ found: string[]; result: ExecuteAnswer }>")} {
  const client${annotate(": Toolgate")} = createToolgate({ url: ${JSON.stringify(server.origin)}, token: ${JSON.stringify(token)} });
  const session = "pack-" + Math.random().toString(36).slice(2);
  const answer${annotate(": SearchAnswer")} = await client.search(session, { query: "calculate" });
  const result = await client.execute(session, { name: "calculate", arguments: { expression: "6 * 7" } });
  try {
    await createToolgate({ url: ${JSON.stringify(server.origin)}, token: "not-a-jwt" }).search(session, { query: "x" });
  } catch (error) {
    if (!(error instanceof ToolgateError) || error.status !== 401) throw error;
  }
  return { found: answer.tools.map((tool) => tool.name), result };
}
`;
}

const RUN_MAIN = 'import { main } from "./main.js";\nconsole.log(JSON.stringify(await main()));\n';

function isOutcome(value: unknown): value is Outcome {
  if (typeof value !== "object" || value === null || !("found" in value) || !("result" in value)) return false;
  const { found, result } = value;
  return Array.isArray(found) && typeof result === "object" && result !== null && "content" in result && typeof result.content === "string" &&
    "isError" in result && typeof result.isError === "boolean";
}

/** The outcome a program printed (its last line), or an error that shows what it printed. */
function outcome(printed: string): Outcome {
  const parsed: unknown = JSON.parse(printed.trim().split("\n").at(-1) ?? "null");
  if (!isOutcome(parsed)) throw new Error(`not an outcome: ${printed}`);
  return parsed;
}

function expectWorked(result: Outcome): void {
  expect(result.found).toContain("calculate");
  expect(result.result.isError).toBe(false);
  expect(JSON.parse(result.result.content)).toMatchObject({ result: 42 });
}

beforeAll(async () => {
  server = await startDevServer();
  token = await devToken("client-package");
  run("npm", ["pack", "-w", "@toolgate/client", "--pack-destination", work, "--loglevel", "error"], ROOT);
  const packed = readdirSync(work).find((file) => file.endsWith(".tgz"));
  if (!packed) throw new Error("npm pack wrote no tarball");
  tarball = join(work, packed);
});

afterAll(async () => {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe("the packed @toolgate/client", () => {
  it("is small and holds only the built module, its types, README and licence", () => {
    const listed = run("tar", ["-tzf", tarball], work).trim().split("\n").toSorted();
    expect(listed.every((path) => /^package\/(dist\/[\w/]+\.(js|d\.ts)|README\.md|LICENSE|package\.json)$/.test(path))).toBe(true);
    expect(listed).toEqual(expect.arrayContaining(["package/dist/index.js", "package/dist/index.d.ts", "package/README.md", "package/LICENSE"]));
    expect(readFileSync(tarball).length).toBeLessThan(40_000);
    const manifest: unknown = JSON.parse(run("tar", ["-xzOf", tarball, "package/package.json"], work));
    expect(manifest).not.toHaveProperty("dependencies");
  });

  it("plain Node 20: an ES module imports it and calls the gateway", () => {
    expect(run(NODE20, ["--version"], work)).toMatch(/^v20\./);
    const dir = project("node20", { "package.json": '{ "name": "node20-app", "type": "module", "private": true }\n', "main.js": program(false), "run.js": RUN_MAIN });
    expectWorked(outcome(run(NODE20, ["run.js"], dir)));
  });

  it("Node 22+: TypeScript run as is (type stripping), checked with nodenext", () => {
    expect(Number(process.versions.node.split(".")[0])).toBeGreaterThanOrEqual(22);
    const dir = project("node24", {
      "package.json": '{ "name": "node24-app", "type": "module", "private": true }\n',
      "main.ts": program(true),
      "run.ts": RUN_MAIN.replace("./main.js", "./main.ts"),
      "tsconfig.json": JSON.stringify({ compilerOptions: { module: "nodenext", target: "esnext", strict: true, noEmit: true, allowImportingTsExtensions: true, types: [] } }),
    });
    run("tsc", ["-p", "."], dir);
    expectWorked(outcome(run(process.execPath, ["run.ts"], dir)));
  });

  it("a tsc --init project: compiles with the defaults (nodenext, exactOptionalPropertyTypes), bundler and without it, and from CommonJS", () => {
    const dir = project("tsc-init", { "package.json": '{ "name": "tsc-app", "type": "module", "private": true }\n', "main.ts": program(true), "run.ts": RUN_MAIN });
    run("tsc", ["--init"], dir);
    const config = readFileSync(join(dir, "tsconfig.json"), "utf8");
    expect(config).toMatch(/"module": "nodenext"/);
    expect(config).toMatch(/"exactOptionalPropertyTypes": true/);
    // A CommonJS file of the same project (require of the ES module: Node 20.19+ and 22.12+ load it).
    writeFileSync(join(dir, "cjs.cts"), 'import toolgate = require("@toolgate/client");\nconst made: toolgate.Toolgate = toolgate.createToolgate({ url: "http://127.0.0.1:1" });\nexport = { made };\n');
    run("tsc", [], dir);
    run("tsc", ["--noEmit", "--module", "preserve", "--moduleResolution", "bundler"], dir);
    run("tsc", ["--noEmit", "--exactOptionalPropertyTypes", "false", "--skipLibCheck", "false"], dir);
    expectWorked(outcome(run(NODE20, ["run.js"], dir)));
    expect(run(NODE20, ["-e", 'console.log(typeof require("./cjs.cjs").made.search)'], dir).trim()).toBe("function");
  });

  // wrangler types, tsc and a second wrangler dev take most of a minute on an idle two-core machine: its own timeout.
  it("a Worker project as create-cloudflare makes it: wrangler types, tsc, and wrangler dev calling the gateway", { timeout: 240_000 }, async () => {
    // The files of `npm create cloudflare -- --type hello-world --lang ts`, written by hand (no network here); its
    // wrangler and typescript devDependencies are the repository's.
    const dir = project("worker", {
      "package.json": JSON.stringify({ name: "toolgate-worker-app", version: "0.0.0", private: true, scripts: { deploy: "wrangler deploy", dev: "wrangler dev", start: "wrangler dev", "cf-typegen": "wrangler types" } }, null, 2),
      "wrangler.jsonc": JSON.stringify({
        $schema: "node_modules/wrangler/config-schema.json",
        name: "toolgate-worker-app",
        main: "src/index.ts",
        compatibility_date: "2026-11-01",
        observability: { enabled: true },
        vars: { TOOLGATE_URL: "https://toolgate.example", TOOLGATE_TOKEN: "set-as-a-secret" },
      }, null, 2),
      "tsconfig.json": JSON.stringify({
        compilerOptions: {
          target: "es2024", lib: ["es2024"], jsx: "react-jsx", module: "es2022", moduleResolution: "Bundler", resolveJsonModule: true,
          allowJs: true, checkJs: false, noEmit: true, isolatedModules: true, allowSyntheticDefaultImports: true,
          forceConsistentCasingInFileNames: true, strict: true, skipLibCheck: true, types: ["./worker-configuration.d.ts"],
        },
        exclude: ["test"],
        include: ["worker-configuration.d.ts", "src/**/*.ts"],
      }, null, 2),
      ".gitignore": "node_modules\n.wrangler\n.dev.vars*\n",
      "src/index.ts": `import { createToolgate, ToolgateError } from "@toolgate/client";

export default {
  async fetch(request, env): Promise<Response> {
    const client = createToolgate({ url: env.TOOLGATE_URL, token: env.TOOLGATE_TOKEN });
    const session = "worker-" + crypto.randomUUID();
    try {
      const answer = await client.search(session, { query: "calculate" });
      const result = await client.execute(session, { name: "calculate", arguments: { expression: "6 * 7" } });
      return Response.json({ found: answer.tools.map((tool) => tool.name), result });
    } catch (error) {
      if (error instanceof ToolgateError) return Response.json({ error: error.code }, { status: 502 });
      throw error;
    }
  },
} satisfies ExportedHandler<Env>;
`,
    });
    run("wrangler", ["types"], dir);
    run("tsc", ["-p", "."], dir);
    const port = await freePort();
    const child = spawn(join(BIN, "wrangler"), ["dev", "--ip", "127.0.0.1", "--port", String(port), "--show-interactive-dev-session=false",
      "--var", `TOOLGATE_URL:${server.origin}`, "--var", `TOOLGATE_TOKEN:${token}`], { cwd: dir, env: ENV, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    try {
      let answer: Response | undefined;
      for (const deadline = Date.now() + 150_000; answer === undefined && Date.now() < deadline; ) {
        answer = await fetch(`http://127.0.0.1:${port}/`).catch(async () => {
          await new Promise((resolve) => setTimeout(resolve, 300));
          return undefined;
        });
      }
      if (!answer) throw new Error(`the Worker did not answer:\n${output}`);
      const text = await answer.text();
      expect({ status: answer.status, text }).toMatchObject({ status: 200 });
      expectWorked(outcome(text));
    } finally {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
    }
  });
});
