import { describe, expect, it } from "vitest";
import type { ExecutorSpec } from "../../src/core/types.ts";
import { BUILTIN_TOOLS, createExecutorRunner, executorProblems } from "../../src/executors/index.ts";
import { configWith, jsonObject, registered, run } from "./helpers.ts";

const clock: ExecutorSpec = { type: "builtin", name: "clock" };

describe("echo", () => {
  it("returns its arguments as JSON", async () => {
    const args = { text: "你好 👋", n: 1, nested: { list: [true, null] } };
    expect(jsonObject(await run({ type: "builtin", name: "echo" }, args))).toEqual(args);
  });
});

describe("clock", () => {
  it("gives UTC by default", async () => {
    const answer = jsonObject(await run(clock, {}));
    expect(answer.timezone).toBe("UTC");
    expect(answer.utcOffset).toBe("+00:00");
    const utc = String(answer.utc);
    expect(Math.abs(Date.parse(utc) - Date.now())).toBeLessThan(60_000);
    expect(answer.local).toBe(utc.slice(0, 19));
  });

  it("gives the local time of an IANA zone, consistent with its offset", async () => {
    const answer = jsonObject(await run(clock, { timezone: "Asia/Shanghai" }));
    expect(answer.timezone).toBe("Asia/Shanghai");
    expect(answer.utcOffset).toBe("+08:00");
    expect(answer.local).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    const utc = Date.parse(String(answer.utc));
    const local = Date.parse(`${String(answer.local)}Z`);
    expect(local - Math.floor(utc / 1000) * 1000).toBe(8 * 3_600_000);
    expect(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]).toContain(answer.weekday);
  });

  it("refuses an unknown zone and a zone that is not a string", async () => {
    await expect(run(clock, { timezone: "Mars/Olympus_Mons" })).rejects.toThrow('unknown time zone "Mars/Olympus_Mons"');
    await expect(run(clock, { timezone: 8 })).rejects.toThrow(/IANA time zone name/);
  });
});

describe("runner", () => {
  it("refuses unknown builtins, search_tools and tools without an executor", async () => {
    await expect(run({ type: "builtin", name: "rm_rf" }, {})).rejects.toThrow('unknown builtin executor "rm_rf"');
    await expect(run({ type: "builtin", name: "toString" }, {})).rejects.toThrow("unknown builtin executor");
    await expect(run({ type: "builtin", name: "search_tools" }, {})).rejects.toThrow(/run by the gateway/);
    const runner = createExecutorRunner({ config: configWith(), env: {} });
    const clientTool = { ...registered({ type: "builtin", name: "echo" }), definition: { name: "c", description: "d", parameters: {} } };
    await expect(runner(clientTool, {}, {})).rejects.toThrow(/the client runs it/);
  });

  it("ships definitions for its builtins, each runnable", () => {
    expect(BUILTIN_TOOLS.map((t) => t.name)).toEqual(["echo", "clock", "calculator", "fetch_url"]);
    for (const tool of BUILTIN_TOOLS) {
      expect(tool.executor).toEqual({ type: "builtin", name: tool.name });
      expect(executorProblems(tool.executor ?? { type: "builtin", name: "" })).toEqual([]);
    }
  });
});

describe("executorProblems", () => {
  it("finds static problems of a definition", () => {
    expect(executorProblems({ type: "builtin", name: "nope" })).toEqual(['unknown builtin executor "nope"']);
    expect(executorProblems({ type: "builtin", name: "search_tools" })).toEqual([]);
    expect(executorProblems({ type: "http", url: "ftp://x/" })).toEqual(["executor.url must be http or https"]);
    expect(executorProblems({ type: "http", url: "nope" })).toEqual(["executor.url must be an absolute URL"]);
    expect(executorProblems({ type: "http", url: "https://u:p@x/" })).toEqual(["executor.url must not carry credentials"]);
    expect(executorProblems({ type: "http", url: "https://x/", headers: { Authorization: "AUTH_JWT_SECRET" } })).toEqual([
      'executor.headers["Authorization"]: secret "AUTH_JWT_SECRET" is not a tool secret',
    ]);
    expect(executorProblems({ type: "http", url: "https://x/", headers: { Authorization: "TOOL_SECRET_X" } })).toEqual([]);
    expect(executorProblems({ type: "service", binding: "ASSETS" })).toEqual(['executor.binding cannot be "ASSETS"']);
    expect(executorProblems({ type: "service", binding: "TOOL_REMOTE" })).toEqual([]);
  });
});
