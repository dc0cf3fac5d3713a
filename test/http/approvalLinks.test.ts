// Approval links through the Worker's fetch: a held call (over /v1 and over MCP without elicitation) carries a signed,
// single-use link; its page shows the call as the HTTP confirmation does and changes nothing on GET; its POST approves
// or denies once, after which the retried call runs exactly once. Forged, expired, replayed and rebound links fail.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { texts } from "../../src/core/locale.ts";
import type { ConfirmationRequest, ToolResult } from "../../src/core/types.ts";
import { approvalKey, openApprovalToken, sealApprovalToken } from "../../src/http/approvalLinks.ts";
import type { ApprovalToken } from "../../src/http/approvalLinks.ts";
import { loadSettings } from "../../src/isolate/settings.ts";
import { approvalUrlOf, confirmationOf, connect, textOf, warmUp } from "../mcp/helpers.ts";
import { api, BASE, json, ownerToken, sessionId, token } from "./helpers.ts";

type ExecuteBody = Pick<ToolResult, "content" | "isError" | "confirmation">;

const TOOL = "link_transfer";
const ARGS = { to: "landlord <b>&</b>", note: "Q3 report\u202Egpj.exe" };

async function execute(caller: string, sid: string, args: Record<string, unknown> = ARGS): Promise<ExecuteBody> {
  const response = await api(`/v1/sessions/${sid}/execute`, { token: caller, body: { name: TOOL, arguments: args } });
  expect(response.status).toBe(200);
  return json<ExecuteBody>(response);
}

function heldWithLink(body: ExecuteBody): ConfirmationRequest & { approvalUrl: string } {
  const confirmation = body.confirmation;
  if (!confirmation) throw new Error(`the call was not held: ${body.content}`);
  const { approvalUrl } = confirmation;
  if (approvalUrl === undefined) throw new Error("the confirmation carries no approval link");
  return { ...confirmation, approvalUrl };
}

function pathOf(url: string): string {
  expect(url.startsWith(`${BASE}/v1/approvals/`)).toBe(true);
  return url.slice(BASE.length);
}

const open = (url: string): Promise<Response> => api(pathOf(url));
const answer = (url: string, decision: string): Promise<Response> =>
  api(pathOf(url), { method: "POST", body: `decision=${decision}`, headers: { "content-type": "application/x-www-form-urlencoded" } });

function testKey(): Promise<CryptoKey> {
  const loaded = loadSettings(env);
  if (!loaded.ok) throw new Error(loaded.error.message);
  const key = approvalKey(loaded.settings);
  if (!key) throw new Error("the test env has no signing secret");
  return key;
}

async function tokenOf(url: string): Promise<ApprovalToken> {
  const opened = await openApprovalToken(await testKey(), url.slice(url.lastIndexOf("/") + 1));
  if (!opened) throw new Error("the link's token does not open");
  return opened;
}

async function linkFor(sealed: ApprovalToken): Promise<string> {
  return `${BASE}/v1/approvals/${await sealApprovalToken(await testKey(), sealed)}`;
}

/** The echoed request body of a call that ran (the remote /echo answers with what it received). */
function ran(body: ExecuteBody): boolean {
  return !body.isError && body.confirmation === undefined && body.content.includes("landlord");
}

let owner = "";
beforeAll(async () => {
  owner = await ownerToken("owner-approval-links");
  const tools = [{
    name: TOOL,
    description: "Transfers money to a payee.\nThe remote bank answers with a receipt.",
    parameters: { type: "object", properties: { to: { type: "string" }, note: { type: "string" } }, required: ["to"] },
    confirm: "always",
    executor: { type: "http", url: "https://remote.test/echo" },
  }];
  const response = await api("/v1/tools", { method: "PUT", token: owner, body: { tools, context: "approval-links" } });
  if (response.status !== 200) throw new Error(`registering the tools failed: ${await response.text()}`);
  await warmUp();
}, 60_000);

