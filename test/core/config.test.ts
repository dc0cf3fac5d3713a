import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ConfigError, DEFAULT_LIMITS, DISCOVERED_HARD_CAP, defaultConfig, discoveredLimit, parseConfig, parseConfigText,
} from "../../src/core/config.ts";

describe("config", () => {
  it("has the original design's defaults", () => {
    const config = defaultConfig();
    expect(config).toMatchObject({
      enabled: true,
      showToolNames: true,
      maxDirectTools: 5,
      maxSearchResults: 5,
      alwaysDirectTools: [],
      maxDiscoveredKeep: 20,
      searchMode: "substring",
      warmUp: true,
      locale: "en",
      registryVersionTtlMs: 5_000,
    });
    expect(config.limits).toEqual(DEFAULT_LIMITS);
  });

  it("reads every field over the defaults", () => {
    const config = parseConfigText(
      JSON.stringify({
        enabled: false,
        showToolNames: false,
        maxDirectTools: 0,
        maxSearchResults: 0,
        maxDiscoveredKeep: 0,
        alwaysDirectTools: ["web_search"],
        searchMode: "minisearch",
        warmUp: false,
        locale: "zh",
        sessionTtlDays: 7,
        authorityOverrides: { "tool:fetch_url": 0 },
        confirmOverrides: { "tool:send_email": "off" },
        deniedCapabilities: ["tool:delete_*"],
        limits: { maxQueryLength: 50, rateLimitPerMinute: 0 },
      }),
    );
    expect(config.enabled).toBe(false);
    expect(config.alwaysDirectTools).toEqual(["web_search"]);
    expect(config.searchMode).toBe("minisearch");
    expect(config.warmUp).toBe(false);
    expect(config.locale).toBe("zh");
    expect(config.authorityOverrides).toEqual({ "tool:fetch_url": 0 });
    expect(config.confirmOverrides).toEqual({ "tool:send_email": "off" });
    expect(config.deniedCapabilities).toEqual(["tool:delete_*"]);
    expect(config.limits.maxQueryLength).toBe(50);
    expect(config.limits.rateLimitPerMinute).toBe(0);
    expect(config.limits.maxBodyBytes).toBe(DEFAULT_LIMITS.maxBodyBytes);
  });

  it("treats a missing or blank variable as the defaults", () => {
    expect(parseConfigText(undefined)).toEqual(defaultConfig());
    expect(parseConfigText("  ")).toEqual(defaultConfig());
  });

  it.each([
    ["{", "TOOL_SEARCH_CONFIG"],
    ["[]", "TOOL_SEARCH_CONFIG"],
    ['{"maxDirectTools": -1}', "TOOL_SEARCH_CONFIG.maxDirectTools"],
    ['{"maxDirectTools": 1.5}', "TOOL_SEARCH_CONFIG.maxDirectTools"],
    ['{"enabled": "yes"}', "TOOL_SEARCH_CONFIG.enabled"],
    ['{"warmUp": 1}', "TOOL_SEARCH_CONFIG.warmUp"],
    ['{"searchMode": "fuzzy"}', "TOOL_SEARCH_CONFIG.searchMode"],
    ['{"locale": "fr"}', "TOOL_SEARCH_CONFIG.locale"],
    ['{"alwaysDirectTools": [1]}', "TOOL_SEARCH_CONFIG.alwaysDirectTools"],
    ['{"maxDirectTool": 3}', "TOOL_SEARCH_CONFIG.maxDirectTool"],
    ['{"authorityOverrides": {"fetch_url": 1}}', 'TOOL_SEARCH_CONFIG.authorityOverrides["fetch_url"]'],
    ['{"authorityOverrides": {"tool:github.create_issue": 1}}', 'TOOL_SEARCH_CONFIG.authorityOverrides["tool:github.create_issue"]'],
    ['{"confirmOverrides": {"tool:x": "never"}}', 'TOOL_SEARCH_CONFIG.confirmOverrides["tool:x"]'],
    ['{"limits": {"maxBodyBytes": 1}}', "TOOL_SEARCH_CONFIG.limits.maxBodyBytes"],
    ['{"limits": {"bogus": 1}}', "TOOL_SEARCH_CONFIG.limits.bogus"],
    ['{"sessionTtlDays": 0}', "TOOL_SEARCH_CONFIG.sessionTtlDays"],
    ['{"registryVersionTtlMs": -1}', "TOOL_SEARCH_CONFIG.registryVersionTtlMs"],
    ['{"registryVersionTtlMs": 60001}', "TOOL_SEARCH_CONFIG.registryVersionTtlMs"],
    ['{"registryVersionTtlMs": 1.5}', "TOOL_SEARCH_CONFIG.registryVersionTtlMs"],
    ['{"limits": {"maxSessionsPerPrincipal": -1}}', "TOOL_SEARCH_CONFIG.limits.maxSessionsPerPrincipal"],
    ['{"fetchUrl": []}', "TOOL_SEARCH_CONFIG.fetchUrl"],
    ['{"fetchUrl": {"allow": ["a.com"]}}', "TOOL_SEARCH_CONFIG.fetchUrl.allow"],
    ['{"fetchUrl": {"allowHosts": "a.com"}}', "TOOL_SEARCH_CONFIG.fetchUrl.allowHosts"],
    ['{"fetchUrl": {"allowHosts": []}}', "TOOL_SEARCH_CONFIG.fetchUrl.allowHosts"],
    ['{"fetchUrl": {"allowHosts": ["a.com", "https://b.com/"]}}', "TOOL_SEARCH_CONFIG.fetchUrl.allowHosts[1]"],
    ['{"fetchUrl": {"allowHosts": ["wiki.corp"]}}', "TOOL_SEARCH_CONFIG.fetchUrl.allowHosts[0]"],
    ['{"fetchUrl": {"allowHosts": ["*.internal"]}}', "TOOL_SEARCH_CONFIG.fetchUrl.allowHosts[0]"],
    ['{"fetchUrl": {"allowHosts": ["intranet"]}}', "TOOL_SEARCH_CONFIG.fetchUrl.allowHosts[0]"],
    ['{"fetchUrl": {"denyHosts": ["a.*.com"]}}', "TOOL_SEARCH_CONFIG.fetchUrl.denyHosts[0]"],
    ['{"fetchUrl": {"denyHosts": ["*"]}}', "TOOL_SEARCH_CONFIG.fetchUrl.denyHosts[0]"],
    ['{"fetchUrl": {"denyHosts": ["b\u00fccher.de"]}}', "TOOL_SEARCH_CONFIG.fetchUrl.denyHosts[0]"],
    ['{"fetchUrl": {"denyHosts": ["a.com:8080"]}}', "TOOL_SEARCH_CONFIG.fetchUrl.denyHosts[0]"],
    ['{"fetchUrl": {"denyHosts": [7]}}', "TOOL_SEARCH_CONFIG.fetchUrl.denyHosts[0]"],
  ])("rejects %s naming %s", (text, field) => {
    let caught: unknown;
    try {
      parseConfigText(text);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect(caught instanceof ConfigError ? caught.field : "").toBe(field);
    expect(caught instanceof ConfigError ? caught.message : "").toContain(field);
  });

  it("never throws anything but a ConfigError on arbitrary input", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        let caught: unknown;
        try {
          parseConfig(value);
        } catch (error) {
          caught = error;
        }
        return caught === undefined || caught instanceof ConfigError;
      }),
    );
  });

  it("reads fetchUrl's host lists: lower case, no trailing dot; wildcards only as a first label", () => {
    expect(defaultConfig().fetchUrl).toEqual({ denyHosts: [] });
    const config = parseConfig({
      fetchUrl: { allowHosts: ["Docs.Example.COM.", "*.com", "*.wikipedia.org", "xn--bcher-kva.de"], denyHosts: ["*.test"] },
    });
    expect(config.fetchUrl).toEqual({
      allowHosts: ["docs.example.com", "*.com", "*.wikipedia.org", "xn--bcher-kva.de"],
      denyHosts: ["*.test"],
    });
    // Denying a local name is allowed (and redundant); only the allow list refuses names that can never pass.
    expect(parseConfig({ fetchUrl: { denyHosts: ["*.corp", "router"] } }).fetchUrl.denyHosts).toEqual(["*.corp", "router"]);
  });

  it("bounds an unlimited discovered set by the hard cap, and a larger limit too", () => {
    expect(discoveredLimit({ maxDiscoveredKeep: 20 })).toBe(20);
    expect(discoveredLimit({ maxDiscoveredKeep: 0 })).toBe(DISCOVERED_HARD_CAP);
    expect(discoveredLimit({ maxDiscoveredKeep: DISCOVERED_HARD_CAP + 1 })).toBe(DISCOVERED_HARD_CAP);
  });
});

