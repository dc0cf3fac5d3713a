// Pages of an upstream's registered tools (GET /v1/upstreams/:id): a server of 10,000 tools would otherwise answer
// megabytes. The cursor names the last tool shown by its place in the server's list and its name (the order the rows
// are kept in), so a page after a refresh neither repeats nor skips a tool that kept its place.

/** Tools one page shows when the caller asks for no limit, and the most it may ask for. */
export const TOOL_PAGE = Object.freeze({ defaultLimit: 500, maxLimit: 2_000, maxCursorChars: 1_024 });

/** Where a page starts: after the tool at this place with this name. */
export interface ToolPageStart {
  position: number;
  name: string;
}

function toBase64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): string | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

export function encodeToolCursor(start: ToolPageStart): string {
  return toBase64Url(JSON.stringify([start.position, start.name]));
}

/** The start a cursor names, or undefined for text no page gave (the route answers 400). */
export function decodeToolCursor(cursor: string): ToolPageStart | undefined {
  if (cursor.length === 0 || cursor.length > TOOL_PAGE.maxCursorChars) return undefined;
  const text = fromBase64Url(cursor);
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || value.length !== 2) return undefined;
  const [position, name]: unknown[] = value;
  if (typeof position !== "number" || !Number.isSafeInteger(position) || position < 0) return undefined;
  if (typeof name !== "string" || name.length === 0) return undefined;
  return { position, name };
}
