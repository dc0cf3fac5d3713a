// The docs cannot rot: every `sh` block of README.md and docs/quickstart.md (in that order, one shell, so that the
// variables a block defines reach the next) runs against a real `npm start` on a free port, and each `#> {…}` comment
// is compared with what the commands before it printed: every key shown must be there with the value shown ("…"
// matches anything; an array ending in "…" may hold more). Blocks whose info string says `no-run` are skipped.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEvalData } from "../../scripts/evalData.ts";
import { freePort, ROOT } from "./devServer.ts";

const PAGES = ["README.md", "docs/quickstart.md"];
const BIN = join(ROOT, "node_modules", ".bin");
const MARKER = "@@toolgate-docs-expect@@";
const ANY = "…";

interface Expectation {
  page: string;
  /** The commands before it, for failure messages. */
  commands: string;
  json: unknown;
}

/** The runnable blocks of a page, in order, as they are written. */
export function shellBlocks(markdown: string): { info: string; body: string }[] {
  const blocks: { info: string; body: string }[] = [];
  for (const match of markdown.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)) {
    blocks.push({ info: (match[1] ?? "").trim(), body: match[2] ?? "" });
  }
  return blocks.filter((block) => /^(sh|bash|shell)\b/.test(block.info) && !/\bno-run\b/.test(block.info));
}

