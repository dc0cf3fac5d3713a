// A call that needs the user's own sign-in to an upstream, offered to an MCP client that can open URLs as a URL-mode
// elicitation: the link is toolgate's own connect page (never the authorization server's URL, which the client must
// not see or prefetch pre-filled), so that the flow's state and PKCE stay on the gateway's side. In 2025-11-25 the
// tools/call answers the URLElicitationRequired error; in 2026-07-28 an input_required result, whose retry runs the
// call again (routes in stateless.ts). Clients that cannot open URLs get the link in the tool result, as over HTTP.
import { UrlElicitationRequiredError } from "@modelcontextprotocol/sdk/types.js";
import type { InputRequest } from "../core/mcp/modern.ts";
import type { SignInRequest } from "../core/types.ts";

/** The inputResponses key of a sign-in asked in a 2026-07-28 input_required result. */
export const SIGN_IN_INPUT_KEY = "toolgate_sign_in";

function signInMessage(signIn: SignInRequest, tool: string): string {
  return `Sign in to ${signIn.upstream} so that toolgate can call it as you, then call ${tool} again. The link works once, for ten minutes.`;
}

/** The 2025-11-25 answer: error -32042 naming one URL elicitation (its id: the link's own, not guessable). */
export function urlElicitationError(signIn: SignInRequest, tool: string): UrlElicitationRequiredError {
  const message = signInMessage(signIn, tool);
  return new UrlElicitationRequiredError([{ mode: "url", elicitationId: crypto.randomUUID(), url: signIn.url, message }], message);
}

/** The 2026-07-28 input request: an elicitation/create in URL mode. */
export function urlElicitationRequest(signIn: SignInRequest, tool: string): InputRequest {
  return {
    method: "elicitation/create",
    params: { mode: "url", elicitationId: crypto.randomUUID(), url: signIn.url, message: signInMessage(signIn, tool) },
  };
}
