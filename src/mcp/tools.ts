// What an MCP client sees of toolgate's tools: each definition as an MCP `Tool` with annotations read from the guard's
// view, the `call_tool` meta-tool, and the output schema of `search_tools`. Plain TypeScript (types only from the SDK).
//
// Annotations (hints for the client; the guard is what decides):
// - readOnlyHint: a `safe` tool (risk absent or safe) that asks no confirmation and whose executor has no side effect
//   toolgate can vouch for: a built-in (echo, clock, calculator, fetch_url) or an http executor with method GET.
//   Tools run by the client (no executor), http POST/PUT/PATCH/DELETE and service executors may write: not read-only.
// - destructiveHint (only when not read-only): the tool's risk is `dangerous`.
// - openWorldHint: the executor reaches outside the gateway (http, service, the fetch_url built-in); false for the
//   other built-ins; left out for client-run tools, whose reach toolgate does not know.
// - search_tools is read-only and closed-world (it only reads the registry and notes what was found); call_tool may
//   run any tool, so it says the worst: not read-only, destructive, open world.
import type { Tool, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { confirmMode } from "../core/guard/authority.ts";
import { CALL_TOOL_NAME } from "../core/turn/callTool.ts";
import type { GatewayConfig } from "../core/config.ts";
import { SEARCH_TOOLS_NAME } from "../core/turn/searchTools.ts";
import type { ToolDefinition } from "../core/types.ts";


const OPEN_WORLD_BUILTINS = new Set(["fetch_url"]);

export function annotationsOf(tool: ToolDefinition, config: GatewayConfig): ToolAnnotations {
  if (tool.name === SEARCH_TOOLS_NAME) return { readOnlyHint: true, openWorldHint: false };
  const executor = tool.executor;
  const noSideEffects = executor !== undefined &&
    (executor.type === "builtin" || (executor.type === "http" && executor.method === "GET"));
  const readOnly = (tool.risk ?? "safe") === "safe" && confirmMode(tool, config) === "off" && noSideEffects;
  const annotations: ToolAnnotations = { readOnlyHint: readOnly };
  if (!readOnly) annotations.destructiveHint = tool.risk === "dangerous";
  if (executor !== undefined) {
    annotations.openWorldHint = executor.type !== "builtin" || OPEN_WORLD_BUILTINS.has(executor.name);
  }
  return annotations;
}

/** The JSON Schema of the search_tools result (docs/DESIGN.md, "Flows"), for clients that read `structuredContent`. */
export const SEARCH_RESULT_SCHEMA = {
  type: "object",
  properties: {
    found: { type: "string" },
    tools: {
      type: "array",
      items: {
        type: "object",
        properties: { name: { type: "string" }, description: { type: "string" }, parameters: { type: "object" } },
        required: ["name", "description", "parameters"],
      },
    },
    pagination: {
      type: "object",
      properties: {
        total: { type: "integer" },
        offset: { type: "integer" },
        returned: { type: "integer" },
        nextOffset: { type: "integer" },
      },
      required: ["total", "offset", "returned"],
    },
    related: { type: "array", items: { type: "string" } },
    hint: { type: "string" },
  },
  required: ["found", "tools", "hint"],
} as const satisfies Tool["outputSchema"];

export function toMcpTool(tool: ToolDefinition, config: GatewayConfig): Tool {
  const annotations: ToolAnnotations = tool.name === CALL_TOOL_NAME
    ? { readOnlyHint: false, destructiveHint: true, openWorldHint: true }
    : annotationsOf(tool, config);
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: { ...tool.parameters, type: "object" },
    ...(tool.name === SEARCH_TOOLS_NAME ? { outputSchema: SEARCH_RESULT_SCHEMA } : {}),
    annotations,
  };
}
