import { describe, expect, it } from "vitest";
import {
  canElicitForm, carriesProtocolVersion, completeResult, decodeHeaderValue, inputRequiredResult, META, readRequestMeta,
} from "../../../src/core/mcp/modern.ts";

const server = { name: "toolgate", version: "1" };

describe("readRequestMeta", () => {
  it("reads the version, capabilities, client and log level", () => {
    const meta = {
      [META.protocolVersion]: "2026-07-28",
      [META.clientCapabilities]: { elicitation: {} },
      [META.clientInfo]: { name: "c", version: "2" },
      [META.logLevel]: "warning",
      "toolgate/session": "s1",
    };
    expect(readRequestMeta({ _meta: meta })).toEqual({
      protocolVersion: "2026-07-28",
      clientCapabilities: { elicitation: {} },
      clientInfo: { name: "c", version: "2" },
      logLevel: "warning",
      all: meta,
    });
    expect(carriesProtocolVersion({ _meta: meta })).toBe(true);
    expect(carriesProtocolVersion({})).toBe(false);
  });

  it("names the problem of a missing or malformed field", () => {
    expect(readRequestMeta({})).toEqual({ problem: expect.stringContaining("params._meta is required") });
    expect(readRequestMeta({ _meta: { [META.protocolVersion]: 7 } })).toEqual({ problem: expect.stringContaining(META.protocolVersion) });
    expect(readRequestMeta({ _meta: { [META.protocolVersion]: "2026-07-28" } })).toEqual({ problem: expect.stringContaining(META.clientCapabilities) });
    const base = { [META.protocolVersion]: "2026-07-28", [META.clientCapabilities]: {} };
    expect(readRequestMeta({ _meta: { ...base, [META.clientInfo]: { name: "x" } } })).toEqual({ problem: expect.stringContaining(META.clientInfo) });
    expect(readRequestMeta({ _meta: { ...base, [META.logLevel]: "loud" } })).toEqual({ problem: expect.stringContaining(META.logLevel) });
  });
});

describe("results", () => {
  it("complete: resultType and the server's identity, keeping other _meta keys", () => {
    expect(completeResult({ tools: [], _meta: { other: 1 } }, server)).toEqual({
      tools: [], resultType: "complete", _meta: { other: 1, [META.serverInfo]: server },
    });
  });

  it("input_required: the requests and the state", () => {
    const request = { method: "elicitation/create", params: { message: "ok?" } };
    expect(inputRequiredResult({ a: request }, "state", server)).toEqual({
      resultType: "input_required", inputRequests: { a: request }, requestState: "state", _meta: { [META.serverInfo]: server },
    });
  });
});

describe("canElicitForm", () => {
  it("form mode, or the older empty object; never url alone or nothing", () => {
    expect(canElicitForm({ elicitation: { form: {} } })).toBe(true);
    expect(canElicitForm({ elicitation: {} })).toBe(true);
    expect(canElicitForm({ elicitation: { url: {} } })).toBe(false);
    expect(canElicitForm({})).toBe(false);
  });
});

describe("decodeHeaderValue", () => {
  it("passes plain values, decodes the Base64 sentinel, refuses what no header can hold", () => {
    expect(decodeHeaderValue("get_weather")).toBe("get_weather");
    expect(decodeHeaderValue("=?base64?SGVsbG8sIOS4lueVjA==?=")).toBe("Hello, 世界");
    expect(decodeHeaderValue("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=")).toBe("=?base64?literal?=");
    expect(decodeHeaderValue("=?base64?not base64?=")).toBeUndefined();
    expect(decodeHeaderValue("=?base64?/w==?=")).toBeUndefined();
    expect(decodeHeaderValue("line\nbreak")).toBeUndefined();
  });
});
