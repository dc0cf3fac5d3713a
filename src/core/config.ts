// Gateway configuration (docs/configuration.md; docs/DESIGN.md, "Limits and bounds"), with its defaults,
// validated field by field.
import { HOST_PATTERN, isLocalName, MAX_HOST_LENGTH, normalizeHost } from "./boundary/hosts.ts";
import type { HostLists } from "./boundary/hosts.ts";
import { isRecord } from "./records.ts";
import type { ConfirmMode, Locale } from "./types.ts";

/** Every search mode, in a fixed order. */
export const SEARCH_MODES = ["substring", "minisearch"] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

/**
 * How the tool list changes within a session (what the provider's prompt cache keeps; docs/configuration.md, "The tool list and the prompt cache"):
 * - `grow`: the original design's list: `search_tools` (naming the tools not yet found), the always-direct tools, then the found
 *   tools in catalog order. Each discovery changes the name list and inserts a tool mid-list.
 * - `stable`: the name list covers every tool and never changes; found tools are appended in the order found.
 * - `fixed`: `search_tools`, `call_tool` and the always-direct tools, never changing; the model reads found tools'
 *   definitions in the search result and runs them through `call_tool`.
 */
export type ToolListMode = "grow" | "stable" | "fixed";
export const TOOL_LIST_MODES: readonly ToolListMode[] = ["grow", "stable", "fixed"];

export interface Limits {
  /** Largest request body, in bytes, on every route but bulk registration. */
  maxBodyBytes: number;
  /** Largest request body of `PUT /v1/tools` (bulk registration). */
  maxBulkBodyBytes: number;
  /** Most tools in one catalog (a prepare request's `tools`, a bulk registration, the registry). */
  maxTools: number;
  /** Longest `search_tools` query, in characters. */
  maxQueryLength: number;
  /** Most messages in one prepare request. */
  maxMessages: number;
  /** Longest external content handed to the model, in characters; the rest is cut with a visible note. */
  maxUntrustedChars: number;
  /** Largest executor answer read, in bytes. */
  maxResponseBytes: number;
  /** Default executor timeout, in milliseconds. */
  executorTimeoutMs: number;
  /** How long a pending confirmation or a grant stands, in seconds. */
  confirmationTtlSeconds: number;
  /** Calls per principal per minute, over every rate-limited route together (src/http/limits.ts; 0 = unlimited). */
  rateLimitPerMinute: number;
  /**
   * Live sessions per principal (0 = unlimited). Each session is a Durable Object that may hold a client catalog
   * (up to maxBodyBytes) until it has been idle for sessionTtlDays; past this many, a new session is refused (429).
   */
  maxSessionsPerPrincipal: number;
}

/** The MCP face at /mcp (src/mcp). */
export interface McpConfig {
  /**
   * Offer the `call_tool` meta-tool beside `search_tools` when the search layer applies, so that a model can run a
   * tool it found even when its client never re-lists tools after `notifications/tools/list_changed`.
   */
  callTool: boolean;
  /**
   * Origins (`scheme://host[:port]`, lower case) whose browser pages may call /mcp, besides the Worker's own origin
   * on a loopback or workers.dev host. A request with any other Origin answers 403 (DNS-rebinding protection).
   */
  allowedOrigins: string[];
}

/**
 * Auto-discovery (docs/configuration.md, "Auto-discovery"): prepare searches the latest user message and sends the best tools
 * directly in that turn, so that the model may skip a search_tools round trip. Off when `topK` is 0.
 */
export interface AutoDiscoverConfig {
  /** Most tools sent per turn, 0 to 10 (0 = off). */
  topK: number;
  /**
   * The floor on a tool's relevance (0 to 1: the rarity of the message's words the tool matches, in units of a word
   * only one tool holds; ScoredMatch in src/core/search/types.ts). Only tools at or above it are sent.
   */
  minScore: number;
}

