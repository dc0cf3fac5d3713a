// One search mode's result: found, hint, the tools, paging and related names.
import type { SearchAnswer } from "../contract.ts";
import { fill, formatNumber, h } from "../dom.ts";
import { toolList } from "./toolItem.ts";

export function renderSearchResult(
  container: HTMLElement,
  mode: string,
  answer: SearchAnswer,
  onNextPage: ((offset: number) => void) | undefined,
): void {
  const page = answer.pagination;
  const nextOffset = page?.nextOffset;
  const paging = page
    ? h(
        "div",
        { className: "pagination" },
        h(
          "p",
          { className: "page-range" },
          page.returned > 0
            ? `Showing ${formatNumber(page.offset + 1)}–${formatNumber(page.offset + page.returned)} of ${formatNumber(page.total)}`
            : `Nothing at offset ${formatNumber(page.offset)} of ${formatNumber(page.total)}`,
        ),
        nextOffset !== undefined && onNextPage
          ? h(
              "button",
              { className: "next-page", attrs: { type: "button", "aria-label": `Next page of ${mode} results` } },
              "Next page",
            )
          : null,
      )
    : null;
  const next = paging?.querySelector("button");
  if (next && nextOffset !== undefined && onNextPage) next.addEventListener("click", () => onNextPage(nextOffset));

  fill(container, 
    h("p", { className: "found" }, "Found ", h("strong", { attrs: { "data-field": "found" } }, answer.found)),
    h("p", { className: "hint", attrs: { "data-field": "hint" } }, answer.hint),
    toolList(answer.tools, `${mode} results`),
    paging,
    answer.related && answer.related.length > 0
      ? h(
          "div",
          { className: "related" },
          h("h4", null, "Related (same groups)"),
          h("ul", { className: "chips", attrs: { "aria-label": `${mode} related tools` } }, ...answer.related.map((name) => h("li", null, h("code", null, name)))),
        )
      : null,
  );
}
