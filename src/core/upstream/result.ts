// An upstream's tools/call result → the text toolgate hands the model (a tool result is text, in every shape toolgate
// answers in). Text comes through as it is (the executor wraps it as untrusted); images, audio and binary resources
// are named with their type and size, not inlined (a model reading base64 learns nothing and pays for every byte);
// embedded text resources keep their text; `structuredContent` is given as JSON when no text block carries it already.
import { isRecord } from "../records.ts";

/** Bytes a base64 text decodes to. */
function decodedBytes(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding);
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function blockText(block: unknown): string {
  if (!isRecord(block)) return "";
  switch (block.type) {
    case "text":
      return text(block.text);
    case "image":
    case "audio":
      return `[${block.type} ${text(block.mimeType) || "of unknown type"}, ${decodedBytes(text(block.data))} bytes, not shown]`;
    case "resource": {
      const resource = isRecord(block.resource) ? block.resource : {};
      const uri = text(resource.uri);
      if (typeof resource.text === "string") return `[resource ${uri}]\n${resource.text}`;
      return `[resource ${uri} (${text(resource.mimeType) || "binary"}), ${decodedBytes(text(resource.blob))} bytes, not shown]`;
    }
    case "resource_link": {
      const description = text(block.description);
      return `[resource link ${text(block.name) || text(block.uri)}: ${text(block.uri)}${description ? ` (${description})` : ""}]`;
    }
    default:
      return `[content of type ${JSON.stringify(block.type).slice(0, 40)}, not shown]`;
  }
}

/** The result's text: its blocks one after the other, then its structured content unless a text block already holds it. */
export function resultText(result: { content?: unknown; structuredContent?: unknown }): string {
  const blocks = Array.isArray(result.content) ? result.content : [];
  const parts = blocks.map(blockText).filter((part) => part !== "");
  const hasText = blocks.some((block) => isRecord(block) && block.type === "text");
  if (isRecord(result.structuredContent) && !hasText) parts.push(JSON.stringify(result.structuredContent));
  return parts.join("\n\n");
}

/** What an upstream's object answers the `mcp` executor: the server's result, or why there is none. */
export interface UpstreamToolResult {
  content: unknown[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export type UpstreamCallOutcome =
  | { ok: true; result: UpstreamToolResult }
  /** `fromUpstream`: the error's text may hold the server's own words (wrapped as untrusted before the model reads it). */
  | { ok: false; error: string; fromUpstream?: boolean; signIn?: SignInNeeded };

/**
 * The caller has no usable grant to an OAuth upstream (never signed in, revoked, expired): the call was not sent.
 * `url` is the sign-in link the Worker made for this caller (absent until then).
 */
export interface SignInNeeded {
  upstream: string;
  url?: string;
  /** Epoch ms after which the link is refused. */
  expiresAt?: number;
}
