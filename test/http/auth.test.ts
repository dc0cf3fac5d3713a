// Authentication: Bearer JWTs (HS256 secret, or a JWKS served by the test's remote worker), the anonymous rule,
// owner-only routes, and the rule that enabledGroups never exceed the token's groups.
import { env } from "cloudflare:workers";
import * as fc from "fast-check";
import { SignJWT } from "jose";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { anonymousPrincipal, authenticate, effectiveGroups } from "../../src/http/auth.ts";
import { HttpError } from "../../src/http/errors.ts";
import type { Principal } from "../../src/core/types.ts";
import { DEFAULT_MAX_TOKEN_LIFETIME_SECONDS, parseSettings } from "../../src/isolate/settings.ts";
import type { AuthSettings } from "../../src/isolate/settings.ts";
import { api, fetchWithEnv, json, openaiTools, request, sessionId, token } from "./helpers.ts";
import type { ErrorBody } from "./helpers.ts";

const secretSettings = (): AuthSettings => ({
  secret: new TextEncoder().encode(env.AUTH_JWT_SECRET),
  allowAnonymous: false,
  jwt: true,
  maxTokenLifetimeSeconds: DEFAULT_MAX_TOKEN_LIFETIME_SECONDS,
});

function base64url(value: unknown): string {
  return btoa(JSON.stringify(value)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

async function remoteToken(claims: Record<string, unknown>, kid?: string): Promise<string> {
  const response = await fetch(`https://remote.test/sign${kid ? `?kid=${kid}` : ""}`, {
    method: "POST",
    body: JSON.stringify(claims),
  });
  expect(response.status).toBe(200);
  return (await json<{ token: string }>(response)).token;
}

async function rejection(promise: Promise<unknown>): Promise<HttpError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof HttpError) return error;
    throw error;
  }
  throw new Error("expected a rejection");
}

const now = (): number => Math.floor(Date.now() / 1000);

beforeAll(async () => {
  await api("/v1/health");
}, 60_000);

function authPath(): string {
  return `/v1/sessions/${sessionId("auth")}/search`;
}

interface Refusal {
  status: number;
  header: string;
  code: string;
  message: string;
}

async function refusal(response: Response): Promise<Refusal> {
  const body = await json<ErrorBody>(response);
  return {
    status: response.status,
    header: response.headers.get("www-authenticate") ?? "",
    code: body.error.code,
    message: body.error.message,
  };
}

/** 401 invalid_token with the RFC 6750 header; `message` is a part of the error message. */
function invalidToken(message: string): Record<string, unknown> {
  return {
    status: 401,
    code: "invalid_token",
    header: expect.stringMatching(/^Bearer realm="toolgate", error="invalid_token"/),
    message: expect.stringContaining(message),
  };
}

function search(tokenText?: string, headers?: Record<string, string>): Promise<Response> {
  return api(authPath(), { body: { query: "" }, ...(tokenText !== undefined ? { token: tokenText } : {}), ...(headers ? { headers } : {}) });
}

