// The loaded catalog: how many tools, in which shape, and what their definitions cost per turn.
import type { PrepareStats } from "../contract.ts";
import { count, fill, h } from "../dom.ts";
import type { ToolView } from "../toolLists.ts";

/** A longer list of names is folded away: on a phone it would push everything else far down. */
const FOLD_NAMES_OVER = 24;

export function renderCatalog(
  container: HTMLElement,
  source: string,
  views: readonly ToolView[],
  stats: PrepareStats,
  anonymous: boolean,
): void {
  const names = h("ul", { className: "chips", attrs: { "aria-label": "Tools in the catalog" } }, ...views.map((view) => h("li", null, h("code", null, view.name))));
  fill(container, 
    h(
      "p",
      { className: "catalog-counts" },
      h("strong", { attrs: { "data-field": "tool-count" } }, count(stats.total, "tool", "tools")),
      ` (${source}) · `,
      h("strong", { attrs: { "data-field": "token-count" } }, count(stats.tokensAll, "token", "tokens")),
      " of definitions on every turn without the search layer.",
    ),
    anonymous
      ? h(
          "p",
          { className: "note", attrs: { "data-field": "anonymous-note" } },
          "Anonymous access sees only the ungrouped tools. For every group and the tools that need approval, enter a token " +
            "from ",
          h("code", null, "npm run token -- --sub you --level 2 --groups '*'"),
          " under Connection.",
        )
      : null,
    views.length > FOLD_NAMES_OVER
      ? h("details", { className: "catalog-names" }, h("summary", null, `The ${count(views.length, "tool", "tools")} by name`), names)
      : names,
  );
}
