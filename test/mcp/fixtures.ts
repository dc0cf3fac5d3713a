// The tools the MCP tests register as the owner (context "mcp-tests"): in the group `mcptest`, one per annotation
// rule and per guard decision, and `mcp_secret` in `mcphidden`, which the test tokens never enable.
import { api, ownerToken } from "../http/helpers.ts";

const TEXT = { type: "object", properties: { text: { type: "string" } } };
const NONE = { type: "object", properties: {} };
const groups = ["mcptest"];

export const MCP_TEST_TOOLS: Record<string, unknown>[] = [
  { name: "mcp_note", description: "Notes a text (MCP test tool).\nSecond line.", parameters: TEXT, groups, executor: { type: "builtin", name: "echo" } },
  { name: "mcp_stamp", description: "Stamps a document once per approval (MCP test tool).", parameters: TEXT, groups, confirm: "always", executor: { type: "builtin", name: "echo" } },
  { name: "mcp_journal", description: "Writes the journal for a session (MCP test tool).", parameters: TEXT, groups, confirm: "session", executor: { type: "builtin", name: "echo" } },
  { name: "mcp_wipe", description: "Wipes a disk (MCP test tool).", parameters: TEXT, groups, risk: "dangerous", confirm: "always", executor: { type: "builtin", name: "echo" } },
  { name: "mcp_lookup", description: "Looks a word up on the remote end (MCP test tool).", parameters: NONE, groups, executor: { type: "http", url: "https://remote.test/text?b64=aGk", method: "GET" } },
  { name: "mcp_post", description: "Posts a text to the remote end (MCP test tool).", parameters: TEXT, groups, executor: { type: "http", url: "https://remote.test/echo" } },
  { name: "mcp_client", description: "Runs on the client (MCP test tool).", parameters: TEXT, groups },
  { name: "mcp_secret", description: "A tool of a group no test token enables (MCP test tool).", parameters: TEXT, groups: ["mcphidden"], executor: { type: "builtin", name: "echo" } },
];

export async function registerMcpTestTools(): Promise<void> {
  const owner = await ownerToken("owner-mcp");
  const response = await api("/v1/tools", { method: "PUT", token: owner, body: { tools: MCP_TEST_TOOLS, context: "mcp-tests" } });
  if (response.status !== 200) throw new Error(`registering the MCP test tools failed: ${await response.text()}`);
}
