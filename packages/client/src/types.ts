// The API's request and answer types. The gateway holds them to its own types (test/client/contract.test.ts, part of
// its type-check): a change of the API's contract there breaks the gateway's build until this file follows.

/** A JSON value. */
export type JsonValue = null | boolean | number | string | JsonArray | JsonRecord;
export interface JsonRecord {
  [key: string]: JsonValue;
}
export interface JsonArray extends Array<JsonValue> {}

/** A JSON Schema; a tool's `parameters` is an object schema (`type: "object"`). */
export type JsonSchema = { [key: string]: unknown };

/** The tool-definition shapes the gateway reads and writes. */
export type ToolShape = "openai" | "responses" | "anthropic" | "mcp";

/** A tool as registered (`PUT /v1/tools/:name`). */
export interface ToolDefinition {
  /** Always portable: what the model sees and calls. */
  name: string;
  /** The name the tool has where it came from (an MCP server, a client's list), when it had to be fitted. */
  originalName?: string;
  description: string;
  parameters: JsonSchema;
  groups?: string[];
  visibility?: "public" | "restricted";
  risk?: "safe" | "sensitive" | "dangerous";
  confirm?: "session" | "always";
  executor?:
    | { type: "builtin"; name: string }
    | {
        type: "http";
        url: string;
        method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
        headers?: Record<string, string>;
        timeoutMs?: number;
        untrusted?: boolean;
      }
    | { type: "service"; binding: string; path?: string; untrusted?: boolean }
    | { type: "mcp"; upstream: string; tool: string };
}

/**
 * A call the guard holds for the user's approval: the tool, its description's first line and the call's arguments,
 * bounded. `always`: approving runs exactly these arguments once; `session`: this tool with any arguments in this
 * session until the grant expires. Approve it by its `id`, never by the tool's name.
 */
export interface ConfirmationRequest {
  id: string;
  capability: string;
  mode: "session" | "always";
  /** Epoch milliseconds. */
  expiresAt: number;
  tool: string;
  description: string;
  /** Bounded for display; hidden characters (bidi, zero-width) shown as markers such as `⟦U+202E⟧`. */
  arguments: JsonValue;
  /** The paths of the arguments holding hidden characters (absent when none does): warn the person approving. */
  hiddenCharacters?: string[];
  /**
   * A signed, single-use link where the user approves or denies this call in a browser (absent when the gateway has
   * no signing secret). After the user answers there, call the tool again with the same arguments: it runs once.
   */
  approvalUrl?: string;
}

/** The `search_tools` result. */
export interface SearchToolsResult {
  /** "returned/total available", e.g. "5/23". */
  found: string;
  tools: { name: string; description: string; parameters: JsonSchema }[];
  /** Only when the result was truncated. */
  pagination?: { total: number; offset: number; returned: number; nextOffset?: number };
  /** Other tools of the returned tools' groups (names only), when any. */
  related?: string[];
  hint: string;
  /** How the ranking was made, where the deployment has an embeddings provider (absent without one). */
  stats?: SearchStats;
}

/**
 * `vectors`: the lexical ranking fused with the provider's embeddings; `fallback`: lexical only, for `reason` (the
 * provider failed or timed out, is skipped after repeated failures, or no tool has a vector yet).
 */
export type SearchStats =
  | { semantic: "vectors" }
  | { semantic: "fallback"; reason: "error" | "timeout" | "circuit_open" | "no_tool_vectors" };

/** `POST /v1/sessions/:sid/execute`: `{content, isError, confirmation?, signIn?}`, for every tool-level outcome. */
export interface ExecuteAnswer {
  content: string;
  isError: boolean;
  /** Present when the guard holds the call for the user's approval. */
  confirmation?: ConfirmationRequest;
  /** Present when the call needs the user's own sign-in to an upstream first (an error result that carries the link). */
  signIn?: SignInRequest;
}

/** A call refused until the user signs in to an upstream (OAuth): the link to open, once, before `expiresAt`. */
export interface SignInRequest {
  upstream: string;
  url: string;
  /** Epoch ms after which the link is refused. */
  expiresAt: number;
}

/** A tool definition in the shape the request asked for (OpenAI Chat, Responses, Anthropic or MCP). */
export type ShapedTool = Record<string, unknown>;

/** `POST /v1/sessions/:sid/prepare`: the tools for this turn, in the request's shape. */
export interface PrepareAnswer {
  tools: ShapedTool[];
  /** Whether the search layer replaced the list. */
  applied: boolean;
  /** The session's discovered set, most recent first. */
  discovered: string[];
  stats: {
    total: number;
    sent: number;
    tokensAll: number;
    tokensSent: number;
    /** Each answered tool's tokens. */
    tokensPerTool?: number[];
    /** With autoDiscover on: the tools sent because the user's message matched them (last in `tools`). */
    autoDiscovered?: string[];
  };
  /** Present when a tool's name had to be fitted to what every provider accepts: the name the model calls → yours. */
  names?: Record<string, string>;
}

/** `POST /v1/sessions/:sid/search`: the `search_tools` result object itself. */
export type SearchAnswer = SearchToolsResult;

/** `POST /v1/sessions/:sid/confirmations/:id`. */
export interface ConfirmAnswer {
  id: string;
  approved: boolean;
  capability: ConfirmationRequest["capability"];
  mode: ConfirmationRequest["mode"];
}

/** `POST /v1/memory/clear`. */
export interface ClearMemoryAnswer {
  scope: "session" | "all";
  cleared: number;
  pending: number;
}

export interface PrepareRequest {
  /** The conversation so far, in any supported shape. */
  messages: readonly unknown[];
  /** Client-side tools (they become the session's catalog); left out, the registry's tools are used. */
  tools?: readonly unknown[];
  enabledGroups?: readonly string[];
  format?: ToolShape;
}

export interface SearchRequest {
  query: string;
  limit?: number;
  offset?: number;
  enabledGroups?: readonly string[];
  mode?: "substring" | "minisearch";
}

export interface ExecuteRequest {
  name: string;
  /** An object, or the JSON text of one (OpenAI's `function.arguments` as it came). */
  arguments?: Readonly<Record<string, unknown>> | string;
  enabledGroups?: readonly string[];
}

export type ClearMemoryRequest = { scope: "session"; sessionId: string } | { scope: "all" };

/** The API's error body, `{"error": {"code", "message"}}`. */
export interface ErrorBody {
  error: { code: string; message: string };
}
