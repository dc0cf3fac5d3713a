// Benchmark catalogs: the 527 real MCP tool definitions of the evaluation data's mcp-tools.json, enlarged to any size
// by a deterministic generator, and the MetaTool retrieval set. Read at run time through scripts/evalData.ts (the
// resolver the tests use too: TOOLGATE_EVAL_DIR, ../shared/eval, .eval-cache), never copied into the repo.
import { loadEvalData } from "../scripts/evalData.ts";
import type { EvalMcpTool, EvalMetaTool } from "../scripts/evalData.ts";
import type { ToolDefinition } from "../src/core/types.ts";
import { seededRandom } from "./random.ts";

export type { EvalMcpTool };
export { seededRandom };
export type MetaToolSet = EvalMetaTool;

/** The two data sets the bench uses, or why they are missing (EVAL_MISSING and where it looked). */
export function loadBenchData(): { real: EvalMcpTool[]; meta: MetaToolSet; from: string } | { missing: string } {
  const loaded = loadEvalData();
  if ("missing" in loaded) return { missing: `${loaded.missing} (looked in ${loaded.looked.join(", ")})` };
  return { real: loaded.data.mcpTools.tools, meta: loaded.data.metatool, from: `${loaded.dir} (${loaded.from})` };
}

export function serverSlug(server: string): string {
  return server.replaceAll(/[^A-Za-z0-9]+/gu, "_").replaceAll(/^_+|_+$/gu, "");
}

/** The 527 real tools; names repeat across servers, so each becomes `server__name`. */
export function realCatalog(tools: readonly EvalMcpTool[], withGroups = false): ToolDefinition[] {
  return tools.map((t) => {
    const definition: ToolDefinition = {
      name: `${serverSlug(t.server)}__${t.name}`,
      description: t.description,
      parameters: t.inputSchema,
    };
    if (withGroups) definition.groups = [serverSlug(t.category).toLowerCase()];
    return definition;
  });
}

const NAME_PATTERN = /^[a-zA-Z0-9_.-]{1,64}$/u;

/**
 * The catalog as the registry accepts it: names of at most 64 characters (a longer `server__name` keeps its tool
 * name and as much of its server's as fits; a clash gets a numbered suffix), and a description where one is empty.
 */
export function registrableCatalog(catalog: readonly ToolDefinition[]): ToolDefinition[] {
  const used = new Set<string>();
  return catalog.map((tool) => {
    let name = tool.name;
    if (!NAME_PATTERN.test(name)) {
      const [server = "", ...rest] = name.split("__");
      const own = rest.join("__").replaceAll(/[^a-zA-Z0-9_.-]/gu, "_").slice(0, 60);
      name = `${server.slice(0, Math.max(1, 62 - own.length))}__${own}`.slice(0, 64);
    }
    for (let n = 2; used.has(name); n++) name = `${name.slice(0, 60)}_${n}`;
    used.add(name);
    return { ...tool, name, description: tool.description.trim() === "" ? name.replaceAll("_", " ") : tool.description };
  });
}

export function pick<T>(random: () => number, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error("pick from an empty list");
  return item;
}

const SYLLABLES = ["ka", "zo", "ri", "vex", "lu", "mar", "no", "tek", "sa", "quin", "do", "bel", "ix", "ra", "po", "len"];

/** A made-up product name (Zorivex, Tekmarla…): real catalogs keep adding words nobody else uses. */
function brand(random: () => number): string {
  const count = 2 + Math.floor(random() * 2);
  let word = "";
  for (let i = 0; i < count; i++) word += pick(random, SYLLABLES);
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function sentences(text: string): string[] {
  const parts = text.split(/(?<=[.!?。])\s*/u).filter((s) => s.trim().length > 0);
  return parts.length > 0 ? parts : [text];
}

/**
 * `size` tools: the real ones first, then recombinations of them: the name of one real tool with a product name and a
 * unique suffix, a sentence of its description followed by a sentence of another's, the parameters of one of the
 * two. Deterministic for a given `seed`. `withGroups` puts each tool in its category's group.
 */
export function enlargedCatalog(real: readonly EvalMcpTool[], size: number, seed = 1, withGroups = true): ToolDefinition[] {
  const catalog = realCatalog(real, withGroups).slice(0, size);
  const random = seededRandom(seed);
  for (let i = catalog.length; i < size; i++) {
    const first = pick(random, real);
    const second = pick(random, real);
    const product = brand(random);
    const suffix = `_${i.toString(36)}`;
    const prefix = `${serverSlug(first.server).slice(0, 20)}__${product.toLowerCase()}_`;
    const name = `${prefix}${first.name}`.slice(0, 64 - suffix.length) + suffix;
    const description = `${product}: ${pick(random, sentences(first.description)).trim()} ${pick(random, sentences(second.description)).trim()}`;
    const definition: ToolDefinition = {
      name,
      description,
      parameters: random() < 0.5 ? first.inputSchema : second.inputSchema,
    };
    if (withGroups) definition.groups = [serverSlug(first.category).toLowerCase()];
    catalog.push(definition);
  }
  return catalog;
}

/** MetaTool's tools as definitions (it has no parameters). */
export function metaToolCatalog(set: MetaToolSet): ToolDefinition[] {
  return set.tools.map((t) => ({ name: t.name, description: t.description, parameters: { type: "object", properties: {} } }));
}

const ENGLISH_WORD = /^[a-z]{4,}$/;
const COMMON = new Set(["this", "that", "with", "from", "your", "will", "have", "into", "when", "than", "then", "them", "they", "such"]);

/** `count` queries of three words drawn from the real descriptions (the short keyword queries a model writes). */
export function keywordQueries(real: readonly EvalMcpTool[], count: number, seed = 7): string[] {
  const words = new Set<string>();
  for (const t of real) {
    for (const word of t.description.toLowerCase().split(/[^a-z]+/u)) if (ENGLISH_WORD.test(word) && !COMMON.has(word)) words.add(word);
  }
  const vocabulary: string[] = [...words].toSorted();
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => [pick(random, vocabulary), pick(random, vocabulary), pick(random, vocabulary)].join(" "));
}

/** `count` natural-language queries of exactly 20 words, from MetaTool's queries (joined when one is shorter). */
export function sentenceQueries(set: MetaToolSet, count: number, seed = 11): string[] {
  const random = seededRandom(seed);
  const queries: string[] = [];
  while (queries.length < count) {
    const words: string[] = [];
    while (words.length < 20) words.push(...pick(random, set.queries).query.split(/\s+/u).filter((w) => w.length > 0));
    queries.push(words.slice(0, 20).join(" "));
  }
  return queries;
}
