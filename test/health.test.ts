import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

describe("GET /v1/health", () => {
  it("answers with the version", async () => {
    const response = await exports.default.fetch("http://toolgate.test/v1/health");
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ok: true });
  });
});
