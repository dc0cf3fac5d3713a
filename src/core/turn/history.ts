// Discovered-tool extraction from message history, for every message shape a client may send.
// OpenAI Chat (tool_calls / role tool), OpenAI Responses (function_call / function_call_output),
// Anthropic Messages (tool_use / tool_result blocks), MCP sampling (tool_use / tool_result with toolUseId),
// and the design documents' own shape. Malformed entries are skipped, never thrown.
//
// The shape is detected per message (per item, per content block), so one history may mix shapes. What each
// shape contributes:
//   OpenAI Chat       {role: "assistant", tool_calls: [{id, type: "function", function: {name, arguments}}]}
//                     {role: "tool", tool_call_id, content: string | [{type: "text", text}]}
//   OpenAI Responses  {type: "function_call", call_id, name, arguments}
//                     {type: "function_call_output", call_id, output: string | [{type: "input_text", text}]}
//   Anthropic         content blocks {type: "tool_use", id, name, input}
//                     and {type: "tool_result", tool_use_id, content: string | blocks}
//   MCP sampling      content (one block or an array) {type: "tool_use", id, name, input}
//                     and {type: "tool_result", toolUseId, content: [{type: "text", text}], structuredContent?}
//   Design documents  The original design (the Aalis agent) does not spell its message type out; we define it as
//                     {role: "assistant", content, toolCalls: [{id, name, arguments}]}
//                     and {role: "tool", toolCallId, name?, content: string | blocks}.
//
// Rules: a call counts only when a result with its id comes after it; the result of a `search_tools` call adds
// the names in its JSON `tools[].name` (and `search_tools` itself never counts). A name's position is the position
// of the result that used it. One pass over the messages, no recursion: linear in the size of the history.
import { isRecord } from "../records.ts";
import { TOOL_NAME_PATTERN } from "../tools/definition.ts";
import { SEARCH_TOOLS_NAME } from "./searchTools.ts";
import type { ToolShape } from "../tools/shapes.ts";

function isCallId(value: unknown): value is string {
  return typeof value === "string" && value !== "";
}

function isToolName(value: unknown): value is string {
  return typeof value === "string" && TOOL_NAME_PATTERN.test(value);
}

/** Text block types that may carry a result's text: Chat/Anthropic/MCP `text`, Responses `input_text`/`output_text`. */
const TEXT_BLOCK_TYPES: ReadonlySet<unknown> = new Set(["text", "input_text", "output_text"]);

/** The texts of a result's content: a string, one text block, or an array of blocks (non-text blocks skipped). */
function contentTexts(content: unknown): string[] {
  if (typeof content === "string") return [content];
  const blocks: readonly unknown[] = Array.isArray(content) ? content : [content];
  const texts: string[] = [];
  for (const block of blocks) {
    if (isRecord(block) && TEXT_BLOCK_TYPES.has(block["type"]) && typeof block["text"] === "string") {
      texts.push(block["text"]);
    }
  }
  return texts;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Bad JSON (or JSON nested deeper than the parser allows) is a result we cannot read: skip it.
    return undefined;
  }
}

/** The names listed in a search result object (`tools[].name`); undefined when it is not one. */
function searchResultNames(value: unknown): string[] | undefined {
  if (!isRecord(value) || !Array.isArray(value["tools"])) return undefined;
  const names: string[] = [];
  for (const tool of value["tools"] as readonly unknown[]) {
    if (isRecord(tool) && isToolName(tool["name"])) names.push(tool["name"]);
  }
  return names;
}

/**
 * The tool names a `search_tools` result lists. The content is the SearchToolsResult JSON as text (a string or
 * text blocks, possibly split over several), an MCP `structuredContent` object, or the object itself.
 */
function namesFromSearchResult(content: unknown, structuredContent: unknown): string[] {
  const structured = searchResultNames(structuredContent) ?? searchResultNames(content);
  if (structured !== undefined) return structured;
  const texts = contentTexts(content);
  if (texts.length === 0) return [];
  const whole = searchResultNames(parseJson(texts.join("")));
  if (whole !== undefined || texts.length === 1) return whole ?? [];
  const names: string[] = [];
  for (const text of texts) {
    for (const name of searchResultNames(parseJson(text)) ?? []) names.push(name);
  }
  return names;
}

