// The answers a session waits for from its MCP client (the JSON-RPC responses to its elicitation/create requests),
// bounded: an answer is taken only for an id a pending request has, at most MAX_PENDING_ANSWERS requests wait per
// session, an answer is at most MAX_ANSWER_BYTES, and everything held is freed when its request expires. An answer
// for an id no pending request has is refused, never kept (a client could otherwise fill the session's memory with
// answers nobody asked for).

/** Server→client requests a session may have waiting at once; past it a call is held for approval over HTTP. */
export const MAX_PENDING_ANSWERS = 8;
/** The largest answer taken, in UTF-8 bytes (an elicitation answer with an empty form is about 100). */
export const MAX_ANSWER_BYTES = 8 * 1024;
/** The longest a request waits for its answer, whatever its caller asks. */
export const MAX_ANSWER_WAIT_MS = 5 * 60_000;

/** What became of an answer: handed to its waiter, held for a waiter about to come, or refused. */
export type AnswerDelivery = "delivered" | "held" | "unknown_id" | "too_large";

interface Pending {
  timer: ReturnType<typeof setTimeout>;
  /** The waiter, once it asked (wait). */
  resolve?: (text: string | null) => void;
  /** The answer, when it came before its waiter. */
  answer?: string;
}

export class PendingAnswers {
  readonly #pending = new Map<string, Pending>();

  get size(): number {
    return this.#pending.size;
  }

  /**
   * Announces a request `id` whose answer may come within `timeoutMs` (at most MAX_ANSWER_WAIT_MS): call it before the
   * request is sent, so that no answer can come first. False when MAX_PENDING_ANSWERS already wait (or `id` does).
   */
  expect(id: string, timeoutMs: number): boolean {
    if (this.#pending.has(id) || this.#pending.size >= MAX_PENDING_ANSWERS) return false;
    const wait = Math.max(0, Math.min(timeoutMs, MAX_ANSWER_WAIT_MS));
    this.#pending.set(id, { timer: setTimeout(() => this.#finish(id, null), wait) });
    return true;
  }

  /** The answer to an expected request; null when it expires first, the session ends, or `id` was never expected. */
  wait(id: string): Promise<string | null> {
    const pending = this.#pending.get(id);
    if (pending === undefined || pending.resolve !== undefined) return Promise.resolve(null);
    if (pending.answer !== undefined) {
      const { answer } = pending;
      this.#finish(id, null);
      return Promise.resolve(answer);
    }
    return new Promise((resolve) => {
      pending.resolve = resolve;
    });
  }

  /** Hands `text` to the request `id` waits for (or holds it until its waiter asks); refuses anything else. */
  deliver(id: string, text: string): AnswerDelivery {
    const pending = this.#pending.get(id);
    if (pending === undefined || pending.answer !== undefined) return "unknown_id";
    if (text.length > MAX_ANSWER_BYTES || new TextEncoder().encode(text).byteLength > MAX_ANSWER_BYTES) return "too_large";
    if (pending.resolve === undefined) {
      pending.answer = text;
      return "held";
    }
    this.#finish(id, text);
    return "delivered";
  }

  /** Every waiter gets null and everything held is freed (the session ended). */
  clear(): void {
    // Deleting from a Map while iterating it is well defined: every remaining entry is still visited.
    for (const id of this.#pending.keys()) this.#finish(id, null);
  }

  #finish(id: string, text: string | null): void {
    const pending = this.#pending.get(id);
    if (pending === undefined) return;
    clearTimeout(pending.timer);
    this.#pending.delete(id);
    pending.resolve?.(text);
  }
}
