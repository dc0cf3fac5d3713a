// GET /v1/stats: the caller's usage figures (core/turn/usage.ts), or with ?principal= any principal's, for the owner.
import { savedPercent } from "../../core/turn/usage.ts";
import { principalStub } from "../../durable/stubs.ts";
import { badField, HttpError } from "../errors.ts";
import { enforceRateLimit } from "../limits.ts";
import type { RouteRequest } from "../request.ts";
import type { Call } from "../stage.ts";
import { queryParams } from "../validate.ts";

/** The longest principal id a token may carry (docs/http-api.md, Authentication). */
const MAX_PRINCIPAL = 256;

export async function stats(request: RouteRequest, call: Call): Promise<Response> {
  const named = queryParams(request.url, ["principal"]).get("principal");
  if (named !== undefined && (named === "" || named.length > MAX_PRINCIPAL)) {
    throw badField("principal", `must be 1 to ${MAX_PRINCIPAL} characters`);
  }
  if (named !== undefined && named !== call.principal.id && !call.principal.owner) {
    throw new HttpError(403, "forbidden", "only the owner may read another principal's figures");
  }
  await enforceRateLimit(call);
  const principal = named ?? call.principal.id;
  const usage = await principalStub(call.env, principal).usage();
  return Response.json({
    principal,
    ...usage,
    tokensSaved: usage.tokensAll - usage.tokensSent,
    savedPercent: savedPercent(usage),
    lastActivity: usage.lastActivity === 0 ? null : new Date(usage.lastActivity).toISOString(),
  });
}