/** Every key and value `expected` shows is in `actual`; returns the first difference, or undefined. */
export function difference(expected: unknown, actual: unknown, path = "$"): string | undefined {
  if (expected === ANY) return undefined;
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected an array, got ${JSON.stringify(actual)}`;
    const open = expected.at(-1) === ANY;
    const shown = open ? expected.slice(0, -1) : expected;
    if (open ? actual.length < shown.length : actual.length !== shown.length) {
      return `${path}: expected ${open ? "at least " : ""}${shown.length} items, got ${actual.length}`;
    }
    for (const [index, item] of shown.entries()) {
      const found = difference(item, actual[index], `${path}[${index}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof expected === "object" && expected !== null) {
    if (typeof actual !== "object" || actual === null || Array.isArray(actual)) return `${path}: expected an object, got ${JSON.stringify(actual)}`;
    for (const [key, value] of Object.entries(expected)) {
      if (!(key in actual)) return `${path}.${key}: missing`;
      const found = difference(value, Reflect.get(actual, key), `${path}.${key}`);
      if (found) return found;
    }
    return undefined;
  }
  return Object.is(expected, actual) ? undefined : `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

/** One script of every runnable block; each run of `#>` lines becomes a marker the output is split on. */
function script(origin: string): { text: string; expectations: Expectation[] } {
  const expectations: Expectation[] = [];
  const out: string[] = [];
  for (const page of PAGES) {
    for (const block of shellBlocks(readFileSync(join(ROOT, page), "utf8"))) {
      const lines = block.body.replaceAll("http://127.0.0.1:8787", origin).split("\n");
      let commands: string[] = [];
      for (let index = 0; index < lines.length; index++) {
        const line = lines[index] ?? "";
        if (!line.startsWith("#>")) {
          out.push(line);
          if (line.trim() !== "" && !line.startsWith("#")) commands.push(line);
          continue;
        }
        const shown: string[] = [];
        while (index < lines.length && (lines[index] ?? "").startsWith("#>")) shown.push((lines[index++] ?? "").slice(2));
        index--;
        expectations.push({ page, commands: commands.join("\n"), json: JSON.parse(shown.join("\n")) });
        commands = [];
        out.push(`echo; echo '${MARKER}'`);
      }
    }
  }
  return { text: out.join("\n"), expectations };
}

/** The `conversation` section of a bench summary. */
function section(summary: unknown): unknown {
  return typeof summary === "object" && summary !== null && "conversation" in summary ? summary.conversation : undefined;
}

let server: { origin: string; stop: () => Promise<void> } | undefined;

beforeAll(async () => {
  const port = await freePort();
  const state = mkdtempSync(join(tmpdir(), "toolgate-docs-"));
  const child = spawn("node", ["scripts/start.ts", "--port", String(port), "--persist-to", state, "--show-interactive-dev-session=false"], {
    cwd: ROOT,
    env: { ...process.env, PATH: `${BIN}${delimiter}${process.env["PATH"] ?? ""}`, WRANGLER_SEND_METRICS: "false" },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.pid !== undefined && child.exitCode === null) {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
    }
    rmSync(state, { recursive: true, force: true });
  };
  await new Promise<void>((resolve, reject) => {
    const keep = (chunk: Buffer): void => {
      output += chunk.toString("utf8");
      if (output.includes("toolgate is up on")) resolve();
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    void exited.then(() => reject(new Error(`npm start exited before it was up:\n${output.slice(-4000)}`)));
  });
  server = { origin: `http://127.0.0.1:${port}`, stop };
});

afterAll(async () => {
  await server?.stop();
});

describe("the docs' shell blocks", () => {
  it("README.md and docs/quickstart.md run in order against npm start and print what they show", async () => {
    const origin = server?.origin ?? "";
    const { text, expectations } = script(origin);
    expect(expectations.length).toBeGreaterThan(5);
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn("bash", ["-e", "-o", "pipefail", "-c", text], {
        cwd: ROOT,
        env: { ...process.env, PATH: `${BIN}${delimiter}${process.env["PATH"] ?? ""}` },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
      child.once("exit", (code) => resolve({ code, stdout, stderr }));
    });
    expect(run.code, `the blocks stopped:\n${run.stderr}\n${run.stdout}`).toBe(0);
    const printed = run.stdout.split(`\n${MARKER}\n`);
    expect(printed.length - 1).toBe(expectations.length);
    for (const [index, expectation] of expectations.entries()) {
      const segment = (printed[index] ?? "").trim();
      let actual: unknown;
      try {
        actual = JSON.parse(segment);
      } catch {
        throw new Error(`${expectation.page}: not one JSON value after\n${expectation.commands}\n---\n${segment}`);
      }
      expect(difference(expectation.json, actual), `${expectation.page}, after\n${expectation.commands}\n---\n${segment}`).toBeUndefined();
    }
  }, 120_000);

  it("docs/bench/conversation.json is what the bench computes now (its figures are quoted in the docs)", async () => {
    const kept: unknown = JSON.parse(readFileSync(join(ROOT, "docs", "bench", "conversation.json"), "utf8"));
    const run = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = spawn(join(BIN, "node"), ["--expose-gc", "bench/run.ts", "--conversation"], { cwd: ROOT, stdio: ["ignore", "pipe", "ignore"] });
      let stdout = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
      child.once("exit", (code) => resolve({ code, stdout }));
    });
    expect(run.code).toBe(0);
    const now: unknown = JSON.parse(run.stdout);
    const data = loadEvalData();
    // Without the evaluation data the bench says so instead of computing anything.
    expect(section(now)).toEqual("missing" in data ? { skipped: data.missing } : section(kept));
    expect(section(kept)).toBeDefined();
  }, 120_000);

  it("the README fits a few screens", () => {
    expect(readFileSync(join(ROOT, "README.md"), "utf8").split("\n").length).toBeLessThanOrEqual(250);
  });

  it("the comparison fails on a wrong value, a missing key and a short array", () => {
    expect(difference({ a: 1 }, { a: 2 })).toBe("$.a: expected 1, got 2");
    expect(difference({ a: 1, b: ANY }, { a: 1 })).toBe("$.b: missing");
    expect(difference([1, 2], [1])).toBe("$: expected 2 items, got 1");
    expect(difference([1, ANY], [1, 2, 3])).toBeUndefined();
    expect(difference({ a: [{ n: "x" }] }, { a: [{ n: "x", more: true }], b: 1 })).toBeUndefined();
  });
});