/**
 * Registry search split over Durable Objects (docs/scaling.md, "Past one isolate"): past `aboveTools` registry tools,
 * each isolate searches `count` shards, each holding the index of a part of the registry, instead of an index of its
 * own; the ranking is the same. Off (undefined) by default.
 */
export interface SearchShardsConfig {
  /** Sharded when the registry holds more tools than this (at or below it, nothing changes). */
  aboveTools: number;
  /** How many shards (parts of the registry), 1 to MAX_SEARCH_SHARDS. */
  count: number;
}

/** The most search shards: each search asks every shard two or three times. */
export const MAX_SEARCH_SHARDS = 64;

function searchShardsSettings(value: unknown, field: string): SearchShardsConfig {
  if (!isRecord(value)) throw new ConfigError(field, "must be an object: {aboveTools, count}");
  const settings: Partial<SearchShardsConfig> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === "aboveTools") settings.aboveTools = integer(v, `${field}.aboveTools`, 0, 10_000_000);
    else if (key === "count") settings.count = integer(v, `${field}.count`, 1, MAX_SEARCH_SHARDS);
    else throw new ConfigError(`${field}.${key}`, "unknown field; known: aboveTools, count");
  }
  if (settings.aboveTools === undefined) throw new ConfigError(`${field}.aboveTools`, "is required");
  if (settings.count === undefined) throw new ConfigError(`${field}.count`, "is required");
  return { aboveTools: settings.aboveTools, count: settings.count };
}

/** The most tools auto-discovery may send in one turn. */
export const MAX_AUTO_DISCOVER = 10;
/** The default relevance floor (bench: `npm run bench -- --auto-discover`; docs/configuration.md, "Auto-discovery"). */
export const DEFAULT_AUTO_DISCOVER_MIN_SCORE = 0.8;

/**
 * Learning from calls (docs/search.md, "Learning from calls"): a tool that a search showed and the model then called,
 * the guard allowing it, learns the search's terms as a field of its own that moves ranks. Off by default.
 */
export interface LearningConfig {
  enabled: boolean;
  /** Distinct principals a term needs before it counts for a tool (1 to 1,000). */
  minPrincipals: number;
  /** Evidence halves in weight every this many days (1 to 3,650). */
  halfLifeDays: number;
  /** Most learned terms per tool (1 to 256). */
  maxTermsPerTool: number;
  /** The evidence is folded into ranking at most this often, unless the owner applies it (10 to 86,400). */
  applyEverySeconds: number;
}

export const DEFAULT_LEARNING: Readonly<LearningConfig> = Object.freeze({
  enabled: false,
  minPrincipals: 3,
  halfLifeDays: 30,
  maxTermsPerTool: 32,
  applyEverySeconds: 300,
});

const LEARNING_RANGES: Readonly<Record<Exclude<keyof LearningConfig, "enabled">, [number, number]>> = {
  minPrincipals: [1, 1_000],
  halfLifeDays: [1, 3_650],
  maxTermsPerTool: [1, 256],
  applyEverySeconds: [10, 86_400],
};

function isLearningNumber(key: string): key is keyof typeof LEARNING_RANGES {
  return Object.hasOwn(LEARNING_RANGES, key);
}

function learningSettings(value: unknown, field: string): LearningConfig {
  if (!isRecord(value)) throw new ConfigError(field, "must be an object: {enabled?, minPrincipals?, halfLifeDays?, maxTermsPerTool?, applyEverySeconds?}");
  const settings: LearningConfig = { ...DEFAULT_LEARNING };
  for (const [key, v] of Object.entries(value)) {
    if (key === "enabled") settings.enabled = boolean(v, `${field}.enabled`);
    else if (isLearningNumber(key)) {
      const [min, max] = LEARNING_RANGES[key];
      settings[key] = integer(v, `${field}.${key}`, min, max);
    } else throw new ConfigError(`${field}.${key}`, `unknown field; known: enabled, ${Object.keys(LEARNING_RANGES).join(", ")}`);
  }
  return settings;
}

