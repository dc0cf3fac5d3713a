// Where the evaluation data lives, for the tests (vitest.config.ts passes it into workerd), the bench and
// `npm run eval:fetch`. The data is read at run time and never kept in the repository:
//   1. TOOLGATE_EVAL_DIR, when set (it must then hold all three files);
//   2. ../shared/eval next to the repository (the project's shared folder);
//   3. .eval-cache/ in the repository (git-ignored), which `npm run eval:fetch` fills from the upstream data sets.
// Without any of them the tests that need the data are skipped with EVAL_MISSING as the reason, and the bench skips
// its data sections.
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isRecord } from "../src/core/records.ts";

export const EVAL_FILES = ["mcp-tools.json", "metatool.json", "injections.json"] as const;
export type EvalFile = (typeof EVAL_FILES)[number];

/** The reason a test or a bench section gives when the data is missing. */
export const EVAL_MISSING = "eval data not found: set TOOLGATE_EVAL_DIR or run npm run eval:fetch";

export const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));
export const EVAL_CACHE_DIR = join(REPO_ROOT, ".eval-cache");

export type EvalLocation =
  | { found: true; dir: string; from: string }
  | { found: false; reason: string; looked: string[] };

function missingIn(dir: string): EvalFile[] {
  return EVAL_FILES.filter((file) => !existsSync(join(dir, file)));
}

/**
 * The folder to read the data from. A TOOLGATE_EVAL_DIR that lacks a file is an error (it was asked for), never a
 * silent fallback; the other two places are simply tried in turn.
 */
export function locateEvalData(env: NodeJS.ProcessEnv = process.env, root: string = REPO_ROOT): EvalLocation {
  const explicit = env["TOOLGATE_EVAL_DIR"];
  if (explicit !== undefined && explicit !== "") {
    const dir = resolve(explicit);
    const missing = missingIn(dir);
    if (missing.length > 0) throw new Error(`TOOLGATE_EVAL_DIR=${explicit}: ${missing.join(", ")} not found in ${dir}`);
    return { found: true, dir, from: "TOOLGATE_EVAL_DIR" };
  }
  const candidates: [string, string][] = [
    [join(root, "..", "shared", "eval"), "../shared/eval"],
    [join(root, ".eval-cache"), ".eval-cache (npm run eval:fetch)"],
  ];
  for (const [dir, from] of candidates) {
    if (missingIn(dir).length === 0) return { found: true, dir, from };
  }
  return { found: false, reason: EVAL_MISSING, looked: candidates.map(([dir]) => dir) };
}

// ---------------------------------------------------------------------------------------------------------------
// The three files, checked for the shapes docs/development.md gives (a wrong or truncated file fails here, by name).

export interface EvalMcpTool {
  server: string;
  category: string;
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown> | null;
}

export interface EvalMetaTool {
  tools: { name: string; description: string }[];
  queries: { query: string; tools: string[] }[];
}

export interface EvalInjection {
  source: string;
  text: string;
}

export interface EvalData {
  mcpTools: { tools: EvalMcpTool[] };
  metatool: EvalMetaTool;
  injections: { payloads: EvalInjection[] };
}

class EvalShapeError extends Error {}

function listOf(data: unknown, key: string, where: string): Record<string, unknown>[] {
  const list = isRecord(data) ? data[key] : undefined;
  if (!Array.isArray(list)) throw new EvalShapeError(`${where}: expected {${key}: [...]}`);
  return list.map((item: unknown, index) => {
    if (!isRecord(item)) throw new EvalShapeError(`${where}: ${key}[${index}] is not an object`);
    return item;
  });
}

function text(record: Record<string, unknown>, key: string, where: string): string {
  const value = record[key];
  if (typeof value !== "string") throw new EvalShapeError(`${where}.${key}: expected a string`);
  return value;
}

