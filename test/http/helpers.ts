// Shared helpers of the HTTP tests: tokens signed with the test secret, and requests through the Worker's fetch.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { SignJWT } from "jose";
import worker from "../../src/index.ts";

export const BASE = "http://toolgate.test";

export interface Claims {
  sub?: string;
  level?: unknown;
  owner?: unknown;
  groups?: unknown;
  [claim: string]: unknown;
}

export interface TokenOptions {
  /** Seconds from now; negative = already expired. Default one hour. */
  expiresIn?: number;
  /** Leave out `exp`. */
  noExpiry?: boolean;
  secret?: string;
}

export async function token(claims: Claims, options: TokenOptions = {}): Promise<string> {
  const { sub, ...rest } = claims;
  let jwt = new SignJWT(rest).setProtectedHeader({ alg: "HS256", typ: "JWT" }).setIssuedAt();
  if (sub !== undefined) jwt = jwt.setSubject(sub);
  if (!options.noExpiry) jwt = jwt.setExpirationTime(Math.floor(Date.now() / 1000) + (options.expiresIn ?? 3600));
  return jwt.sign(new TextEncoder().encode(options.secret ?? env.AUTH_JWT_SECRET));
}

export function ownerToken(sub = "owner"): Promise<string> {
  return token({ sub, owner: true });
}

export interface ApiOptions {
  method?: string;
  /** An object is sent as JSON; a string as is. */
  body?: unknown;
  token?: string;
  headers?: Record<string, string>;
}

/** A request as the Worker receives it (the incoming-request `cf` type, so the fetch handler takes it directly). */
export type IncomingRequest = Request<unknown, IncomingRequestCfProperties>;

export function request(path: string, options: ApiOptions = {}): IncomingRequest {
  const headers = new Headers(options.headers);
  if (options.token !== undefined) headers.set("authorization", `Bearer ${options.token}`);
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
  }
  return new Request<unknown, IncomingRequestCfProperties>(`${BASE}${path}`, {
    method: options.method ?? (body === undefined ? "GET" : "POST"),
    headers,
    body,
  });
}

export function api(path: string, options: ApiOptions = {}): Promise<Response> {
  return exports.default.fetch(request(path, options));
}

/** Calls the Worker's fetch handler directly with other vars (they cannot change per request otherwise). */
/**
 * The suite's TOOL_SEARCH_CONFIG (vitest.config.ts) with `settings` over it, key by key, for fetchWithEnv. A bare
 * config would bring every default back with it: usageFlushMs 1,000 among them, which each fetchWithEnv then waits
 * for (the usage batch is sent after the answer, in waitUntil).
 */
export function suiteConfig(settings: Record<string, unknown>): { TOOL_SEARCH_CONFIG: string } {
  const base: unknown = JSON.parse(env.TOOL_SEARCH_CONFIG);
  if (typeof base !== "object" || base === null) throw new Error("TOOL_SEARCH_CONFIG is not an object");
  return { TOOL_SEARCH_CONFIG: JSON.stringify({ ...base, ...settings }) };
}

export async function fetchWithEnv(overrides: Record<string, unknown>, req: IncomingRequest): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await worker.fetch(req, Object.assign({}, env, overrides), ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

export async function json<T = Record<string, unknown>>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

export interface ErrorBody {
  error: { code: string; message: string };
}

/** What an error answer says, for one `expect(...).toEqual/toMatchObject` in the test. */
export interface ErrorSummary {
  status: number;
  json: boolean;
  /** The body's keys, and its error's keys (sorted): ["error"] and ["code", "message"] for the one error shape. */
  keys: string[];
  errorKeys: string[];
  code: string;
  message: string;
}

export async function errorOf(response: Response): Promise<ErrorSummary> {
  const body = await json<ErrorBody>(response);
  return {
    status: response.status,
    json: (response.headers.get("content-type") ?? "").includes("application/json"),
    keys: Object.keys(body).toSorted(),
    errorKeys: Object.keys(body.error).toSorted(),
    code: body.error.code,
    message: body.error.message,
  };
}

/** The one error shape with a status and code (toMatchObject against errorOf). */
export function anError(status: number, code: string): Partial<ErrorSummary> {
  return { status, code, json: true, keys: ["error"], errorKeys: ["code", "message"] };
}

let counter = 0;
/** A session id no other test uses. */
export function sessionId(label = "s"): string {
  counter += 1;
  return `${label}-${counter}-${crypto.randomUUID().slice(0, 8)}`;
}

/** N OpenAI Chat tools named `<prefix>_<i>`, each with a distinctive word in its description. */
export function openaiTools(prefix: string, count: number): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) => ({
    type: "function",
    function: {
      name: `${prefix}_${i}`,
      description: `Tool number ${i} of ${prefix}: does thing${i}x`,
      parameters: { type: "object", properties: { value: { type: "string" } } },
    },
  }));
}

/**
 * `namespace` (a Durable Object namespace of the test env) with every RPC through one of its stubs reported to `onCall`:
 * what a request costs in round trips.
 */
export function countingNamespace(namespace: object, onCall: () => void): unknown {
  return new Proxy(namespace, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property);
      if (property !== "getByName" || typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const stub: object = Reflect.apply(value, target, args);
        return new Proxy(stub, {
          get(stubTarget, method) {
            const member: unknown = Reflect.get(stubTarget, method);
            if (typeof member !== "function") return member;
            return (...callArgs: unknown[]) => {
              onCall();
              return Reflect.apply(member, stubTarget, callArgs);
            };
          },
        });
      };
    },
  });
}
