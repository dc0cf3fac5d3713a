// Discovered-tool extraction from message history, for every message shape a client may send.
// OpenAI Chat (tool_calls / role tool), OpenAI Responses (function_call / function_call_output),
// Anthropic Messages (tool_use / tool_result blocks), MCP sampling (tool_use / tool_result with toolUseId),
// and the design documents' own shape. Malformed entries are skipped, never thrown.

/**
 * Names of tools discovered in `messages`, oldest first, each at its latest position: tools listed in a
 * `search_tools` result, and tools called whose result is present. Duplicates removed (last occurrence wins).
 */
export function extractDiscovered(_messages: readonly unknown[], _searchToolName?: string): string[] {
  throw new Error("not implemented");
}