function readJson(dir: string, file: EvalFile): unknown {
  const path = join(dir, file);
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(`${path}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

export function readMcpTools(dir: string): { tools: EvalMcpTool[] } {
  const tools = listOf(readJson(dir, "mcp-tools.json"), "tools", "mcp-tools.json").map((tool, index) => {
    const where = `mcp-tools.json tools[${index}]`;
    const inputSchema = tool["inputSchema"];
    if (!isRecord(inputSchema)) throw new EvalShapeError(`${where}.inputSchema: expected an object`);
    const annotations = tool["annotations"];
    return {
      server: text(tool, "server", where),
      category: text(tool, "category", where),
      name: text(tool, "name", where),
      description: text(tool, "description", where),
      inputSchema,
      ...(isRecord(annotations) || annotations === null ? { annotations } : {}),
    };
  });
  return { tools };
}

export function readMetaTool(dir: string): EvalMetaTool {
  const data = readJson(dir, "metatool.json");
  return {
    tools: listOf(data, "tools", "metatool.json").map((tool, index) => {
      const where = `metatool.json tools[${index}]`;
      return { name: text(tool, "name", where), description: text(tool, "description", where) };
    }),
    queries: listOf(data, "queries", "metatool.json").map((query, index) => {
      const where = `metatool.json queries[${index}]`;
      const tools = query["tools"];
      if (!Array.isArray(tools) || !tools.every((name): name is string => typeof name === "string")) {
        throw new EvalShapeError(`${where}.tools: expected an array of names`);
      }
      return { query: text(query, "query", where), tools };
    }),
  };
}

export function readInjections(dir: string): { payloads: EvalInjection[] } {
  const payloads = listOf(readJson(dir, "injections.json"), "payloads", "injections.json").map((payload, index) => {
    const where = `injections.json payloads[${index}]`;
    return { source: text(payload, "source", where), text: text(payload, "text", where) };
  });
  return { payloads };
}

// ---------------------------------------------------------------------------------------------------------------
// The three further retrieval sets (Seal-Tools, Gorilla APIBench, API-Bank): optional, each read when its file is in
// the data folder. They share one shape: tools with parameters, and queries naming their right tools.

export const RETRIEVAL_SET_FILES = {
  sealTools: "seal-tools.json",
  gorilla: "gorilla-apibench.json",
  apiBank: "api-bank.json",
} as const;
export type RetrievalSetName = keyof typeof RETRIEVAL_SET_FILES;
const RETRIEVAL_SET_NAMES: readonly RetrievalSetName[] = ["sealTools", "gorilla", "apiBank"];

export interface EvalRetrievalSet {
  tools: { name: string; description: string; parameters: Record<string, unknown> }[];
  queries: { query: string; tools: string[] }[];
}

/** One retrieval set of the shape above, checked (a wrong file fails here, by name). */
export function readRetrievalSet(dir: string, file: string): EvalRetrievalSet {
  const path = join(dir, file);
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(`${path}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return {
    tools: listOf(data, "tools", file).map((tool, index) => {
      const where = `${file} tools[${index}]`;
      const parameters = tool["parameters"];
      return { name: text(tool, "name", where), description: text(tool, "description", where), parameters: isRecord(parameters) ? parameters : { type: "object", properties: {} } };
    }),
    queries: listOf(data, "queries", file).map((query, index) => {
      const where = `${file} queries[${index}]`;
      const tools = query["tools"];
      if (!Array.isArray(tools) || !tools.every((name): name is string => typeof name === "string")) {
        throw new EvalShapeError(`${where}.tools: expected an array of names`);
      }
      return { query: text(query, "query", where), tools };
    }),
  };
}

/** The further retrieval sets found beside the main data (a set whose file is absent is left out). */
export function loadRetrievalSets(env: NodeJS.ProcessEnv = process.env): Partial<Record<RetrievalSetName, EvalRetrievalSet>> {
  const location = locateEvalData(env);
  if (!location.found) return {};
  const sets: Partial<Record<RetrievalSetName, EvalRetrievalSet>> = {};
  for (const name of RETRIEVAL_SET_NAMES) {
    const file = RETRIEVAL_SET_FILES[name];
    if (existsSync(join(location.dir, file))) sets[name] = readRetrievalSet(location.dir, file);
  }
  return sets;
}

/** The data and where it came from, or why there is none. A file of the wrong shape throws, naming the file. */
export function loadEvalData(env: NodeJS.ProcessEnv = process.env): { data: EvalData; dir: string; from: string } | { missing: string; looked: string[] } {
  const location = locateEvalData(env);
  if (!location.found) return { missing: location.reason, looked: location.looked };
  try {
    const data = { mcpTools: readMcpTools(location.dir), metatool: readMetaTool(location.dir), injections: readInjections(location.dir) };
    return { data, dir: location.dir, from: location.from };
  } catch (error) {
    const hint = location.dir === EVAL_CACHE_DIR ? " (run npm run eval:fetch again)" : "";
    throw new Error(`evaluation data in ${location.dir} (${location.from}) is not usable${hint}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
