// The typed HTTP client of toolgate's /v1 API: one function per route, typed errors, abortable calls, and retries
// only where a repeat cannot do a thing twice (docs/client.md).
import type {
  ClearMemoryAnswer,
  ClearMemoryRequest,
  ConfirmAnswer,
  ExecuteAnswer,
  ExecuteRequest,
  PrepareAnswer,
  PrepareRequest,
  SearchAnswer,
  SearchRequest,
  ShapedTool,
  ToolShape,
} from "./types.js";
import { isObject } from "./records.js";

/** `fetch`, or anything that answers like it: a service binding's `fetch`, a Worker's `exports.default.fetch`. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface ToolgateOptions {
  /** The gateway's origin, e.g. `https://toolgate.example.workers.dev` (a trailing `/` is fine). */
  url: string;
  /** A fixed token; or `getToken`, asked before every request (refresh there). Neither: anonymous. */
  token?: string | undefined;
  getToken?: (() => string | undefined | Promise<string | undefined>) | undefined;
  /** Default: the global `fetch`. */
  fetch?: FetchLike | undefined;
  /** How many times a safe call is repeated after a refusal it may repeat (default 2; 0 = never). */
  retries?: number | undefined;
  /** The longest `Retry-After` the client waits for, in seconds (default 30); a longer one is thrown at once. */
  maxRetryAfterSeconds?: number | undefined;
}

/** Per call: an `AbortSignal` (aborting throws the signal's reason, an `AbortError` by default). */
export interface CallOptions {
  signal?: AbortSignal | undefined;
}

/**
 * An error answer of the API (`code` and `message` as the API sent them, `status` its HTTP status, `retryAfter` its
 * `Retry-After` in seconds), or a failure to reach it: `network_error` and `bad_response`, with status 0 or the status
 * that came back.
 */
export class ToolgateError extends Error {
  override readonly name = "ToolgateError";
  readonly code: string;
  readonly status: number;
  readonly retryAfter: number | undefined;

  constructor(status: number, code: string, message: string, retryAfter?: number, options?: { cause?: unknown }) {
    super(message, options);
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }
}

export interface Toolgate {
  /** The tools for the next LLM turn (`POST /v1/sessions/:sid/prepare`). */
  prepare(sessionId: string, request: PrepareRequest, options?: CallOptions): Promise<PrepareAnswer>;
  /** The `search_tools` result; the tools found join the session (`POST /v1/sessions/:sid/search`). */
  search(sessionId: string, request: SearchRequest, options?: CallOptions): Promise<SearchAnswer>;
  /** One tool call through the guard (`POST /v1/sessions/:sid/execute`); never repeated once it may have run. */
  execute(sessionId: string, request: ExecuteRequest, options?: CallOptions): Promise<ExecuteAnswer>;
  /** Approves or denies a pending confirmation (`POST /v1/sessions/:sid/confirmations/:id`). */
  confirm(sessionId: string, confirmationId: string, approve: boolean, options?: CallOptions): Promise<ConfirmAnswer>;
  /** Forgets discovered tools, of one session or all (`POST /v1/memory/clear`). */
  clearMemory(request: ClearMemoryRequest, options?: CallOptions): Promise<ClearMemoryAnswer>;
  /** Wraps outside text behind the untrusted-content banner (`POST /v1/untrusted/wrap`). */
  wrap(content: string, source: string, options?: CallOptions): Promise<string>;
  /** The tools visible to the caller (`GET /v1/tools`). */
  listTools(query?: { groups?: readonly string[]; format?: ToolShape | "summary" }, options?: CallOptions): Promise<ShapedTool[]>;
}

/**
 * When a failed call may be sent again:
 * - `read`: it changes nothing that a repeat would change again (prepare, search, clear, wrap, list): after a network
 *   failure, 502/504, and 429/503;
 * - `refused`: it may act (execute, a confirmation), so only when the gateway said it did nothing: 429 or 503 with a
 *   `Retry-After` (both are answered before any work). Never after a network failure: the call may have run.
 */
