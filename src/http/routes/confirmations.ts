// POST /v1/sessions/:sid/confirmations/:id: the user approves or denies a pending confirmation of this session.
import { readJsonObject } from "../body.ts";
import { sessionStub } from "../../durable/stubs.ts";
import { badField, HttpError } from "../errors.ts";
import { enforceRateLimit } from "../limits.ts";
import type { RouteRequest } from "../request.ts";
import type { Call } from "../stage.ts";
import { rejectUnknownFields, requiredBoolean, requireSessionId } from "../validate.ts";

const CONFIRMATION_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

export async function resolveConfirmation(request: RouteRequest, call: Call): Promise<Response> {
  const sessionId = requireSessionId(request.params.sid);
  const id = request.params.id;
  if (id === undefined || !CONFIRMATION_ID_PATTERN.test(id)) {
    throw badField("id", `a confirmation id must match ${CONFIRMATION_ID_PATTERN.source}`);
  }
  const body = await readJsonObject(request, call.settings.config.limits.maxBodyBytes);
  rejectUnknownFields(body, ["approve"]);
  const approve = requiredBoolean(body, "approve", "");
  await enforceRateLimit(call);
  // The session object is the caller's own: another principal's confirmation is simply not found there.
  const outcome = await sessionStub(call.env, call.principal.id, sessionId).resolveConfirmation(id, approve, call.settings.config);
  if (outcome.ok) {
    return Response.json({ id, approved: outcome.approved, capability: outcome.capability, mode: outcome.mode });
  }
  if (outcome.code === "expired") {
    throw new HttpError(410, "confirmation_expired", "this confirmation expired before it was answered; call the tool again for a new one");
  }
  throw new HttpError(404, "confirmation_not_found", "no pending confirmation with this id in this session");
}
