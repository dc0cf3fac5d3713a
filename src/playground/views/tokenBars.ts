// Tokens of tool definitions before and after the search layer, as two bars.
import type { PrepareStats } from "../contract.ts";
import { count, h } from "../dom.ts";

function bar(label: string, tokens: number, tools: number, max: number, kind: string): HTMLElement {
  const fill = h("span", { className: `bar-fill bar-${kind}` });
  fill.style.width = `${max > 0 ? Math.max((tokens / max) * 100, tokens > 0 ? 1 : 0) : 0}%`;
  return h(
    "div",
    { className: "bar-row", attrs: { "data-bar": kind } },
    h("span", { className: "bar-label" }, label),
    h("span", { className: "bar-track", attrs: { "aria-hidden": "true" } }, fill),
    h("span", { className: "bar-value" }, `${count(tokens, "token", "tokens")} · ${count(tools, "tool", "tools")}`),
  );
}

/** The percentage of definition tokens the model no longer receives; negative when the list grew. */
export function savedPercent(stats: PrepareStats): number {
  return stats.tokensAll > 0 ? Math.round((1 - stats.tokensSent / stats.tokensAll) * 100) : 0;
}

/** What a provider bills for a cached token, relative to a full-price one (Anthropic's read, OpenAI's newer models). */
export const CACHE_READ_PRICE = 0.1;

export interface BilledEstimate {
  /** Tokens of the leading tools equal to the previous answer's: read from the provider's prefix cache. */
  cached: number;
  /** Tokens from the first changed tool on, read at full price (and everything after the list with them). */
  full: number;
  /** cached × CACHE_READ_PRICE + full, rounded. */
  billed: number;
}

/**
 * The billed tokens of this turn's tool list under prefix caching, from two consecutive prepare answers: the tools
 * equal (same JSON, same place) to the previous answer's from the start are cached; the rest is not. Without a
 * previous answer (or per-tool counts) nothing is cached. Only the tool list: a change there also re-reads the
 * whole conversation after it, which the page does not see.
 */
export function billedEstimate(tools: readonly unknown[], tokensPerTool: readonly number[] | undefined, previous: readonly unknown[] | undefined): BilledEstimate {
  let cached = 0;
  let full = 0;
  let same = previous !== undefined;
  tools.forEach((tool, index) => {
    const tokens = tokensPerTool?.[index] ?? 0;
    if (same && previous !== undefined && index < previous.length && JSON.stringify(previous[index]) === JSON.stringify(tool)) cached += tokens;
    else {
      same = false;
      full += tokens;
    }
  });
  return { cached, full, billed: Math.round(cached * CACHE_READ_PRICE + full) };
}

export function tokenBars(stats: PrepareStats, estimate?: BilledEstimate): HTMLElement {
  const max = Math.max(stats.tokensAll, stats.tokensSent);
  const saved = savedPercent(stats);
  const caption =
    saved > 0
      ? `${saved}% fewer tokens of tool definitions on every turn`
      : saved < 0
        ? `${-saved}% more tokens: the list is small, search_tools costs more than it saves`
        : "No change: the list passes through as it is";
  return h(
    "figure",
    { className: "token-bars" },
    h("figcaption", null, "Tokens of tool definitions per turn"),
    bar("All tools", stats.tokensAll, stats.total, max, "all"),
    bar("Sent", stats.tokensSent, stats.sent, max, "sent"),
    estimate ? bar("Billed (est.)", estimate.billed, stats.sent, max, "billed") : null,
    h("p", { className: "bar-saved" }, caption),
    estimate
      ? h(
          "p",
          { className: "bar-billed-note" },
          estimate.cached > 0 && estimate.full === 0
            ? `The list equals the previous prepare's: all ${count(estimate.cached, "token", "tokens")} read from the provider's cache at ${CACHE_READ_PRICE}×`
            : estimate.cached > 0
              ? `${count(estimate.cached, "token", "tokens")} cached from the previous prepare (${CACHE_READ_PRICE}×), ${count(estimate.full, "token", "tokens")} at full price, and the conversation after them too`
              : "Nothing cached: the first prepare, or the list changed from its first tool",
        )
      : null,
  );
}
