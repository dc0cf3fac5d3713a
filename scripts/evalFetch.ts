// `npm run eval:fetch [-- --out DIR] [-- --from DIR] [-- --base-url URL]`: downloads the evaluation data's upstream
// files (pinned commits, SHA-256 checked; scripts/evalConvert.ts lists them), converts them to mcp-tools.json,
// metatool.json and injections.json, and writes those to .eval-cache/ (git-ignored), where the tests and the bench
// find them (scripts/evalData.ts). Nothing is written unless every file arrived and converted.
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  BIPIA,
  BIPIA_FILES,
  convertInjections,
  convertMcpTools,
  convertMetaTool,
  GARAK,
  GARAK_HOMOGLYPH_FILE,
  GARAK_PAYLOAD_FILES,
  LIVEMCPBENCH,
  MCP_TOOLS_FILE,
  METATOOL,
  METATOOL_FILES,
  UPSTREAM_FILES,
  UpstreamFormatError,
} from "./evalConvert.ts";
import type { UpstreamFile } from "./evalConvert.ts";
import { EVAL_CACHE_DIR, readInjections, readMcpTools, readMetaTool } from "./evalData.ts";

const DEFAULT_BASE_URL = "https://raw.githubusercontent.com";
const DOWNLOAD_TIMEOUT_MS = 60_000;
const MAX_FILE_BYTES = 20 * 1024 * 1024;

const USAGE = `usage: npm run eval:fetch [-- --out DIR] [-- --from DIR | --base-url URL]

Downloads the evaluation data's upstream files (pinned commits, SHA-256 checked), converts them and writes
mcp-tools.json, metatool.json and injections.json to DIR (default: .eval-cache/ in the repository, where the tests and
npm run bench look after TOOLGATE_EVAL_DIR and ../shared/eval).
  --out DIR        where to write the three files
  --from DIR       read the upstream files from DIR/<owner>/<repo>/<path> instead of downloading them
  --base-url URL   download from URL/<owner>/<repo>/<commit>/<path> (default ${DEFAULT_BASE_URL})
  --help           this text
Sources: ${LIVEMCPBENCH.repo} (${LIVEMCPBENCH.licence}), ${METATOOL.repo} (${METATOOL.licence}), ${BIPIA.repo} (${BIPIA.licence}), ${GARAK.repo} (${GARAK.licence}).`;

class FetchError extends Error {}

function usageError(message: string): never {
  console.error(`eval:fetch: ${message}\n\n${USAGE}`);
  process.exit(2);
}

function parseOptions() {
  return parseArgs({
    options: {
      out: { type: "string" },
      from: { type: "string" },
      "base-url": { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  }).values;
}

function parse(): { out: string; from?: string; baseUrl: string } {
  let values: ReturnType<typeof parseOptions>;
  try {
    values = parseOptions();
  } catch (error) {
    // parseArgs throws on an unknown option, a missing value or a positional argument.
    return usageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  if (values.from !== undefined && values["base-url"] !== undefined) usageError("--from and --base-url do not go together");
  const baseUrl = (values["base-url"] ?? DEFAULT_BASE_URL).replace(/\/+$/, "");
  if (!/^https?:\/\//.test(baseUrl)) usageError(`--base-url must be an http(s) URL, got ${baseUrl}`);
  return { out: resolve(values.out ?? EVAL_CACHE_DIR), ...(values.from !== undefined ? { from: resolve(values.from) } : {}), baseUrl };
}

/** What went wrong under a failed fetch(): undici puts the system error (ENOTFOUND, ECONNREFUSED, …) in `cause`. */
function networkReason(error: unknown): string {
  if (error instanceof Error && error.name === "TimeoutError") return `no answer within ${DOWNLOAD_TIMEOUT_MS / 1000} s`;
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof Error) return cause.message;
  return error instanceof Error ? error.message : String(error);
}

async function download(url: string): Promise<Uint8Array> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS), redirect: "follow" });
  } catch (error) {
    throw new FetchError(
      `cannot download ${url}: ${networkReason(error)}.\n` +
        "eval:fetch needs to reach raw.githubusercontent.com. Offline, either set TOOLGATE_EVAL_DIR to a folder that " +
        "already holds mcp-tools.json, metatool.json and injections.json, or put the upstream files in a folder and " +
        "run npm run eval:fetch -- --from <folder>.",
    );
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new FetchError(`cannot download ${url}: HTTP ${response.status} ${response.statusText}`);
  }
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > MAX_FILE_BYTES) {
    await response.body?.cancel();
    throw new FetchError(`${url}: ${declared} bytes, more than the ${MAX_FILE_BYTES} expected`);
  }
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (bytes.byteLength > MAX_FILE_BYTES) throw new FetchError(`${url}: more than ${MAX_FILE_BYTES} bytes`);
  return bytes;
}