class DiscoveryScan {
  /** Call id → the name of the latest call with that id seen so far. */
  private readonly calls = new Map<string, string>();
  /** Every use, in history order; a name may repeat. */
  readonly uses: string[] = [];
  private readonly searchToolName: string;

  constructor(searchToolName: string) {
    this.searchToolName = searchToolName;
  }

  call(id: unknown, name: unknown): void {
    if (isCallId(id) && typeof name === "string") this.calls.set(id, name);
  }

  result(id: unknown, content: unknown, structuredContent?: unknown): void {
    if (!isCallId(id)) return;
    const name = this.calls.get(id);
    if (name === undefined) return;
    if (name === this.searchToolName) {
      for (const found of namesFromSearchResult(content, structuredContent)) {
        if (found !== this.searchToolName) this.uses.push(found);
      }
    } else if (isToolName(name)) {
      this.uses.push(name);
    }
  }

  /** Anthropic Messages and MCP sampling content blocks. */
  blocks(content: unknown): void {
    const blocks: readonly unknown[] = Array.isArray(content) ? content : [content];
    for (const block of blocks) {
      if (!isRecord(block)) continue;
      if (block["type"] === "tool_use") this.call(block["id"], block["name"]);
      else if (block["type"] === "tool_result") {
        const id = block["tool_use_id"] ?? block["toolUseId"];
        this.result(id, block["content"], block["structuredContent"]);
      }
    }
  }

  message(message: unknown): void {
    if (!isRecord(message)) return;
    // OpenAI Responses input items.
    if (message["type"] === "function_call") {
      this.call(message["call_id"], message["name"]);
      return;
    }
    if (message["type"] === "function_call_output") {
      this.result(message["call_id"], message["output"]);
      return;
    }
    // Content blocks first: an Anthropic user message answers the previous turn's calls before anything else.
    if (isRecord(message["content"]) || Array.isArray(message["content"])) this.blocks(message["content"]);
    // OpenAI Chat calls.
    if (Array.isArray(message["tool_calls"])) {
      for (const call of message["tool_calls"] as readonly unknown[]) {
        if (isRecord(call) && isRecord(call["function"])) this.call(call["id"], call["function"]["name"]);
      }
    }
    // The design documents' calls.
    if (Array.isArray(message["toolCalls"])) {
      for (const call of message["toolCalls"] as readonly unknown[]) {
        if (isRecord(call)) this.call(call["id"], call["name"]);
      }
    }
    if (message["role"] === "tool") {
      // OpenAI Chat, then the design documents' result.
      if (message["tool_call_id"] !== undefined) this.result(message["tool_call_id"], message["content"]);
      else this.result(message["toolCallId"], message["content"]);
    }
  }
}

/** The last occurrence of each name, in order. Linear: one backward pass with a set. */
function lastOccurrences(names: readonly string[]): string[] {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (let index = names.length - 1; index >= 0; index--) {
    const name = names[index];
    if (name === undefined || seen.has(name)) continue;
    seen.add(name);
    kept.push(name);
  }
  return kept.toReversed();
}

/**
 * Names of tools discovered in `messages`, oldest first, each at its latest position: tools listed in a
 * `search_tools` result, and tools called whose result is present. Duplicates removed (last occurrence wins).
 * Touching them in this order into a DiscoveredSet leaves the most recently used one in front.
 */
export function extractDiscovered(messages: readonly unknown[], searchToolName: string = SEARCH_TOOLS_NAME): string[] {
  const scan = new DiscoveryScan(searchToolName);
  if (!Array.isArray(messages)) return [];
  for (const message of messages) scan.message(message);
  return lastOccurrences(scan.uses);
}

// ---------------------------------------------------------------------------------------------------------------
// The message shape of a history, for answering in the client's shape when it sends no tools.

/** Responses input items that are not messages: every `type` ending in `_call` or `_call_output`, and these. */
const RESPONSES_ITEM_TYPES: ReadonlySet<unknown> = new Set(["message", "reasoning", "item_reference"]);
/** Content part types only one shape uses. */
const RESPONSES_PART_TYPES: ReadonlySet<unknown> = new Set(["input_text", "output_text", "input_image", "input_file"]);
const OPENAI_PART_TYPES: ReadonlySet<unknown> = new Set(["image_url", "input_audio"]);
const ANTHROPIC_BLOCK_TYPES: ReadonlySet<unknown> = new Set(["thinking", "redacted_thinking", "document", "server_tool_use", "search_result"]);