export interface GatewayConfig {
  enabled: boolean;
  showToolNames: boolean;
  maxDirectTools: number;
  /** 0 = unlimited. */
  maxSearchResults: number;
  alwaysDirectTools: string[];
  /** 0 = unlimited. */
  maxDiscoveredKeep: number;
  searchMode: SearchMode;
  /**
   * Run the search mode's code once at each isolate's start, on a small built-in catalog (src/core/turn/warmUp.ts),
   * so that an isolate's first request does not pay for running it the first time. On by default.
   */
  warmUp: boolean;
  /** How the tool list changes within a session (see ToolListMode). */
  toolList: ToolListMode;
  /**
   * Answer prepare in the Anthropic and OpenAI Responses shapes with the provider's own tool search and every tool
   * deferred (`defer_loading`), rather than search_tools (src/core/turn/nativeDeferral.ts). Off by default: it needs a
   * model that supports it, and the provider's search then decides what is loaded.
   */
  nativeDeferral: boolean;
  /** Tools sent in a turn because the latest user message matches them (see AutoDiscoverConfig); off by default. */
  autoDiscover: AutoDiscoverConfig;
  /** Registry search over shards past a registry size (see SearchShardsConfig); undefined: off. */
  searchShards?: SearchShardsConfig;
  /** Learning from calls (see LearningConfig); off by default. */
  learning: LearningConfig;
  locale: Locale;
  sessionTtlDays: number;
  /**
   * How long an isolate trusts the registry version it last read before asking the registry object again
   * (milliseconds, 0 = every request). Bounds how stale another isolate's view of a registry change may be; the
   * isolate that served the owner's write knows the new version at once.
   */
  registryVersionTtlMs: number;
  /**
   * Usage figures are summed in the isolate and sent to the principal's object at most once per this many
   * milliseconds per principal (0 = after every request): one RPC per batch, off the answer's path.
   */
  usageFlushMs: number;
  /** `tool:<name>` → minimum level. */
  authorityOverrides: Record<string, number>;
  /** `tool:<name>` → confirmation mode. */
  confirmOverrides: Record<string, ConfirmMode>;
  /** Glob patterns over `tool:<name>` (`*` any run, `?` one character) that nobody may run, the owner included. */
  deniedCapabilities: string[];
  /** The owner's host lists for fetch_url (on top of its built-in refusals of local and private addresses). */
  fetchUrl: HostLists;
  mcp: McpConfig;
  limits: Limits;
  /** Embeddings from a provider fused into ranked search (see SemanticConfig); absent = the built-in ranking alone. */
  semantic?: SemanticConfig;
}

export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  maxBodyBytes: 1024 * 1024,
  maxBulkBodyBytes: 32 * 1024 * 1024,
  maxTools: 50_000,
  maxQueryLength: 2_000,
  maxMessages: 2_000,
  maxUntrustedChars: 100_000,
  maxResponseBytes: 2 * 1024 * 1024,
  executorTimeoutMs: 10_000,
  confirmationTtlSeconds: 600,
  rateLimitPerMinute: 600,
  maxSessionsPerPrincipal: 1_000,
});

/**
 * `maxDiscoveredKeep: 0` means unlimited, but a session's set is stored as one value: past this many names it would
 * outgrow what one storage value holds, so "unlimited" stops here.
 */
export const DISCOVERED_HARD_CAP = 10_000;

/** The bound a discovered set actually keeps. */
export function discoveredLimit(config: Pick<GatewayConfig, "maxDiscoveredKeep">): number {
  return config.maxDiscoveredKeep === 0 ? DISCOVERED_HARD_CAP : Math.min(config.maxDiscoveredKeep, DISCOVERED_HARD_CAP);
}

