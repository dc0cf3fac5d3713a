// The isolate's start (src/isolate/warmUp.ts): the configured search mode warmed, unless the configuration says not to.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import minisearchSnapshot from "../../src/core/turn/warmUp.minisearch.bin";
import substringSnapshot from "../../src/core/turn/warmUp.substring.bin";
import { provideWarmUpSnapshots } from "../../src/core/turn/warmUp.ts";
import { warmUpIsolate } from "../../src/isolate/warmUp.ts";

describe("an isolate's warm-up", () => {
  it("runs at the configured mode unless the configuration turns it off, and not on settings that do not load", async () => {
    provideWarmUpSnapshots((mode) => (mode === "minisearch" ? minisearchSnapshot : substringSnapshot));
    expect(await warmUpIsolate({ ...env, TOOL_SEARCH_CONFIG: JSON.stringify({ searchMode: "minisearch" }) })).toEqual({ ok: true, searches: 8, prepares: 2 });
    expect(await warmUpIsolate({ ...env, TOOL_SEARCH_CONFIG: JSON.stringify({ warmUp: false }) })).toBeUndefined();
    expect(await warmUpIsolate({ ...env, TOOL_SEARCH_CONFIG: "{" })).toBeUndefined();
  });

});
