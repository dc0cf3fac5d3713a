// The `enabledGroups` field of a request body, within what the caller's token allows.
import { effectiveGroups } from "./auth.ts";
import type { Call } from "./stage.ts";
import { optionalStringArray } from "./validate.ts";
import type { JsonObject } from "./validate.ts";

export const MAX_ENABLED_GROUPS = 256;
export const GROUP_NAME_MAX = 64;

export function readEnabledGroups(call: Call, body: JsonObject): string[] {
  const requested = optionalStringArray(body, "enabledGroups", "", MAX_ENABLED_GROUPS, { maxLength: GROUP_NAME_MAX });
  return effectiveGroups(call.principal, requested);
}
