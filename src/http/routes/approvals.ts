// GET and POST /v1/approvals/:token: the approval page of a held call (approvalLinks.ts). GET only shows it (the
// tool, its description's first line, the arguments as the HTTP confirmation shows them, hidden characters marked);
// POST, from the page's Approve / Deny buttons, resolves the confirmation once through the session object. The token
// in the path is the only credential; the page cannot be framed and is never cached.
import type { ConfirmationRequest } from "../../core/types.ts";
import { sessionStub } from "../../durable/stubs.ts";
import { approvalKey, bindingOf, openApprovalToken } from "../approvalLinks.ts";
import type { ApprovalToken } from "../approvalLinks.ts";
import type { RouteRequest } from "../request.ts";
import { requireSettings } from "../stage.ts";

/** A form with one field is a few dozen bytes. */
const MAX_FORM_BYTES = 1024;

export const APPROVAL_PAGE_HEADERS: Readonly<Record<string, string>> = {
  "Content-Type": "text/html; charset=utf-8",
  "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
};

function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;").replaceAll("'", "&#39;");
}

export function page(status: number, title: string, body: string): Response {
  const html = `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
    `<title>${escapeHtml(title)}</title><style>body{font:16px system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem}` +
    `pre{background:#f4f4f4;padding:.75rem;overflow:auto;white-space:pre-wrap;word-break:break-all}` +
    `.warn{color:#8a1c00}button{font-size:1rem;padding:.5rem 1.5rem;margin-right:1rem}</style></head>` +
    `<body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
  return new Response(html, { status, headers: APPROVAL_PAGE_HEADERS });
}

export const message = (status: number, title: string, text: string): Response => page(status, title, `<p>${escapeHtml(text)}</p>`);
const invalid = (): Response => message(403, "Invalid link", "This approval link was not issued by this gateway, or it was changed.");
const gone = (): Response =>
  message(410, "Link no longer valid", "This approval link has expired or was already used. Ask the assistant to call the tool again for a new one.");

function confirmationPage(view: ConfirmationRequest, expiresAt: number): Response {
  const scope = view.mode === "session" ? "for the rest of this session" : "once, with exactly these arguments";
  const hidden = view.hiddenCharacters ?? [];
  const warning = hidden.length > 0
    ? `<p class="warn"><strong>Warning:</strong> hidden characters (shown as ⟦U+…⟧) in ${escapeHtml(hidden.join(", "))}. ` +
      "They run as they are.</p>"
    : "";
  return page(200, `Allow "${view.tool}" to run?`,
    `<p>The assistant asks to run the tool <strong>${escapeHtml(view.tool)}</strong> ${scope}.</p>` +
    `<p>${escapeHtml(view.description)}</p><p>Arguments:</p><pre>${escapeHtml(JSON.stringify(view.arguments, null, 2))}</pre>${warning}` +
    `<form method="post"><button type="submit" name="decision" value="approve">Approve</button>` +
    `<button type="submit" name="decision" value="deny">Deny</button></form>` +
    `<p><small>This link works once, until ${escapeHtml(new Date(expiresAt).toISOString())}.</small></p>`);
}

type Opened = { ok: true; token: ApprovalToken; env: Env } | { ok: false; response: Response };

async function openLink(request: RouteRequest, env: Env): Promise<Opened> {
  const settings = requireSettings(env);
  const key = approvalKey(settings);
  const text = request.params.token;
  const token = key && text !== undefined ? await openApprovalToken(await key, text) : undefined;
  if (!token) return { ok: false, response: invalid() };
  if (Date.now() > token.expiresAt) return { ok: false, response: gone() };
  return { ok: true, token, env };
}

/** GET: the page, or why there is none. Changes nothing. */
export async function approvalPage(request: RouteRequest, env: Env): Promise<Response> {
  const opened = await openLink(request, env);
  if (!opened.ok) return opened.response;
  const { token } = opened;
  const pending = await sessionStub(env, token.principal, token.session).approvalView(token.confirmation);
  const binding = bindingOf(token);
  if (pending === null || pending.binding.tool !== binding.tool || pending.binding.arguments !== binding.arguments) return gone();
  return confirmationPage(pending.view, token.expiresAt);
}

async function readDecision(request: Request): Promise<boolean | undefined> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_FORM_BYTES) return undefined;
  const bytes = await request.arrayBuffer();
  if (bytes.byteLength > MAX_FORM_BYTES) return undefined;
  const decision = new URLSearchParams(new TextDecoder().decode(bytes)).get("decision");
  return decision === "approve" ? true : decision === "deny" ? false : undefined;
}

/** POST (the page's buttons): resolves the confirmation once, bound to the link's tool and arguments. */
export async function answerApproval(request: RouteRequest, env: Env): Promise<Response> {
  const opened = await openLink(request, env);
  if (!opened.ok) return opened.response;
  const { token } = opened;
  const approve = await readDecision(request);
  if (approve === undefined) return message(400, "Bad request", 'The form must send decision=approve or decision=deny.');
  const config = requireSettings(env).config;
  const outcome = await sessionStub(env, token.principal, token.session)
    .resolveConfirmation(token.confirmation, approve, config, bindingOf(token));
  if (!outcome.ok) return gone();
  return approve
    ? message(200, "Approved", "Approved. The assistant can now call the tool again with the same arguments; it runs once.")
    : message(200, "Denied", "Denied. The tool will not run.");
}
