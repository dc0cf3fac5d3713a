// The OAuth upstream fixture (test/fixtures/oauth-upstream.ts) from the tests' side: a fresh server per test, users,
// and the browser's part of a sign-in (open toolgate's link, consent at the authorization server, the callback).
import { env, exports } from "cloudflare:workers";
import { expect } from "vitest";
import { api, json, ownerToken, token } from "../http/helpers.ts";

export interface ExecuteAnswer {
  content: string;
  isError: boolean;
  signIn?: { upstream: string; url: string; expiresAt: number };
}

export interface FixtureState {
  counters: { registrations: number; codeExchanges: number; refreshes: number; revocations: number; calls: number; unauthorized: number };
  lastAuthorize: Record<string, string> | null;
  callTokens: string[];
  liveGrants: string[];
  issued: string[];
}

let keys = 0;

/** A fresh OAuth fixture (its own server, authorization server and users' notes) and an upstream id for it. */
export function fixture(label: string): { id: string; url: string; state: string } {
  keys += 1;
  const key = `${label}-${keys}-${crypto.randomUUID().slice(0, 6)}`;
  return { id: key.slice(0, 32).replace(/-$/, ""), url: `https://notes.fixture.example/oauth-mcp/${key}`, state: `https://notes.fixture.example/oauth-mcp/${key}/state` };
}

export async function fixtureState(state: string, change?: Record<string, unknown>): Promise<FixtureState> {
  const response = await env.TOOL_REMOTE.fetch(state, change ? { method: "POST", body: JSON.stringify(change) } : {});
  return json(response);
}

/** A user of the gateway, unique to the test (level 2: the upstream's restricted tools are theirs to call). */
export async function user(name: string): Promise<{ id: string; token: string }> {
  const id = `${name}-${crypto.randomUUID().slice(0, 8)}`;
  return { id, token: await token({ sub: id, level: 2 }) };
}

export async function addUpstream(id: string, url: string, extra: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const response = await api(`/v1/upstreams/${id}`, { method: "PUT", token: await ownerToken(), body: { url, auth: { type: "oauth" }, ...extra } });
  expect(response.status).toBe(201);
  return (await json<{ upstream: Record<string, unknown> }>(response)).upstream;
}

export async function execute(who: string, sid: string, name: string, args: Record<string, unknown> = {}): Promise<ExecuteAnswer> {
  const response = await api(`/v1/sessions/${sid}/execute`, { token: who, body: { name, arguments: args } });
  expect(response.status).toBe(200);
  return json(response);
}

/** A request to the gateway at a full URL (a link it handed out), as a browser sends it. */
export function browser(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return exports.default.fetch(new Request(url, { headers, redirect: "manual" }));
}

export interface Started {
  cookie: string;
  authorize: URL;
}

/** Opens a sign-in link: the gateway's redirect to the authorization server, and the cookie it set. */
export async function openLink(link: string): Promise<Started> {
  const response = await browser(link);
  expect(response.status).toBe(302);
  const cookie = (response.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  expect(cookie).toMatch(/^toolgate_signin_[A-Za-z0-9_-]+=[A-Za-z0-9_-]+$/);
  return { cookie, authorize: new URL(response.headers.get("location") ?? "") };
}

/** The authorization server's answer for `name` (the test is the user at its page): the callback URL. */
export async function consent(started: Started, name: string, extra: Record<string, string> = {}): Promise<string> {
  const url = new URL(started.authorize);
  url.searchParams.set("test_user", name);
  for (const [key, value] of Object.entries(extra)) url.searchParams.set(key, value);
  const response = await env.TOOL_REMOTE.fetch(url.href, { redirect: "manual" });
  expect(response.status).toBe(302);
  return response.headers.get("location") ?? "";
}

/** The whole sign-in as `name` through a link: open, consent, callback (with the cookie); the callback's answer. */
export async function signIn(link: string, name: string): Promise<Response> {
  const started = await openLink(link);
  const callback = await consent(started, name);
  return browser(callback, { cookie: started.cookie });
}

export async function linkFor(who: string, id: string): Promise<string> {
  const response = await api(`/v1/upstreams/${id}/connect`, { method: "POST", token: who });
  expect(response.status).toBe(200);
  return (await json<{ url: string }>(response)).url;
}

