// Upstream MCP servers through the HTTP API, against a real MCP server built with the SDK (test/fixtures/mcp-upstream.ts,
// reached through the remote worker): register, search, execute through the guard, wrapping, failures and the skip,
// pinned descriptions (quarantine, diff, accept), list_changed, secrets in headers, removal, validation.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { texts } from "../../src/core/locale.ts";
import { UPSTREAM_LIMITS } from "../../src/core/upstream/config.ts";
import { sanitizeSource } from "../../src/core/boundary/untrusted.ts";
import { connect } from "../mcp/helpers.ts";
import { anError, api, errorOf, json, ownerToken, sessionId, token } from "./helpers.ts";

interface Summary {
  id: string;
  status: string;
  tools: number;
  quarantined: number;
  lastRefresh: string | null;
  lastError: string | null;
  consecutiveFailures: number;
  skippedUntil: string | null;
}
interface Detail extends Summary {
  config: { url: string };
  nextCursor?: string;
  toolNames: { name: string; upstreamName: string; annotations: Record<string, boolean>; visibility: string; risk: string; confirm: string }[];
  quarantine: { name: string; reason: string; digest: string; diff: { field: string; before: string | null; after: string | null }[] }[];
  quarantineNextCursor?: string;
  rejectedTools: { name: string; reason: string }[];
}
interface UpstreamAnswer {
  upstream: Detail;
  version?: number;
}
interface ExecuteAnswer {
  content: string;
  isError: boolean;
  confirmation?: { id: string; tool: string };
}

const owner = await ownerToken();
let keys = 0;

/** A fresh fixture server (its own state) and an upstream id for it. */
function fixture(label: string): { id: string; url: string; state: string } {
  keys += 1;
  const key = `${label}-${keys}-${crypto.randomUUID().slice(0, 6)}`;
  const path = `/mcp-upstream/${key}`;
  return { id: key.slice(0, 32).replace(/-$/, ""), url: `https://mcp.fixture.example${path}`, state: `https://mcp.fixture.example${path}/state` };
}

async function setState(url: string, body: { version?: 1 | 2 | 3; down?: boolean; extra?: unknown[]; pageDelayMs?: number; pageSize?: number; generated?: number }): Promise<{ calls: number }> {
  const response = await env.TOOL_REMOTE.fetch(url, { method: "POST", body: JSON.stringify(body) });
  return json(response);
}

async function fixtureState(url: string): Promise<{ calls: number; connections: number }> {
  return json(await env.TOOL_REMOTE.fetch(url));
}

async function fixtureCalls(url: string): Promise<number> {
  return (await fixtureState(url)).calls;
}

async function putUpstream(id: string, body: Record<string, unknown>): Promise<Response> {
  return api(`/v1/upstreams/${id}`, { method: "PUT", token: owner, body });
}

async function added(id: string, body: Record<string, unknown>): Promise<UpstreamAnswer> {
  const response = await putUpstream(id, body);
  expect(response.status).toBe(201);
  return json(response);
}

function nameOf(detail: Detail, upstreamName: string): string {
  const found = detail.toolNames.find((tool) => tool.upstreamName === upstreamName);
  if (!found) throw new Error(`no ${upstreamName} in ${JSON.stringify(detail.toolNames)}`);
  return found.name;
}

async function execute(sid: string, name: string, args: Record<string, unknown> = {}): Promise<ExecuteAnswer> {
  const response = await api(`/v1/sessions/${sid}/execute`, { token: owner, body: { name, arguments: args } });
  expect(response.status).toBe(200);
  return json(response);
}

async function searchNames(query: string): Promise<string[]> {
  const response = await api(`/v1/sessions/${sessionId("up-search")}/search`, { token: owner, body: { query, limit: 20 } });
  expect(response.status).toBe(200);
  const body = await json<{ tools: { name?: string; function?: { name: string } }[] }>(response);
  return body.tools.map((tool) => tool.function?.name ?? tool.name ?? "");
}

function bannerOf(id: string, tool: string): string {
  return texts("en").untrustedBanner(sanitizeSource(`mcp ${id} ${tool}`));
}

