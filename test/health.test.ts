import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

describe("GET /v1/health", () => {
  // The first request of the file pays workerd's cold start (about 4 s on a loaded 2-core machine): a time limit
  // that only says the isolate started, not how fast health answers (the bench measures that).
  it("answers with the version", { timeout: 30_000 }, async () => {
    const response = await exports.default.fetch("http://toolgate.test/v1/health");
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ok: true });
  });
});