describe("401 over HTTP", () => {
  it("for a missing token", async () => {
    expect(await refusal(await search())).toEqual({
      status: 401,
      header: 'Bearer realm="toolgate"',
      code: "unauthorized",
      message: "missing bearer token",
    });
  });

  it("for a malformed Authorization header or token", async () => {
    const basic = await search(undefined, { authorization: "Basic YWxpY2U6cHc=" });
    expect(await refusal(basic)).toMatchObject(invalidToken("malformed Authorization header"));
    expect(await refusal(await search("not-a-jwt"))).toMatchObject(invalidToken("malformed token"));
    expect(await refusal(await search("a.b.c"))).toMatchObject(invalidToken("malformed token"));
  });

  it("for an expired token", async () => {
    const expired = await token({ sub: "alice" }, { expiresIn: -120 });
    expect(await refusal(await search(expired))).toMatchObject(invalidToken("token expired"));
  });

  it("for a token signed with another secret", async () => {
    const forged = await token({ sub: "alice" }, { secret: "another-secret-that-is-long-enough-0123" });
    expect(await refusal(await search(forged))).toMatchObject(invalidToken("signature is invalid"));
  });

  it("for alg none", async () => {
    const unsigned = `${base64url({ alg: "none", typ: "JWT" })}.${base64url({ sub: "alice", owner: true, exp: now() + 600 })}.`;
    expect(await refusal(await search(unsigned))).toMatchObject(invalidToken(""));
    expect((await api("/v1/tools", { token: unsigned })).status).toBe(401);
  });

  it("for a token without exp or without sub", async () => {
    const noExp = await token({ sub: "alice" }, { noExpiry: true });
    expect(await refusal(await search(noExp))).toMatchObject(invalidToken("`exp`"));
    const noSub = await token({ level: 1 });
    expect(await refusal(await search(noSub))).toMatchObject(invalidToken("`sub`"));
  });

  it.each([{ level: "9" }, { level: 1.5 }, { owner: "yes" }, { groups: "web" }, { groups: [""] }])(
    "for claims of the wrong type: %j",
    async (claims) => {
      const bad = await token({ sub: "alice", ...claims });
      expect(await refusal(await search(bad))).toMatchObject(invalidToken(Object.keys(claims)[0] ?? ""));
    },
  );

  it("for a sub with a lone surrogate (it cannot name a session object), never a 500", async () => {
    for (const sub of ["a\ud800", "\udc00b"]) {
      const lone = await token({ sub });
      expect(await refusal(await search(lone))).toMatchObject(invalidToken("well-formed"));
    }
  });

  it("never lets a token pose as the anonymous principal", async () => {
    const anonymous = await token({ sub: "anonymous" });
    expect(await refusal(await search(anonymous))).toMatchObject(invalidToken("anonymous"));
  });
});

describe("403 on owner routes", () => {
  it("for a valid token that is not the owner's", async () => {
    const mallory = await token({ sub: "mallory", level: 99, groups: ["*"] });
    const body = { description: "x", parameters: { type: "object", properties: {} } };
    for (const [method, path, payload] of [
      ["PUT", "/v1/tools/evil_tool", body],
      ["PUT", "/v1/tools", { tools: [] }],
      ["DELETE", "/v1/tools/echo", undefined],
      ["DELETE", "/v1/contexts/builtin:demo", undefined],
    ] as const) {
      const response = await api(path, { method, token: mallory, body: payload });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect((await json<ErrorBody>(response)).error.code).toBe("forbidden");
    }
  });
});

/** An HS256 token with exactly these time claims (seconds; undefined leaves the claim out). */
function timedToken(times: { iat?: number; exp?: number }, sub = "timed-tina"): Promise<string> {
  return new SignJWT({ sub, ...times })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .sign(new TextEncoder().encode(env.AUTH_JWT_SECRET));
}

function searchWith(vars: Record<string, string>, tokenText: string): Promise<Response> {
  return fetchWithEnv(vars, request(authPath(), { token: tokenText, body: { query: "" } }));
}

describe("token lifetime: at most AUTH_MAX_TOKEN_LIFETIME_SECONDS (default one day), no iat in the future", () => {
  const day = DEFAULT_MAX_TOKEN_LIFETIME_SECONDS;

  it("refuses a token that lives longer than the maximum, by exp - iat or by exp - now", async () => {
    const t = now();
    // Minted with a week of life: refused at once, though it has not expired.
    const week = await timedToken({ iat: t, exp: t + 7 * day });
    expect(await refusal(await search(week))).toMatchObject(invalidToken(`exp - iat = ${7 * day} s) exceeds the maximum of ${day} s`));
    // Minted two days ago for three days: one day left, but its lifetime is over the maximum.
    const old = await timedToken({ iat: t - 2 * day, exp: t + day - 60 });
    expect(await refusal(await search(old))).toMatchObject(invalidToken("AUTH_MAX_TOKEN_LIFETIME_SECONDS"));
    // Without iat, exp itself must be within the maximum (plus the clock skew) from now.
    const noIat = await timedToken({ exp: t + 2 * day });
    expect(await refusal(await search(noIat))).toMatchObject(invalidToken("beyond the maximum of 86400 s"));
  });

  it("accepts a token of exactly the maximum, and one without iat within it", async () => {
    const t = now();
    expect((await search(await timedToken({ iat: t, exp: t + day }))).status).toBe(200);
    expect((await search(await timedToken({ exp: t + day }))).status).toBe(200);
  });

  it("refuses an iat in the future beyond 60 s of clock skew, and accepts one within it", async () => {
    const t = now();
    const ahead = await timedToken({ iat: t + 600, exp: t + 3600 });
    expect(await refusal(await search(ahead))).toMatchObject(invalidToken("token claim `iat` is in the future"));
    expect((await search(await timedToken({ iat: t + 30, exp: t + 3600 }))).status).toBe(200);
  });

  it("reads AUTH_MAX_TOKEN_LIFETIME_SECONDS, and answers 503 naming it when it is bad", async () => {
    const t = now();
    const twoHours = await timedToken({ iat: t, exp: t + 7200 });
    const oneHour = await timedToken({ iat: t, exp: t + 3600 });
    const hourly = { AUTH_MAX_TOKEN_LIFETIME_SECONDS: "3600" };
    expect(await refusal(await searchWith(hourly, twoHours))).toMatchObject(invalidToken("exceeds the maximum of 3600 s"));
    expect((await searchWith(hourly, oneHour)).status).toBe(200);
    for (const bad of ["59", "abc", "1e5", String(31 * day)]) {
      const response = await searchWith({ AUTH_MAX_TOKEN_LIFETIME_SECONDS: bad }, oneHour);
      expect(response.status).toBe(503);
      expect((await json<ErrorBody>(response)).error.message).toContain("AUTH_MAX_TOKEN_LIFETIME_SECONDS");
    }
  });
});

