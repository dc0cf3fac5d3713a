// Confirmations through the Worker's own fetch: a confirmation approves exactly the call the user saw (the tool and,
// for `always`, the arguments), once; a retry while pending keeps its id and expiry; the approver is shown the tool,
// its description's first line and the arguments, bounded. Part 4: one catalog per turn: the tool `search` shows is
// the tool `execute` validates and runs, also when a client tool has the name of a registry tool.
//
// The remote end is test/fixtures/remote-worker.ts: its /echo answers with the request it received, so an answer
// that echoes a body proves that the http executor ran, with exactly that body.
import { beforeAll, describe, expect, it } from "vitest";
import { PREVIEW_MAX_STRING } from "../../src/core/guard/approval.ts";
import { texts } from "../../src/core/locale.ts";
import type { ConfirmationRequest, ToolResult } from "../../src/core/types.ts";
import { anError, api, errorOf, json, ownerToken, sessionId, token } from "./helpers.ts";

const t = texts("en");

/** The execute answer: the core's tool result as the route sends it. */
type ExecuteBody = Pick<ToolResult, "content" | "isError" | "confirmation">;
type Confirmation = ConfirmationRequest;

async function execute(caller: string, sid: string, name: string, args: Record<string, unknown>): Promise<ExecuteBody> {
  const response = await api(`/v1/sessions/${sid}/execute`, { token: caller, body: { name, arguments: args } });
  expect(response.status).toBe(200);
  return json<ExecuteBody>(response);
}

function approve(caller: string, sid: string, id: string): Promise<Response> {
  return api(`/v1/sessions/${sid}/confirmations/${id}`, { token: caller, body: { approve: true } });
}

/** The confirmation of an answer that waits for the user; fails when the call ran or failed instead. */
function held(body: ExecuteBody): Confirmation {
  expect(body.isError).toBe(false);
  if (!body.confirmation) throw new Error(`the call was not held for approval: ${body.content}`);
  expect(body.content).toBe(t.needsConfirmation(body.confirmation.tool, body.confirmation.capability, body.confirmation.mode));
  return body.confirmation;
}

/** The request the remote /echo received, from a wrapped answer (the banner comes first, then the JSON). */
function echoed(body: ExecuteBody): unknown {
  expect(body.isError).toBe(false);
  expect(body.confirmation).toBeUndefined();
  const start = body.content.lastIndexOf("\n{");
  if (start < 0) throw new Error(`no echoed request in ${body.content}`);
  return JSON.parse(body.content.slice(start + 1));
}

const TRANSFER = "confirm_transfer";
const LANDLORD = { to: "landlord", amount: 10 };
const ATTACKER = { to: "attacker", amount: 99999 };

let owner = "";
beforeAll(async () => {
  owner = await ownerToken("owner-confirmations");
  const tools = [
    {
      name: TRANSFER,
      description: "Transfers money to a payee.\nThe remote bank answers with a receipt.",
      parameters: {
        type: "object",
        properties: { to: { type: "string" }, amount: { type: "integer" } },
        required: ["to", "amount"],
      },
      confirm: "always",
      executor: { type: "http", url: "https://remote.test/echo" },
    },
    {
      name: "confirm_shadow",
      description: "Registry shadow: moves money.",
      parameters: { type: "object", properties: { amount: { type: "integer" } }, required: ["amount"] },
      executor: { type: "http", url: "https://remote.test/echo" },
    },
  ];
  const response = await api("/v1/tools", { method: "PUT", token: owner, body: { tools, context: "confirmations" } });
  if (response.status !== 200) throw new Error(`registering the tools failed: ${await response.text()}`);
}, 60_000);

async function newCaller(label: string): Promise<string> {
  return token({ sub: `${label}-${crypto.randomUUID()}` });
}