describe("an upstream MCP server", () => {
  it("is listed (every page), its tools registered under <id>__<tool>, annotations mapped to the guard", async () => {
    const { id, url } = fixture("list");
    const { upstream } = await added(id, { url });
    expect(upstream).toMatchObject({ id, status: "ok", tools: 9, quarantined: 0, lastError: null });
    expect(upstream.toolNames.map((tool) => tool.upstreamName).toSorted()).toEqual(
      ["changing", "echo", "fail", "lookup", "notes.read", "poke_list", "slow", "structured", "wipe_disk"],
    );
    expect(nameOf(upstream, "echo")).toBe(`${id}__echo`);
    // "notes.read" does not fit OpenAI's pattern: fitted, the upstream's name kept.
    const notes = nameOf(upstream, "notes.read");
    expect(notes).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    const listed = await json<{ tools: { name: string; originalName?: string; risk?: string; visibility?: string; executor?: unknown }[] }>(
      await api("/v1/tools?format=mcp", { token: owner }),
    );
    const registry = await json<{ tools: Record<string, unknown>[] }>(await api("/v1/tools?format=summary", { token: owner }));
    expect(registry.tools.map((tool) => tool.name)).toContain(`${id}__wipe_disk`);
    expect(listed.tools.map((tool) => tool.name)).toContain(notes);

    const all = await json<{ upstreams: Summary[] }>(await api("/v1/upstreams", { token: owner }));
    expect(all.upstreams.find((item) => item.id === id)).toMatchObject({ status: "ok", tools: 9, lastError: null });
    expect(all.upstreams.find((item) => item.id === id)?.lastRefresh).toMatch(/^\d{4}-/);
  });

  it("is found by search_tools and run through the guard, its output wrapped as untrusted", async () => {
    const { id, url, state } = fixture("run");
    const { upstream } = await added(id, { url });
    expect(await searchNames("stored note")).toContain(nameOf(upstream, "notes.read"));

    const sid = sessionId("up-run");
    const echo = await execute(sid, `${id}__echo`, { text: "hi" });
    expect(echo.isError).toBe(false);
    expect(echo.content.startsWith(bannerOf(id, "echo"))).toBe(true);
    expect(echo.content).toContain("echo: hi");
    expect(echo.content).toContain("[image image/png, 8 bytes, not shown]");

    const note = await execute(sid, nameOf(upstream, "notes.read"), { id: "7" });
    expect(note.content.startsWith(bannerOf(id, "notes.read"))).toBe(true);
    expect(note.content).toContain("note 7");

    // An answer over limits.maxResponseBytes (2 MiB) is cut off while it streams in: a tool error.
    const big = await execute(sid, `${id}__echo`, { text: "x", repeat: 3 * 1024 * 1024 });
    expect(big.isError).toBe(true);
    expect(big.content).toContain("larger than 2097152 bytes");

    const structured = await execute(sid, `${id}__structured`);
    expect(structured.content).toContain('{"temperature":21,"unit":"C"}');

    // destructiveHint → dangerous → the guard holds the call; the upstream never hears of it.
    const before = await fixtureCalls(state);
    const wipe = await execute(sid, `${id}__wipe_disk`);
    expect(wipe.confirmation).toMatchObject({ tool: `${id}__wipe_disk` });
    expect(await fixtureCalls(state)).toBe(before);
    // Arguments are checked against the upstream's schema before anything is sent.
    const bad = await execute(sid, nameOf(upstream, "notes.read"), { id: 7 });
    expect(bad.isError).toBe(true);
    expect(await fixtureCalls(state)).toBe(before);
  });

  it("opens a connection for each call and closes it: none is shared with another call", async () => {
    const { id, url, state } = fixture("own");
    await added(id, { url });
    const listed = (await fixtureState(state)).connections;
    const sid = sessionId("up-own");
    for (const text of ["a", "b", "c"]) expect((await execute(sid, `${id}__echo`, { text })).content).toContain(`echo: ${text}`);
    expect(await fixtureState(state)).toMatchObject({ calls: 3, connections: listed + 3 });
  });

  it("answers an upstream error and a timeout as tool errors, and skips a server that keeps failing", async () => {
    const { id, url, state } = fixture("fail");
    await added(id, { url, timeoutMs: 300 });
    const sid = sessionId("up-fail");
    const failed = await execute(sid, `${id}__fail`);
    expect(failed).toMatchObject({ isError: true });
    expect(failed.content).toContain("the fixture failed on purpose");
    // The tool's own error is the server working: no failure counted.
    expect((await json<UpstreamAnswer>(await api(`/v1/upstreams/${id}`, { token: owner }))).upstream.consecutiveFailures).toBe(0);

    // A timeout is the server being slow, not failing: it does not count, and the call is not sent again.
    const slowCalls = await fixtureCalls(state);
    const slow = await execute(sid, `${id}__slow`, { ms: 2_000 });
    expect(slow.isError).toBe(true);
    expect(slow.content).toMatch(/timed out/i);
    expect(slow.content).toContain("may have run on the server; it was not sent again");
    expect(await fixtureCalls(state)).toBe(slowCalls + 1);
    expect((await json<UpstreamAnswer>(await api(`/v1/upstreams/${id}`, { token: owner }))).upstream.consecutiveFailures).toBe(0);

    await setState(state, { down: true });
    for (let attempt = 0; attempt < 3; attempt++) {
      const down = await execute(sid, `${id}__echo`, { text: "x" });
      expect(down.isError).toBe(true);
      // The server's own words ("down for maintenance") reach the model behind the banner.
      expect(down.content).toContain(JSON.stringify(bannerOf(id, "echo")).slice(1, 40));
      expect(down.content).toContain("the call was not sent");
    }
    const detail = (await json<UpstreamAnswer>(await api(`/v1/upstreams/${id}`, { token: owner }))).upstream;
    expect(detail).toMatchObject({ status: "skipped", consecutiveFailures: 3 });
    expect(detail.skippedUntil).toMatch(/^\d{4}-/);
    expect(detail.lastError).toMatch(/503|down/);
    await setState(state, { down: false });
    const calls = await fixtureCalls(state);
    const skipped = await execute(sid, `${id}__echo`, { text: "x" });
    expect(skipped.isError).toBe(true);
    expect(skipped.content).toContain("skipped until");
    expect(await fixtureCalls(state)).toBe(calls);
    // A refresh by the owner lists even a skipped server, and its success clears the skip.
    const refreshed = await json<UpstreamAnswer>(await api(`/v1/upstreams/${id}/refresh`, { method: "POST", token: owner }));
    expect(refreshed.upstream).toMatchObject({ status: "ok", consecutiveFailures: 0, skippedUntil: null });
    expect((await execute(sid, `${id}__echo`, { text: "back" })).content).toContain("echo: back");
  });

  it("keeps the configuration of a server that cannot be listed, and says why", async () => {
    const { id, url, state } = fixture("down");
    await setState(state, { down: true });
    const { upstream } = await added(id, { url });
    expect(upstream).toMatchObject({ status: "failing", tools: 0, consecutiveFailures: 1, lastRefresh: null });
    expect(upstream.lastError).toContain("tools/list");
    await setState(state, { down: false });
    const refreshed = await json<UpstreamAnswer>(await api(`/v1/upstreams/${id}/refresh`, { method: "POST", token: owner }));
    expect(refreshed.upstream).toMatchObject({ status: "ok", tools: 9 });
  });

  it("sends header values from TOOL_SECRET_* secrets only, and names a missing one", async () => {
    const { id, url } = fixture("secret");
    await added(id, { url, headers: { Authorization: "TOOL_SECRET_REMOTE_TOKEN" } });
    const answer = await execute(sessionId("up-secret"), `${id}__lookup`);
    expect(answer.content).toContain("authorization: remote-token-for-vitest-only");

    const other = fixture("nosecret");
    const { upstream } = await added(other.id, { url: other.url, headers: { Authorization: "TOOL_SECRET_ABSENT" } });
    expect(upstream.status).toBe("failing");
    expect(upstream.lastError).toContain('secret "TOOL_SECRET_ABSENT" is not set');
  });

  it("moves the registry version only when a refresh changes something", async () => {
    const { id, url } = fixture("version");
    const first = await added(id, { url });
    const again = await json<UpstreamAnswer>(await api(`/v1/upstreams/${id}/refresh`, { method: "POST", token: owner }));
    expect(again.version).toBe(first.version);
  });

  it("pins descriptions: a changed tool and a new one are held with a diff and a digest until the owner accepts them", async () => {
    const { id, url, state } = fixture("pin");
    await added(id, { url });
    expect(await searchNames("weather")).toContain(`${id}__changing`);

    await setState(state, { version: 3 });
    const { upstream } = await json<UpstreamAnswer>(await api(`/v1/upstreams/${id}/refresh`, { method: "POST", token: owner }));
    expect(upstream).toMatchObject({ tools: 8, quarantined: 2 });
    const changing = upstream.quarantine.find((held) => held.name === "changing");
    expect(changing).toMatchObject({
      reason: "changed",
      digest: expect.stringMatching(/^[0-9a-f]{64}$/),
      diff: [{ field: "description", before: "Looks up the weather for a city.", after: expect.stringContaining("id_rsa") }],
    });
    const addedLater = upstream.quarantine.find((held) => held.name === "added_later");
    expect(addedLater).toMatchObject({ reason: "new" });
    expect(upstream.quarantineNextCursor).toBeUndefined();
    // Quarantine is paged on its own (each entry carries its diff): one a page, in list order, each shown once.
    const heldPages: string[][] = [];
    let quarantineCursor = "";
    do {
      const query = `?quarantineLimit=1${quarantineCursor === "" ? "" : `&quarantineCursor=${quarantineCursor}`}`;
      const page = await json<UpstreamAnswer>(await api(`/v1/upstreams/${id}${query}`, { token: owner }));
      expect(page.upstream).toMatchObject({ tools: 8, quarantined: 2 });
      heldPages.push(page.upstream.quarantine.map((held) => held.name));
      quarantineCursor = page.upstream.quarantineNextCursor ?? "";
    } while (quarantineCursor !== "" && heldPages.length < 5);
    expect(heldPages.flat().toSorted()).toEqual(["added_later", "changing"]);
    expect(heldPages.map((names) => names.length)).toEqual([1, 1]);
    for (const query of ["?quarantineLimit=0", "?quarantineLimit=501", "?quarantineLimit=x", "?quarantineCursor=nope", "?quarantineLimit=1&quarantineLimit=2"]) {
      const refused = await api(`/v1/upstreams/${id}${query}`, { token: owner });
      expect(await errorOf(refused)).toMatchObject(anError(400, "invalid_request"));
    }
    // Held: neither searchable nor executable.
    expect(await searchNames("weather")).not.toContain(`${id}__changing`);
    const sid = sessionId("up-pin");
    expect((await execute(sid, `${id}__changing`, { city: "Oslo" })).isError).toBe(true);

    const accept = (tools: unknown): Promise<Response> => api(`/v1/upstreams/${id}/accept`, { method: "POST", token: owner, body: { tools } });
    // A bare name, an empty list, no body: refused (each would accept whatever the upstream listed last).
    expect(await errorOf(await accept(["changing"]))).toMatchObject(anError(400, "invalid_request"));
    expect(await errorOf(await accept([]))).toMatchObject(anError(400, "invalid_request"));
    expect(await errorOf(await api(`/v1/upstreams/${id}/accept`, { method: "POST", token: owner }))).toMatchObject(anError(400, "invalid_request"));
    expect(await errorOf(await accept([{ name: "changing" }]))).toMatchObject(anError(400, "invalid_request"));
    const unknown = await accept([{ name: "echo", digest: "0".repeat(64) }]);
    expect(await errorOf(unknown)).toMatchObject(anError(409, "not_in_quarantine"));

    const accepted = await json<UpstreamAnswer>(await accept([{ name: "changing", digest: changing?.digest }]));
    expect(accepted.upstream).toMatchObject({ tools: 9, quarantined: 1 });
    expect((await execute(sid, `${id}__changing`, { city: "Oslo" })).content).toContain("sunny in Oslo");
    // Accepted means pinned: the next list holds nothing new.
    const again = await json<UpstreamAnswer>(await api(`/v1/upstreams/${id}/refresh`, { method: "POST", token: owner }));
    expect(again.upstream.quarantine.map((held) => held.name)).toEqual(["added_later"]);
    const rest = await json<UpstreamAnswer>(await accept([{ name: "added_later", digest: addedLater?.digest }]));
    expect(rest.upstream).toMatchObject({ tools: 10, quarantined: 0 });
  });

  it("accepts only the version the owner saw: an upstream that swaps its definition before the accept gets 409", async () => {
    const { id, url, state } = fixture("swap");
    await added(id, { url });
    // The owner looks at a harmless change (version 2) …
    await setState(state, { version: 2 });
    const looked = (await json<UpstreamAnswer>(await api(`/v1/upstreams/${id}/refresh`, { method: "POST", token: owner }))).upstream;
    const seen = looked.quarantine.find((held) => held.name === "changing");
    expect(seen?.diff[0]?.after).toBe("Looks up the weather for a city and country.");
    // … the upstream swaps in an injection and forces a new list (list_changed: the object's alarm) …
    await setState(state, { version: 3 });
    expect((await execute(sessionId("up-swap"), `${id}__poke_list`)).content).toContain("poked");
    await runDurableObjectAlarm(env.UPSTREAM.getByName(id));
    await expect.poll(async () => {
      const { upstream } = await json<UpstreamAnswer>(await api(`/v1/upstreams/${id}`, { token: owner }));
      return upstream.quarantine.find((held) => held.name === "changing")?.digest;
    }).not.toBe(seen?.digest);
    // … and the owner's accept of what they saw is refused: nothing registered, the injection still held.
    const race = await api(`/v1/upstreams/${id}/accept`, { method: "POST", token: owner, body: { tools: [{ name: "changing", digest: seen?.digest }] } });
    const error = await errorOf(race);
    expect(error).toMatchObject(anError(409, "quarantine_changed"));
    const { upstream } = await json<UpstreamAnswer>(await api(`/v1/upstreams/${id}`, { token: owner }));
    const now = upstream.quarantine.find((held) => held.name === "changing");
    expect(now?.diff[0]?.after).toContain("id_rsa");
    expect(error.message).toContain(now?.digest ?? "?");
    expect(upstream.toolNames.map((tool) => tool.upstreamName)).not.toContain("changing");
    expect(await searchNames("weather")).not.toContain(`${id}__changing`);
  });

  it('registers new tools at once with newTools "accept"', async () => {
    const { id, url, state } = fixture("accept");
    await added(id, { url, newTools: "accept" });
    await setState(state, { version: 2 });
    const { upstream } = await json<UpstreamAnswer>(await api(`/v1/upstreams/${id}/refresh`, { method: "POST", token: owner }));
    expect(upstream.quarantine.map((held) => [held.name, held.reason])).toEqual([["changing", "changed"]]);
    expect(upstream.toolNames.map((tool) => tool.upstreamName)).toContain("added_later");
  });

  it("lists again after the server sends tools/list_changed during a call (the object's alarm)", async () => {
    const { id, url, state } = fixture("changed");
    await added(id, { url });
    await setState(state, { version: 2 });
    expect((await execute(sessionId("up-changed"), `${id}__poke_list`)).content).toContain("poked");
    // The alarm is due at once: it may have run already; if not, run it now.
    await runDurableObjectAlarm(env.UPSTREAM.getByName(id));
    await expect.poll(async () => {
      const { upstream } = await json<UpstreamAnswer>(await api(`/v1/upstreams/${id}`, { token: owner }));
      return upstream.quarantine.map((held) => held.name).toSorted();
    }).toEqual(["added_later", "changing"]);
  });

  it("lists once per gap under a storm of tools/list_changed, not once per notification", async () => {
    const { id, url, state } = fixture("storm");
    const { upstream } = await added(id, { url });
    const listedAt = Date.parse(upstream.lastRefresh ?? "");
    const before = (await fixtureState(state)).connections;
    const sid = sessionId("up-storm");
    for (let poke = 0; poke < 5; poke++) expect((await execute(sid, `${id}__poke_list`)).content).toContain("poked");
    const alarm = await runInDurableObject(env.UPSTREAM.getByName(id), (_instance, storage) => storage.storage.getAlarm());
    expect(alarm).not.toBeNull();
    expect(alarm ?? 0).toBeGreaterThanOrEqual(listedAt + UPSTREAM_LIMITS.listChangedGapMs);
    // Five calls, five connections, and no list ran in between.
    expect((await fixtureState(state)).connections).toBe(before + 5);
    // When it comes, the alarm lists once.
    expect(await runDurableObjectAlarm(env.UPSTREAM.getByName(id))).toBe(true);
    expect((await fixtureState(state)).connections).toBe(before + 6);
  });

  it("lists again every refreshSeconds (the object's alarm)", async () => {
    const { id, url, state } = fixture("periodic");
    await added(id, { url, refreshSeconds: 60 });
    await setState(state, { version: 2 });
    expect(await runDurableObjectAlarm(env.UPSTREAM.getByName(id))).toBe(true);
    const { upstream } = await json<UpstreamAnswer>(await api(`/v1/upstreams/${id}`, { token: owner }));
    expect(upstream.quarantine.map((held) => held.name).toSorted()).toEqual(["added_later", "changing"]);
    // The alarm set the next one.
    expect(await runDurableObjectAlarm(env.UPSTREAM.getByName(id))).toBe(true);
  });

  it("applies the owner's settings over the annotations", async () => {
    const { id, url, state } = fixture("owner");
    await added(id, { url, prefix: "own", risk: "dangerous", groups: ["upstream-test"] });
    const before = await fixtureCalls(state);
    const response = await api(`/v1/sessions/${sessionId("up-owner")}/execute`, {
      token: owner,
      body: { name: "own__echo", arguments: { text: "x" }, enabledGroups: ["upstream-test"] },
    });
    expect((await json<ExecuteAnswer>(response)).confirmation).toMatchObject({ tool: "own__echo" });
    expect(await fixtureCalls(state)).toBe(before);
  });

  it("answers an MCP client of toolgate in MCP's shape: the upstream's text wrapped in a text block", async () => {
    const { id, url } = fixture("mcpface");
    await added(id, { url });
    const { client } = await connect(owner);
    const result = await client.callTool({ name: `${id}__echo`, arguments: { text: "via mcp" } });
    expect(result.isError).not.toBe(true);
    expect(result.content).toEqual([{ type: "text", text: expect.stringContaining("echo: via mcp") }]);
    expect(JSON.stringify(result.content)).toContain(JSON.stringify(bannerOf(id, "echo")).slice(1, -1));
    await client.close();
  });

  it("leaves a name another context holds to it, and says so", async () => {
    const { id, url } = fixture("taken");
    const taken = await api(`/v1/tools/${id}__echo`, {
      method: "PUT",
      token: owner,
      body: { description: "Mine.", parameters: { type: "object", properties: {} }, context: "taken-test" },
    });
    expect(taken.status).toBe(201);
    const { upstream } = await added(id, { url });
    expect(upstream.tools).toBe(8);
    expect(upstream.rejectedTools).toEqual([{ name: `${id}__echo`, reason: "another context already registers a tool of this name" }]);
    const mine = await json<{ tools: { name: string; description: string }[] }>(await api("/v1/tools?format=summary", { token: owner }));
    expect(mine.tools.find((tool) => tool.name === `${id}__echo`)?.description).toBe("Mine.");
    await api("/v1/contexts/taken-test", { method: "DELETE", token: owner });
  });

  it("shows its tools a page at a time: each tool once, in the server's order, the other fields on every page", async () => {
    const { id, url, state } = fixture("pages");
    await setState(state, { generated: 30 });
    const { upstream: whole } = await added(id, { url });
    // 39 tools fit in the default page: the PUT answer has them all, and no cursor.
    expect(whole.tools).toBe(39);
    expect(whole.toolNames).toHaveLength(39);
    expect(whole.nextCursor).toBeUndefined();
    const pages: Detail[] = [];
    let cursor: string | undefined;
    do {
      const query = `limit=10${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`;
      const response = await api(`/v1/upstreams/${id}?${query}`, { token: owner });
      expect(response.status).toBe(200);
      const { upstream } = await json<UpstreamAnswer>(response);
      pages.push(upstream);
      cursor = upstream.nextCursor;
    } while (cursor !== undefined && pages.length < 10);
    expect(pages.map((page) => page.toolNames.length)).toEqual([10, 10, 10, 9]);
    expect(pages.flatMap((page) => page.toolNames)).toEqual(whole.toolNames);
    for (const page of pages) {
      expect(page).toMatchObject({ id, status: "ok", tools: 39, quarantined: 0, quarantine: [], rejectedTools: [], config: { url } });
    }
    await api(`/v1/upstreams/${id}`, { method: "DELETE", token: owner });
  });

  it("refuses a page it cannot show: a bad limit, a cursor no page gave, an unknown or repeated parameter (400)", async () => {
    const { id, url } = fixture("badpage");
    await added(id, { url });
    const cursor = (await json<UpstreamAnswer>(await api(`/v1/upstreams/${id}?limit=1`, { token: owner }))).upstream.nextCursor ?? "";
    expect(cursor).not.toBe("");
    const bad: [string, RegExp][] = [
      ["limit=0", /limit/],
      ["limit=2001", /limit/],
      ["limit=ten", /limit/],
      ["limit=1.5", /limit/],
      ["limit=", /limit/],
      ["cursor=", /cursor/],
      ["cursor=not-a-cursor", /cursor/],
      ["cursor=-1.6563686f", /cursor/],
      ["cursor=3.656", /cursor/],
      ["cursor=3.ff", /cursor/],
      [`cursor=1.${"61".repeat(1_100)}`, /cursor/],
      ["offset=3", /unknown query parameter/],
      [`cursor=${cursor}&cursor=${cursor}`, /more than once/],
    ];
    for (const [query, message] of bad) {
      const error = await errorOf(await api(`/v1/upstreams/${id}?${query}`, { token: owner }));
      expect({ query, ...error }).toMatchObject({ query, ...anError(400, "invalid_request") });
      expect(error.message).toMatch(message);
    }
    // A cursor of a removed upstream's page: the upstream is gone (404), not a page of another.
    await api(`/v1/upstreams/${id}`, { method: "DELETE", token: owner });
    expect(await errorOf(await api(`/v1/upstreams/${id}?cursor=${cursor}`, { token: owner }))).toMatchObject(anError(404, "upstream_not_found"));
  });

  it("takes its tools with it when removed", async () => {
    const { id, url } = fixture("remove");
    await added(id, { url });
    const removed = await api(`/v1/upstreams/${id}`, { method: "DELETE", token: owner });
    expect(await json(removed)).toMatchObject({ removed: id, tools: 9 });
    const registry = await json<{ tools: { name: string }[] }>(await api("/v1/tools?format=summary", { token: owner }));
    expect(registry.tools.some((tool) => tool.name.startsWith(`${id}__`))).toBe(false);
    expect((await execute(sessionId("up-remove"), `${id}__echo`, { text: "x" })).isError).toBe(true);
    expect(await errorOf(await api(`/v1/upstreams/${id}`, { token: owner }))).toMatchObject(anError(404, "upstream_not_found"));
    expect(await errorOf(await api(`/v1/upstreams/${id}`, { method: "DELETE", token: owner }))).toMatchObject(anError(404, "upstream_not_found"));
    const all = await json<{ upstreams: Summary[] }>(await api("/v1/upstreams", { token: owner }));
    expect(all.upstreams.some((item) => item.id === id)).toBe(false);
  });
});