async function bannedAnswer(response: Response): Promise<{ status: number; code: string }> {
  return { status: response.status, code: (await json<ErrorBody>(response)).error.code };
}

describe("403 banned: a negative level is refused on every route that has a caller", () => {
  const ownerRoutes = [
    ["PUT", "/v1/tools/banned_owner_tool", { description: "x", parameters: { type: "object", properties: {} } }],
    ["PUT", "/v1/tools", { tools: [] }],
    ["DELETE", "/v1/tools/echo", undefined],
    ["DELETE", "/v1/contexts/builtin:demo", undefined],
  ] as const;

  it("refuses a banned owner on the owner routes, and changes nothing", async () => {
    const bannedOwner = await token({ sub: `banned-owner-${crypto.randomUUID()}`, owner: true, level: -1 });
    for (const [method, path, payload] of ownerRoutes) {
      const response = await api(path, { method, token: bannedOwner, body: payload });
      expect(await bannedAnswer(response), `${method} ${path}`).toEqual({ status: 403, code: "banned" });
    }
    // The demo tools are still there, and the tool was not registered.
    const listed = await json<{ tools: { name: string }[] }>(await api("/v1/tools?format=summary", { token: await token({ sub: "reader" }) }));
    expect(listed.tools.map((tool) => tool.name)).toContain("echo");
    expect(listed.tools.map((tool) => tool.name)).not.toContain("banned_owner_tool");
  });

  it("refuses a banned caller (owner or not) on execute, read and session routes", async () => {
    for (const claims of [{ owner: true, level: -1 }, { level: -5, groups: ["*"] }]) {
      const banned = await token({ sub: `banned-${crypto.randomUUID()}`, ...claims });
      const sid = sessionId("banned");
      const calls: [string, string, unknown][] = [
        ["POST", `/v1/sessions/${sid}/execute`, { name: "echo", arguments: { text: "x" } }],
        ["POST", `/v1/sessions/${sid}/execute`, { name: "search_tools", arguments: { query: "" } }],
        ["GET", "/v1/tools", undefined],
        ["POST", `/v1/sessions/${sid}/prepare`, { messages: [], tools: openaiTools("banned", 8) }],
        ["POST", `/v1/sessions/${sid}/search`, { query: "" }],
        ["POST", `/v1/sessions/${sid}/confirmations/abc`, { approve: true }],
        ["POST", "/v1/memory/clear", { scope: "all" }],
        ["POST", "/v1/untrusted/wrap", { content: "x", source: "y" }],
      ];
      for (const [method, path, body] of calls) {
        const response = await api(path, { method, token: banned, body });
        expect(await bannedAnswer(response), `${JSON.stringify(claims)} ${method} ${path}`).toEqual({ status: 403, code: "banned" });
      }
    }
  });

  it("lets level 0 and the owner through as before", async () => {
    const zero = await token({ sub: `level-zero-${crypto.randomUUID()}`, level: 0 });
    expect((await api(`/v1/sessions/${sessionId("banned")}/search`, { token: zero, body: { query: "" } })).status).toBe(200);
    const owner = await token({ sub: `owner-${crypto.randomUUID()}`, owner: true });
    expect((await api("/v1/tools/banned_check_tool", { method: "DELETE", token: owner })).status).toBe(404);
  });
});

