// TOOL_SEARCH_CONFIG.mcp: its validation, and `callTool: false` seen by an MCP client.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { ConfigError, defaultConfig, parseConfig } from "../../src/core/config.ts";
import { connect, principal, warmUp } from "./helpers.ts";

beforeAll(warmUp, 60_000);

describe("TOOL_SEARCH_CONFIG.mcp", () => {
  it("defaults to call_tool on and no extra origins; origins are kept in lower case", () => {
    expect(defaultConfig().mcp).toEqual({ callTool: true, allowedOrigins: [] });
    expect(parseConfig({ mcp: { callTool: false, allowedOrigins: ["HTTPS://Chat.Example.com", "http://localhost:3000"] } }).mcp)
      .toEqual({ callTool: false, allowedOrigins: ["https://chat.example.com", "http://localhost:3000"] });
  });

  it("refuses what is not an origin, a wrong type and an unknown field, naming it", () => {
    const cases: [unknown, string][] = [
      [{ allowedOrigins: ["https://chat.example.com/"] }, "TOOL_SEARCH_CONFIG.mcp.allowedOrigins[0]"],
      [{ allowedOrigins: ["*"] }, "TOOL_SEARCH_CONFIG.mcp.allowedOrigins[0]"],
      [{ allowedOrigins: ["https://ok.example", "https://user@evil.example"] }, "TOOL_SEARCH_CONFIG.mcp.allowedOrigins[1]"],
      [{ allowedOrigins: "https://chat.example.com" }, "TOOL_SEARCH_CONFIG.mcp.allowedOrigins"],
      [{ callTool: "yes" }, "TOOL_SEARCH_CONFIG.mcp.callTool"],
      [{ tools: true }, "TOOL_SEARCH_CONFIG.mcp.tools"],
      ["on", "TOOL_SEARCH_CONFIG.mcp"],
    ];
    for (const [mcp, field] of cases) {
      let error: unknown;
      try {
        parseConfig({ mcp });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect(error instanceof ConfigError ? error.field : undefined).toBe(field);
    }
  });

  it("callTool: false leaves call_tool out of the list, and its name is then an unknown tool", async () => {
    const base: unknown = JSON.parse(env.TOOL_SEARCH_CONFIG);
    const config = JSON.stringify({ ...(typeof base === "object" ? base : {}), mcp: { callTool: false } });
    const who = await principal("no-call-tool", { groups: ["web"] });
    const { client } = await connect(who.token, { env: { TOOL_SEARCH_CONFIG: config } });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["search_tools"]);
    const result = await client.callTool({ name: "call_tool", arguments: { name: "calculate", arguments: { expression: "1" } } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain("Unknown tool");
    await client.close();
  });
});
