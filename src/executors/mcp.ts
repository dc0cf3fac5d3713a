// The `mcp` executor: tools/call on an upstream MCP server (PUT /v1/upstreams/:id), through that upstream's Durable
// Object (the Worker passes `callUpstream`). The server's text is third-party content: wrapped as untrusted, its
// errors too (they reach the model as well). An upstream's isError, a timeout or a server that is down or skipped is
// a tool error, never a failed request.
import type { GatewayConfig } from "../core/config.ts";
import type { ExecutorSpec, ToolCallContext } from "../core/types.ts";
import { SignInRequiredError } from "../core/upstream/signIn.ts";
import { wrapFetchedContent } from "../core/boundary/untrusted.ts";
import { resultText } from "../core/upstream/result.ts";
import type { UpstreamCallOutcome } from "../core/upstream/result.ts";

export type McpExecutorSpec = Extract<ExecutorSpec, { type: "mcp" }>;

/**
 * tools/call of `tool` on upstream `upstream`; the Worker supplies it (the upstream object's RPC, which opens a
 * connection for this call alone).
 */
export type UpstreamCaller = (upstream: string, tool: string, args: Record<string, unknown>, context: ToolCallContext) => Promise<UpstreamCallOutcome>;

export async function runMcpExecutor(
  spec: McpExecutorSpec,
  args: Record<string, unknown>,
  config: GatewayConfig,
  callUpstream: UpstreamCaller | undefined,
  context: ToolCallContext = {},
): Promise<string> {
  if (!callUpstream) throw new Error("upstream MCP servers are not available here");
  const outcome = await callUpstream(spec.upstream, spec.tool, args, context);
  // The caller's own sign-in to the upstream is needed: toolgate's own words and link (nothing of the server's).
  if (!outcome.ok && outcome.signIn?.url !== undefined && outcome.signIn.expiresAt !== undefined) {
    throw new SignInRequiredError(outcome.error, { upstream: outcome.signIn.upstream, url: outcome.signIn.url, expiresAt: outcome.signIn.expiresAt });
  }
  const wrap = (text: string): string =>
    wrapFetchedContent(text, `mcp ${spec.upstream} ${spec.tool}`, { locale: config.locale, maxChars: config.limits.maxUntrustedChars });
  if (!outcome.ok) throw new Error(outcome.fromUpstream === true ? wrap(outcome.error) : outcome.error);
  const text = resultText(outcome.result);
  if (outcome.result.isError === true) throw new Error(wrap(text === "" ? "the tool failed without a message" : text));
  return wrap(text);
}
