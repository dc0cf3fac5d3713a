// A tool's result: the untrusted banner highlighted, or the approval the guard waits for.
import { splitUntrustedBanner } from "../banner.ts";
import type { ExecuteAnswer } from "../contract.ts";
import { codeBlock, fill, h, prettyJson } from "../dom.ts";

export interface ConfirmationHandlers {
  approve: () => void;
  deny: () => void;
}

function resultBody(content: string): HTMLElement[] {
  const { banner, body } = splitUntrustedBanner(content);
  if (banner === undefined) return [codeBlock(prettyJson(content), "code result-content")];
  return [
    h(
      "div",
      { className: "untrusted-banner", attrs: { role: "note", "aria-label": "Untrusted external content" } },
      h("strong", { className: "untrusted-label" }, "⚠ Untrusted external content: the model is told to treat it as data"),
      h("p", { className: "untrusted-text" }, banner),
    ),
    codeBlock(body, "code result-content untrusted-body"),
  ];
}

export function renderExecuteResult(
  container: HTMLElement,
  name: string,
  answer: ExecuteAnswer,
  handlers: ConfirmationHandlers,
): void {
  const heading = h("h3", { attrs: { tabindex: "-1" } }, `Result of ${name}`);
  const status = answer.confirmation
    ? h("span", { className: "badge badge-wait" }, "waiting for approval")
    : answer.isError
      ? h("span", { className: "badge badge-error" }, "error")
      : h("span", { className: "badge badge-ok" }, "ok");
  const request = answer.confirmation;
  if (!request) {
    fill(container, h("div", { className: "result-head" }, heading, status), ...resultBody(answer.content));
    return;
  }
  const approve = h("button", { className: "approve", attrs: { type: "button" } }, "Approve");
  const deny = h("button", { className: "deny secondary", attrs: { type: "button" } }, "Deny");
  approve.addEventListener("click", handlers.approve);
  deny.addEventListener("click", handlers.deny);
  const scope = request.mode === "session" ? "for the rest of this session" : "for this one call";
  fill(container, 
    h("div", { className: "result-head" }, heading, status),
    h(
      "div",
      { className: "confirmation", attrs: { role: "group", "aria-labelledby": "confirmation-title" } },
      h("h4", { attrs: { id: "confirmation-title" } }, "The guard holds this call for your approval"),
      h("p", null, "Capability ", h("code", null, request.capability), ` · approval counts ${scope} · expires at ${new Date(request.expiresAt).toLocaleTimeString("en")}`),
      codeBlock(answer.content, "code prose"),
      h("div", { className: "actions" }, approve, deny),
    ),
  );
}

export function renderDenied(container: HTMLElement, name: string): void {
  fill(container, 
    h("div", { className: "result-head" }, h("h3", { attrs: { tabindex: "-1" } }, `Result of ${name}`), h("span", { className: "badge badge-error" }, "denied")),
    h("p", { className: "denied" }, `You denied the call: ${name} did not run.`),
  );
}

export function focusResult(container: HTMLElement): void {
  const heading = container.querySelector("h3");
  if (heading instanceof HTMLElement) heading.focus();
}
