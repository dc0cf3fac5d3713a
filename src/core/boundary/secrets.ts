// Header values from Worker secrets (http executors, upstream MCP servers): a definition names the secret, never holds
// the value. Only `TOOL_SECRET_*` secrets are usable, so that a definition (which an owner may paste from elsewhere)
// cannot send the gateway's own secrets (AUTH_JWT_SECRET, …) to a third party.

export const TOOL_SECRET_PREFIX = "TOOL_SECRET_";

/** Header name → secret value; throws naming the secret (never its value) when one is unusable. */
export function secretHeaderValues(headers: Readonly<Record<string, string>>, env: Readonly<Record<string, unknown>>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [header, secretName] of Object.entries(headers)) {
    if (!secretName.startsWith(TOOL_SECRET_PREFIX)) {
      throw new Error(`secret "${secretName}" is not a tool secret: header values may only come from ${TOOL_SECRET_PREFIX}* secrets`);
    }
    const value = Object.hasOwn(env, secretName) ? env[secretName] : undefined;
    if (typeof value !== "string" || value === "") throw new Error(`secret "${secretName}" is not set on the gateway`);
    values[header] = value;
  }
  return values;
}
