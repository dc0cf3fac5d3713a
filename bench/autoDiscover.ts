// Auto-discovery on MetaTool. For every query (a user's message), the tools prepare would send by
// itself (config autoDiscover: the first topK of the ranking, then those whose relevance reaches minScore) against
// the query's right tools: success@k (a right tool among them) for k = 1, 3, 5 over a sweep of minScore, the share of
// sent tools that are right, and the extra tokens per turn (each sent tool's definition in the OpenAI shape, counted
// with gpt-tokenizer as the rest of the bench counts). A sample of queries runs through prepareTurn itself, to check
// that the figures are what the gateway does.
import { defaultConfig, type SearchMode } from "../src/core/config.ts";
import { prepareTurn, WarnOnce } from "../src/core/turn/prepare.ts";
import { createSearchIndex } from "../src/core/search/createIndex.ts";
import type { ScoredMatch } from "../src/core/search/types.ts";
import { toShape } from "../src/core/tools/shapes.ts";
import { countTokens } from "../src/core/tools/tokens.ts";
import { metaToolCatalog, type MetaToolSet } from "./catalog.ts";

export const AUTO_K = [1, 3, 5] as const;
export const MIN_SCORES = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1] as const;
const SAMPLE = 100;

/**
 * Messages that need no tool (the bench's own, general chat turns written for it, not taken from any data set): what
 * auto-discovery sends for them is pure cost. The floor is what keeps that down, as MetaTool's queries all need one.
 */
export const NO_TOOL_MESSAGES: readonly string[] = [
  "Thanks, that is all.",
  "Hello!",
  "Hi there, how are you today?",
  "OK, great.",
  "Can you explain that again, more slowly?",
  "What do you think about that?",
  "That makes sense, thank you very much.",
  "Sorry, I did not understand your last answer.",
  "Could you say it in fewer words?",
  "Never mind, forget what I asked.",
  "Yes, please go ahead.",
  "No, that is not what I meant.",
  "Why did you say that?",
  "Good morning! I hope you slept well.",
  "Please summarise our conversation so far.",
  "Can you rephrase the previous paragraph in a friendlier tone?",
  "I am not sure yet, let me think about it for a moment.",
  "Which of the two options would you pick, and why?",
  "Tell me a little about yourself.",
  "Let's continue where we stopped yesterday.",
  "That answer was really helpful, I appreciate it.",
  "Could you check your reasoning one more time?",
  "Please write the answer as a short list.",
  "What is the difference between the first and the second idea?",
  "Great, now make it shorter.",
  "I have a question about what you just wrote.",
  "Wait, I think there is a mistake in the second sentence.",
  "Alright, let us stop here for today.",
  "How sure are you about that?",
  "Give me a moment, I will be right back.",
];

export interface AutoDiscoverPoint {
  minScore: number;
  /** Per k: share of queries with a right tool among those sent. */
  successAtK: Record<string, number>;
  /** Per k: share of sent tools that are right. */
  precisionAtK: Record<string, number>;
  /** Per k: mean tools sent per turn. */
  toolsPerTurnAtK: Record<string, number>;
  /** Per k: mean extra tool tokens per turn. */
  extraTokensAtK: Record<string, number>;
  /** Per k: mean tools sent for a message that needs none (NO_TOOL_MESSAGES). */
  noToolMessageToolsAtK: Record<string, number>;
}

export interface AutoDiscoverSection {
  queries: number;
  noToolMessages: number;
  catalogTools: number;
  modes: Record<string, AutoDiscoverPoint[]>;
  /** Queries of the sample whose prepareTurn answer differed from the figures' (must be 0). */
  prepareMismatches: number;
}

const round = (value: number, digits = 4): number => Number(value.toFixed(digits));

export function autoDiscoverSection(meta: MetaToolSet, modes: readonly SearchMode[] = ["substring", "minisearch"]): AutoDiscoverSection {
  const catalog = metaToolCatalog(meta);
  const known = new Set(catalog.map((tool) => tool.name));
  const queries = meta.queries.filter((q) => q.tools.length > 0 && q.tools.every((name) => known.has(name)));
  // Each tool's tokens as one more entry of the list (its JSON and the comma before it).
  const tokens = new Map(catalog.map((tool) => [tool.name, countTokens(JSON.stringify(toShape(tool, "openai"))) + 1]));
  const maxK = Math.max(...AUTO_K);
  const result: Record<string, AutoDiscoverPoint[]> = {};
  let prepareMismatches = 0;
  for (const mode of modes) {
    const index = createSearchIndex(mode, catalog);
    const ranked: ScoredMatch[][] = queries.map((q) => index.scored(q.query, maxK));
    const idle: ScoredMatch[][] = NO_TOOL_MESSAGES.map((message) => index.scored(message, maxK));
    result[mode] = MIN_SCORES.map((minScore) => {
      const point: AutoDiscoverPoint = { minScore, successAtK: {}, precisionAtK: {}, toolsPerTurnAtK: {}, extraTokensAtK: {}, noToolMessageToolsAtK: {} };
      for (const k of AUTO_K) {
        let success = 0;
        let sent = 0;
        let right = 0;
        let extra = 0;
        queries.forEach((q, i) => {
          const auto = (ranked[i] ?? []).slice(0, k).filter((match) => match.relevance >= minScore);
          const hits = auto.filter((match) => q.tools.includes(match.name)).length;
          if (hits > 0) success++;
          sent += auto.length;
          right += hits;
          for (const match of auto) extra += tokens.get(match.name) ?? 0;
        });
        point.successAtK[k] = round(success / queries.length);
        point.precisionAtK[k] = sent === 0 ? 0 : round(right / sent);
        point.toolsPerTurnAtK[k] = round(sent / queries.length, 2);
        point.extraTokensAtK[k] = round(extra / queries.length, 1);
        const idleSent = idle.reduce((sum, matches) => sum + matches.slice(0, k).filter((match) => match.relevance >= minScore).length, 0);
        point.noToolMessageToolsAtK[k] = round(idleSent / NO_TOOL_MESSAGES.length, 2);
      }
      return point;
    });
    // The same figures through prepareTurn (a "grow" list, nothing discovered yet), on every n-th query.
    const warnings = new WarnOnce({ warn: () => undefined });
    const step = Math.max(1, Math.floor(queries.length / SAMPLE));
    for (let i = 0; i < queries.length; i += step) {
      const q = queries[i];
      if (!q) continue;
      const config = { ...defaultConfig(), toolList: "grow" as const, searchMode: mode, autoDiscover: { topK: 3, minScore: 0.3 } };
      const turn = prepareTurn({ tools: catalog, messages: [{ role: "user", content: q.query }], discovered: [], config, warnings, searchIndex: index });
      const expected = (ranked[i] ?? []).slice(0, 3).filter((match) => match.relevance >= 0.3).map((match) => match.name);
      if (JSON.stringify(turn.autoDiscovered) !== JSON.stringify(expected)) prepareMismatches++;
    }
  }
  return { queries: queries.length, noToolMessages: NO_TOOL_MESSAGES.length, catalogTools: catalog.length, modes: result, prepareMismatches };
}