/** The field parseConfig names for a searchShards block, "accepted" when it takes it. */
function shardsProblem(searchShards: unknown): string {
  try {
    parseConfig({ searchShards });
  } catch (error) {
    if (error instanceof ConfigError) return error.field;
    throw error;
  }
  return "accepted";
}

describe("config searchShards", () => {
  it("is off by default, and read whole when given", () => {
    expect(defaultConfig().searchShards).toBeUndefined();
    expect(parseConfig({ searchShards: { aboveTools: 20_000, count: 8 } }).searchShards).toEqual({ aboveTools: 20_000, count: 8 });
  });

  it("refuses a block that is not whole, an unknown field or a count out of range, naming the field", () => {
    expect(shardsProblem(8)).toBe("TOOL_SEARCH_CONFIG.searchShards");
    expect(shardsProblem({ count: 8 })).toBe("TOOL_SEARCH_CONFIG.searchShards.aboveTools");
    expect(shardsProblem({ aboveTools: 10 })).toBe("TOOL_SEARCH_CONFIG.searchShards.count");
    expect(shardsProblem({ aboveTools: 10, count: 0 })).toBe("TOOL_SEARCH_CONFIG.searchShards.count");
    expect(shardsProblem({ aboveTools: 10, count: 65 })).toBe("TOOL_SEARCH_CONFIG.searchShards.count");
    expect(shardsProblem({ aboveTools: -1, count: 2 })).toBe("TOOL_SEARCH_CONFIG.searchShards.aboveTools");
    expect(shardsProblem({ aboveTools: 10, count: 2, shards: 3 })).toBe("TOOL_SEARCH_CONFIG.searchShards.shards");
  });
});

