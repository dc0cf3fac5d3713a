// How an upstream tool is guarded: the owner's settings and the tool's annotations, secure by default. An upstream's
// tools are restricted (authority level 2) unless the owner says `visibility: "public"` on the upstream or on the tool:
// nothing a server lists is open to anonymous or level-0 callers by itself. The annotations are the server's word, so
// they may raise the guard (destructiveHint → dangerous, which asks for confirmation) but never lower it: readOnlyHint
// no longer makes a tool public, and a tool that says both readOnlyHint and destructiveHint is destructive.
import type { DeclaredConfirm, Risk, Visibility } from "../types.ts";
import type { McpToolAnnotations } from "./mcpTool.ts";

/** What the owner set: on the upstream, and per tool (the tool's wins). */
export interface UpstreamGuardSettings {
  visibility?: Visibility;
  risk?: Risk;
  confirm?: DeclaredConfirm;
}

/** What a tool's guard fields become, and what its annotations said (GET /v1/upstreams/:id shows both). */
export interface UpstreamToolGuard {
  visibility: Visibility;
  risk: Risk;
  confirm?: DeclaredConfirm;
}

const RISK_ORDER: readonly Risk[] = ["safe", "sensitive", "dangerous"];

function higherRisk(a: Risk, b: Risk): Risk {
  return RISK_ORDER.indexOf(a) >= RISK_ORDER.indexOf(b) ? a : b;
}

/**
 * The risk the annotations alone give: destructive (whatever else they say) → dangerous; read-only → safe; no hint →
 * sensitive (MCP presumes an unannotated tool may change its world).
 */
export function annotationRisk(annotations: McpToolAnnotations | undefined): Risk {
  if (annotations?.destructiveHint === true) return "dangerous";
  if (annotations?.readOnlyHint === true) return "safe";
  return "sensitive";
}

/**
 * The guard of one upstream tool. Visibility: the tool's setting, else the upstream's, else restricted. Risk: without
 * an owner's risk, the annotations' reading; with one, the owner's, raised to dangerous by destructiveHint. Confirm:
 * the owner's, else `session` for a dangerous tool (the guard's own default, written out so that listings show it).
 */
export function upstreamToolGuard(annotations: McpToolAnnotations | undefined, upstream: UpstreamGuardSettings, tool: UpstreamGuardSettings = {}): UpstreamToolGuard {
  const visibility = tool.visibility ?? upstream.visibility ?? "restricted";
  const ownerRisk = tool.risk ?? upstream.risk;
  const fromHints = annotationRisk(annotations);
  const risk = ownerRisk === undefined ? fromHints : fromHints === "dangerous" ? higherRisk(ownerRisk, fromHints) : ownerRisk;
  const confirm = tool.confirm ?? upstream.confirm ?? (risk === "dangerous" ? "session" : undefined);
  return { visibility, risk, ...(confirm !== undefined ? { confirm } : {}) };
}
