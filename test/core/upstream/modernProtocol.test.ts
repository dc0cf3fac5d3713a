// The 2026-07-28 request shape toolgate sends upstream, how it reads answers (JSON, event streams, modern errors) and
// what an input_required answer becomes.
import { describe, expect, it } from "vitest";
import {
  answerTo,
  base64,
  describeInputRequired,
  eventStreamMessages,
  headerValue,
  isModernErrorBody,
  modernRequest,
  offersModern,
} from "../../../src/core/upstream/modernProtocol.ts";

describe("modernRequest", () => {
  it("carries the version, client and capabilities in _meta and mirrors method and tool name in headers", () => {
    const message = modernRequest(7, "tools/call", { name: "get_weather", arguments: { city: "Oslo" }, _meta: { traceparent: "t" } }, { name: "toolgate", version: "1" });
    expect(message.body).toEqual({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: {
        name: "get_weather",
        arguments: { city: "Oslo" },
        _meta: {
          traceparent: "t",
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "toolgate", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    });
    expect(message.headers).toMatchObject({ "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "get_weather" });
    expect(modernRequest(1, "tools/list", {}, { name: "t", version: "1" }).headers["mcp-name"]).toBeUndefined();
  });

  it("encodes a header value that is not plain printable ASCII with the Base64 sentinel", () => {
    expect(headerValue("plain_name-1.x")).toBe("plain_name-1.x");
    expect(headerValue("café")).toBe(`=?base64?${base64(new TextEncoder().encode("café"))}?=`);
    expect(headerValue(" padded")).toMatch(/^=\?base64\?.*\?=$/);
    expect(headerValue("a\r\nx-evil: 1")).toBe("=?base64?YQ0KeC1ldmlsOiAx?=");
    expect(base64(new TextEncoder().encode("hello"))).toBe("aGVsbG8=");
    expect(base64(new TextEncoder().encode("hell"))).toBe("aGVsbA==");
    expect(base64(new TextEncoder().encode("hel"))).toBe("aGVs");
  });
});

describe("reading answers", () => {
  it("knows a discover result that offers 2026-07-28 from one that does not", () => {
    expect(offersModern({ resultType: "complete", supportedVersions: ["2026-07-28"], capabilities: {} })).toBe(true);
    expect(offersModern({ supportedVersions: ["2025-11-25"] })).toBe(false);
    expect(offersModern({ protocolVersion: "2026-07-28" })).toBe(false);
    expect(offersModern(null)).toBe(false);
  });

  it("knows a modern error body (no fallback to initialize) from any other", () => {
    expect(isModernErrorBody({ jsonrpc: "2.0", id: 1, error: { code: -32022, message: "unsupported", data: { requested: "x", supported: [] } } })).toBe(true);
    expect(isModernErrorBody({ jsonrpc: "2.0", id: 1, error: { code: -32020, message: "header mismatch" } })).toBe(true);
    expect(isModernErrorBody({ jsonrpc: "2.0", id: null, error: { code: -32000, message: "Bad Request: Mcp-Session-Id header is required" } })).toBe(false);
    expect(isModernErrorBody("Bad Request")).toBe(false);
  });

  it("finds the answer to its request among an event stream's messages, skipping notifications and junk", () => {
    const stream = [
      'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{}}',
      "data: not json",
      'event: message\ndata: {"jsonrpc":"2.0","id":3,\ndata: "result":{"resultType":"complete","content":[]}}',
      "",
    ].join("\n\n");
    const messages = eventStreamMessages(stream);
    expect(messages).toHaveLength(2);
    expect(answerTo(messages, 3)).toEqual({ result: { resultType: "complete", content: [] } });
    expect(answerTo(messages, 4)).toBeUndefined();
    expect(answerTo([{ jsonrpc: "2.0", id: 4, error: { code: -32602, message: "bad" } }], 4)).toEqual({ error: { code: -32602, message: "bad" } });
  });
});

describe("describeInputRequired", () => {
  it("is undefined for a complete result, the field absent included (a 2025 server's result)", () => {
    expect(describeInputRequired({ resultType: "complete", content: [] })).toBeUndefined();
    expect(describeInputRequired({ content: [] })).toBeUndefined();
  });

  it("says what the server asked for: elicitation (form or URL), sampling, roots, and how many more", () => {
    const text = describeInputRequired({
      resultType: "input_required",
      inputRequests: {
        a: { method: "elicitation/create", params: { mode: "form", message: "Your name?", requestedSchema: { type: "object" } } },
        b: { method: "elicitation/create", params: { mode: "url", message: "Sign in", url: "https://auth.example/x" } },
        c: { method: "sampling/createMessage", params: { messages: [], maxTokens: 5 } },
        d: { method: "roots/list" },
        e: { method: "roots/list" },
        f: { method: "roots/list" },
        g: { method: "roots/list" },
      },
      requestState: "s",
    });
    expect(text).toContain('user input: "Your name?"');
    expect(text).toContain('user input at https://auth.example/x: "Sign in"');
    expect(text).toContain("a completion from the caller's model (sampling)");
    expect(text).toContain("the caller's roots");
    expect(text).toContain("2 more");
    expect(text).toContain("cannot pass an upstream server's input requests on to its caller yet");
  });

  it("bounds what the server's words take, and names a request state without input requests", () => {
    const long = describeInputRequired({ resultType: "input_required", inputRequests: { a: { method: "elicitation/create", params: { message: "x".repeat(10_000) } } } });
    expect(long?.length).toBeLessThan(700);
    expect(describeInputRequired({ resultType: "input_required", requestState: "s" })).toContain("only a request state");
  });
});
