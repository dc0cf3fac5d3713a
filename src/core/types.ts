// Shared types of the core. Plain TypeScript: no Worker, Node or DOM imports anywhere in src/core.

/** A JSON Schema; a tool's `parameters` must be an object schema (`type: "object"`). */
export type JsonSchema = { [key: string]: unknown };

export type Visibility = "public" | "restricted";
export type Risk = "safe" | "sensitive" | "dangerous";
/** What the author may declare. */
export type DeclaredConfirm = "session" | "always";
/** What an owner override or the effective rule may say. */
export type ConfirmMode = "off" | "session" | "always";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** How the Worker runs a tool. A tool without one is run by the client. */
export type ExecutorSpec =
  | { type: "builtin"; name: string }
  | {
      type: "http";
      url: string;
      method?: HttpMethod;
      /** Header name → name of the Worker secret that holds its value (never the value itself). */
      headers?: Record<string, string>;
      timeoutMs?: number;
      /** Whether the answer is external content to wrap; true by default for http. */
      untrusted?: boolean;
    }
  | { type: "service"; binding: string; path?: string; untrusted?: boolean }
  /** A tool of an upstream MCP server (PUT /v1/upstreams/:id): `tool` is its name there, called with tools/call. */
  | { type: "mcp"; upstream: string; tool: string };

/** A tool as registered (`PUT /v1/tools/:name`, docs/http-api.md). */
export interface ToolDefinition {
  /** Always portable (toolNames.ts): what the model sees and calls. */
  name: string;
  /** The name the tool has where it came from (an MCP server, a client's list), when it had to be fitted. */
  originalName?: string;
  description: string;
  parameters: JsonSchema;
  groups?: string[];
  visibility?: Visibility;
  risk?: Risk;
  confirm?: DeclaredConfirm;
  executor?: ExecutorSpec;
}

/** Name and description only (the `getSummaries` view). */
export interface ToolSummary {
  name: string;
  originalName?: string;
  description: string;
  groups?: string[];
}

/** A verified caller. `level` < 0 means banned; `owner` means unlimited (except denied capabilities). */
export interface Principal {
  id: string;
  level: number;
  owner: boolean;
  /** Tool groups this principal may enable. */
  groups: string[];
}

/** What the caller of `execute()` tells the registry. */
export interface ToolCallContext {
  /**
   * The groups enabled for this call. When present the group gate holds at execution; when absent
   * (trusted in-process callers) it does not.
   */
  enabledGroups?: readonly string[];
  principal?: Principal;
  sessionId?: string;
  /** The request's origin (`https://host`): links the gateway hands out for this call (an upstream's sign-in). */
  origin?: string;
}

/** A call refused until the caller signs in to an upstream (OAuth): the link toolgate serves for it. */
export interface SignInRequest {
  upstream: string;
  url: string;
  /** Epoch ms after which the link is refused. */
  expiresAt: number;
}

/** A tool call's outcome. `execute()` never throws: every failure is `{ isError: true, content: '{"error": …}' }`. */
export interface ToolResult {
  content: string;
  isError: boolean;
  /** Present when the guard holds the call for the user's approval. */
  confirmation?: ConfirmationRequest;
  /** Present when the call needs the caller's own sign-in to an upstream first (an error result that carries the link). */
  signIn?: SignInRequest;
}

/**
 * A call's result and, when the execution guard ran, its decision: the decision travels with the result (across the
 * session object's RPC too) to the audit line. Clients only ever see the result.
 */
export interface ToolOutcome {
  result: ToolResult;
  decision?: GuardDecision;
}

/** A JSON value (interfaces rather than one recursive alias, so that RPC's type mapping terminates). */
export type JsonValue = null | boolean | number | string | JsonArray | JsonRecord;
export interface JsonRecord {
  [key: string]: JsonValue;
}
export interface JsonArray extends Array<JsonValue> {}

/** A pending confirmation as the session's ledger hands it out. */
export interface OpenConfirmation {
  id: string;
  capability: string;
  mode: "session" | "always";
  /** Epoch milliseconds. */
  expiresAt: number;
}

/**
 * A pending confirmation with what its approver is shown (core/guard/approval.ts): the tool, its description's first line
 * and the call's arguments, bounded. `always`: the approval runs exactly these arguments once; `session`: this tool
 * with any arguments in this session until the grant expires.
 */
export interface ConfirmationRequest extends OpenConfirmation {
  tool: string;
  description: string;
  /** Bounded for display; hidden characters (bidi, zero-width) shown as markers such as `⟦U+202E⟧`. */
  arguments: JsonValue;
  /** The paths of the arguments holding hidden characters (absent when none does): the approver is warned. */
  hiddenCharacters?: string[];
  /**
   * A signed, single-use link where the user approves or denies this call in a browser (set by the gateway's shell
   * when it can sign one; absent otherwise).
   */
  approvalUrl?: string;
}

/** Runs a tool in-process. Returns the text handed back to the model. */
export type ToolHandler = (args: Record<string, unknown>, context: ToolCallContext) => string | Promise<string>;

/** A registry entry. */
export interface RegisteredTool {
  definition: ToolDefinition;
  contextId: string;
  handler?: ToolHandler;
}

/**
 * The guard's verdict on one call (docs/DESIGN.md, "The guard"). A denial's `reason` is the model-facing text; its
 * optional `code` is for the shell (the isolate's guard says `too_many_sessions` when a session could not be opened).
 */
export type GuardDecision =
  | { kind: "allow" }
  | { kind: "deny"; reason: string; code?: string }
  | { kind: "confirm"; request: ConfirmationRequest };

export interface GuardInput {
  tool: RegisteredTool;
  arguments: Record<string, unknown>;
  context: ToolCallContext;
}

export type ExecutionGuard = (input: GuardInput) => GuardDecision | Promise<GuardDecision>;

/** Runs tools that have an `executor` but no in-process handler (the Worker supplies it). */
export type ExecutorRunner = (tool: RegisteredTool, args: Record<string, unknown>, context: ToolCallContext) => Promise<string>;

export type Locale = "en" | "zh";

/** Something that can warn; the Worker passes console, tests pass a spy. */
export interface Logger {
  warn(message: string): void;
}
