// A large synthetic catalog and queries for it, from a seed: words drawn with a Zipf-like skew (a few very common,
// most rare), snake_case and camelCase names, parameters and groups; queries of 3 and 20 words with some typos and
// unknown words. No external data: the ranking tests run without ../shared.
import { seededRandom as seeded } from "../../bench/random.ts";
import type { ToolDefinition } from "../../src/core/types.ts";

const SYLLABLES = ["ka", "lo", "mi", "ren", "sto", "vel", "dar", "qui", "nor", "pex", "tal", "bri", "gon", "fu", "zel", "ash", "em", "or"];
const COMMON = ["the", "a", "to", "of", "and", "for", "with", "in", "can", "you", "get", "list", "create", "data", "file", "user"];

function vocabulary(random: () => number, size: number): string[] {
  const words = new Set<string>(COMMON);
  while (words.size < size) {
    let word = "";
    const syllables = 2 + Math.floor(random() * 3);
    for (let i = 0; i < syllables; i++) word += SYLLABLES[Math.floor(random() * SYLLABLES.length)] ?? "";
    words.add(word);
  }
  return [...words];
}

/** A word index skewed towards the start of the vocabulary (the common words). */
function skewed(random: () => number, size: number): number {
  return Math.min(size - 1, Math.floor(size * random() ** 3));
}

export interface GeneratedCatalog {
  tools: ToolDefinition[];
  words: string[];
  /** Makes one more tool (a fresh name) from the same vocabulary. */
  tool(name: string): ToolDefinition;
}

export function generatedCatalog(size: number, seed = 1): GeneratedCatalog {
  const random = seeded(seed);
  const words = vocabulary(random, 3_000);
  const word = (): string => words[skewed(random, words.length)] ?? "";
  const sentence = (min: number, max: number): string => {
    const length = min + Math.floor(random() * (max - min + 1));
    return Array.from({ length }, word).join(" ");
  };
  const tool = (name: string): ToolDefinition => {
    const properties: Record<string, { type: string; description?: string; enum?: string[] }> = {};
    const parameterCount = Math.floor(random() * 4);
    for (let i = 0; i < parameterCount; i++) {
      properties[`${word()}_${i}`] = random() < 0.3 ? { type: "string", enum: [word(), word()] } : { type: "string", description: sentence(2, 8) };
    }
    return {
      name,
      description: `${sentence(4, 25)}.`,
      parameters: { type: "object", properties },
      ...(random() < 0.5 ? { groups: [word()] } : {}),
    };
  };
  const tools: ToolDefinition[] = [];
  for (let i = 0; i < size; i++) {
    const camel = random() < 0.3;
    const parts = [word(), word(), word()].slice(0, 2 + Math.floor(random() * 2));
    const base = camel ? parts.map((part, j) => (j === 0 ? part : part.charAt(0).toUpperCase() + part.slice(1))).join("") : parts.join("_");
    tools.push(tool(`${base}_${i}`));
  }
  return { tools, words, tool };
}

/** Queries for a generated catalog: `count` of 3 words and `count` of 20, some with a typo or an unknown word. */
export function generatedQueries(words: readonly string[], count: number, seed = 2): string[] {
  const random = seeded(seed);
  const word = (): string => {
    const picked = words[skewed(random, words.length)] ?? "";
    const roll = random();
    if (roll < 0.05 && picked.length > 5) return `${picked.slice(0, 2)}${picked.slice(3)}`; // a letter dropped
    if (roll < 0.08) return `${picked}ing`; // unknown: backs off to the known prefix
    return picked;
  };
  const queries: string[] = [];
  for (let i = 0; i < count; i++) {
    queries.push(Array.from({ length: 3 }, word).join(" "));
    queries.push(Array.from({ length: 20 }, word).join(" "));
  }
  return queries;
}
