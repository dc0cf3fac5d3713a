// A token this gateway issued (AUTH_MODE "oauth") → the caller: the token must be for this request's resource (the
// endpoint's own, or the whole gateway's), carry the `toolgate` scope, and its principal is what the sign-in stored
// in the grant; the owner flag only with the `toolgate:owner` scope too.
import type { Principal } from "../../core/types.ts";
import { HttpError } from "../errors.ts";
import { resourcesFor, SCOPE_GATEWAY, SCOPE_OWNER } from "./paths.ts";
import { authorizationServer } from "./server.ts";
import { isGrantProps } from "./principal.ts";

const REALM = 'Bearer realm="toolgate"';

function refused(status: 401 | 403, error: "invalid_token" | "insufficient_scope", message: string): HttpError {
  const scope = error === "insufficient_scope" ? `, scope="${SCOPE_GATEWAY}"` : "";
  return new HttpError(status, error, message, {
    "WWW-Authenticate": `${REALM}, error="${error}", error_description="${message}"${scope}`,
  });
}

export async function principalOfIssuedToken(token: string, request: Request, env: Env): Promise<Principal> {
  const url = new URL(request.url);
  const helpers = authorizationServer(url.origin).getOAuthApi(env);
  let summary: Awaited<ReturnType<typeof helpers.unwrapToken>>;
  try {
    summary = await helpers.unwrapToken(token);
  } catch (error) {
    // A token whose wrapped key does not open (tampered) is as unknown as one that is not stored.
    if (error instanceof DOMException || error instanceof TypeError) summary = null;
    else throw error;
  }
  if (!summary) throw refused(401, "invalid_token", "the token is unknown, expired or revoked");
  const audiences = summary.audience === undefined ? [] : Array.isArray(summary.audience) ? summary.audience : [summary.audience];
  const accepted = resourcesFor(url);
  if (!audiences.some((audience) => accepted.includes(audience))) {
    throw refused(401, "invalid_token", `the token is not for this resource (${accepted[0] ?? url.origin})`);
  }
  if (!summary.scope.includes(SCOPE_GATEWAY)) throw refused(403, "insufficient_scope", `the token lacks the scope ${SCOPE_GATEWAY}`);
  const props: unknown = summary.grant.props;
  if (!isGrantProps(props)) throw refused(401, "invalid_token", "the token's grant holds no principal");
  const { principal } = props;
  return { ...principal, groups: [...principal.groups], owner: principal.owner && summary.scope.includes(SCOPE_OWNER) };
}

