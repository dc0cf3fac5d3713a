// How Durable Objects are named. A session object's name carries the verified principal, so two principals using
// the same session id never reach the same object.
import { ID_PATTERN } from "../core/ids.ts";

export interface SessionIdentity {
  principalId: string;
  sessionId: string;
}

/** `<principal, URI-encoded>/<session id>`: the encoding keeps `/` out of the principal part, session ids have none. */
export function sessionObjectName(principalId: string, sessionId: string): string {
  return `${encodeURIComponent(principalId)}/${sessionId}`;
}

/** The inverse of sessionObjectName; undefined for a name it did not produce. */
export function parseSessionObjectName(name: string): SessionIdentity | undefined {
  const slash = name.lastIndexOf("/");
  if (slash <= 0) return undefined;
  const sessionId = name.slice(slash + 1);
  if (!ID_PATTERN.test(sessionId)) return undefined;
  try {
    return { principalId: decodeURIComponent(name.slice(0, slash)), sessionId };
  } catch {
    return undefined;
  }
}

export function principalObjectName(principalId: string): string {
  return encodeURIComponent(principalId);
}

/**
 * The principal id as it is: the counter's name since it was introduced (unlike principalObjectName, not encoded; any
 * string is a valid name), kept so that live counters carry on.
 */
export function rateLimiterObjectName(principalId: string): string {
  return principalId;
}

/** The one registry object of the deployment. */
export const REGISTRY_OBJECT_NAME = "registry";

/** The one object of the deployment's learning-from-calls evidence. */
export const LEARNING_OBJECT_NAME = "learning";
