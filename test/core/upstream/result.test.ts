import { describe, expect, it } from "vitest";
import { resultText } from "../../../src/core/upstream/result.ts";

describe("resultText", () => {
  it("gives text as it is and names binary content with its type and size", () => {
    expect(resultText({
      content: [
        { type: "text", text: "hello" },
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
        { type: "audio", data: "AAAA", mimeType: "audio/wav" },
        { type: "resource", resource: { uri: "file:///a.txt", text: "inside" } },
        { type: "resource", resource: { uri: "file:///b.bin", blob: "AAAAAA==", mimeType: "application/zip" } },
        { type: "resource_link", uri: "https://x.example/doc", name: "doc", description: "a doc" },
        { type: "hologram" },
      ],
    }).split("\n\n")).toEqual([
      "hello",
      "[image image/png, 8 bytes, not shown]",
      "[audio audio/wav, 3 bytes, not shown]",
      "[resource file:///a.txt]\ninside",
      "[resource file:///b.bin (application/zip), 4 bytes, not shown]",
      "[resource link doc: https://x.example/doc (a doc)]",
      '[content of type "hologram", not shown]',
    ]);
  });

  it("gives structured content as JSON unless a text block already carries it", () => {
    expect(resultText({ content: [], structuredContent: { a: 1 } })).toBe('{"a":1}');
    expect(resultText({ content: [{ type: "text", text: '{"a":1}' }], structuredContent: { a: 1 } })).toBe('{"a":1}');
    expect(resultText({})).toBe("");
  });
});