/** The default staleness bound of an isolate's registry version (docs/scaling.md). */
export const DEFAULT_REGISTRY_VERSION_TTL_MS = 5_000;
/** The largest accepted: seconds, not minutes. */
export const MAX_REGISTRY_VERSION_TTL_MS = 60_000;

export function defaultConfig(): GatewayConfig {
  return {
    enabled: true,
    showToolNames: true,
    maxDirectTools: 5,
    maxSearchResults: 5,
    alwaysDirectTools: [],
    maxDiscoveredKeep: 20,
    searchMode: "substring",
    warmUp: true,
    // "fixed": the list never changes, so the provider's prefix cache holds the whole conversation (bench: the
    // conversation section bills the least of the three, and its first turn is no larger than "grow"'s).
    toolList: "fixed",
    nativeDeferral: false,
    autoDiscover: { topK: 0, minScore: DEFAULT_AUTO_DISCOVER_MIN_SCORE },
    learning: { ...DEFAULT_LEARNING },
    locale: "en",
    sessionTtlDays: 30,
    registryVersionTtlMs: DEFAULT_REGISTRY_VERSION_TTL_MS,
    usageFlushMs: 1_000,
    authorityOverrides: {},
    confirmOverrides: {},
    deniedCapabilities: [],
    fetchUrl: { denyHosts: [] },
    mcp: { callTool: true, allowedOrigins: [] },
    limits: { ...DEFAULT_LIMITS },
  };
}

/** A configuration value is wrong; `field` names it (e.g. `TOOL_SEARCH_CONFIG.maxDirectTools`). */
export class ConfigError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.name = "ConfigError";
    this.field = field;
  }
}

function integer(value: unknown, field: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(field, `must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return value;
}

function boolean(value: unknown, field: string): boolean {
  if (typeof value !== "boolean") throw new ConfigError(field, `must be true or false, got ${JSON.stringify(value)}`);
  return value;
}

function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[]): T {
  const match = allowed.find((a) => a === value);
  if (match === undefined) {
    throw new ConfigError(field, `must be one of ${allowed.map((a) => `"${a}"`).join(", ")}, got ${JSON.stringify(value)}`);
  }
  return match;
}

function stringList(value: unknown, field: string): string[] {
  const list: unknown[] = Array.isArray(value) ? value : [];
  const strings = list.filter((v): v is string => typeof v === "string" && v.length > 0);
  if (!Array.isArray(value) || strings.length !== list.length) {
    throw new ConfigError(field, "must be an array of non-empty strings");
  }
  return strings;
}

/** `tool:` and a catalog name (toolNames.ts): a source's spelling such as `a.b` never names a tool here. */
const CAPABILITY_KEY = /^tool:[a-zA-Z0-9_-]{1,64}$/;

function capabilityMap<T>(value: unknown, field: string, read: (v: unknown, f: string) => T): Record<string, T> {
  if (!isRecord(value)) throw new ConfigError(field, "must be an object keyed by `tool:<name>`");
  const out: Record<string, T> = {};
  for (const [key, v] of Object.entries(value)) {
    if (!CAPABILITY_KEY.test(key)) throw new ConfigError(`${field}["${key}"]`, "key must look like `tool:<name>`, the tool's catalog name (letters, digits, _ and -; a dotted name is fitted: use the name GET /v1/tools shows)");
    out[key] = read(v, `${field}["${key}"]`);
  }
  return out;
}

/** Most patterns in one of fetchUrl's host lists. */
export const MAX_HOST_PATTERNS = 1_000;

function hostPatterns(value: unknown, field: string, allowList: boolean): string[] {
  if (!Array.isArray(value)) throw new ConfigError(field, "must be an array of host names (`example.com`, `*.example.com`)");
  if (value.length > MAX_HOST_PATTERNS) throw new ConfigError(field, `must have at most ${MAX_HOST_PATTERNS} entries`);
  if (allowList && value.length === 0) {
    throw new ConfigError(field, "must not be empty (leave it out to allow every public host; deny fetch_url with deniedCapabilities)");
  }
  return value.map((entry: unknown, index) => {
    const at = `${field}[${index}]`;
    if (typeof entry !== "string") throw new ConfigError(at, "must be a string");
    const pattern = normalizeHost(entry.trim());
    if (pattern.length > MAX_HOST_LENGTH || !HOST_PATTERN.test(pattern)) {
      throw new ConfigError(
        at,
        `${JSON.stringify(entry)} is not a host name or \`*.\` followed by one (ASCII, IDNs in their xn-- form; no scheme, port or path)`,
      );
    }
    // An allowed name that fetch_url always refuses would never pass: say so now rather than at the first fetch.
    const example = pattern.startsWith("*.") ? `x${pattern.slice(1)}` : pattern;
    if (allowList && isLocalName(example)) {
      throw new ConfigError(at, `${JSON.stringify(entry)} is a local or special-use name, which fetch_url always refuses`);
    }
    return pattern;
  });
}