const caller = (): Promise<string> => token({ sub: `link-${crypto.randomUUID()}` });

describe("the approval page", () => {
  it("shows the tool, its description's first line and the marked arguments, escaped; GET changes nothing; not frameable", async () => {
    const who = await caller();
    const sid = sessionId("link-page");
    const confirmation = heldWithLink(await execute(who, sid));
    const page = await open(confirmation.approvalUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await page.text();
    expect(html).toContain(`<strong>${TOOL}</strong>`);
    expect(html).toContain("<p>Transfers money to a payee.</p>");
    expect(html).not.toContain("The remote bank");
    // The arguments as the HTTP confirmation shows them (hidden characters as markers), escaped for HTML.
    expect(confirmation.arguments).toEqual({ to: ARGS.to, note: "Q3 report⟦U+202E⟧gpj.exe" });
    expect(html).toContain("landlord &lt;b&gt;&amp;&lt;/b&gt;");
    expect(html).toContain("Q3 report⟦U+202E⟧gpj.exe");
    expect(html).not.toContain("\u202E");
    expect(html).not.toContain("<b>");
    expect(html).toContain("hidden characters (shown as ⟦U+…⟧) in note");
    expect(html).toContain('<form method="post">');
    // GET twice changes nothing: the call is still held, under the same id, and the link still works.
    expect((await open(confirmation.approvalUrl)).status).toBe(200);
    const again = await execute(who, sid);
    expect(again.confirmation?.id).toBe(confirmation.id);
    expect((await answer(confirmation.approvalUrl, "approve")).status).toBe(200);
  });
});

describe("answering through the link", () => {
  it("approve: the retried call runs once; the link is single-use", async () => {
    const who = await caller();
    const sid = sessionId("link-approve");
    const confirmation = heldWithLink(await execute(who, sid));
    const approved = await answer(confirmation.approvalUrl, "approve");
    expect(approved.status).toBe(200);
    expect(await approved.text()).toContain("Approved.");
    expect(approved.headers.get("x-frame-options")).toBe("DENY");
    // Replayed: the confirmation was resolved once; neither the POST nor the page works again.
    expect((await answer(confirmation.approvalUrl, "approve")).status).toBe(410);
    expect((await answer(confirmation.approvalUrl, "deny")).status).toBe(410);
    expect((await open(confirmation.approvalUrl)).status).toBe(410);
    expect(ran(await execute(who, sid))).toBe(true);
    // `always`: one run per approval; the next call is held again, with a new link.
    const next = heldWithLink(await execute(who, sid));
    expect(next.id).not.toBe(confirmation.id);
    expect(next.approvalUrl).not.toBe(confirmation.approvalUrl);
  });

  it("deny: the call does not run", async () => {
    const who = await caller();
    const sid = sessionId("link-deny");
    const confirmation = heldWithLink(await execute(who, sid));
    const denied = await answer(confirmation.approvalUrl, "deny");
    expect(denied.status).toBe(200);
    expect(await denied.text()).toContain("Denied.");
    const retry = await execute(who, sid);
    expect(ran(retry)).toBe(false);
    expect(retry.confirmation).toBeDefined();
    expect(retry.confirmation?.id).not.toBe(confirmation.id);
  });

  it("a form without a decision is refused and resolves nothing", async () => {
    const who = await caller();
    const sid = sessionId("link-bad-form");
    const confirmation = heldWithLink(await execute(who, sid));
    expect((await answer(confirmation.approvalUrl, "yes")).status).toBe(400);
    expect((await answer(confirmation.approvalUrl, "")).status).toBe(400);
    expect((await execute(who, sid)).confirmation?.id).toBe(confirmation.id);
  });
});

describe("links that must not work", () => {
  it("a forged signature, an expired link, another session, another principal or other arguments resolve nothing", async () => {
    const who = await caller();
    const sid = sessionId("link-attacks");
    const confirmation = heldWithLink(await execute(who, sid));
    const real = await tokenOf(confirmation.approvalUrl);
    expect(real.session).toBe(sid);
    expect(real.confirmation).toBe(confirmation.id);
    expect(real.expiresAt).toBeLessThanOrEqual(confirmation.expiresAt);

    // Forged: the payload changed (another session) but the MAC kept; a MAC flipped; garbage.
    const [payload = "", mac = ""] = confirmation.approvalUrl.slice(confirmation.approvalUrl.lastIndexOf("/") + 1).split(".");
    const changed = btoa(JSON.stringify({ v: 1, ...real, session: "other" })).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
    const flipped = `${mac.slice(0, -2)}${mac.endsWith("AA") ? "BA" : "AA"}`;
    for (const forged of [`${changed}.${mac}`, `${payload}.${flipped}`, "not-a-token", `${payload}.${mac}.x`]) {
      const url = `${BASE}/v1/approvals/${forged}`;
      expect((await open(url)).status).toBe(403);
      expect((await answer(url, "approve")).status).toBe(403);
    }
    // Signed, but expired.
    const expired = await linkFor({ ...real, expiresAt: Date.now() - 1 });
    expect((await open(expired)).status).toBe(410);
    expect((await answer(expired, "approve")).status).toBe(410);
    // Signed, but for another session, another principal, or other arguments: nothing pending matches there.
    for (const rebound of [
      { ...real, session: sessionId("link-other") },
      { ...real, principal: `link-${crypto.randomUUID()}` },
      { ...real, argumentsDigest: real.toolDigest },
    ]) {
      const url = await linkFor(rebound);
      expect((await open(url)).status).toBe(410);
      expect((await answer(url, "approve")).status).toBe(410);
    }
    // None of them touched the real confirmation: still pending, still answerable once.
    expect((await execute(who, sid)).confirmation?.id).toBe(confirmation.id);
    expect((await answer(confirmation.approvalUrl, "approve")).status).toBe(200);
    expect(ran(await execute(who, sid))).toBe(true);
  });

  it("a request-state key does not sign approval links (its own derivation)", async () => {
    const who = await caller();
    const confirmation = heldWithLink(await execute(who, sessionId("link-key")));
    const loaded = loadSettings(env);
    if (!loaded.ok) throw new Error(loaded.error.message);
    const { requestStateKey } = await import("../../src/mcp/requestState.ts");
    const stateKey = requestStateKey(loaded.settings);
    if (!stateKey) throw new Error("no request-state key");
    const other = await sealApprovalToken(await stateKey, await tokenOf(confirmation.approvalUrl));
    expect((await open(`${BASE}/v1/approvals/${other}`)).status).toBe(403);
  });
});

describe("over MCP without elicitation", () => {
  it("the held call's text and structuredContent carry the link; approved there, the retry runs once", async () => {
    const id = `link-mcp-${crypto.randomUUID()}`;
    const { client, sessionId: sid } = await connect(await token({ sub: id }));
    const held = await client.callTool({ name: TOOL, arguments: ARGS });
    expect(held.isError).toBe(true);
    const confirmation = confirmationOf(held);
    const url = approvalUrlOf(held);
    expect(held.structuredContent).toMatchObject({
      confirmation: { id: confirmation.id, approvalUrl: url },
      approval: { url, method: "POST", path: `/v1/sessions/${sid}/confirmations/${confirmation.id}` },
    });
    expect(textOf(held)).toBe(texts("en").mcp.approveOverHttp(TOOL, confirmation.id, sid, "always", url));
    expect(textOf(held)).toContain(url);
    expect(await (await open(url)).text()).toContain("Q3 report⟦U+202E⟧gpj.exe");
    expect((await answer(url, "approve")).status).toBe(200);
    const again = await client.callTool({ name: TOOL, arguments: ARGS });
    expect(again.isError).toBe(false);
    expect(textOf(again)).toContain("landlord");
    expect((await client.callTool({ name: TOOL, arguments: ARGS })).isError).toBe(true);
    await client.close();
  });
});