describe("authenticate() with HS256", () => {
  it("reads the claims into a principal, with defaults", async () => {
    const full = await token({ sub: "carol", level: 2, owner: true, groups: ["web", "mail"] });
    expect(await authenticate(`Bearer ${full}`, secretSettings())).toEqual({
      id: "carol", level: 2, owner: true, groups: ["web", "mail"],
    });
    const bare = await token({ sub: "dave" });
    expect(await authenticate(`bearer ${bare}`, secretSettings())).toEqual({ id: "dave", level: 0, owner: false, groups: [] });
  });

  it("keeps a negative level (banned) as it is", async () => {
    const banned = await token({ sub: "eve", level: -1 });
    expect((await authenticate(`Bearer ${banned}`, secretSettings())).level).toBe(-1);
  });

  it("checks aud and iss when configured", async () => {
    const settings = { ...secretSettings(), audience: "toolgate", issuer: "https://issuer.test" };
    const missing = await token({ sub: "frank" });
    expect((await rejection(authenticate(`Bearer ${missing}`, settings))).status).toBe(401);
    const wrongAud = await token({ sub: "frank", aud: "other", iss: "https://issuer.test" });
    expect((await rejection(authenticate(`Bearer ${wrongAud}`, settings))).message).toContain("`aud`");
    const right = await token({ sub: "frank", aud: "toolgate", iss: "https://issuer.test" });
    expect((await authenticate(`Bearer ${right}`, settings)).id).toBe("frank");
  });
});

describe("authenticate(): verified tokens remembered in the isolate", () => {
  it("answers a remembered token as before, never past its exp, and only under the settings that verified it", async () => {
    const settings = secretSettings();
    const soon = await token({ sub: "grace", groups: ["web"] }, { expiresIn: 3 });
    const first = await authenticate(`Bearer ${soon}`, settings);
    first.groups.push("mail");
    expect(await authenticate(`Bearer ${soon}`, settings)).toEqual({ id: "grace", level: 0, owner: false, groups: ["web"] });
    // Another secret is other settings: the token is checked again, and its signature fails there.
    const other = { ...settings, secret: new TextEncoder().encode("another-secret-0123456789abcdef-0123456789") };
    expect((await rejection(authenticate(`Bearer ${soon}`, other))).message).toContain("signature");
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.now() + 10_000);
      expect((await rejection(authenticate(`Bearer ${soon}`, settings))).message).toContain("expired");
    } finally {
      vi.useRealTimers();
    }
  });
});

function jwksSettings(): AuthSettings {
  return {
    jwksUrl: new URL("https://remote.test/jwks.json"),
    allowAnonymous: false,
    jwt: true,
    maxTokenLifetimeSeconds: DEFAULT_MAX_TOKEN_LIFETIME_SECONDS,
  };
}

describe("authenticate() with a JWKS URL", () => {
  it("accepts an RS256 token signed by a key of the set", async () => {
    const signed = await remoteToken({ sub: "grace", level: 1, groups: ["web"], exp: now() + 600 });
    expect(await authenticate(`Bearer ${signed}`, jwksSettings())).toEqual({
      id: "grace", level: 1, owner: false, groups: ["web"],
    });
  });

  it("refuses a token whose key id is not in the set", async () => {
    const signed = await remoteToken({ sub: "grace", exp: now() + 600 }, "unknown-key");
    expect((await rejection(authenticate(`Bearer ${signed}`, jwksSettings()))).status).toBe(401);
  });

  it("refuses an expired RS256 token and an RS256 token without exp", async () => {
    const expired = await remoteToken({ sub: "grace", exp: now() - 600 });
    expect((await rejection(authenticate(`Bearer ${expired}`, jwksSettings()))).message).toBe("token expired");
    const noExp = await remoteToken({ sub: "grace" });
    expect((await rejection(authenticate(`Bearer ${noExp}`, jwksSettings()))).status).toBe(401);
  });

  it("refuses HS256 when only a JWKS is configured (no secret to confuse with a public key)", async () => {
    const hs = await token({ sub: "grace" });
    expect((await rejection(authenticate(`Bearer ${hs}`, jwksSettings()))).status).toBe(401);
  });

  it("refuses an RS256 token when only the HS256 secret is configured", async () => {
    const signed = await remoteToken({ sub: "grace", exp: now() + 600 });
    expect((await rejection(authenticate(`Bearer ${signed}`, secretSettings()))).status).toBe(401);
  });

  it("takes both kinds when both are configured", async () => {
    const both = { ...secretSettings(), ...jwksSettings() };
    const hs = await token({ sub: "h" });
    const rs = await remoteToken({ sub: "r", exp: now() + 600 });
    expect((await authenticate(`Bearer ${hs}`, both)).id).toBe("h");
    expect((await authenticate(`Bearer ${rs}`, both)).id).toBe("r");
  });
});

