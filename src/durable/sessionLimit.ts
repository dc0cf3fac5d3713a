// The bound on a principal's live sessions (limits.maxSessionsPerPrincipal): the refusal a session object gives
// when the principal's index has no room for it, in the two forms it travels in (a value, or an error's message).

/** The code of the refusal, also the prefix of the message of an error that carries it across a guard. */
export const TOO_MANY_SESSIONS = "too_many_sessions";

/** What a session object answers instead of doing the work when it could not join its principal's index. */
export interface SessionRefusal {
  refused: string;
}

export function isSessionRefusal(value: unknown): value is SessionRefusal {
  return typeof value === "object" && value !== null && "refused" in value && typeof value.refused === "string";
}

export function tooManySessionsMessage(limit: number): string {
  return `this principal already has ${limit} live sessions (limits.maxSessionsPerPrincipal): reuse a session id; ` +
    "idle sessions free their place after sessionTtlDays, and a cleared session that holds nothing else at once";
}

/**
 * An error thrown where only errors can travel (the guard's session calls, on the caller's side of the RPC: orRefusal);
 * the message keeps the code first.
 */
export function sessionRefusalError(refusal: SessionRefusal): Error {
  return new Error(`${TOO_MANY_SESSIONS}: ${refusal.refused}`);
}

/** The refusal an error carries, if it is one (errors crossing an RPC keep their message, not their class). */
export function refusalOfError(error: unknown): SessionRefusal | undefined {
  const message = error instanceof Error ? error.message : undefined;
  const prefix = `${TOO_MANY_SESSIONS}: `;
  return message?.startsWith(prefix) ? { refused: message.slice(prefix.length) } : undefined;
}

/**
 * The value of a session call that answers a refusal rather than throwing it (an exception thrown out of a Durable
 * Object's RPC method is reported there as uncaught, besides reaching the caller), or the refusal thrown here as the
 * error the guard's caller turns into a denial (src/isolate/registryCache.ts).
 */
export function orRefusal<T>(answer: T): Exclude<T, SessionRefusal> {
  if (isAnswer(answer)) return answer;
  throw sessionRefusalError(isSessionRefusal(answer) ? answer : { refused: String(answer) });
}

function isAnswer<T>(answer: T): answer is Exclude<T, SessionRefusal> {
  return !isSessionRefusal(answer);
}
