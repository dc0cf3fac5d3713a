// The `call_tool` meta-tool of a "fixed" tool list: the list never changes, so a found tool is run through
// `call_tool {name, arguments}` rather than by its own name. Its definition, its arguments, and who may be called.
import type { GatewayConfig } from "../config.ts";
import { texts } from "../locale.ts";
import { pathDeeperThan } from "../jsonSchema/depth.ts";
import { VALIDATION_LIMITS } from "../jsonSchema/validate.ts";
import { isRecord } from "../records.ts";
import { SEARCH_TOOLS_NAME } from "./searchTools.ts";
import type { Locale, ToolDefinition } from "../types.ts";

export const CALL_TOOL_NAME = "call_tool";

/** Whether `call_tool` is one of the gateway's meta-tools under this configuration (a "fixed" list). */
export function callToolEnabled(config: Pick<GatewayConfig, "enabled" | "toolList">): boolean {
  return config.enabled && config.toolList === "fixed";
}

/** The `call_tool` definition (kept small: it is sent on every turn). */
export function callToolDefinition(config: Pick<GatewayConfig, "locale">): ToolDefinition {
  const t = texts(config.locale);
  return {
    name: CALL_TOOL_NAME,
    description: t.callToolDescription,
    parameters: {
      type: "object",
      properties: {
        name: { type: "string" },
        arguments: { type: "object" },
      },
      required: ["name"],
      additionalProperties: false,
    },
  };
}

export interface CallToolParams {
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * Reads `call_tool` arguments: `name` (a non-empty string) and `arguments` (an object, or the JSON text of one, as
 * models often write it; absent or null = {}). Returns the problems (for a tool error, in `locale`) or the params.
 */
export function parseCallToolParams(
  args: unknown,
  locale: Locale = "en",
): { ok: true; params: CallToolParams } | { ok: false; problems: string[] } {
  const t = texts(locale);
  if (!isRecord(args)) return { ok: false, problems: [t.searchArgumentsNotObject] };
  const problems: string[] = [];
  const name = args.name;
  if (typeof name !== "string" || name.length === 0) problems.push(t.callToolNameMissing);
  let inner: Record<string, unknown> = {};
  const given = args.arguments ?? undefined;
  if (typeof given === "string") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(given);
    } catch {
      parsed = undefined;
    }
    // Text nesting deeper than the validator reads is refused here, before anything walks it recursively.
    if (isRecord(parsed) && pathDeeperThan(parsed, VALIDATION_LIMITS.argumentDepth) !== undefined) problems.push(t.argument.tooDeep(VALIDATION_LIMITS.argumentDepth));
    else if (isRecord(parsed)) inner = parsed;
    else problems.push(t.callToolArgumentsNotObject);
  } else if (isRecord(given)) inner = given;
  else if (given !== undefined) problems.push(t.callToolArgumentsNotObject);
  for (const key of Object.keys(args)) if (key !== "name" && key !== "arguments") problems.push(t.callToolUnknownArgument(key));
  if (problems.length > 0 || typeof name !== "string") return { ok: false, problems };
  return { ok: true, params: { name, arguments: inner } };
}

/**
 * Whether `call_tool` runs `name`: any tool the caller may call (the guard decides that, and the registry answers an
 * absent and a gated tool alike), found in this session or not: "search first" is what the descriptions ask of the
 * model, not a rule, since a client without protocol sessions (or one MCP session per command, as the Inspector's
 * CLI) could never satisfy it. The meta-tools themselves never run through it (search_tools is called directly;
 * call_tool does not nest).
 */
export function callToolAllows(name: string): boolean {
  return name !== CALL_TOOL_NAME && name !== SEARCH_TOOLS_NAME;
}