interface ShapeEvidence {
  shape: ToolShape;
  /** A `tool_use` block in an array is Anthropic's, or MCP's with a result still to come: weak evidence. */
  strong: boolean;
}

function blockEvidence(block: unknown): ShapeEvidence | undefined {
  if (!isRecord(block)) return undefined;
  const type = block["type"];
  if (RESPONSES_PART_TYPES.has(type)) return { shape: "responses", strong: true };
  if (OPENAI_PART_TYPES.has(type)) return { shape: "openai", strong: true };
  if (ANTHROPIC_BLOCK_TYPES.has(type)) return { shape: "anthropic", strong: true };
  if (type === "tool_result") {
    if ("toolUseId" in block) return { shape: "mcp", strong: true };
    if ("tool_use_id" in block) return { shape: "anthropic", strong: true };
  }
  // Images and audio: Anthropic's carry a `source`, MCP's carry `data` and `mimeType`.
  if (type === "image" || type === "audio") {
    if ("source" in block) return { shape: "anthropic", strong: true };
    if ("mimeType" in block) return { shape: "mcp", strong: true };
  }
  if (type === "tool_use") return { shape: "anthropic", strong: false };
  return undefined;
}

function messageEvidence(message: unknown): ShapeEvidence | undefined {
  if (!isRecord(message)) return undefined;
  const type = message["type"];
  if (RESPONSES_ITEM_TYPES.has(type) || (typeof type === "string" && /_call(?:_output)?$/.test(type))) {
    return { shape: "responses", strong: true };
  }
  // (The design documents' `role: "tool"` messages carry `toolCallId`, not `tool_call_id`.)
  if (Array.isArray(message["tool_calls"]) || "tool_call_id" in message || message["role"] === "function" || "function_call" in message) {
    return { shape: "openai", strong: true };
  }
  const content = message["content"];
  // MCP sampling messages may hold one content block as an object; the other shapes hold a string or an array.
  if (isRecord(content)) return { shape: "mcp", strong: true };
  if (!Array.isArray(content)) return undefined;
  let weak: ShapeEvidence | undefined;
  for (const block of content as readonly unknown[]) {
    const evidence = blockEvidence(block);
    if (evidence?.strong) return evidence;
    weak ??= evidence;
  }
  return weak;
}

/**
 * The shape a history is written in, from what only one shape has: OpenAI Chat `tool_calls` / `role: "tool"` with
 * `tool_call_id` / `image_url` parts; OpenAI Responses items (`function_call`, `function_call_output`, `message`, …)
 * and `input_text` / `output_text` parts; Anthropic `tool_result` blocks with `tool_use_id`, `thinking`, images with a
 * `source`; MCP sampling content held as one object, `tool_result` with `toolUseId`. The first message that tells
 * decides; a bare `tool_use` block (Anthropic's, or MCP's) counts only when nothing else tells. Undefined when no
 * message tells (plain text turns fit every shape). The design documents' own shape is not a client shape: it tells
 * nothing. Linear in the number of messages and their content blocks.
 */
export function detectMessagesShape(messages: readonly unknown[]): ToolShape | undefined {
  if (!Array.isArray(messages)) return undefined;
  let weak: ShapeEvidence | undefined;
  for (const message of messages) {
    const evidence = messageEvidence(message);
    if (evidence?.strong) return evidence.shape;
    weak ??= evidence;
  }
  return weak?.shape;
}

// ---------------------------------------------------------------------------------------------------------------
// The latest thing the user said, for auto-discovery.

/**
 * The text of the latest user message that has text, in any shape: `role: "user"` with string content or text
 * blocks (OpenAI Chat `text`, Responses `input_text` in a `type: "message"` item or a bare role item, Anthropic and
 * MCP `text`, one MCP block held as an object); tool results, images and other blocks are skipped, so a user turn
 * that only answers tool calls (an agent loop) leaves the request that started it as the latest. At most `maxChars`
 * characters, the first ones: the search's cost stays bounded. Undefined when no user message has text.
 */
export function latestUserText(messages: readonly unknown[], maxChars: number): string | undefined {
  if (!Array.isArray(messages)) return undefined;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message: unknown = messages[index];
    if (!isRecord(message) || message["role"] !== "user") continue;
    const text = contentTexts(message["content"]).join("\n").trim();
    if (text !== "") return text.slice(0, maxChars);
  }
  return undefined;
}
