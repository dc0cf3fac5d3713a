// Runs tools that declare an executor: builtin, http or service (issue 4).
import type { GatewayConfig } from "../core/config.ts";
import type { ExecutorRunner } from "../core/types.ts";

export interface ExecutorDeps {
  config: GatewayConfig;
  /** The Worker's env: secrets (`TOOL_SECRET_*`) for http headers, service bindings for service executors. */
  env: Record<string, unknown>;
}

export function createExecutorRunner(_deps: ExecutorDeps): ExecutorRunner {
  throw new Error("not implemented");
}
