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

export function tokenBars(stats: PrepareStats): HTMLElement {
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
    h("p", { className: "bar-saved" }, caption),
  );
}