type RetryPolicy = "read" | "refused";

const DEFAULT_RETRIES = 2;
const DEFAULT_MAX_RETRY_AFTER = 30;
/** Wait before repeating a read that came back without `Retry-After`, in seconds (doubled each time). */
const READ_BACKOFF = 0.25;

function isErrorBody(value: unknown): value is { error: { code: string; message: string } } {
  if (typeof value !== "object" || value === null || !("error" in value)) return false;
  const error: unknown = value.error;
  return (
    typeof error === "object" && error !== null && "code" in error && typeof error.code === "string" &&
    "message" in error && typeof error.message === "string"
  );
}

/** `Retry-After` in seconds (delta-seconds or an HTTP date), or undefined. */
function retryAfterOf(response: Response): number | undefined {
  const value = response.headers.get("retry-after");
  if (value === null || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

function sleep(seconds: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      if (signal) reject(abortReason(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, seconds * 1000);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function segment(value: string): string {
  return encodeURIComponent(value);
}

function sessionPath(sessionId: string): string {
  return `/v1/sessions/${segment(sessionId)}`;
}

// What each answer must hold before it is handed out as its type (the top-level fields; the Worker's types say the rest).
function isPrepareAnswer(value: unknown): value is PrepareAnswer {
  return isObject(value) && Array.isArray(value["tools"]) && typeof value["applied"] === "boolean" && Array.isArray(value["discovered"]) && isObject(value["stats"]);
}
function isSearchAnswer(value: unknown): value is SearchAnswer {
  return isObject(value) && typeof value["found"] === "string" && Array.isArray(value["tools"]) && typeof value["hint"] === "string";
}
function isExecuteAnswer(value: unknown): value is ExecuteAnswer {
  if (!isObject(value) || typeof value["content"] !== "string" || typeof value["isError"] !== "boolean") return false;
  const confirmation = value["confirmation"];
  return confirmation === undefined || (isObject(confirmation) && typeof confirmation["id"] === "string" && typeof confirmation["tool"] === "string");
}
function isConfirmAnswer(value: unknown): value is ConfirmAnswer {
  return isObject(value) && typeof value["id"] === "string" && typeof value["approved"] === "boolean";
}
function isClearAnswer(value: unknown): value is ClearMemoryAnswer {
  return isObject(value) && typeof value["scope"] === "string" && typeof value["cleared"] === "number";
}
function hasContent(value: unknown): value is { content: string } {
  return isObject(value) && typeof value["content"] === "string";
}
function hasTools(value: unknown): value is { tools: ShapedTool[] } {
  return isObject(value) && Array.isArray(value["tools"]);
}

/** A client of one gateway. Dependency-free: `fetch`, `AbortSignal`, `setTimeout` are all it uses. */
export function createToolgate(options: ToolgateOptions): Toolgate {
  const base = options.url.replace(/\/+$/, "");
  const fetchImpl: FetchLike = options.fetch ?? ((input, init) => fetch(input, init));
  const retries = Math.max(0, Math.floor(options.retries ?? DEFAULT_RETRIES));
  const maxRetryAfter = options.maxRetryAfterSeconds ?? DEFAULT_MAX_RETRY_AFTER;

  async function headers(hasBody: boolean): Promise<Headers> {
    const result = new Headers({ accept: "application/json" });
    if (hasBody) result.set("content-type", "application/json");
    const token = options.getToken ? await options.getToken() : options.token;
    if (token !== undefined && token !== "") result.set("authorization", `Bearer ${token}`);
    return result;
  }

  /** One request; an error answer becomes a ToolgateError. */
  async function once(method: string, path: string, body: unknown, signal: AbortSignal | undefined): Promise<unknown> {
    signal?.throwIfAborted();
    const init: RequestInit = { method, headers: await headers(body !== undefined) };
    if (body !== undefined) init.body = JSON.stringify(body);
    if (signal) init.signal = signal;
    let response: Response;
    try {
      response = await fetchImpl(`${base}${path}`, init);
    } catch (error) {
      if (signal?.aborted) throw abortReason(signal);
      throw new ToolgateError(0, "network_error", `could not reach the gateway: ${error instanceof Error ? error.message : String(error)}`, undefined, { cause: error });
    }
    let parsed: unknown;
    try {
      parsed = await response.json();
    } catch (error) {
      if (signal?.aborted) throw abortReason(signal);
      throw new ToolgateError(response.status, "bad_response", `the gateway answered ${response.status} without JSON`, retryAfterOf(response), { cause: error });
    }
    if (response.ok) return parsed;
    if (isErrorBody(parsed)) throw new ToolgateError(response.status, parsed.error.code, parsed.error.message, retryAfterOf(response));
    throw new ToolgateError(response.status, "bad_response", `the gateway answered ${response.status} without an error object`, retryAfterOf(response));
  }

  /** How long to wait before repeating, or undefined: do not. */
  function retryDelay(error: unknown, policy: RetryPolicy, attempt: number): number | undefined {
    if (!(error instanceof ToolgateError) || attempt >= retries) return undefined;
    const { status, retryAfter } = error;
    if (retryAfter !== undefined) {
      if ((status === 429 || status === 503) && retryAfter <= maxRetryAfter) return retryAfter;
      return undefined;
    }
    if (policy === "refused") return undefined;
    if (status === 0 && error.code === "network_error") return READ_BACKOFF * 2 ** attempt;
    if (status === 502 || status === 503 || status === 504) return READ_BACKOFF * 2 ** attempt;
    return undefined;
  }

  async function call(method: string, path: string, body: unknown, policy: RetryPolicy, callOptions: CallOptions | undefined): Promise<unknown> {
    const signal = callOptions?.signal;
    for (let attempt = 0; ; attempt++) {
      try {
        return await once(method, path, body, signal);
      } catch (error) {
        const delay = retryDelay(error, policy, attempt);
        if (delay === undefined) throw error;
        await sleep(delay, signal);
      }
    }
  }

  /** A call whose answer must pass `check`; an answer of another shape is a `bad_response`. */
  async function read<T>(method: string, path: string, body: unknown, policy: RetryPolicy, check: (value: unknown) => value is T, callOptions: CallOptions | undefined): Promise<T> {
    const answer = await call(method, path, body, policy, callOptions);
    if (!check(answer)) throw new ToolgateError(200, "bad_response", `the answer of ${method} ${path.split("?")[0] ?? path} does not have the expected fields`);
    return answer;
  }

  return {
    prepare: (sessionId, request, callOptions) => read("POST", `${sessionPath(sessionId)}/prepare`, request, "read", isPrepareAnswer, callOptions),
    search: (sessionId, request, callOptions) => read("POST", `${sessionPath(sessionId)}/search`, request, "read", isSearchAnswer, callOptions),
    execute: (sessionId, request, callOptions) => read("POST", `${sessionPath(sessionId)}/execute`, request, "refused", isExecuteAnswer, callOptions),
    confirm: (sessionId, confirmationId, approve, callOptions) =>
      read("POST", `${sessionPath(sessionId)}/confirmations/${segment(confirmationId)}`, { approve }, "refused", isConfirmAnswer, callOptions),
    clearMemory: (request, callOptions) => read("POST", "/v1/memory/clear", request, "read", isClearAnswer, callOptions),
    async wrap(content, source, callOptions) {
      return (await read("POST", "/v1/untrusted/wrap", { content, source }, "read", hasContent, callOptions)).content;
    },
    async listTools(query, callOptions) {
      const params = new URLSearchParams();
      if (query?.groups) params.set("groups", query.groups.join(","));
      if (query?.format) params.set("format", query.format);
      const search = params.size > 0 ? `?${params.toString()}` : "";
      return (await read("GET", `/v1/tools${search}`, undefined, "read", hasTools, callOptions)).tools;
    },
  };
}
