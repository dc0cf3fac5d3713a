// The owner's routes of learning from calls (docs/http-api.md, "Learning from calls"): GET /v1/learning (what the
// ranking has learned, per tool), DELETE /v1/learning and DELETE /v1/learning/:tool (forget), POST
// /v1/learning/apply (fold the evidence in now). An apply or a reset is handed to this isolate at once; other isolates
// take it within registryVersionTtlMs.
import type { CallerProfile, LearnedState } from "../../core/learning/evidence.ts";
import { fitToolName } from "../../core/tools/toolNames.ts";
import { learningStub } from "../../durable/stubs.ts";
import { adoptLearnedState, learningOptions } from "../../isolate/learningCache.ts";
import { requireOwner } from "../auth.ts";
import { badField } from "../errors.ts";
import { flushLearning } from "../learning.ts";
import type { RouteRequest } from "../request.ts";
import type { Call } from "../stage.ts";

/** The longest tool name a path may give (fitted names are at most 64 characters; an MCP name may be longer). */
const MAX_PATH_NAME = 256;

function stateBody(state: LearnedState): {
  version: number;
  appliedAt: string | null;
  tools: { tool: string; terms: LearnedState["tools"][string] }[];
  profiles: ({ tool: string } & CallerProfile)[];
  passedOver: { tool: string; terms: LearnedState["tools"][string] }[];
} {
  return {
    version: state.version,
    appliedAt: state.appliedAt === 0 ? null : new Date(state.appliedAt).toISOString(),
    tools: Object.entries(state.tools).map(([tool, terms]) => ({ tool, terms })),
    profiles: Object.entries(state.profiles ?? {}).map(([tool, profile]) => ({ tool, ...profile })),
    passedOver: Object.entries(state.passedOver ?? {}).map(([tool, terms]) => ({ tool, terms })),
  };
}

export async function getLearning(_request: RouteRequest, call: Call): Promise<Response> {
  requireOwner(call.principal);
  const report = await learningStub(call.env).report();
  return Response.json({ enabled: call.settings.config.learning.enabled, ...stateBody(report.applied), evidence: report.evidence });
}

export async function applyLearning(_request: RouteRequest, call: Call): Promise<Response> {
  requireOwner(call.principal);
  // What this isolate gathered but has not sent yet is folded too.
  await flushLearning(call);
  const state = await learningStub(call.env).apply(learningOptions(call.settings.config));
  adoptLearnedState(state);
  return Response.json({ enabled: call.settings.config.learning.enabled, ...stateBody(state) });
}

export async function deleteLearning(_request: RouteRequest, call: Call): Promise<Response> {
  requireOwner(call.principal);
  await flushLearning(call);
  const { removed, applied } = await learningStub(call.env).forget(undefined, learningOptions(call.settings.config));
  adoptLearnedState(applied);
  return Response.json({ removed, version: applied.version });
}

export async function deleteToolLearning(request: RouteRequest, call: Call): Promise<Response> {
  requireOwner(call.principal);
  let given: string;
  try {
    given = decodeURIComponent(request.params.tool ?? "");
  } catch {
    throw badField("tool", "is not valid percent-encoded UTF-8");
  }
  return forgetTool(given, call);
}

/**
 * DELETE /v1/learning/apply: the tool named `apply` (its path is the apply route's, whose POST folds the evidence; a
 * DELETE there can only mean the tool).
 */
export async function deleteApplyToolLearning(_request: RouteRequest, call: Call): Promise<Response> {
  requireOwner(call.principal);
  return forgetTool("apply", call);
}

async function forgetTool(given: string, call: Call): Promise<Response> {
  if (given === "" || given.length > MAX_PATH_NAME) throw badField("tool", `must be 1 to ${MAX_PATH_NAME} characters`);
  const tool = fitToolName(given);
  await flushLearning(call);
  const { removed, applied } = await learningStub(call.env).forget(tool, learningOptions(call.settings.config));
  adoptLearnedState(applied);
  return Response.json({ tool, removed, version: applied.version });
}
