// The API's request and answer types, built from the types the Worker itself uses (src/core): a change of contract
// there breaks this file's type-check, and every client built on it. Types only: the client ships no Worker code.
import type { PrepareOutput } from "../core/turn/prepare.ts";
import type { SearchToolsResult } from "../core/turn/searchTools.ts";
import type { ToolShape } from "../core/tools/shapes.ts";
import type { ConfirmationRequest, JsonValue, OpenConfirmation, ToolDefinition, ToolResult } from "../core/types.ts";

export type { ConfirmationRequest, JsonValue, SearchToolsResult, ToolDefinition, ToolShape };

/** `POST /v1/sessions/:sid/execute`: `{content, isError, confirmation?}`, for every tool-level outcome. */
export type ExecuteAnswer = ToolResult;

/** A tool definition in the shape the request asked for (OpenAI Chat, Responses, Anthropic or MCP). */
export type ShapedTool = Record<string, unknown>;

/** `POST /v1/sessions/:sid/prepare`: the tools for this turn, in the request's shape. */
export interface PrepareAnswer {
  tools: ShapedTool[];
  applied: PrepareOutput["applied"];
  discovered: PrepareOutput["discovered"];
  stats: PrepareOutput["stats"] & {
    /** Each answered tool's tokens. */
    tokensPerTool?: number[];
    /** With autoDiscover on: the tools sent because the user's message matched them (last in `tools`). */
    autoDiscovered?: PrepareOutput["autoDiscovered"];
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
  capability: OpenConfirmation["capability"];
  mode: OpenConfirmation["mode"];
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
