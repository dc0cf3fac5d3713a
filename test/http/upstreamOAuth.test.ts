// Each user's own grant to an OAuth upstream (`auth: {type: "oauth"}`), against an OAuth-protected MCP server with its
// own authorization server and per-user notes (test/fixtures/oauth-upstream.ts): the sign-in link a call answers with,
// the connect page, the authorization server (the test acts as the browser), the callback, and calls made as each
// user; refresh with rotation, revocation, deletion, removal, and the bounds of the links and states.
import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { principalObjectName } from "../../src/durable/names.ts";
import { loadSettings } from "../../src/isolate/settings.ts";
import { sealSignInTicket } from "../../src/isolate/upstreamSignIn.ts";
import { api, errorOf, json, ownerToken, sessionId } from "./helpers.ts";
import { addUpstream, browser, consent, execute, fixture, fixtureState, linkFor, openLink, signIn, user } from "../support/oauthUpstream.ts";

const owner = await ownerToken();

describe("an OAuth upstream: each user's own grant", () => {
  it("asks each user to sign in, then acts as that user: two users see only their own data", async () => {
    const { id, url, state } = fixture("two");
    const added = await addUpstream(id, url, { visibility: "public" });
    expect(added).toMatchObject({ status: "ok", tools: 3, lastError: null });
    const alice = await user("alice");
    const bob = await user("bob");

    const first = await execute(alice.token, sessionId("oa"), `${id}__my_notes`);
    expect(first.isError).toBe(true);
    expect(first.signIn?.upstream).toBe(id);
    const link = first.signIn?.url ?? "";
    expect(link).toMatch(new RegExp(`^http://toolgate\\.test/v1/upstreams/${id}/oauth/connect\\?ticket=`));
    expect(first.content).toContain(link);
    expect((await fixtureState(state)).counters.calls).toBe(0);

    const callback = await signIn(link, "alice");
    expect(callback.status).toBe(200);
    expect(await callback.text()).toContain("Signed in");
    expect(await execute(alice.token, sessionId("oa"), `${id}__whoami`)).toMatchObject({ isError: false, content: expect.stringContaining("user: alice") });
    const aliceNotes = await execute(alice.token, sessionId("oa"), `${id}__my_notes`);
    expect(aliceNotes.content).toContain("alice: buy milk");
    expect(aliceNotes.content).not.toContain("bob");

    // Bob has no grant of his own: Alice's is never used for him.
    const bobFirst = await execute(bob.token, sessionId("ob"), `${id}__my_notes`);
    expect(bobFirst).toMatchObject({ isError: true, signIn: { upstream: id } });
    expect((await signIn(bobFirst.signIn?.url ?? "", "bob")).status).toBe(200);
    const bobNotes = await execute(bob.token, sessionId("ob"), `${id}__my_notes`);
    expect(bobNotes.content).toContain("bob: call the plumber");
    expect(bobNotes.content).not.toContain("alice");
    expect((await execute(alice.token, sessionId("oa2"), `${id}__whoami`)).content).toContain("user: alice");

    const seen = await fixtureState(state);
    // Three calls reached the server, each with the caller's own token; no token ever reached an answer.
    expect(seen.callTokens).toHaveLength(4);
    expect(new Set(seen.callTokens).size).toBe(2);
    for (const issued of seen.issued) {
      expect(aliceNotes.content + bobNotes.content + first.content).not.toContain(issued);
    }
    expect(seen.counters.registrations).toBe(1);
    expect(seen.lastAuthorize).toMatchObject({ code_challenge_method: "S256", resource: url, response_type: "code", scope: "notes" });
    expect(seen.lastAuthorize?.redirect_uri).toBe(`http://toolgate.test/v1/upstreams/${id}/oauth/callback`);
  });

  it("keeps grants encrypted at rest: no token in the principal's raw storage", async () => {
    const { id, url, state } = fixture("rest");
    await addUpstream(id, url, { visibility: "public" });
    const alice = await user("alice");
    expect((await signIn(await linkFor(alice.token, id), "alice")).status).toBe(200);
    expect((await execute(alice.token, sessionId("rest"), `${id}__whoami`)).content).toContain("user: alice");
    const issued = (await fixtureState(state)).issued;
    expect(issued.length).toBeGreaterThanOrEqual(2);
    const stub = env.PRINCIPAL.getByName(principalObjectName(alice.id));
    const raw = await runInDurableObject(stub, (_instance, ctx) => {
      const rows = ctx.storage.sql.exec("SELECT * FROM upstream_grants").toArray();
      const tables = ctx.storage.sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\'").toArray();
      const everything = tables.map((table) => JSON.stringify(ctx.storage.sql.exec(`SELECT * FROM "${table.name}"`).toArray())).join("\n");
      return { rows, everything: everything + JSON.stringify([...ctx.storage.kv.list()]) };
    });
    expect(raw.rows).toHaveLength(1);
    expect(raw.rows[0]?.sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    for (const secret of issued) expect(raw.everything).not.toContain(secret);
    // The upstream's object keeps no token either.
    const upstreamRaw = await runInDurableObject(env.UPSTREAM.getByName(id), (_instance, ctx) =>
      JSON.stringify([...ctx.storage.kv.list()]) + JSON.stringify(ctx.storage.sql.exec("SELECT * FROM upstream_grant_holders").toArray()));
    for (const secret of issued) expect(upstreamRaw).not.toContain(secret);
    expect(upstreamRaw).toContain(alice.id);
  });

  it("refreshes a grant before it expires, once at a time, following the server's rotation", async () => {
    const { id, url, state } = fixture("refresh");
    await addUpstream(id, url, { visibility: "public" });
    // Access tokens that live 30 s: under the refresh margin, so that every call finds its token about to expire.
    await fixtureState(state, { accessSeconds: 30 });
    const alice = await user("alice");
    expect((await signIn(await linkFor(alice.token, id), "alice")).status).toBe(200);
    expect((await execute(alice.token, sessionId("rf"), `${id}__whoami`)).content).toContain("user: alice");
    expect((await fixtureState(state)).counters.refreshes).toBe(1);
    // Three calls at once: one refresh among them (the rotated refresh token would refuse a second), all answered.
    const answers = await Promise.all([1, 2, 3].map(() => execute(alice.token, sessionId("rf"), `${id}__whoami`)));
    for (const answer of answers) expect(answer).toMatchObject({ isError: false, content: expect.stringContaining("user: alice") });
    const after = await fixtureState(state);
    expect(after.counters.refreshes).toBeGreaterThanOrEqual(2);
    expect(after.counters.refreshes).toBeLessThanOrEqual(4);
    expect(after.counters.codeExchanges).toBe(1);
  });

  it("asks again when the server revoked the grant (401), and works after a new sign-in", async () => {
    const { id, url, state } = fixture("revoked");
    await addUpstream(id, url, { visibility: "public" });
    const alice = await user("alice");
    expect((await signIn(await linkFor(alice.token, id), "alice")).status).toBe(200);
    expect((await execute(alice.token, sessionId("rv"), `${id}__whoami`)).isError).toBe(false);
    await fixtureState(state, { revokeUser: "alice" });
    const refused = await execute(alice.token, sessionId("rv"), `${id}__whoami`);
    expect(refused).toMatchObject({ isError: true, signIn: { upstream: id } });
    const unauthorized = (await fixtureState(state)).counters.unauthorized;
    // The refused grant is gone: the next call asks again without going to the server.
    expect((await execute(alice.token, sessionId("rv"), `${id}__whoami`)).signIn?.upstream).toBe(id);
    expect((await fixtureState(state)).counters.unauthorized).toBe(unauthorized);
    expect((await signIn(refused.signIn?.url ?? "", "alice")).status).toBe(200);
    expect((await execute(alice.token, sessionId("rv"), `${id}__whoami`)).content).toContain("user: alice");
  });

  it("deletes a user's grant on DELETE /v1/upstreams/:id/grant, revoking it at the server", async () => {
    const { id, url, state } = fixture("delete");
    await addUpstream(id, url, { visibility: "public" });
    const alice = await user("alice");
    const bob = await user("bob");
    expect((await signIn(await linkFor(alice.token, id), "alice")).status).toBe(200);
    expect((await signIn(await linkFor(bob.token, id), "bob")).status).toBe(200);
    const deleted = await api(`/v1/upstreams/${id}/grant`, { method: "DELETE", token: alice.token });
    expect(deleted.status).toBe(200);
    expect(await json(deleted)).toEqual({ upstream: id, deleted: true, revoked: true });
    expect((await fixtureState(state)).liveGrants).toEqual(["bob"]);
    expect((await execute(alice.token, sessionId("dl"), `${id}__whoami`)).signIn?.upstream).toBe(id);
    // Bob's grant is his own: untouched.
    expect((await execute(bob.token, sessionId("dl"), `${id}__whoami`)).content).toContain("user: bob");
    const again = await api(`/v1/upstreams/${id}/grant`, { method: "DELETE", token: alice.token });
    expect(await json(again)).toMatchObject({ deleted: false });
  });

  it("deletes every user's grant when the owner removes the upstream; added again, it asks again", async () => {
    const { id, url } = fixture("removed");
    await addUpstream(id, url, { visibility: "public" });
    const alice = await user("alice");
    const bob = await user("bob");
    expect((await signIn(await linkFor(alice.token, id), "alice")).status).toBe(200);
    expect((await signIn(await linkFor(bob.token, id), "bob")).status).toBe(200);
    const removed = await api(`/v1/upstreams/${id}`, { method: "DELETE", token: owner });
    expect(await json(removed)).toMatchObject({ removed: id, grantsDeleted: 2 });
    const rows = await runInDurableObject(env.PRINCIPAL.getByName(principalObjectName(alice.id)), (_instance, ctx) =>
      ctx.storage.sql.exec("SELECT upstream_id FROM upstream_grants").toArray());
    expect(rows).toEqual([]);
    await addUpstream(id, url, { visibility: "public" });
    expect((await execute(bob.token, sessionId("rm"), `${id}__whoami`)).signIn?.upstream).toBe(id);
  });

  it("refuses a grant of an earlier registration (kept past the fan-out) by its generation", async () => {
    const { id, url } = fixture("generation");
    await addUpstream(id, url, { visibility: "public" });
    const alice = await user("alice");
    expect((await signIn(await linkFor(alice.token, id), "alice")).status).toBe(200);
    // A principal the removal did not reach: its holder row is dropped before the removal, as past the fan-out.
    await runInDurableObject(env.UPSTREAM.getByName(id), (_instance, ctx) => ctx.storage.sql.exec("DELETE FROM upstream_grant_holders"));
    await api(`/v1/upstreams/${id}`, { method: "DELETE", token: owner });
    await addUpstream(id, url, { visibility: "public" });
    expect((await execute(alice.token, sessionId("gen"), `${id}__whoami`)).signIn?.upstream).toBe(id);
    const rows = await runInDurableObject(env.PRINCIPAL.getByName(principalObjectName(alice.id)), (_instance, ctx) =>
      ctx.storage.sql.exec("SELECT upstream_id FROM upstream_grants").toArray());
    expect(rows).toEqual([]);
  });

  it("lists a server whose list is not public with the owner's grant, once the owner signed in", async () => {
    const { id, url, state } = fixture("ownerlist");
    await fixtureState(state, { publicList: false });
    const upstream = await addUpstream(id, url);
    expect(upstream).toMatchObject({ status: "failing", tools: 0 });
    expect(String(upstream.lastError)).toContain("the owner signs in once");
    expect((await signIn(await linkFor(owner, id), "carol")).status).toBe(200);
    const refreshed = await json<{ upstream: Record<string, unknown> }>(await api(`/v1/upstreams/${id}/refresh`, { method: "POST", token: owner }));
    expect(refreshed.upstream).toMatchObject({ status: "ok", tools: 3 });
    // A user still acts as themselves, never as the owner.
    const alice = await user("alice");
    expect((await execute(alice.token, sessionId("ol"), `${id}__whoami`)).signIn?.upstream).toBe(id);
    expect((await execute(owner, sessionId("ol"), `${id}__whoami`)).content).toContain("user: carol");
  });

  it("registers by its client metadata document where the server takes them", async () => {
    const { id, url, state } = fixture("cimd");
    await fixtureState(state, { cimd: true });
    await addUpstream(id, url, { visibility: "public" });
    const alice = await user("alice");
    const response = await exports.default.fetch(new Request(`https://toolgate.test/v1/upstreams/${id}/connect`, {
      method: "POST",
      headers: { authorization: `Bearer ${alice.token}` },
    }));
    const link = (await json<{ url: string }>(response)).url;
    expect(link.startsWith("https://toolgate.test/")).toBe(true);
    const started = await openLink(link);
    const clientId = `https://toolgate.test/v1/upstreams/${id}/oauth/client.json`;
    expect(started.authorize.searchParams.get("client_id")).toBe(clientId);
    expect(started.cookie).toBeTruthy();
    const document = await browser(clientId);
    expect(await json(document)).toMatchObject({
      client_id: clientId,
      redirect_uris: [`https://toolgate.test/v1/upstreams/${id}/oauth/callback`],
      token_endpoint_auth_method: "none",
    });
    const callback = await consent(started, "alice");
    expect((await browser(callback, { cookie: started.cookie })).status).toBe(200);
    expect((await fixtureState(state)).counters.registrations).toBe(0);
    expect((await execute(alice.token, sessionId("cm"), `${id}__whoami`)).content).toContain("user: alice");
    // No document for an upstream without OAuth (or none at all).
    expect((await browser(`https://toolgate.test/v1/upstreams/nothing-here/oauth/client.json`)).status).toBe(404);
  });
});

describe("the bounds of a sign-in", () => {
  it("a link works once, and a state is taken once: a replayed callback is refused", async () => {
    const { id, url } = fixture("once");
    await addUpstream(id, url, { visibility: "public" });
    const alice = await user("alice");
    const link = await linkFor(alice.token, id);
    const started = await openLink(link);
    expect((await browser(link)).status).toBe(410);
    const callback = await consent(started, "alice");
    expect((await browser(callback, { cookie: started.cookie })).status).toBe(200);
    const replay = await browser(callback, { cookie: started.cookie });
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain("already completed");
  });

  it("refuses a callback from another browser than the one that opened the link, and stores nothing", async () => {
    const { id, url } = fixture("browser");
    await addUpstream(id, url, { visibility: "public" });
    const alice = await user("alice");
    const started = await openLink(await linkFor(alice.token, id));
    const callback = await consent(started, "mallory");
    const name = started.cookie.split("=")[0] ?? "";
    for (const cookie of [undefined, `${name}=not-the-one`]) {
      const refused = await browser(callback, cookie === undefined ? {} : { cookie });
      expect([400, 403]).toContain(refused.status);
    }
    // The flow was spent by the first refusal: even the right browser cannot finish it now.
    expect((await browser(callback, { cookie: started.cookie })).status).toBe(400);
    expect((await execute(alice.token, sessionId("br"), `${id}__whoami`)).signIn?.upstream).toBe(id);
  });

  it("refuses a changed or forged state and a ticket of another upstream, and an expired link", async () => {
    const { id, url } = fixture("forged");
    const other = fixture("forged-other");
    await addUpstream(id, url, { visibility: "public" });
    await addUpstream(other.id, other.url, { visibility: "public" });
    const alice = await user("alice");
    const bob = await user("bob");
    const started = await openLink(await linkFor(alice.token, id));
    const callback = new URL(await consent(started, "alice"));
    // Bob's own state (another principal's flow) does not complete Alice's, nor does a state changed by a byte.
    const bobStarted = await openLink(await linkFor(bob.token, id));
    const bobState = new URL(await consent(bobStarted, "bob")).searchParams.get("state") ?? "";
    const swapped = new URL(callback);
    swapped.searchParams.set("state", bobState);
    expect((await browser(swapped.href, { cookie: started.cookie })).status).toBe(403);
    const changed = new URL(callback);
    const state = changed.searchParams.get("state") ?? "";
    changed.searchParams.set("state", `${state.slice(0, 10)}${state[10] === "A" ? "B" : "A"}${state.slice(11)}`);
    expect((await browser(changed.href, { cookie: started.cookie })).status).toBe(400);
    // A link for one upstream opened at another's path.
    const link = new URL(await linkFor(alice.token, id));
    link.pathname = `/v1/upstreams/${other.id}/oauth/connect`;
    expect((await browser(link.href)).status).toBe(403);
    // An expired link (made as the gateway makes them, eleven minutes ago).
    const loaded = loadSettings(env);
    if (!loaded.ok) throw new Error(loaded.error.message);
    const ticket = await sealSignInTicket(loaded.settings, { principal: alice.id, upstream: id, nonce: "expired-nonce", expiresAt: Date.now() - 60_000 });
    expect((await browser(`http://toolgate.test/v1/upstreams/${id}/oauth/connect?ticket=${ticket}`)).status).toBe(410);
    expect((await browser(`http://toolgate.test/v1/upstreams/${id}/oauth/connect?ticket=garbage`)).status).toBe(403);
  });

  it("a denied consent stores nothing", async () => {
    const { id, url } = fixture("denied");
    await addUpstream(id, url, { visibility: "public" });
    const alice = await user("alice");
    const started = await openLink(await linkFor(alice.token, id));
    const callback = await consent(started, "alice", { test_deny: "1" });
    const answer = await browser(callback, { cookie: started.cookie });
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain("access_denied");
    expect((await execute(alice.token, sessionId("dn"), `${id}__whoami`)).signIn?.upstream).toBe(id);
  });
});

describe("configuring an OAuth upstream", () => {
  it("validates auth, and refuses a static Authorization header beside it", async () => {
    const { id, url } = fixture("config");
    const cases: [Record<string, unknown>, string][] = [
      [{ auth: { type: "basic" } }, "auth.type"],
      [{ auth: "oauth" }, "auth"],
      [{ auth: { type: "oauth", extra: 1 } }, "auth.extra"],
      [{ auth: { type: "oauth", clientSecretSecret: "TOOL_SECRET_X" } }, "auth.clientSecretSecret"],
      [{ auth: { type: "oauth", clientId: "c", clientSecretSecret: "AUTH_JWT_SECRET" } }, "auth.clientSecretSecret"],
      [{ auth: { type: "oauth", scopes: ["has space"] } }, "auth.scopes[0]"],
      [{ auth: { type: "oauth" }, headers: { Authorization: "TOOL_SECRET_REMOTE_TOKEN" } }, 'headers["Authorization"]'],
    ];
    for (const [body, field] of cases) {
      const response = await api(`/v1/upstreams/${id}`, { method: "PUT", token: owner, body: { url, ...body } });
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
      expect((await errorOf(response)).message).toContain(field);
    }
  });

  it("is not for anonymous callers, nor for a caller without a link", async () => {
    const { id, url } = fixture("anon");
    await addUpstream(id, url, { visibility: "public" });
    const response = await api(`/v1/upstreams/${id}/connect`, { method: "POST" });
    expect(response.status).toBe(401);
    const plain = await api(`/v1/upstreams/no-such-upstream/connect`, { method: "POST", token: (await user("alice")).token });
    expect(plain.status).toBe(404);
  });
});
