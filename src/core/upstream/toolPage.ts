// Pages of an upstream's registered tools (GET /v1/upstreams/:id): a server of 10,000 tools would otherwise answer
// megabytes. The cursor names the last tool shown by its place in the server's list and its name (the order the rows
// are kept in), so a page after a refresh neither repeats nor skips a tool that kept its place.

/** Tools one page shows when the caller asks for no limit, and the most it may ask for; a cursor's longest text. */
export const TOOL_PAGE = Object.freeze({ defaultLimit: 500, maxLimit: 2_000, maxCursorChars: 2_048 });

/**
 * The same for the tools quarantine holds (`quarantineCursor`, `quarantineLimit`): each entry carries its diff (the
 * held definition beside the pinned one), so a page holds fewer; a refresh that changed thousands of tools would
 * otherwise answer them all at once.
 */
export const QUARANTINE_PAGE = Object.freeze({ defaultLimit: 100, maxLimit: 500 });

/** Where a page starts: after the tool at this place with this name. */
export interface ToolPageStart {
  position: number;
  name: string;
}

/** `<position>.<the name's UTF-8 bytes in hex>`: safe in a URL as it is, and opaque enough to be sent back as it came. */
export function encodeToolCursor(start: ToolPageStart): string {
  let hex = "";
  for (const byte of new TextEncoder().encode(start.name)) hex += byte.toString(16).padStart(2, "0");
  return `${start.position}.${hex}`;
}

/** The start a cursor names, or undefined for text no page gave (the route answers 400). */
export function decodeToolCursor(cursor: string): ToolPageStart | undefined {
  if (cursor.length > TOOL_PAGE.maxCursorChars) return undefined;
  const match = /^(0|[1-9][0-9]{0,15})\.((?:[0-9a-f]{2})+)$/.exec(cursor);
  if (match === null) return undefined;
  const position = Number(match[1]);
  if (!Number.isSafeInteger(position)) return undefined;
  const hex = match[2] ?? "";
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  try {
    return { position, name: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes) };
  } catch {
    return undefined;
  }
}