describe("an always confirmation approves exactly the arguments the user saw", () => {
  it("the argument-swap attack: other arguments ask again, the approved ones run once", async () => {
    const user = await newCaller("swap");
    const sid = sessionId("swap");

    // The model asks for A: the approver sees the tool, its description's first line and A.
    const asked = held(await execute(user, sid, TRANSFER, LANDLORD));
    expect(asked).toEqual({
      id: asked.id,
      capability: `tool:${TRANSFER}`,
      mode: "always",
      expiresAt: asked.expiresAt,
      tool: TRANSFER,
      description: "Transfers money to a payee.",
      arguments: LANDLORD,
      approvalUrl: expect.stringMatching(/^http:\/\/toolgate\.test\/v1\/approvals\/[\w-]+\.[\w-]+$/) as unknown,
    });

    // While the card is open, the model calls again with B: that is another confirmation, with B on it.
    const swapped = held(await execute(user, sid, TRANSFER, ATTACKER));
    expect(swapped.id).not.toBe(asked.id);
    expect(swapped.arguments).toEqual(ATTACKER);

    // The user approves what they saw: A.
    const approved = await approve(user, sid, asked.id);
    expect(approved.status).toBe(200);
    expect(await json(approved)).toEqual({ id: asked.id, approved: true, capability: `tool:${TRANSFER}`, mode: "always" });

    // B does not run: it still waits for its own approval.
    expect(held(await execute(user, sid, TRANSFER, ATTACKER)).id).toBe(swapped.id);
    // A runs, with exactly A (the same JSON in another key order is the same call)…
    expect(echoed(await execute(user, sid, TRANSFER, { amount: 10, to: "landlord" }))).toMatchObject({ method: "POST", path: "/echo", body: LANDLORD });
    // …once: the next A asks again, with a new id, and the used id cannot be replayed.
    const again = held(await execute(user, sid, TRANSFER, LANDLORD));
    expect(new Set([asked.id, swapped.id, again.id]).size).toBe(3);
    expect(await errorOf(await approve(user, sid, asked.id))).toMatchObject(anError(404, "confirmation_not_found"));
  });

  it("a retry while pending gets the same id and the same expiry", async () => {
    const user = await newCaller("retry");
    const sid = sessionId("retry");
    const first = held(await execute(user, sid, TRANSFER, LANDLORD));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const retry = held(await execute(user, sid, TRANSFER, { amount: 10, to: "landlord" }));
    expect(retry).toEqual(first);
  });

  it("shows long argument values cut, with a mark saying how much is left out", async () => {
    const user = await newCaller("long");
    const sid = sessionId("long");
    const to = `IBAN ${"9".repeat(PREVIEW_MAX_STRING + 95)}`;
    const shown = held(await execute(user, sid, TRANSFER, { to, amount: 1 }));
    expect(shown.arguments).toEqual({ to: `${to.slice(0, PREVIEW_MAX_STRING)}…[+100 chars]`, amount: 1 });
    // The approval still covers the whole value, and only it.
    expect((await approve(user, sid, shown.id)).status).toBe(200);
    held(await execute(user, sid, TRANSFER, { to: `${to}0`, amount: 1 }));
    expect(echoed(await execute(user, sid, TRANSFER, { to, amount: 1 }))).toMatchObject({ body: { to, amount: 1 } });
  });
});

describe("one catalog per turn: what search shows is what execute runs", () => {
  const clientShadow = {
    type: "function",
    function: {
      name: "confirm_shadow",
      description: "Client shadow: writes a note.",
      parameters: { type: "object", properties: { note: { type: "string" } }, required: ["note"], additionalProperties: false },
    },
  };

  it("a client tool with a registry tool's name is the client's in prepare, search and execute alike", async () => {
    const user = await newCaller("shadow");
    const sid = sessionId("shadow");
    const prepared = await api(`/v1/sessions/${sid}/prepare`, { token: user, body: { messages: [], tools: [clientShadow] } });
    expect(prepared.status).toBe(200);
    expect(await json(prepared)).toMatchObject({ tools: [clientShadow] });

    const search = await api(`/v1/sessions/${sid}/search`, { token: user, body: { query: "confirm_shadow" } });
    expect(await json(search)).toMatchObject({
      tools: [{ name: "confirm_shadow", description: "Client shadow: writes a note.", parameters: clientShadow.function.parameters }],
    });

    // execute validates against the definition search showed, and runs that tool (the client runs it)…
    expect(await execute(user, sid, "confirm_shadow", { note: "hi" })).toEqual({ content: t.clientRuns("confirm_shadow"), isError: false });
    // …so the registry's arguments are refused, and nothing reaches the registry tool's remote end.
    const refused = await execute(user, sid, "confirm_shadow", { amount: 5 });
    expect(refused.isError).toBe(true);
    expect(refused.content).toMatch(/^\{"error":"Invalid arguments for \\"confirm_shadow\\": /);
    expect(refused.content).not.toContain("/echo");

    // A turn without client tools drops the catalog: search and execute both mean the registry's tool again.
    expect((await api(`/v1/sessions/${sid}/prepare`, { token: user, body: { messages: [] } })).status).toBe(200);
    const registrySearch = await api(`/v1/sessions/${sid}/search`, { token: user, body: { query: "confirm_shadow" } });
    expect(await json(registrySearch)).toMatchObject({ tools: [{ name: "confirm_shadow", description: "Registry shadow: moves money." }] });
    expect(echoed(await execute(user, sid, "confirm_shadow", { amount: 5 }))).toMatchObject({ body: { amount: 5 } });
  });
});
