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
  const expires = new Date(request.expiresAt).toLocaleTimeString("en");
  // Which kind of approval this is, in words: the gateway binds a one-run approval to these exact arguments, and a
  // session approval to the tool (any arguments) until it expires.
  const kind = request.mode === "session"
    ? `Session approval: ${request.tool} may run with any arguments for the rest of this session (until the grant expires).`
    : `One-run approval: ${request.tool} runs once, with exactly the arguments below. Other arguments ask again.`;
  fill(container, 
    h("div", { className: "result-head" }, heading, status),
    h(
      "div",
      { className: "confirmation", attrs: { role: "group", "aria-labelledby": "confirmation-title" } },
      h("h4", { attrs: { id: "confirmation-title" } }, "The guard holds this call for your approval"),
      h(
        "dl",
        { className: "approval-facts" },
        h("dt", null, "Tool"),
        h("dd", null, h("code", { attrs: { "data-approval": "tool" } }, request.tool)),
        h("dt", null, "Description"),
        h("dd", { attrs: { "data-approval": "description" } }, request.description),
        h("dt", null, "Arguments"),
        h("dd", null, codeBlock(JSON.stringify(request.arguments, null, 2), "code approval-arguments")),
      ),
      // Hidden characters (a bidi override turns "report\u202Egpj.exe" into "reportexe.jpg") are marked in the
      // arguments above; the approver is told which arguments hold them, and that they run as they are.
      ...(request.hiddenCharacters !== undefined && request.hiddenCharacters.length > 0
        ? [h("p", { className: "approval-hidden", attrs: { role: "alert", "data-approval": "hidden" } },
          `Warning: hidden characters (shown as ⟦U+…⟧ above) in ${request.hiddenCharacters.join(", ")}. They run exactly as sent.`)]
        : []),
      h("p", { className: "approval-kind", attrs: { "data-mode": request.mode } }, kind),
      h("p", null, "Capability ", h("code", null, request.capability), ` · the request expires at ${expires}`),
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
