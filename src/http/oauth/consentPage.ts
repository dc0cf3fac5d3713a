// The pages of the sign-in that the Worker serves: the consent page (which client, where its tokens go, which scopes,
// and the level and groups the sign-in gave) and a plain error page. Everything the client chose (its name, its
// redirect host, its scopes) is escaped; neither page may be framed (frame-ancestors 'none', X-Frame-Options DENY).
import type { ConsentDescription } from "@cloudflare/workers-oauth-provider";
import type { Principal } from "../../core/types.ts";
import { AUTHORIZE_PATH, SCOPE_GATEWAY, SCOPE_OWNER } from "./paths.ts";

const escape = (value: string): string => value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

const STYLE = "body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem}" +
  "code{background:#f2f2f2;padding:0 .2em}.warn{color:#8a1f11}button{font-size:1rem;margin-right:.5rem}";

/** What every page of the sign-in carries: not framable, not cached, no script, no outside resource. */
export function pageHeaders(headers: Headers = new Headers()): Headers {
  headers.set("content-type", "text/html; charset=utf-8");
  headers.set("cache-control", "no-store");
  headers.set("content-security-policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'");
  headers.set("x-frame-options", "DENY");
  headers.set("referrer-policy", "no-referrer");
  return headers;
}

const SCOPE_TEXT: Readonly<Record<string, string>> = {
  [SCOPE_GATEWAY]: "search and call the gateway's tools as you, within your level and groups",
  [SCOPE_OWNER]: "manage the gateway as its owner (tools, upstream servers)",
  offline_access: "stay signed in (a refresh token)",
};

/** The scopes the page offers: the gateway's always, the owner's only to an owner, and a refresh token. */
export function offeredScopes(principal: Principal): string[] {
  return [SCOPE_GATEWAY, ...(principal.owner ? [SCOPE_OWNER] : []), "offline_access"];
}

export function consentPage(details: ConsentDescription, principal: Principal, handle: string): string {
  const name = escape(details.clientName);
  const origin = details.clientDomain !== undefined
    ? `Published by <strong>${escape(details.clientDomain)}</strong>.`
    : "This app registered itself: its name is not verified.";
  const requested = new Set(details.scope);
  const scopes = offeredScopes(principal).map((scope) => {
    // The gateway's scope is what the app needs at all; the others only when it asked for them.
    const checked = scope === SCOPE_GATEWAY || requested.has(scope) ? " checked" : "";
    return `<label><input type="checkbox" name="scope" value="${escape(scope)}"${checked}> ${escape(SCOPE_TEXT[scope] ?? scope)} (<code>${escape(scope)}</code>)</label>`;
  }).join("<br>");
  const groups = principal.groups.length === 0 ? "none" : principal.groups.map((group) => `<code>${escape(group)}</code>`).join(", ");
  return `<!doctype html>
<html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Allow ${name}?</title><style>${STYLE}</style>
<h1>Allow ${name} to use toolgate as you?</h1>
<p>${origin} Its access will be sent to <strong>${escape(details.redirectHost)}</strong>.</p>
${details.redirectIsLoopback ? '<p class="warn"><strong>This sends access to an app on your computer.</strong> Continue only if you just started signing in from it.</p>' : ""}
<p>You are signed in as <code>${escape(principal.id)}</code>: level ${principal.level}, groups ${groups}${principal.owner ? ", owner" : ""}.
The app acts with these, never with more.</p>
<form method="post" action="${AUTHORIZE_PATH}">
<input type="hidden" name="handle" value="${escape(handle)}">
<p>${scopes}</p>
<p><button name="decision" value="approve">Allow</button><button name="decision" value="deny">Deny</button></p>
</form></html>`;
}

export function errorPage(status: number, message: string, headers?: Headers): Response {
  const body = `<!doctype html>
<html lang="en"><meta charset="utf-8"><title>Sign-in failed</title><style>${STYLE}</style>
<h1>Sign-in failed</h1><p>${escape(message)}</p><p>Start again from the app.</p></html>`;
  return new Response(body, { status, headers: pageHeaders(headers) });
}
