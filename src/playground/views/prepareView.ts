// What the model would receive this turn: search_tools and its description, the direct and the discovered tools.
import type { PrepareAnswer } from "../contract.ts";
import { codeBlock, fill, formatNumber, h } from "../dom.ts";
import { viewOf } from "../toolLists.ts";
import type { ToolView } from "../toolLists.ts";
import { billedEstimate, tokenBars } from "./tokenBars.ts";
import { toolList } from "./toolItem.ts";

const SEARCH_TOOLS = "search_tools";

/** `previous`: the tools of the prepare answer before this one, if any (for the billed estimate). */
export function renderPrepare(container: HTMLElement, answer: PrepareAnswer, previous?: readonly unknown[]): void {
  const views = answer.tools.map(viewOf).filter((view): view is ToolView => view !== undefined);
  const searchTools = views.find((view) => view.name === SEARCH_TOOLS);
  const discovered = new Set(answer.discovered);
  const { stats } = answer;
  const autoNames = new Set(stats.autoDiscovered ?? []);
  const others = views.filter((view) => view.name !== SEARCH_TOOLS);
  const direct = others.filter((view) => !discovered.has(view.name) && !autoNames.has(view.name));
  const found = others.filter((view) => discovered.has(view.name));
  const auto = others.filter((view) => autoNames.has(view.name));

  const verdict = answer.applied
    ? `The search layer applied: the model receives ${formatNumber(stats.sent)} of ${formatNumber(stats.total)} tool definitions.`
    : `Passed through unchanged: ${formatNumber(stats.total)} tools are few enough to send them all.`;

  fill(container, 
    h("p", { className: "verdict", attrs: { "data-applied": String(answer.applied) } }, verdict),
    tokenBars(stats, billedEstimate(answer.tools, stats.tokensPerTool, previous)),
    searchTools
      ? h(
          "div",
          { className: "search-tools-description" },
          h("h3", null, "The search_tools description"),
          codeBlock(searchTools.description, "code prose"),
        )
      : null,
    h("h3", null, answer.applied ? "Direct tools (always-direct)" : "Tools sent"),
    toolList(direct, "Direct tools"),
    answer.applied ? h("h3", null, "Discovered tools sent this turn") : null,
    answer.applied ? toolList(found, "Discovered tools sent") : null,
    auto.length > 0 ? h("h3", null, "Auto-discovered from the user's message (not yet discovered)") : null,
    auto.length > 0 ? toolList(auto, "Auto-discovered tools sent") : null,
  );
}
