// Queries that reach every path of both rankings (exact names, words, prefixes, typos, unknown words backing off, CJK,
// long sentences), drawn from a catalog itself; and the real catalog as the ranking tests index it. Shared by the
// tests that hold one index to another (a restored snapshot, a sharded search).
import type { ToolDefinition } from "../../src/core/types.ts";
import { evalMcpTools } from "../evalData.ts";

/** About `samples` tools of the catalog give their queries; `extra` are added as they are. */
export function rankingQueries(tools: readonly ToolDefinition[], extra: readonly string[], samples = 30): string[] {
  const step = Math.max(1, Math.floor(tools.length / samples));
  const queries = new Set<string>(["", "   ", "推荐菜谱", "天气 查询", "get the weather in paris tomorrow", "zzqx unknownish"]);
  tools.forEach((tool, i) => {
    if (i % step !== 0) return;
    queries.add(tool.name);
    queries.add(`please run ${tool.name.toUpperCase()} now`);
    const words = tool.description.split(/\s+/).filter((word) => /^[A-Za-z]{6,}$/.test(word));
    const word = words[0];
    if (word === undefined) return;
    queries.add(word);
    queries.add(word.slice(0, 4));
    // A typo (two letters swapped), and an unknown longer word that backs off to a known prefix.
    queries.add(`${word.slice(0, 2)}${word.charAt(3)}${word.charAt(2)}${word.slice(4)}`);
    queries.add(`${word.toLowerCase()}ization`);
    queries.add(words.slice(0, 20).join(" "));
  });
  for (const query of extra) queries.add(query);
  return [...queries];
}

/** The 527 real MCP tools (empty when the eval data is missing), each in its category's group. */
export const realRankingCatalog = (): ToolDefinition[] => evalMcpTools.map((t) => ({
  name: `${t.server.replaceAll(/[^A-Za-z0-9]+/gu, "_").replaceAll(/^_+|_+$/gu, "")}__${t.name}`,
  description: t.description,
  parameters: t.inputSchema,
  groups: [t.category ?? "misc"],
}));
