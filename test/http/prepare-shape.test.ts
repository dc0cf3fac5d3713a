// POST /v1/sessions/:sid/prepare without tools answers in the shape of the messages: an Anthropic or MCP
// history, or OpenAI Responses input items, get their own tool shape back. `format` still wins, then the tools' shape.
import { beforeAll, describe, expect, it } from "vitest";
import type { ToolShape } from "../../src/core/tools/shapes.ts";
import { api, json, sessionId, token } from "./helpers.ts";
import { historyInShape, inShape, nameInShape, plainTools } from "./shapes.ts";

interface PrepareBody {
  tools: unknown[];
  applied: boolean;
  discovered: string[];
}

const SHAPES: ToolShape[] = ["openai", "responses", "anthropic", "mcp"];

let caller = "";
beforeAll(async () => {
  // The web group holds enough demo tools that search_tools is applied, so the answer holds a tool of each kind.
  caller = await token({ sub: "shape-of-messages", groups: ["web"] });
});

async function prepare(body: Record<string, unknown>): Promise<PrepareBody> {
  const response = await api(`/v1/sessions/${sessionId("shape")}/prepare`, { token: caller, body });
  expect(response.status).toBe(200);
  return json<PrepareBody>(response);
}

/** The shape every tool of the answer is written in, when they agree. */
function shapeOf(tools: readonly unknown[]): ToolShape | undefined {
  const fits = SHAPES.filter((shape) => tools.every((tool) => nameInShape(tool, shape) !== undefined));
  return fits.length === 1 ? fits[0] : undefined;
}

describe("prepare without tools: the answer's shape comes from the messages", () => {
  it.each(SHAPES)("answers a %s history in its own shape", async (shape) => {
    const searched = plainTools("found", 2);
    const body = await prepare({ messages: historyInShape(shape, searched, "web_search") });
    expect(body.tools.length).toBeGreaterThan(0);
    expect(shapeOf(body.tools)).toBe(shape);
    // The history is read as before: the called registry tool joins the set and is sent in full.
    expect(body.discovered).toContain("web_search");
    expect(body.tools.map((tool) => nameInShape(tool, shape))).toContain("web_search");
  });

  it("reads OpenAI Responses input items: typed messages with input_text parts", async () => {
    const body = await prepare({
      messages: [
        { type: "message", role: "developer", content: [{ type: "input_text", text: "Be brief." }] },
        { type: "message", role: "user", content: [{ type: "input_text", text: "News about solar power?" }] },
      ],
    });
    expect(shapeOf(body.tools)).toBe("responses");
    // Untyped items with input_text parts (Responses' short form) tell the same.
    const short = await prepare({ messages: [{ role: "user", content: [{ type: "input_text", text: "hi" }] }] });
    expect(shapeOf(short.tools)).toBe("responses");
  });

  it("reads an Anthropic history whose only sign is a tool_use block, or a thinking block", async () => {
    const toolUse = await prepare({
      messages: [
        { role: "user", content: "Weather in Paris?" },
        { role: "assistant", content: [{ type: "text", text: "Let me look." }, { type: "tool_use", id: "t1", name: "web_search", input: {} }] },
      ],
    });
    expect(shapeOf(toolUse.tools)).toBe("anthropic");
    const thinking = await prepare({
      messages: [{ role: "assistant", content: [{ type: "thinking", thinking: "hmm", signature: "s" }, { type: "text", text: "ok" }] }],
    });
    expect(shapeOf(thinking.tools)).toBe("anthropic");
  });

  it("reads an MCP history by its toolUseId even when its tool_use blocks come first in an array", async () => {
    const body = await prepare({
      messages: [
        { role: "assistant", content: [{ type: "tool_use", id: "m1", name: "web_search", input: {} }] },
        { role: "user", content: [{ type: "tool_result", toolUseId: "m1", content: [{ type: "text", text: "ok" }] }] },
      ],
    });
    expect(shapeOf(body.tools)).toBe("mcp");
  });

  it("answers plain text turns, and no messages, in the OpenAI shape", async () => {
    for (const messages of [
      [],
      [{ role: "user", content: "hello" }],
      [{ role: "system", content: "Be brief." }, { role: "user", content: [{ type: "text", text: "hello" }] }],
    ]) {
      expect(shapeOf((await prepare({ messages })).tools)).toBe("openai");
    }
  });

  it("lets format win over the messages, and the tools' shape win over the messages", async () => {
    const anthropicHistory = historyInShape("anthropic", plainTools("f", 1), "web_search");
    expect(shapeOf((await prepare({ messages: anthropicHistory, format: "responses" })).tools)).toBe("responses");
    expect(shapeOf((await prepare({ messages: anthropicHistory, format: "openai" })).tools)).toBe("openai");
    const mcpTools = plainTools("given", 8).map((tool) => inShape(tool, "mcp"));
    expect(shapeOf((await prepare({ messages: anthropicHistory, tools: mcpTools })).tools)).toBe("mcp");
  });
});
