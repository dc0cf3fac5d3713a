// The one place that makes Durable Object stubs: each object is reached by the name names.ts gives it, whoever asks
// (the routes, the isolate's registry and guard, the objects themselves).
import { LEARNING_OBJECT_NAME, principalObjectName, rateLimiterObjectName, REGISTRY_OBJECT_NAME, sessionObjectName } from "./names.ts";
import type { LearningObject } from "./learningObject.ts";
import type { PrincipalObject } from "./principalObject.ts";
import type { RateLimiterObject } from "./rateLimiterObject.ts";
import type { RegistryObject } from "./registryObject.ts";
import { searchShardName, type SearchShardObject, type ShardSpec } from "./searchShardObject.ts";
import type { SessionObject } from "./sessionObject.ts";
import type { UpstreamObject } from "./upstreamObject.ts";

/** The session object of (principal, session id): two principals never reach the same one. */
export function sessionStub(env: Env, principalId: string, sessionId: string): DurableObjectStub<SessionObject> {
  return env.SESSION.getByName(sessionObjectName(principalId, sessionId));
}

/** The principal's index of sessions. */
export function principalStub(env: Env, principalId: string): DurableObjectStub<PrincipalObject> {
  return env.PRINCIPAL.getByName(principalObjectName(principalId));
}

/** The one registry object of the deployment. */
export function registryStub(env: Env): DurableObjectStub<RegistryObject> {
  return env.REGISTRY.getByName(REGISTRY_OBJECT_NAME);
}

/** The principal's rate-limit counter. */
export function rateLimiterStub(env: Env, principalId: string): DurableObjectStub<RateLimiterObject> {
  return env.RATE_LIMITER.getByName(rateLimiterObjectName(principalId));
}

/** The object of one upstream MCP server (PUT /v1/upstreams/:id): its configuration, pins, quarantine and health. */
export function upstreamStub(env: Env, id: string): DurableObjectStub<UpstreamObject> {
  return env.UPSTREAM.getByName(id);
}

/** One shard of a sharded registry search (its registry version, mode and part: searchShardName). */
export function searchShardStub(env: Env, spec: ShardSpec): DurableObjectStub<SearchShardObject> {
  return env.SEARCH_SHARD.getByName(searchShardName(spec));
}

/** The one object of the deployment's learning-from-calls evidence (docs/search.md, "Learning from calls"). */
export function learningStub(env: Env): DurableObjectStub<LearningObject> {
  return env.LEARNING.getByName(LEARNING_OBJECT_NAME);
}