function readLocal(path: string): Uint8Array {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new FetchError(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The file's text, after checking that its bytes are the pinned ones. */
async function obtain(file: UpstreamFile, options: { from?: string; baseUrl: string }): Promise<string> {
  const where = options.from !== undefined ? join(options.from, file.repo, file.path) : `${options.baseUrl}/${file.repo}/${file.commit}/${file.path}`;
  console.error(`[eval:fetch] ${where}`);
  const bytes = options.from !== undefined ? readLocal(where) : await download(where);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  if (sha256 !== file.sha256) {
    throw new FetchError(`${where}: SHA-256 ${sha256}, expected ${file.sha256} (${file.repo} ${file.path} at ${file.commit.slice(0, 12)})`);
  }
  return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
}

function parseJson(text: string, file: UpstreamFile): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new FetchError(`${file.repo} ${file.path}: not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
}

const README = `# Evaluation data (written by npm run eval:fetch; not part of the repository)

Converted from these upstream files, at pinned commits (see scripts/evalConvert.ts):

| file | source | licence |
|---|---|---|
| mcp-tools.json | ${LIVEMCPBENCH.repo} ${MCP_TOOLS_FILE.path} @ ${LIVEMCPBENCH.commit} | ${LIVEMCPBENCH.licence} |
| metatool.json | ${METATOOL.repo} ${METATOOL_FILES.tools.path}, ${METATOOL_FILES.single.path}, ${METATOOL_FILES.multi.path} @ ${METATOOL.commit} | ${METATOOL.licence} |
| injections.json | ${BIPIA.repo} benchmark/*_attack_*.json @ ${BIPIA.commit}; ${GARAK.repo} garak/data/payloads/*.json and ${GARAK_HOMOGLYPH_FILE.path} @ ${GARAK.commit}; hand-made cases | ${BIPIA.licence}; ${GARAK.licence} |
`;

async function main(): Promise<void> {
  const options = parse();
  const texts = new Map<UpstreamFile, string>();
  for (const file of UPSTREAM_FILES) texts.set(file, await obtain(file, options));
  const text = (file: UpstreamFile): string => texts.get(file) ?? "";
  const json = (file: UpstreamFile): unknown => parseJson(text(file), file);

  const outputs: [string, unknown][] = [
    ["mcp-tools.json", convertMcpTools(json(MCP_TOOLS_FILE))],
    ["metatool.json", convertMetaTool(json(METATOOL_FILES.tools), text(METATOOL_FILES.single), json(METATOOL_FILES.multi))],
    ["injections.json", convertInjections(BIPIA_FILES.map(json), GARAK_PAYLOAD_FILES.map(json), text(GARAK_HOMOGLYPH_FILE))],
  ];

  // Written to a fresh folder next to the target, read back with the same checks the tests use, then moved in.
  mkdirSync(dirname(options.out), { recursive: true });
  const staging = mkdtempSync(`${options.out}.tmp-`);
  try {
    for (const [name, value] of outputs) writeFileSync(join(staging, name), `${JSON.stringify(value, null, 1)}\n`);
    writeFileSync(join(staging, "README.md"), README);
    const counts = `${readMcpTools(staging).tools.length} MCP tools, ${readMetaTool(staging).queries.length} MetaTool queries, ${readInjections(staging).payloads.length} injection payloads`;
    mkdirSync(options.out, { recursive: true });
    for (const name of [...outputs.map(([n]) => n), "README.md"]) renameSync(join(staging, name), join(options.out, name));
    console.error(`[eval:fetch] wrote ${counts} to ${options.out}`);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

try {
  await main();
} catch (error) {
  if (!(error instanceof FetchError) && !(error instanceof UpstreamFormatError)) throw error;
  console.error(`eval:fetch: ${error.message}`);
  process.exit(1);
}
