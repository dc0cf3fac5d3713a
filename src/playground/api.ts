// The gateway's HTTP API, called from the page's own origin (docs/http-api.md).
import { ID_PATTERN } from "../core/ids.ts";
import { isRecord } from "../core/records.ts";
import { readExecute, readPrepare, readSearch, readToolList, readVersion } from "./contract.ts";
import type { ExecuteAnswer, PrepareAnswer, SearchAnswer } from "./contract.ts";

/** An error answer `{"error": {code, message}}`, or a failure to reach the gateway (status 0). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
  }
}

/** Where the page reads the credential, session and groups at the moment of each call. */
export interface Connection {
  token(): string;
  sessionId(): string;
  /** undefined: every group the token allows (the field is left out of requests). */
  enabledGroups(): string[] | undefined;
}

export type SearchMode = "substring" | "minisearch";

export interface SearchRequest {
  query: string;
  mode: SearchMode;
  limit?: number;
  offset?: number;
}

function errorOf(data: unknown): { code: string; message: string } | undefined {
  if (!isRecord(data) || !isRecord(data["error"])) return undefined;
  const { code, message } = data["error"];
  return typeof code === "string" && typeof message === "string" ? { code, message } : undefined;
}

export class GatewayClient {
  private readonly connection: Connection;

  constructor(connection: Connection) {
    this.connection = connection;
  }

  private async call(method: "GET" | "POST", path: string, body?: unknown): Promise<unknown> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    const token = this.connection.token().trim();
    if (token !== "") headers["authorization"] = `Bearer ${token}`;
    const init: RequestInit = { method, headers };
    if (body !== undefined) init.body = JSON.stringify(body);
    let response: Response;
    try {
      response = await fetch(path, init);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ApiError(0, "unreachable", `The gateway did not answer (${reason}). Is \`npm start\` running?`);
    }
    const text = await response.text();
    let data: unknown;
    try {
      data = text === "" ? null : JSON.parse(text);
    } catch {
      data = undefined;
    }
    if (!response.ok) {
      const error = errorOf(data);
      const fallback = text.slice(0, 200) || response.statusText;
      throw new ApiError(response.status, error?.code ?? `http_${response.status}`, error?.message ?? fallback);
    }
    if (data === undefined) throw new ApiError(response.status, "not_json", "The gateway's answer is not JSON.");
    return data;
  }

  /** Checked here so that a typo shows as a message next to the field's rule, not as a 400 from the gateway. */
  private checkedSessionId(): string {
    const sessionId = this.connection.sessionId();
    if (!ID_PATTERN.test(sessionId)) {
      throw new ApiError(0, "bad_session_id", "The session id must be 1–128 characters of A–Z, a–z, 0–9, . _ : -");
    }
    return sessionId;
  }

  private sessionPath(rest: string): string {
    return `/v1/sessions/${encodeURIComponent(this.checkedSessionId())}/${rest}`;
  }

  async health(): Promise<string | undefined> {
    return readVersion(await this.call("GET", "/v1/health"));
  }

  private withGroups<T extends object>(body: T): T & { enabledGroups?: string[] } {
    const enabledGroups = this.connection.enabledGroups();
    return enabledGroups === undefined ? body : { ...body, enabledGroups };
  }

  async demoTools(): Promise<unknown[]> {
    const groups = this.connection.enabledGroups();
    const query = groups === undefined ? "" : `&groups=${encodeURIComponent(groups.join(","))}`;
    return readToolList(await this.call("GET", `/v1/tools?format=openai${query}`));
  }

  /** `tools` undefined: the registry's tools visible to the caller. */
  async prepare(messages: unknown[], tools?: unknown[]): Promise<PrepareAnswer> {
    const body = tools === undefined ? { messages, format: "openai" } : { messages, tools };
    return readPrepare(await this.call("POST", this.sessionPath("prepare"), this.withGroups(body)));
  }

  async search(request: SearchRequest): Promise<SearchAnswer> {
    return readSearch(await this.call("POST", this.sessionPath("search"), this.withGroups(request)));
  }

  async execute(name: string, args: Record<string, unknown>): Promise<ExecuteAnswer> {
    return readExecute(await this.call("POST", this.sessionPath("execute"), this.withGroups({ name, arguments: args })));
  }

  async answerConfirmation(id: string, approve: boolean): Promise<void> {
    await this.call("POST", this.sessionPath(`confirmations/${encodeURIComponent(id)}`), { approve });
  }

  async clearSessionMemory(): Promise<void> {
    await this.call("POST", "/v1/memory/clear", { scope: "session", sessionId: this.checkedSessionId() });
  }
}

/** How an error reads on the page. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    const status = error.status > 0 ? `${error.status} ` : "";
    const advice = error.status === 401 ? " Enter a valid development token, or leave it empty where anonymous access is allowed." : "";
    return `${status}${error.code}: ${error.message}${advice}`;
  }
  return error instanceof Error ? error.message : String(error);
}
