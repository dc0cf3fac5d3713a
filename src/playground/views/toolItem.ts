// One tool as a list item: name, description, and its parameters folded away.
import { codeBlock, h } from "../dom.ts";

export interface ToolLike {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export function toolItem(tool: ToolLike): HTMLLIElement {
  return h(
    "li",
    { className: "tool", attrs: { "data-tool": tool.name } },
    h("code", { className: "tool-name" }, tool.name),
    tool.description ? h("p", { className: "tool-description" }, tool.description) : null,
    h("details", null, h("summary", null, "Parameters"), codeBlock(JSON.stringify(tool.parameters, null, 2))),
  );
}

export function toolList(tools: readonly ToolLike[], label: string): HTMLElement {
  if (tools.length === 0) return h("p", { className: "empty" }, "None.");
  return h("ul", { className: "tools", attrs: { "aria-label": label } }, ...tools.map(toolItem));
}