describe("anonymous access", () => {
  it("gives the anonymous principal without a header when allowed", async () => {
    const settings = parseSettings({ ALLOW_ANONYMOUS: "true" });
    expect(await authenticate(null, settings.auth)).toEqual({ id: "anonymous", level: 0, owner: false, groups: [] });
    expect(anonymousPrincipal()).toEqual({ id: "anonymous", level: 0, owner: false, groups: [] });
  });

  it("is off unless ALLOW_ANONYMOUS is exactly \"true\"", async () => {
    const settings = parseSettings({ AUTH_JWT_SECRET: env.AUTH_JWT_SECRET });
    expect(settings.auth.allowAnonymous).toBe(false);
    expect((await rejection(authenticate(null, settings.auth))).status).toBe(401);
  });

  it("still verifies a token that is sent", async () => {
    const settings = parseSettings({ ALLOW_ANONYMOUS: "true", AUTH_JWT_SECRET: env.AUTH_JWT_SECRET });
    const expired = await token({ sub: "alice" }, { expiresIn: -600 });
    expect((await rejection(authenticate(`Bearer ${expired}`, settings.auth))).status).toBe(401);
  });

  it("serves a request without a token through the Worker when the env allows it", async () => {
    const response = await fetchWithEnv(
      { ALLOW_ANONYMOUS: "true" },
      request(`/v1/sessions/${sessionId("anon")}/prepare`, { body: { messages: [], tools: openaiTools("anon", 2) } }),
    );
    expect(response.status).toBe(200);
    expect((await json<{ tools: unknown[] }>(response)).tools).toHaveLength(2);
  });
});

function user(groups: string[], owner = false): Principal {
  return { id: "u", level: 0, owner, groups };
}

describe("effectiveGroups()", () => {
  it("defaults to every group the principal may enable", () => {
    expect(effectiveGroups(user(["web", "mail"]), undefined)).toEqual(["web", "mail"]);
    expect(effectiveGroups(user([]), undefined)).toEqual([]);
    expect(effectiveGroups(user([], true), undefined)).toEqual(["*"]);
  });

  it("intersects a request with the token's groups", () => {
    expect(effectiveGroups(user(["web", "mail"]), ["mail", "admin"])).toEqual(["mail"]);
    expect(effectiveGroups(user(["web"]), [])).toEqual([]);
  });

  it("reads '*' from a non-owner as all of their own groups", () => {
    expect(effectiveGroups(user(["web", "mail"]), ["*"])).toEqual(["web", "mail"]);
    expect(effectiveGroups(user([]), ["*", "admin"])).toEqual([]);
  });

  it("lets the owner (or a token group '*') enable anything", () => {
    expect(effectiveGroups(user([], true), ["admin", "*"])).toEqual(["admin", "*"]);
    expect(effectiveGroups(user(["*"]), ["admin"])).toEqual(["admin"]);
  });

  it("never exceeds a non-owner's groups (property)", () => {
    const names: string[] = ["web", "mail", "files", "admin", "code"];
    const own = fc.array(fc.constantFrom(...names));
    const requested = fc.option(fc.array(fc.constantFrom(...names, "*")), { nil: undefined });
    const outside: string[][] = [];
    fc.assert(
      fc.property(own, requested, (groups, asked) => {
        const extra = effectiveGroups(user(groups), asked).filter((g) => !groups.includes(g));
        if (extra.length > 0) outside.push(extra);
        return extra.length === 0;
      }),
    );
    expect(outside).toEqual([]);
  });
});