function fetchUrlLists(value: unknown, field: string): HostLists {
  if (!isRecord(value)) throw new ConfigError(field, "must be an object: {allowHosts?, denyHosts?}");
  const lists: HostLists = { denyHosts: [] };
  for (const [key, v] of Object.entries(value)) {
    if (key === "allowHosts") lists.allowHosts = hostPatterns(v, `${field}.allowHosts`, true);
    else if (key === "denyHosts") lists.denyHosts = hostPatterns(v, `${field}.denyHosts`, false);
    else throw new ConfigError(`${field}.${key}`, "unknown field; known: allowHosts, denyHosts");
  }
  return lists;
}

/** `scheme://host[:port]` and nothing else: no path, no trailing slash, no wildcard, no credentials. */
const ORIGIN_PATTERN = /^[a-z][a-z0-9+.-]*:\/\/[^/\s*?#@]+$/;

function mcpSettings(value: unknown, field: string): McpConfig {
  if (!isRecord(value)) throw new ConfigError(field, "must be an object: {callTool?, allowedOrigins?}");
  const mcp: McpConfig = { callTool: true, allowedOrigins: [] };
  for (const [key, v] of Object.entries(value)) {
    if (key === "callTool") mcp.callTool = boolean(v, `${field}.callTool`);
    else if (key === "allowedOrigins") {
      mcp.allowedOrigins = stringList(v, `${field}.allowedOrigins`).map((origin, index) => {
        const normalized = origin.trim().toLowerCase();
        if (!ORIGIN_PATTERN.test(normalized)) {
          throw new ConfigError(`${field}.allowedOrigins[${index}]`, `${JSON.stringify(origin)} is not an origin (scheme://host[:port])`);
        }
        return normalized;
      });
    } else throw new ConfigError(`${field}.${key}`, "unknown field; known: callTool, allowedOrigins");
  }
  return mcp;
}

function autoDiscoverSettings(value: unknown, field: string): AutoDiscoverConfig {
  if (!isRecord(value)) throw new ConfigError(field, "must be an object: {topK?, minScore?}");
  const settings: AutoDiscoverConfig = { topK: 0, minScore: DEFAULT_AUTO_DISCOVER_MIN_SCORE };
  for (const [key, v] of Object.entries(value)) {
    if (key === "topK") settings.topK = integer(v, `${field}.topK`, 0, MAX_AUTO_DISCOVER);
    else if (key === "minScore") {
      if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || v > 1) {
        throw new ConfigError(`${field}.minScore`, `must be a number from 0 to 1, got ${JSON.stringify(v)}`);
      }
      settings.minScore = v;
    } else throw new ConfigError(`${field}.${key}`, "unknown field; known: topK, minScore");
  }
  return settings;
}

