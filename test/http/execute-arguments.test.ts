// POST /v1/sessions/:sid/execute takes `arguments` as an object or as the JSON text of one (OpenAI's
// `tool_calls[].function.arguments` is a string): both run the same call; any other string is a 400 naming the field.
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LIMITS } from "../../src/core/config.ts";
import { anError, api, errorOf, json, sessionId, token } from "./helpers.ts";

interface ExecuteBody {
  content: string;
  isError: boolean;
}

let caller = "";
beforeAll(async () => {
  caller = await token({ sub: "arguments-as-text" });
});

async function execute(body: Record<string, unknown>): Promise<ExecuteBody> {
  const response = await api(`/v1/sessions/${sessionId("args")}/execute`, { token: caller, body });
  expect(response.status).toBe(200);
  return json<ExecuteBody>(response);
}

describe("execute: arguments as a JSON string", () => {
  it("runs a tool with the arguments as OpenAI sends them, exactly as with the object", async () => {
    const asObject = await execute({ name: "echo", arguments: { text: "hello 你好" } });
    const asText = await execute({ name: "echo", arguments: JSON.stringify({ text: "hello 你好" }) });
    expect(asText.isError).toBe(false);
    expect(asText.content).toContain("hello 你好");
    expect(asText).toEqual(asObject);
  });

  it("takes the text form for search_tools too, and checks it against the schema like an object", async () => {
    const found = await execute({ name: "search_tools", arguments: '{"query":"calculate"}' });
    expect(found.isError).toBe(false);
    expect(JSON.parse(found.content)).toHaveProperty("tools");
    // Whitespace around the object is fine (it is JSON); an argument the schema refuses is a tool error, still 200.
    expect((await execute({ name: "calculate", arguments: ' \n{"expression":"2 + 3"}\t' })).content).toContain("5");
    expect((await execute({ name: "calculate", arguments: '{"unexpected":true}' })).isError).toBe(true);
  });

  it.each([
    ["not JSON", "{text: hello}", /^arguments: a string must be the JSON text of an object; this one is not valid JSON/],
    ["empty", "", /^arguments: .*not valid JSON/],
    ["a cut-off object", '{"text":"hel', /^arguments: .*not valid JSON/],
    ["an array", "[1, 2]", /^arguments: a string must be the JSON text of an object, got the text of an array$/],
    ["null", "null", /^arguments: .*got the text of null$/],
    ["a number", "42", /^arguments: .*got the text of a number$/],
    ["a string", '"{\\"text\\":\\"x\\"}"', /^arguments: .*got the text of a string$/],
  ])("answers 400 naming arguments for text that is %s", async (_label, text, message) => {
    const error = await errorOf(await api(`/v1/sessions/${sessionId("args")}/execute`, { token: caller, body: { name: "echo", arguments: text } }));
    expect(error).toMatchObject(anError(400, "invalid_request"));
    expect(error.message).toMatch(message);
  });

  it("still refuses other types, naming both accepted forms", async () => {
    for (const value of [[1], 7, true]) {
      const error = await errorOf(await api(`/v1/sessions/${sessionId("args")}/execute`, { token: caller, body: { name: "echo", arguments: value } }));
      expect(error).toMatchObject(anError(400, "invalid_request"));
      expect(error.message).toBe("arguments: must be an object, or the JSON text of one (a string)");
    }
  });

  it("counts the text against the body limit like any other field", async () => {
    const text = JSON.stringify({ text: "x".repeat(DEFAULT_LIMITS.maxBodyBytes) });
    const response = await api(`/v1/sessions/${sessionId("args")}/execute`, { token: caller, body: { name: "echo", arguments: text } });
    expect(await errorOf(response)).toMatchObject(anError(413, "payload_too_large"));
  });
});