async function executeAs(bearer: string, sid: string, name: string, args: Record<string, unknown> = {}): Promise<ExecuteAnswer> {
  const response = await api(`/v1/sessions/${sid}/execute`, { token: bearer, body: { name, arguments: args } });
  expect(response.status).toBe(200);
  return json(response);
}

describe("calls of different callers", () => {
  it("never cut each other off: bob's call while alice's slow one is in flight leaves hers to finish, each run once", async () => {
    const { id, url, state } = fixture("together");
    await added(id, { url, visibility: "public" });
    const alice = await token({ sub: "upstream-alice", level: 1 });
    const bob = await token({ sub: "upstream-bob", level: 1 });
    const before = await fixtureCalls(state);
    const slow = executeAs(alice, sessionId("up-alice"), `${id}__slow`, { ms: 1_500 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const quick = await executeAs(bob, sessionId("up-bob"), `${id}__slow`, { ms: 10 });
    expect(quick).toMatchObject({ isError: false });
    const hers = await slow;
    expect(hers).toMatchObject({ isError: false });
    expect(hers.content).toContain("slow done");
    expect(await fixtureCalls(state)).toBe(before + 2);
  });

  it("answer every call of 10 concurrent callers (none lost, none skipped), and one caller's timeouts skip nobody", async () => {
    const { id, url, state } = fixture("crowd");
    await added(id, { url, visibility: "public", timeoutMs: 3_000 });
    const callers = await Promise.all(Array.from({ length: 10 }, (_, n) => token({ sub: `upstream-crowd-${n}`, level: 1 })));
    const before = await fixtureCalls(state);
    const answers = await Promise.all(callers.flatMap((bearer, n) => {
      const sid = sessionId(`up-crowd-${n}`);
      return [0, 1, 2].map((call) => executeAs(bearer, sid, `${id}__slow`, { ms: 50 + 20 * call }));
    }));
    expect(answers.filter((answer) => answer.isError)).toEqual([]);
    expect(await fixtureCalls(state)).toBe(before + 30);
    // One principal's calls that time out (its own load, a slow tool) are not the server failing.
    const looping = callers[0] ?? "";
    const timedOut = await Promise.all([0, 1, 2, 3].map(() => executeAs(looping, sessionId("up-loop"), `${id}__slow`, { ms: 4_000 })));
    for (const answer of timedOut) expect(answer.content).toContain("may have run on the server");
    expect((await executeAs(callers[1] ?? "", sessionId("up-other"), `${id}__slow`, { ms: 1 })).isError).toBe(false);
    const { upstream } = await json<UpstreamAnswer>(await api(`/v1/upstreams/${id}`, { token: owner }));
    expect(upstream).toMatchObject({ status: "ok", consecutiveFailures: 0, skippedUntil: null });
  }, 30_000);
});

function guardOf(detail: Detail, name: string): Detail["toolNames"][number] | undefined {
  return detail.toolNames.find((tool) => tool.upstreamName === name);
}

describe("an upstream's secure defaults", () => {
  it("restricts every tool unless the owner says public; annotations raise the guard, never lower it", async () => {
    const { id, url, state } = fixture("secure");
    await setState(state, { extra: [{ name: "both_hints", description: "Says it is read-only and destructive.", inputSchema: { type: "object" }, annotations: { readOnlyHint: true, destructiveHint: true } }] });
    const { upstream } = await added(id, { url });
    expect(guardOf(upstream, "notes.read")).toMatchObject({ annotations: { readOnlyHint: true }, visibility: "restricted", risk: "safe", confirm: "off" });
    expect(guardOf(upstream, "wipe_disk")).toMatchObject({ visibility: "restricted", risk: "dangerous", confirm: "session" });
    expect(guardOf(upstream, "echo")).toMatchObject({ annotations: {}, visibility: "restricted", risk: "sensitive", confirm: "off" });
    expect(guardOf(upstream, "both_hints")).toMatchObject({ risk: "dangerous", confirm: "session" });

    // A level-0 caller (and an anonymous one) runs none of them, read-only ones included.
    const zero = await token({ sub: "upstream-zero", level: 0 });
    const denied = await executeAs(zero, sessionId("up-zero"), nameOf(upstream, "notes.read"), { id: "1" });
    expect(denied.isError).toBe(true);
    expect(JSON.parse(denied.content)).toEqual({ error: texts("en").levelTooLow(nameOf(upstream, "notes.read"), 2, 0) });

    // GET /v1/tools shows what each upstream tool's annotations mapped to.
    const summary = await json<{ tools: { name: string; upstream?: Record<string, unknown> }[] }>(await api("/v1/tools?format=summary", { token: owner }));
    expect(summary.tools.find((tool) => tool.name === `${id}__both_hints`)?.upstream).toEqual({
      id, tool: "both_hints", visibility: "restricted", risk: "dangerous", confirm: "session",
    });

    // Public on one tool: that one runs at level 0, the others stay restricted.
    const reconfigured = await putUpstream(id, { url, tools: { "notes.read": { visibility: "public" } } });
    expect(reconfigured.status).toBe(200);
    expect((await executeAs(zero, sessionId("up-zero"), nameOf(upstream, "notes.read"), { id: "1" })).content).toContain("note 1");
    expect((await executeAs(zero, sessionId("up-zero"), `${id}__echo`, { text: "x" })).isError).toBe(true);

    // Public and safe on the upstream: a destructive hint still makes the tool dangerous (asks for confirmation).
    const open = await json<UpstreamAnswer>(await putUpstream(id, { url, visibility: "public", risk: "safe" }));
    expect(guardOf(open.upstream, "both_hints")).toMatchObject({ visibility: "public", risk: "dangerous", confirm: "session" });
    expect(guardOf(open.upstream, "echo")).toMatchObject({ visibility: "public", risk: "safe" });
    const calls = await fixtureCalls(state);
    // (dangerous needs level 2 as well)
    expect((await executeAs(zero, sessionId("up-zero"), `${id}__both_hints`)).isError).toBe(true);
    const two = await token({ sub: "upstream-two", level: 2 });
    expect((await executeAs(two, sessionId("up-two"), `${id}__both_hints`)).confirmation).toMatchObject({ tool: `${id}__both_hints` });
    expect(await fixtureCalls(state)).toBe(calls);
    await api(`/v1/upstreams/${id}`, { method: "DELETE", token: owner });
  });

  it("refuses an unknown per-tool setting", async () => {
    const error = await errorOf(await putUpstream("validation", { url: "https://mcp.example.com/mcp", tools: { echo: { visibility: "open" } } }));
    expect(error).toMatchObject(anError(400, "invalid_request"));
    expect(error.message).toContain('tools["echo"].visibility');
  });

  it("reserves the upstream: context prefix for upstreams (400)", async () => {
    const one = await api("/v1/tools/up_reserved", {
      method: "PUT",
      token: owner,
      body: { description: "Mine.", parameters: { type: "object", properties: {} }, context: "upstream:someone" },
    });
    expect(await errorOf(one)).toMatchObject(anError(400, "invalid_request"));
    const many = await api("/v1/tools", {
      method: "PUT",
      token: owner,
      body: { context: "upstream:someone", tools: [{ name: "up_reserved", description: "Mine.", parameters: { type: "object", properties: {} } }] },
    });
    expect((await errorOf(many)).message).toContain("upstream:");
  });
});

function nested(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: "string" };
  for (let level = 0; level < depth; level++) schema = { type: "object", properties: { x: schema } };
  return schema;
}

/** A tool whose schema holds about `kib` KiB of JSON. */
function bigTool(name: string, kib: number): Record<string, unknown> {
  return { name, description: "Big.", inputSchema: { type: "object", properties: { x: { type: "string", description: "z".repeat(kib * 1024) } } } };
}

describe("a hostile upstream's tools", () => {
  it("takes tools past the old 256 KiB, each in a row of its own, and leaves out (with the reason) those past the byte budget", async () => {
    const { id, url, state } = fixture("budget");
    // 290 tools of ~60 KiB each (under the 64 KiB schema cap), 50 a page: 17 MiB, past the 16 MiB an upstream's tools may take.
    await setState(state, { extra: Array.from({ length: 290 }, (_, n) => bigTool(`big_${n}`, 60)), pageSize: 50 });
    const { upstream } = await added(id, { url, timeoutMs: 60_000 });
    expect(upstream.status).toBe("ok");
    const left = upstream.rejectedTools.filter((tool) => tool.name.startsWith("big_"));
    expect(left.length).toBeGreaterThan(0);
    expect(left[0]?.reason).toMatch(new RegExp(`may take at most ${UPSTREAM_LIMITS.toolBytesPerUpstream}`));
    const taken = upstream.toolNames.filter((tool) => tool.upstreamName.startsWith("big_")).length;
    expect(taken).toBeGreaterThan(250);
    expect(taken + left.length).toBe(290);
    const largest = await runInDurableObject(env.UPSTREAM.getByName(id), (_instance, storage) => ({
      row: storage.storage.sql.exec<{ n: number }>("SELECT MAX(length(body)) AS n FROM upstream_pins").one().n,
      head: JSON.stringify(storage.storage.kv.get("head")).length,
    }));
    expect(largest.row).toBeLessThan(100 * 1024);
    expect(largest.head).toBeLessThan(10 * 1024);
    await api(`/v1/upstreams/${id}`, { method: "DELETE", token: owner });
  }, 60_000);

  it("keeps the pins of tools the server stopped listing as rows, none of them in one growing value", async () => {
    const { id, url, state } = fixture("rotate");
    await setState(state, { extra: [0, 1, 2, 3].map((n) => bigTool(`r0_${n}`, 55)) });
    await added(id, { url, newTools: "accept" });
    // Ten rounds of four new ~55 KiB tools, each accepted and pinned, the earlier ones no longer listed: 2.2 MB of pins.
    for (let round = 1; round <= 10; round++) {
      await setState(state, { extra: [0, 1, 2, 3].map((n) => bigTool(`r${round}_${n}`, 55)) });
      const refreshed = await api(`/v1/upstreams/${id}/refresh`, { method: "POST", token: owner });
      expect(refreshed.status).toBe(200);
    }
    const stored = await runInDurableObject(env.UPSTREAM.getByName(id), (_instance, storage) => ({
      pins: storage.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM upstream_pins").one().n,
      largest: storage.storage.sql.exec<{ n: number }>("SELECT MAX(length(body)) AS n FROM upstream_pins").one().n,
    }));
    // The 9 tools the fixture always lists and 44 rotated ones: every pin kept (under MAX_UNLISTED_PINS), each small.
    expect(stored.pins).toBe(53);
    expect(stored.largest).toBeLessThan(100 * 1024);
    const { upstream } = await json<UpstreamAnswer>(await api(`/v1/upstreams/${id}`, { token: owner }));
    expect(upstream.toolNames.map((tool) => tool.upstreamName)).toEqual(expect.arrayContaining(["r10_0", "r10_3", "echo"]));
    await api(`/v1/upstreams/${id}`, { method: "DELETE", token: owner });
    // Eleven lists of ~220 KiB each: seconds on a loaded machine.
  }, 20_000);

  it("leaves out a tool with a giant schema without storing it, and keeps the rest", async () => {
    const { id, url, state } = fixture("giant");
    const giant = { type: "object", properties: { x: { type: "string", description: "a".repeat(3 * 1024 * 1024) } } };
    await setState(state, { extra: [{ name: "giant", description: "Big.", inputSchema: giant }] });
    const { upstream } = await added(id, { url });
    expect(upstream.status).toBe("ok");
    expect(upstream.toolNames.map((tool) => tool.upstreamName)).toContain("echo");
    expect(upstream.rejectedTools.map((tool) => tool.name)).toEqual(["giant"]);
    expect(upstream.rejectedTools[0]?.reason).toMatch(/\d+ bytes/);
    // Not pinned either: no stored row takes it (storage refuses a value over 2 MB).
    const stored = await runInDurableObject(env.UPSTREAM.getByName(id), (_instance, storage) =>
      storage.storage.sql.exec<{ n: number }>("SELECT MAX(length(body)) AS n FROM upstream_pins").one().n,
    );
    expect(stored).toBeLessThan(100_000);
    // Listed again: still answered, still left out.
    const again = await json<UpstreamAnswer>(await api(`/v1/upstreams/${id}/refresh`, { method: "POST", token: owner }));
    expect(again.upstream.rejectedTools.map((tool) => tool.name)).toEqual(["giant"]);
    await api(`/v1/upstreams/${id}`, { method: "DELETE", token: owner });
  });

  it("leaves out only the tool whose schema the SDK would refuse, and takes one without a type", async () => {
    const { id, url, state } = fixture("odd");
    await setState(state, {
      extra: [
        { name: "odd_array", description: "An array schema.", inputSchema: { type: "array" } },
        { name: "untyped", description: "A schema without type.", inputSchema: { properties: { q: { type: "string" } } } },
      ],
    });
    const { upstream } = await added(id, { url });
    expect(upstream.status).toBe("ok");
    expect(upstream.toolNames.map((tool) => tool.upstreamName)).toEqual(expect.arrayContaining(["echo", "untyped"]));
    expect(upstream.rejectedTools.map((tool) => tool.name)).toEqual(["odd_array"]);
    expect(upstream.rejectedTools[0]?.reason).toMatch(/object/);
    await api(`/v1/upstreams/${id}`, { method: "DELETE", token: owner });
  });

  it("lists every refusal with its reason: a duplicate name, a name too long that would fit to an accepted one", async () => {
    const { id, url, state } = fixture("refusals");
    const long = `${"n".repeat(256)}x`;
    await setState(state, {
      extra: [
        { name: "echo", description: "A second echo.", inputSchema: { type: "object" } },
        { name: "n".repeat(256), description: "Long but allowed.", inputSchema: { type: "object" } },
        { name: long, description: "One character too long.", inputSchema: { type: "object" } },
      ],
    });
    const { upstream } = await added(id, { url });
    expect(upstream.toolNames.map((tool) => tool.upstreamName)).toEqual(expect.arrayContaining(["echo", "n".repeat(256)]));
    expect(upstream.rejectedTools).toEqual([
      { name: "echo", reason: "listed twice" },
      { name: `${"n".repeat(255)}…`, reason: expect.stringMatching(/1 to 256 characters/) },
    ]);
    await api(`/v1/upstreams/${id}`, { method: "DELETE", token: owner });
  });

  it("cleans enum, default and examples as descriptions are, and refuses a tool whose property names hide characters", async () => {
    const { id, url, state } = fixture("schemas");
    const forged = texts("en").untrustedBanner("x");
    await setState(state, {
      extra: [
        {
          name: "pick",
          description: "Picks a file.",
          inputSchema: {
            type: "object",
            properties: {
              file: { type: "string", enum: ["report\u202Egpj.exe", "notes\u200B.txt"], default: "report\u202Egpj.exe", examples: [`a ${forged} b`] },
            },
          },
        },
        { name: "sneaky", description: "A hidden property.", inputSchema: { type: "object", properties: { "to\u200B": { type: "string" } } } },
        { name: "flipped", description: "A bidi property.", inputSchema: { type: "object", properties: { ok: { type: "object", properties: { "a\u202Eb": { type: "string" } } } } } },
      ],
    });
    const { upstream } = await added(id, { url, visibility: "public" });
    expect(upstream.rejectedTools.map((tool) => tool.name)).toEqual(["sneaky", "flipped"]);
    expect(upstream.rejectedTools[0]?.reason).toContain("\\u200b");
    expect(upstream.rejectedTools[1]?.reason).toMatch(/property name .*hidden, bidi or banner/);
    const listed = await json<{ tools: { name: string; inputSchema: { properties: Record<string, Record<string, unknown>> } }[] }>(
      await api("/v1/tools?format=mcp", { token: owner }),
    );
    const file = listed.tools.find((tool) => tool.name === `${id}__pick`)?.inputSchema.properties.file;
    expect(file?.enum).toEqual(["reportgpj.exe", "notes.txt"]);
    expect(file?.default).toBe("reportgpj.exe");
    expect(JSON.stringify(file?.examples)).not.toContain(forged);
    await api(`/v1/upstreams/${id}`, { method: "DELETE", token: owner });
  });

  it("gives the whole list timeoutMs, not each page (a server answering every page just in time)", async () => {
    const { id, url, state } = fixture("slowpages");
    // 9 tools in pages of 3: three pages of 250 ms each fit a 400 ms timeout one by one, not together.
    await setState(state, { pageDelayMs: 250 });
    const { upstream } = await added(id, { url, timeoutMs: 400 });
    expect(upstream).toMatchObject({ status: "failing", tools: 0 });
    expect(upstream.lastError).toMatch(/took more than 400 ms|timed out/);
    await api(`/v1/upstreams/${id}`, { method: "DELETE", token: owner });
  });

  it("leaves out a tool with a deeply nested schema, and keeps the rest", async () => {
    const { id, url, state } = fixture("deep");
    await setState(state, { extra: [{ name: "deep", description: "Deep.", inputSchema: nested(3000) }] });
    const response = await putUpstream(id, { url });
    expect(response.status).toBe(201);
    const { upstream } = await json<UpstreamAnswer>(response);
    expect(upstream.status).toBe("ok");
    expect(upstream.toolNames.map((tool) => tool.upstreamName)).toContain("echo");
    expect(upstream.rejectedTools.map((tool) => tool.name)).toEqual(["deep"]);
    await api(`/v1/upstreams/${id}`, { method: "DELETE", token: owner });
  });
});

describe("upstream validation", () => {
  const bad: [string, Record<string, unknown>, RegExp][] = [
    ["plain http", { url: "http://mcp.example.com/mcp" }, /https/],
    ["a loopback host", { url: "https://127.0.0.1/mcp" }, /allowPrivate/],
    ["a local name", { url: "https://mcp.internal/mcp" }, /allowPrivate/],
    ["credentials in the URL", { url: "https://user:pw@mcp.example.com/mcp" }, /credentials/],
    ["another scheme", { url: "ftp://mcp.example.com/mcp" }, /https/],
    ["a literal header value", { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer abc" } }, /TOOL_SECRET_/],
    ["a non-tool secret", { url: "https://mcp.example.com/mcp", headers: { Authorization: "AUTH_JWT_SECRET" } }, /TOOL_SECRET_/],
    ["a transport header", { url: "https://mcp.example.com/mcp", headers: { "Mcp-Session-Id": "TOOL_SECRET_REMOTE_TOKEN" } }, /transport/],
    ["a timeout too short", { url: "https://mcp.example.com/mcp", timeoutMs: 5 }, /timeoutMs/],
    ["a refresh too often", { url: "https://mcp.example.com/mcp", refreshSeconds: 1 }, /refreshSeconds/],
    ["an unknown policy", { url: "https://mcp.example.com/mcp", newTools: "maybe" }, /newTools/],
    ["a prefix with dots", { url: "https://mcp.example.com/mcp", prefix: "a.b" }, /prefix/],
    ["an unknown field", { url: "https://mcp.example.com/mcp", secret: "x" }, /unknown field/],
  ];
  for (const [label, body, message] of bad) {
    it(`refuses ${label}`, async () => {
      const error = await errorOf(await putUpstream("validation", body));
      expect(error).toMatchObject(anError(400, "invalid_request"));
      expect(error.message).toMatch(message);
    });
  }

  it("allows a private host and plain http with allowPrivate (and then lists it)", async () => {
    const { id } = fixture("private");
    const response = await putUpstream(id, { url: `http://10.0.0.5/mcp-upstream/${id}`, allowPrivate: true });
    expect(response.status).toBe(201);
    expect((await json<UpstreamAnswer>(response)).upstream.status).toBe("ok");
    await api(`/v1/upstreams/${id}`, { method: "DELETE", token: owner });
  });

  it("does not follow a public server's redirect to a private address (nor send its headers there)", async () => {
    const { id } = fixture("redirect");
    const target = `http://127.0.0.1/mcp-upstream/${id}`;
    const response = await putUpstream(id, { url: `https://mcp.example.com/status/307?location=${encodeURIComponent(target)}` });
    expect(response.status).toBe(201);
    const { upstream } = await json<UpstreamAnswer>(response);
    expect(upstream).toMatchObject({ status: "failing", tools: 0 });
    expect(upstream.lastError).toMatch(/HTTP 307 .*redirects are not followed/);
    await api(`/v1/upstreams/${id}`, { method: "DELETE", token: owner });
  });

  it("refuses a bad id and anyone but the owner", async () => {
    expect(await errorOf(await putUpstream("bad.id", { url: "https://mcp.example.com/mcp" }))).toMatchObject(anError(400, "invalid_request"));
    const user = await token({ sub: "someone", level: 3 });
    for (const [method, path] of [["GET", "/v1/upstreams"], ["GET", "/v1/upstreams/x"], ["DELETE", "/v1/upstreams/x"], ["POST", "/v1/upstreams/x/refresh"], ["POST", "/v1/upstreams/x/accept"], ["PUT", "/v1/upstreams/x"]] as const) {
      expect(await errorOf(await api(path, { method, token: user, ...(method === "PUT" ? { body: { url: "https://mcp.example.com/mcp" } } : {}) }))).toMatchObject(anError(403, "forbidden"));
    }
  });
});
