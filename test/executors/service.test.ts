import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { texts } from "../../src/core/locale.ts";
import type { ExecutorSpec } from "../../src/core/types.ts";
import { sanitizeSource } from "../../src/core/boundary/untrusted.ts";
import { configWith, jsonObject, run } from "./helpers.ts";

function service(spec: Partial<Extract<ExecutorSpec, { type: "service" }>> = {}): ExecutorSpec {
  return { type: "service", binding: "TOOL_REMOTE", path: "echo", untrusted: false, ...spec };
}

describe("service executor", () => {
  it("POSTs the JSON arguments to the bound Worker at the path", async () => {
    expect(typeof env.TOOL_REMOTE.fetch).toBe("function");
    const echoed = jsonObject(await run(service({ path: "/echo" }), { x: [1, "二"] }));
    expect(echoed).toMatchObject({ method: "POST", path: "/echo", body: { x: [1, "二"] } });
  });

  it("wraps the answer as untrusted content unless the definition says otherwise", async () => {
    const result = await run({ type: "service", binding: "TOOL_REMOTE", path: "echo" }, {});
    expect(result.startsWith(texts("en").untrustedBanner(sanitizeSource("service TOOL_REMOTE/echo")))).toBe(true);
  });

  it("reports a non-2xx answer, a timeout, an oversize and a binary answer", async () => {
    await expect(run(service({ path: "status/503" }), {})).rejects.toThrow("HTTP 503 from service TOOL_REMOTE");
    await expect(run(service({ path: "slow?ms=5000" }), {}, configWith({ executorTimeoutMs: 100 }))).rejects.toThrow(
      "timed out after 100 ms waiting for service TOOL_REMOTE",
    );
    await expect(run(service({ path: "big?bytes=50000" }), {}, configWith({ maxResponseBytes: 1024 }))).rejects.toThrow(
      "larger than 1024 bytes",
    );
    await expect(run(service({ path: "binary" }), {})).rejects.toThrow(/not text/);
  });

  it("only uses service bindings, never ASSETS", async () => {
    await expect(run(service({ binding: "ASSETS" }), {})).rejects.toThrow('binding "ASSETS" cannot be used by a tool');
    await expect(run(service({ binding: "SESSION" }), {})).rejects.toThrow('binding "SESSION" is not a service binding');
    await expect(run(service({ binding: "AUTH_JWT_SECRET" }), {})).rejects.toThrow("is not a service binding");
    await expect(run(service({ binding: "NOWHERE" }), {})).rejects.toThrow('service binding "NOWHERE" is not configured');
  });
});