// `semantic`: an embeddings provider (docs/search.md, "Embeddings providers"). Tools' vectors are computed when
// they are stored and kept with them; each search embeds its query, within timeoutMs, else ranks lexically.
// `weight`: the vector ranking's share in the fusion (0 to 1; 0.5 = as much as the lexical ranking).
export type SemanticConfig =
  | { provider: "workers-ai"; model: string; timeoutMs: number; weight: number }
  | { provider: "openai-compatible"; url: string; model: string; apiKeySecret?: string; timeoutMs: number; weight: number };

/** How long a search waits for its query's vector by default (milliseconds). */
export const DEFAULT_SEMANTIC_TIMEOUT_MS = 300;
/** The vector ranking's default share in the fusion: as much as the lexical ranking's. */
export const DEFAULT_SEMANTIC_WEIGHT = 0.5;
/** A Worker variable or secret name (the key of an OpenAI-compatible endpoint is read from one). */
const SECRET_NAME = /^[A-Z][A-Z0-9_]{0,127}$/;
/** `http(s)://host[:port]` and a path, no credentials (the core has no URL class; fetch parses it again). */
const ENDPOINT_URL = /^https?:\/\/[a-zA-Z0-9.-]+(:\d{1,5})?(\/[^\s#]*)?$/;

function semanticSettings(value: unknown, field: string): SemanticConfig {
  if (!isRecord(value)) throw new ConfigError(field, 'must be an object: {provider: "workers-ai", model} or {provider: "openai-compatible", url, model, apiKeySecret?}');
  const provider = oneOf(value.provider, `${field}.provider`, ["workers-ai", "openai-compatible"] as const);
  const known = ["provider", "model", ...(provider === "workers-ai" ? [] : ["url", "apiKeySecret"]), "timeoutMs", "weight"];
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) throw new ConfigError(`${field}.${key}`, `unknown field for provider "${provider}"; known: ${known.join(", ")}`);
  }
  const model = value.model;
  if (typeof model !== "string" || model.trim() === "" || model.length > 256) {
    throw new ConfigError(`${field}.model`, `must be the model's name (1 to 256 characters), got ${JSON.stringify(model)}`);
  }
  const timeoutMs = value.timeoutMs === undefined ? DEFAULT_SEMANTIC_TIMEOUT_MS : integer(value.timeoutMs, `${field}.timeoutMs`, 10, 60_000);
  const weight = value.weight ?? DEFAULT_SEMANTIC_WEIGHT;
  if (typeof weight !== "number" || !Number.isFinite(weight) || weight < 0 || weight > 1) {
    throw new ConfigError(`${field}.weight`, `must be a number from 0 to 1, got ${JSON.stringify(weight)}`);
  }
  if (provider === "workers-ai") return { provider, model, timeoutMs, weight };
  const url = value.url;
  if (typeof url !== "string" || url.length > 2_048 || !ENDPOINT_URL.test(url)) {
    throw new ConfigError(`${field}.url`, `must be the endpoint's http(s) URL without credentials (e.g. https://host/v1/embeddings), got ${JSON.stringify(url)}`);
  }
  const secret = value.apiKeySecret;
  if (secret !== undefined && (typeof secret !== "string" || !SECRET_NAME.test(secret))) {
    throw new ConfigError(`${field}.apiKeySecret`, `must name the Worker secret that holds the key (A-Z, 0-9, _), got ${JSON.stringify(secret)}`);
  }
  return { provider, url, model, timeoutMs, weight, ...(secret === undefined ? {} : { apiKeySecret: secret }) };
}

const LIMIT_RANGES: Record<keyof Limits, [number, number]> = {
  maxBodyBytes: [1024, 100 * 1024 * 1024],
  maxBulkBodyBytes: [1024, 100 * 1024 * 1024],
  maxTools: [1, 1_000_000],
  maxQueryLength: [1, 100_000],
  maxMessages: [1, 1_000_000],
  maxUntrustedChars: [100, 10_000_000],
  maxResponseBytes: [1024, 100 * 1024 * 1024],
  executorTimeoutMs: [1, 300_000],
  confirmationTtlSeconds: [1, 30 * 86_400],
  rateLimitPerMinute: [0, 1_000_000],
  maxSessionsPerPrincipal: [0, 1_000_000],
};

