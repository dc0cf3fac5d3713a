// What a person approves looks like what runs: a bidi override or a zero-width character in a call's arguments is
// shown to the approver as a marker (`⟦U+202E⟧`), the arguments holding one are named in `hiddenCharacters`, and the
// approved call runs with its arguments exactly as they came. The checked formats (`email`, `uri`, …) refuse them.
//
// The remote end is test/fixtures/remote-worker.ts: its /echo answers with the request it received.
import { beforeAll, describe, expect, it } from "vitest";
import type { ConfirmationRequest, ToolResult } from "../../src/core/types.ts";
import { api, json, ownerToken, sessionId, token } from "./helpers.ts";

type ExecuteBody = Pick<ToolResult, "content" | "isError" | "confirmation">;

const SEND = "hidden_send_file";
const MAIL = "hidden_mail_check";
/** Displays as "Q3 reportexe.jpg": the override turns the tail around. */
const DISGUISED = "Q3 report\u202Egpj.exe";

async function execute(caller: string, sid: string, name: string, args: Record<string, unknown>): Promise<ExecuteBody> {
  const response = await api(`/v1/sessions/${sid}/execute`, { token: caller, body: { name, arguments: args } });
  expect(response.status).toBe(200);
  return json<ExecuteBody>(response);
}

function held(body: ExecuteBody): ConfirmationRequest {
  if (!body.confirmation) throw new Error(`the call was not held for approval: ${body.content}`);
  return body.confirmation;
}

beforeAll(async () => {
  const owner = await ownerToken("owner-hidden-characters");
  const tools = [
    {
      name: SEND,
      description: "Sends a file to a recipient.",
      parameters: {
        type: "object",
        properties: { filename: { type: "string" }, to: { type: "string" }, meta: { type: "object" } },
        required: ["filename"],
      },
      confirm: "always",
      executor: { type: "http", url: "https://remote.test/echo" },
    },
    {
      name: MAIL,
      description: "Checks an address and a link.",
      parameters: {
        type: "object",
        properties: { to: { type: "string", format: "email" }, link: { type: "string", format: "uri" }, day: { type: "string", format: "date" } },
      },
      executor: { type: "builtin", name: "echo" },
    },
  ];
  const response = await api("/v1/tools", { method: "PUT", token: owner, body: { tools, context: "hidden-characters" } });
  if (response.status !== 200) throw new Error(`registering the tools failed: ${await response.text()}`);
}, 60_000);

describe("the approver sees hidden characters", () => {
  it("marks a bidi override and a zero-width space, flags their arguments, and runs the exact arguments once approved", async () => {
    const user = await token({ sub: `hidden-${crypto.randomUUID()}` });
    const sid = sessionId("hidden");
    const args = { filename: DISGUISED, to: "boss\u200B@corp.example", meta: { "ti\u200Dtle": "plain", list: ["ok", "a\u2066b"] } };
    const asked = held(await execute(user, sid, SEND, args));
    expect(asked.arguments).toEqual({
      filename: "Q3 report⟦U+202E⟧gpj.exe",
      to: "boss⟦U+200B⟧@corp.example",
      meta: { "ti⟦U+200D⟧tle": "plain", list: ["ok", "a⟦U+2066⟧b"] },
    });
    expect(asked.hiddenCharacters).toEqual(["filename", "to", 'meta["ti⟦U+200D⟧tle"]', "meta.list[1]"]);
    // Nothing the approver reads hides a character any longer.
    expect(JSON.stringify(asked)).not.toMatch(/[\u200B-\u200F\u202A-\u202E\u2066-\u2069]/u);

    const approved = await api(`/v1/sessions/${sid}/confirmations/${asked.id}`, { token: user, body: { approve: true } });
    expect(approved.status).toBe(200);
    const ran = await execute(user, sid, SEND, args);
    expect(ran.isError).toBe(false);
    expect(ran.confirmation).toBeUndefined();
    // The remote end received the arguments exactly as they came, hidden characters and all: its answer reaches the
    // model cleaned (the untrusted-content wrapper strips them), but the length it reports counts the sent bytes.
    const start = ran.content.lastIndexOf("\n{");
    const echoed: unknown = JSON.parse(ran.content.slice(start + 1));
    expect(echoed).toMatchObject({
      body: { filename: "Q3 reportgpj.exe", to: "boss@corp.example", meta: { title: "plain", list: ["ok", "ab"] } },
      headers: { "content-length": String(new TextEncoder().encode(JSON.stringify(args)).byteLength) },
    });
  });

  it("marks a joiner even inside an emoji (a visible false alarm rather than a hidden character); flags nothing when none is there", async () => {
    const user = await token({ sub: `plain-${crypto.randomUUID()}` });
    const asked = held(await execute(user, sessionId("plain"), SEND, { filename: "Q3 report.pdf", to: "Zoë 👨‍👩‍👧" }));
    expect(asked.arguments).toEqual({ filename: "Q3 report.pdf", to: "Zoë 👨⟦U+200D⟧👩⟦U+200D⟧👧" });
    expect(asked.hiddenCharacters).toEqual(["to"]);
    const clean = held(await execute(user, sessionId("plain"), SEND, { filename: "Q3 report.pdf" }));
    expect(clean.arguments).toEqual({ filename: "Q3 report.pdf" });
    expect(clean).not.toHaveProperty("hiddenCharacters");
  });
});

describe("checked formats refuse hidden characters", () => {
  it.each([
    ["email", { to: "boss\u200B@corp.example" }, "to"],
    ["email with a bidi override", { to: "boss@corp\u202E.example" }, "to"],
    ["uri", { link: "https://corp.example/\u200Binvoice" }, "link"],
    ["date", { day: "2026-12-01\u200B" }, "day"],
  ])("%s", async (_label, args, field) => {
    const user = await token({ sub: `format-${crypto.randomUUID()}` });
    const refused = await execute(user, sessionId("format"), MAIL, args);
    expect(refused.isError).toBe(true);
    expect(refused.content).toContain(field);
    expect(refused.content).toMatch(/is not a valid (email|uri|date)/);
  });

  it("still takes the same values without them", async () => {
    const user = await token({ sub: `format-ok-${crypto.randomUUID()}` });
    const ok = await execute(user, sessionId("format"), MAIL, { to: "boss@corp.example", link: "https://corp.example/invoice", day: "2026-12-01" });
    expect(ok.isError).toBe(false);
  });
});
