// runTurn under each tool-list mode of the gateway ("fixed", "grow", "stable"), set per request as
// test/http/toolList.test.ts does. Under "fixed" the list never changes and the model reaches a found tool through
// `call_tool {name, arguments}`: local tools, declined confirmations and the records must follow the tool it names.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createToolgate, runTurn } from "@toolgate/client";
import type { ChatMessage, ModelRequest, Toolgate } from "@toolgate/client";
import { BASE, fetchWithEnv, sessionId, token } from "../http/helpers.ts";
import type { IncomingRequest } from "../http/helpers.ts";
import { toolNames } from "./support.ts";

const MODES = ["fixed", "grow", "stable"] as const;
type Mode = (typeof MODES)[number];

function incoming(input: string, init: RequestInit): IncomingRequest {
  return new Request<unknown, IncomingRequestCfProperties>(input, { method: init.method, headers: init.headers, body: init.body });
}

/** The arguments as the model wrote them: OpenAI's JSON text, or the object inside call_tool's arguments. */
function argumentsOf(value: Record<string, unknown> | string | undefined): unknown {
  return typeof value === "string" ? JSON.parse(value) : value;
}

async function clientIn(mode: Mode, sub: string): Promise<Toolgate> {
  const base: unknown = JSON.parse(env.TOOL_SEARCH_CONFIG);
  const vars = { TOOL_SEARCH_CONFIG: JSON.stringify({ ...(typeof base === "object" && base !== null ? base : {}), toolList: mode }) };
  const jwt = await token({ sub, level: 2, groups: ["mail", "files", "web"] });
  return createToolgate({ url: BASE, token: jwt, fetch: (input, init) => fetchWithEnv(vars, incoming(input, init)) });
}

interface Move {
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * A model that plays `moves` in order, one call per turn: by the tool's own name when the turn offers it, else
 * through `call_tool` (a "fixed" list), as a model reading the offered tools would.
 */
function scripted(moves: readonly Move[], offered: string[][]): (request: ModelRequest<ChatMessage>) => Promise<ChatMessage> {
  return async (request) => {
    const names = toolNames(request.tools);
    offered.push(names);
    const move = moves[request.turn];
    if (!move) return { role: "assistant", content: "done" };
    const direct = move.name === "search_tools" || names.includes(move.name);
    const call = direct ? move : { name: "call_tool", arguments: { name: move.name, arguments: move.arguments } };
    if (!direct && !names.includes("call_tool")) throw new Error(`turn ${request.turn} offers neither ${move.name} nor call_tool`);
    return {
      role: "assistant",
      content: null,
      tool_calls: [{ id: `c${request.turn}`, type: "function", function: { name: call.name, arguments: JSON.stringify(call.arguments) } }],
    };
  };
}

const email = (to: string): Move => ({ name: "send_email", arguments: { to: [to], subject: "Notes", body: "See a.txt" } });
const MOVES: readonly Move[] = [
  { name: "search_tools", arguments: { query: "read a file" } },
  { name: "read_file", arguments: { path: "a.txt" } },
  { name: "search_tools", arguments: { query: "send an email" } },
  email("eve@example.com"),
  email("bob@example.com"),
  { name: "read_file", arguments: { path: "b.txt" } },
];

describe.each(MODES)('runTurn under toolList "%s"', (mode) => {
  it("runs local tools, declines and approves by confirmation, and records the tool that ran", async () => {
    const client = await clientIn(mode, `turn-${mode}`);
    const offered: string[][] = [];
    const ran: unknown[] = [];
    const asked: { id: string; tool: string; to: unknown }[] = [];
    const result = await runTurn({
      client,
      sessionId: sessionId(`modes-${mode}`),
      shape: "openai",
      messages: [{ role: "user", content: "Read a.txt and email it to Bob." }],
      localTools: { read_file: (args) => (ran.push(args), `contents of ${String(args["path"])}`) },
      // The user sees each held call's arguments: eve is declined, bob approved.
      confirm: (details) => {
        const to = typeof details.arguments === "object" && details.arguments !== null && !Array.isArray(details.arguments) ? details.arguments["to"] : undefined;
        asked.push({ id: details.id, tool: details.tool, to });
        return JSON.stringify(to) === JSON.stringify(["bob@example.com"]);
      },
      model: scripted(MOVES, offered),
    });
    expect(result.stop).toBe("done");
    const viaCallTool = mode === "fixed" ? { via: "call_tool" } : {};
    // Every record names the tool that ran, with its own arguments.
    expect(result.toolCalls.map((call) => call.name)).toEqual(MOVES.map((move) => move.name));
    expect(result.toolCalls.map((call) => argumentsOf(call.arguments))).toEqual(MOVES.map((move) => move.arguments));
    expect(result.toolCalls[1]).toMatchObject({ name: "read_file", result: { isError: false, content: "contents of a.txt" }, ...viaCallTool });
    expect(result.toolCalls.every((call) => call.name !== "call_tool")).toBe(true);
    // The local handler ran for both reads, through call_tool too, and after the declined call.
    expect(ran).toEqual([{ path: "a.txt" }, { path: "b.txt" }]);
    // Two confirmations, each its own: the declined one did not approve the next send_email.
    expect(asked.map(({ tool, to }) => [tool, to])).toEqual([["send_email", ["eve@example.com"]], ["send_email", ["bob@example.com"]]]);
    expect(asked[0]?.id).not.toBe(asked[1]?.id);
    const declined = result.toolCalls[3];
    expect(declined).toMatchObject({ name: "send_email", approved: false, result: { isError: true }, ...viaCallTool });
    // The model reads that this call of send_email was declined, never that call_tool (every tool) is closed.
    expect(JSON.parse(declined?.result.content ?? "{}").error).toContain('"send_email"');
    expect(declined?.result.content).not.toContain("call_tool");
    expect(result.toolCalls[4]).toMatchObject({ name: "send_email", approved: true, result: { isError: false }, ...viaCallTool });
    expect(result.toolCalls[5]).toMatchObject({ name: "read_file", result: { content: "contents of b.txt" } });
    // What the model was offered: the fixed list never changes; grow and stable add what was found.
    expect(new Set(offered.map((names) => names.join(","))).size === 1).toBe(mode === "fixed");
    expect(["read_file", "send_email"].every((name) => offered.at(-1)?.includes(name))).toBe(mode !== "fixed");
  });
});
