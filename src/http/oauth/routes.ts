// The authorization server's paths, answered before the router (src/index.ts): 404 unless AUTH_MODE has "oauth".
// The interactive ones are ours (authorize.ts); the metadata, token (and revocation) and registration endpoints are
// the library's.
import { errorResponse, HttpError } from "../errors.ts";
import { requireSettings } from "../stage.ts";
import { answerConsent, finishSignInAndAsk, startAuthorization } from "./authorize.ts";
import { AUTHORIZE_PATH, CALLBACK_PATH } from "./paths.ts";
import { authorizationServer } from "./server.ts";

function methodNotAllowed(allowed: string): Response {
  return errorResponse(new HttpError(405, "method_not_allowed", `use ${allowed}`, { Allow: allowed }));
}

export async function oauthFetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
  const oauth = requireSettings(env).auth.oauth;
  if (!oauth) throw new HttpError(404, "not_found", "no such route (the OAuth sign-in is off: AUTH_MODE)");
  const { pathname } = new URL(request.url);
  if (pathname === AUTHORIZE_PATH) {
    if (request.method === "GET") return startAuthorization(request, env, oauth);
    if (request.method === "POST") return answerConsent(request, env);
    return methodNotAllowed("GET, POST");
  }
  if (pathname === CALLBACK_PATH) {
    return request.method === "GET" ? finishSignInAndAsk(request, env, oauth) : methodNotAllowed("GET");
  }
  return authorizationServer(new URL(request.url).origin).fetch(request, env, ctx);
}