function isLimitName(name: string): name is keyof Limits {
  return Object.hasOwn(LIMIT_RANGES, name);
}

/**
 * Reads a configuration object (already JSON-parsed) over the defaults. Unknown fields are errors, so that a typo
 * never silently falls back to a default. `prefix` names the variable in error messages.
 */
export function parseConfig(input: unknown, prefix = "TOOL_SEARCH_CONFIG"): GatewayConfig {
  const config = defaultConfig();
  if (input === undefined) return config;
  if (!isRecord(input)) throw new ConfigError(prefix, "must be a JSON object");
  for (const [key, value] of Object.entries(input)) {
    const field = `${prefix}.${key}`;
    switch (key) {
      case "enabled":
      case "showToolNames":
      case "nativeDeferral":
      case "warmUp":
        config[key] = boolean(value, field);
        break;
      case "maxDirectTools":
      case "maxSearchResults":
      case "maxDiscoveredKeep":
        config[key] = integer(value, field, 0, 100_000);
        break;
      case "sessionTtlDays":
        config.sessionTtlDays = integer(value, field, 1, 3650);
        break;
      case "registryVersionTtlMs":
        config.registryVersionTtlMs = integer(value, field, 0, MAX_REGISTRY_VERSION_TTL_MS);
        break;
      case "usageFlushMs":
        config.usageFlushMs = integer(value, field, 0, 10_000);
        break;
      case "alwaysDirectTools":
        config.alwaysDirectTools = stringList(value, field);
        break;
      case "deniedCapabilities":
        config.deniedCapabilities = stringList(value, field);
        break;
      case "searchMode":
        config.searchMode = oneOf(value, field, SEARCH_MODES);
        break;
      case "toolList":
        config.toolList = oneOf(value, field, TOOL_LIST_MODES);
        break;
      case "locale":
        config.locale = oneOf(value, field, ["en", "zh"] as const);
        break;
      case "authorityOverrides":
        config.authorityOverrides = capabilityMap(value, field, (v, f) => integer(v, f, -1, 1_000_000));
        break;
      case "confirmOverrides":
        config.confirmOverrides = capabilityMap(value, field, (v, f) => oneOf(v, f, ["off", "session", "always"] as const));
        break;
      case "fetchUrl":
        config.fetchUrl = fetchUrlLists(value, field);
        break;
      case "mcp":
        config.mcp = mcpSettings(value, field);
        break;
      case "autoDiscover":
        config.autoDiscover = autoDiscoverSettings(value, field);
        break;
      case "searchShards":
        config.searchShards = searchShardsSettings(value, field);
        break;
      case "learning":
        config.learning = learningSettings(value, field);
        break;
      case "semantic":
        config.semantic = semanticSettings(value, field);
        break;
      case "limits": {
        if (!isRecord(value)) throw new ConfigError(field, "must be an object");
        for (const [limit, v] of Object.entries(value)) {
          if (!isLimitName(limit)) {
            throw new ConfigError(`${field}.${limit}`, `unknown limit; known: ${Object.keys(LIMIT_RANGES).join(", ")}`);
          }
          const [min, max] = LIMIT_RANGES[limit];
          config.limits[limit] = integer(v, `${field}.${limit}`, min, max);
        }
        break;
      }
      default:
        throw new ConfigError(field, "unknown field");
    }
  }
  return config;
}

/** Parses the JSON text of a variable, then its fields. */
export function parseConfigText(text: string | undefined, variable = "TOOL_SEARCH_CONFIG"): GatewayConfig {
  if (text === undefined || text.trim() === "") return defaultConfig();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(variable, `is not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  return parseConfig(parsed, variable);
}
