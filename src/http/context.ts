// What every authenticated route starts with: the settings (503 when a variable is wrong) and the caller (401; 403
// when banned).
import type { Principal } from "../core/types.ts";
import { SESSION_ID_PATTERN } from "../durable/names.ts";
import type { SessionIdentity } from "../durable/names.ts";
import { loadSettings } from "../isolate/settings.ts";
import type { Settings } from "../isolate/settings.ts";
import { authenticate, refuseBanned } from "./auth.ts";
import { HttpError } from "./errors.ts";

export interface Call {
  env: Env;
  settings: Settings;
  principal: Principal;
}

export function requireSettings(env: Env): Settings {
  const loaded = loadSettings(env);
  if (!loaded.ok) {
    throw new HttpError(503, "misconfigured", `the gateway is misconfigured: ${loaded.error.message}`);
  }
  return loaded.settings;
}

export async function begin(request: Request, env: Env): Promise<Call> {
  const settings = requireSettings(env);
  const principal = await authenticate(request.headers.get("authorization"), settings.auth);
  refuseBanned(principal);
  return { env, settings, principal };
}

export function requireSessionId(value: string | undefined): string {
  if (value === undefined || !SESSION_ID_PATTERN.test(value)) {
    throw new HttpError(400, "invalid_session_id", "the session id must match ^[A-Za-z0-9._:-]{1,128}$");
  }
  return value;
}

export function sessionIdentity(call: Call, sessionId: string): SessionIdentity {
  return { principalId: call.principal.id, sessionId };
}
