// The cursor of an upstream's tool pages: every start it encodes reads back the same, fits the URL as it is and
// under the cap; text no page gave is refused.
import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeToolCursor, encodeToolCursor, TOOL_PAGE } from "../../../src/core/upstream/toolPage.ts";

describe("tool page cursors", () => {
  it("read back every start they encode, URL-safe and under the cap (names of up to 256 characters, any Unicode)", () => {
    fc.assert(fc.property(
      fc.oneof(fc.nat(), fc.constant(Number.MAX_SAFE_INTEGER)),
      fc.string({ unit: "binary", minLength: 1, maxLength: 256 }),
      (position, name) => {
        const cursor = encodeToolCursor({ position, name });
        expect(cursor.length).toBeLessThanOrEqual(TOOL_PAGE.maxCursorChars);
        expect(encodeURIComponent(cursor)).toBe(cursor);
        expect(decodeToolCursor(cursor)).toEqual({ position, name });
      },
    ));
    // A name that starts with a byte order mark keeps it.
    expect(decodeToolCursor(encodeToolCursor({ position: 3, name: "\uFEFFx" }))).toEqual({ position: 3, name: "\uFEFFx" });
  });

  it.each([
    ["empty", ""],
    ["no name", "12."],
    ["no position", ".6563686f"],
    ["a negative position", "-1.6563686f"],
    ["a leading zero", "01.6563686f"],
    ["a position past the safe integers", "9999999999999999.61"],
    ["an odd number of hex digits", "3.656"],
    ["upper-case hex", "3.6F"],
    ["bytes that are not UTF-8", "3.ff"],
    ["past the cap", `1.${"61".repeat(TOOL_PAGE.maxCursorChars)}`],
  ])("refuses %s", (_label, text) => {
    expect(decodeToolCursor(text)).toBeUndefined();
  });
});
