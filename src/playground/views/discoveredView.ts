// The session's discovered set, most recent first.
import { fill, h } from "../dom.ts";

export function renderDiscovered(container: HTMLElement, names: readonly string[]): void {
  fill(container, 
    h(
      "p",
      { className: "discovered-count" },
      h("strong", { attrs: { "data-field": "discovered-count" } }, String(names.length)),
      names.length === 1 ? " tool discovered" : " tools discovered",
    ),
    names.length > 0
      ? h("ol", { className: "chips", attrs: { "aria-label": "Discovered tools, most recent first" } }, ...names.map((name) => h("li", null, h("code", null, name))))
      : h("p", { className: "empty" }, "Nothing yet: search for a tool and it joins this set."),
  );
}
