// Runs tools that declare an executor: builtin, http or service (docs/DESIGN.md, "Flows"). Failures throw an Error whose message is
// written for the model; the registry turns a throw into a `{"error": …}` tool result.
import type { GatewayConfig } from "../core/config.ts";
import type { ExecutorRunner, ExecutorSpec } from "../core/types.ts";
import { isBuiltin, runBuiltin } from "./builtin.ts";
import { runHttpExecutor, TOOL_SECRET_PREFIX } from "./http.ts";
import { runMcpExecutor } from "./mcp.ts";
import type { UpstreamCaller } from "./mcp.ts";
import { runServiceExecutor } from "./service.ts";

export type { UpstreamCaller } from "./mcp.ts";

export { BUILTIN_TOOLS } from "./builtin.ts";

export interface ExecutorDeps {
  config: GatewayConfig;
  /** The Worker's env: secrets (`TOOL_SECRET_*`) for http headers, service bindings for service executors. */
  env: Record<string, unknown>;
  /** tools/call on an upstream MCP server (the upstream's Durable Object); without it `mcp` tools answer an error. */
  callUpstream?: UpstreamCaller;
}

export function createExecutorRunner(deps: ExecutorDeps): ExecutorRunner {
  const { config, env, callUpstream } = deps;
  return async (tool, args, context) => {
    const spec = tool.definition.executor;
    if (!spec) throw new Error(`tool "${tool.definition.name}" has no server-side executor: the client runs it`);
    if (spec.type === "builtin") return runBuiltin(spec.name, args, config);
    if (spec.type === "http") return runHttpExecutor(spec, args, config, env);
    if (spec.type === "mcp") return runMcpExecutor(spec, args, config, callUpstream, context);
    return runServiceExecutor(spec, args, config, env);
  };
}

/**
 * Static problems of an executor definition, for registration to refuse early (an empty list = fine). Whether the
 * secrets and bindings exist is only known at run time, where a missing one is a tool error naming it.
 */
export function executorProblems(spec: ExecutorSpec): string[] {
  const problems: string[] = [];
  switch (spec.type) {
    case "builtin":
      if (spec.name !== "search_tools" && !isBuiltin(spec.name)) problems.push(`unknown builtin executor "${spec.name}"`);
      break;
    case "http": {
      let url: URL | undefined;
      try {
        url = new URL(spec.url);
      } catch {
        problems.push("executor.url must be an absolute URL");
      }
      if (url && url.protocol !== "http:" && url.protocol !== "https:") problems.push("executor.url must be http or https");
      if (url && (url.username !== "" || url.password !== "")) problems.push("executor.url must not carry credentials");
      for (const [header, secret] of Object.entries(spec.headers ?? {})) {
        if (!secret.startsWith(TOOL_SECRET_PREFIX)) problems.push(`executor.headers["${header}"]: secret "${secret}" is not a tool secret`);
      }
      break;
    }
    case "mcp":
      // Registered by the upstream's refresh only; its own checks ran there.
      break;
    case "service":
      if (spec.binding === "ASSETS") problems.push('executor.binding cannot be "ASSETS"');
      break;
  }
  return problems;
}