describe("config: semantic", () => {
  it("is absent by default, and reads either provider with its defaults", () => {
    expect(defaultConfig().semantic).toBeUndefined();
    expect(parseConfig({ semantic: { provider: "workers-ai", model: "@cf/baai/bge-m3" } }).semantic)
      .toEqual({ provider: "workers-ai", model: "@cf/baai/bge-m3", timeoutMs: 300, weight: 0.5 });
    expect(parseConfig({
      semantic: { provider: "openai-compatible", url: "https://api.example.com/v1/embeddings", model: "text-embedding-3-small", apiKeySecret: "OPENAI_API_KEY", timeoutMs: 800, weight: 0.3 },
    }).semantic).toEqual({
      provider: "openai-compatible", url: "https://api.example.com/v1/embeddings", model: "text-embedding-3-small", apiKeySecret: "OPENAI_API_KEY", timeoutMs: 800, weight: 0.3,
    });
  });

  it.each([
    [{ provider: "workers-ai", model: "m", weight: 1.5 }, "TOOL_SEARCH_CONFIG.semantic.weight"],
    [{ provider: "workers-ai", model: "m", apiKeySecret: "KEY" }, "TOOL_SEARCH_CONFIG.semantic.apiKeySecret"],
    [{ provider: "openai-compatible", model: "m" }, "TOOL_SEARCH_CONFIG.semantic.url"],
    [{ provider: "openai-compatible", model: "", url: "https://x/v1/embeddings" }, "TOOL_SEARCH_CONFIG.semantic.model"],
    [{ provider: "workers-ai", model: "m", timeoutMs: 300.5 }, "TOOL_SEARCH_CONFIG.semantic.timeoutMs"],
    ["workers-ai", "TOOL_SEARCH_CONFIG.semantic"],
  ])("refuses %j, naming %s", (semantic, field) => {
    expect(() => parseConfig({ semantic })).toThrow(ConfigError);
    expect(() => parseConfig({ semantic })).toThrow(field);
  });
});
