// Shared by the executor tests: a runner over the test env, tool entries, and base64url for the remote /text route.
import { env } from "cloudflare:workers";
import { defaultConfig, type GatewayConfig, type Limits } from "../../src/core/config.ts";
import type { ExecutorSpec, RegisteredTool } from "../../src/core/types.ts";
import { createExecutorRunner } from "../../src/executors/index.ts";

/** Any host works: every outbound fetch of the Worker under test lands on the remote worker. */
export const REMOTE = "https://remote.test";

export function base64Url(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function textUrl(text: string, type?: string): string {
  return `${REMOTE}/text?b64=${base64Url(text)}${type ? `&type=${encodeURIComponent(type)}` : ""}`;
}

export function registered(executor: ExecutorSpec, name = "t"): RegisteredTool {
  return { definition: { name, description: "d", parameters: { type: "object" }, executor }, contextId: "test" };
}

export function configWith(limits: Partial<Limits> = {}, overrides: Partial<GatewayConfig> = {}): GatewayConfig {
  const config = { ...defaultConfig(), ...overrides };
  config.limits = { ...config.limits, ...limits };
  return config;
}

/** Runs one tool call through createExecutorRunner, as the registry does. */
export function run(executor: ExecutorSpec, args: Record<string, unknown>, config: GatewayConfig = configWith()): Promise<string> {
  const runner = createExecutorRunner({ config, env: { ...env } });
  return runner(registered(executor), args, {});
}

export const fetchUrlTool: ExecutorSpec = { type: "builtin", name: "fetch_url" };

/** A JSON object's fields (throws when the text is not a JSON object): typed access without a type assertion. */
export function jsonObject(text: string): Record<string, unknown> {
  return asObject(JSON.parse(text));
}

export function asObject(value: unknown): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(`not an object: ${String(value)}`);
  return Object.fromEntries(Object.entries(value));
}
