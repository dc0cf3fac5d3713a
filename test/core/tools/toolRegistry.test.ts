import * as fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { texts } from "../../../src/core/locale.ts";
import { catalogNameLookup, isVisible, suggestNames, ToolRegistry } from "../../../src/core/tools/toolRegistry.ts";
import type { ValidatedTable } from "../../../src/core/tools/toolRegistry.ts";
import { ToolDefinitionError } from "../../../src/core/tools/definition.ts";
import type {
  ConfirmationRequest, ExecutionGuard, ExecutorRunner, Logger, ToolCallContext, ToolHandler,
} from "../../../src/core/types.ts";
import { toolMaker } from "../../support/tools.ts";

/** Each tool takes one string argument `q` and nothing else (the validation tests rely on it). */
const tool = toolMaker({ parameters: { type: "object", properties: { q: { type: "string" } }, additionalProperties: false } });

function spyLogger(): Logger & { messages: string[] } {
  const messages: string[] = [];
  return { messages, warn: (message: string) => void messages.push(message) };
}

function quietRegistry(options: ConstructorParameters<typeof ToolRegistry>[0] = {}): ToolRegistry {
  return new ToolRegistry({ logger: spyLogger(), ...options });
}

/** The text of an `{"error": …}` content (throws on anything else, failing the test). */
function errorText(content: string): string {
  const parsed: unknown = JSON.parse(content);
  if (typeof parsed === "object" && parsed !== null && "error" in parsed && typeof parsed.error === "string") return parsed.error;
  throw new Error(`not an error result: ${content}`);
}

/** Deliberately wrong input, past the type checker: what an untyped caller could send. */
function malformed(value: unknown): never {
  // oxlint-disable-next-line typescript/no-unsafe-type-assertion -- feeding wrong types on purpose is the test
  return value as never;
}

function runIn(registry: ToolRegistry, name: string, context: ToolCallContext) {
  return registry.execute(name, {}, context);
}

describe("register and disposers", () => {
  it("registers a validated clean copy and returns a disposer that removes it", () => {
    const registry = quietRegistry();
    const dispose = registry.register({ ...tool("weather"), groups: [] }, "plugin-a");
    expect(registry.size).toBe(1);
    expect(registry.get("weather")).toStrictEqual({ definition: tool("weather"), contextId: "plugin-a" });
    dispose();
    expect(registry.get("weather")).toBeUndefined();
    expect(registry.size).toBe(0);
    dispose(); // idempotent
    expect(registry.size).toBe(0);
  });

  it("validates on register and throws ToolDefinitionError naming the field", () => {
    const registry = quietRegistry();
    expect(() => registry.register({ ...tool("bad\nname") }, "c")).toThrow(expect.objectContaining({ field: "name" }));
    expect(() => registry.register({ ...tool("ok"), parameters: { type: "object", properties: "x" } }, "c")).toThrow(
      expect.objectContaining({ name: "ToolDefinitionError", field: "parameters.properties" }),
    );
    expect(() => registry.register(tool("ok"), "c", malformed("not a function"))).toThrow(ToolDefinitionError);
    expect(registry.size).toBe(0);
    expect(registry.version).toBe(0);
  });

  it("stores frozen definitions, so a caller cannot change a registered tool behind the registry's back", () => {
    const registry = quietRegistry();
    const input = tool("weather", { groups: ["travel"] });
    registry.register(input, "c");
    input.description = "changed";
    const stored = registry.get("weather");
    if (!stored) throw new Error("not registered");
    expect(stored.definition.description).toBe("The weather tool");
    expect(Object.isFrozen(stored.definition)).toBe(true);
    expect(Object.isFrozen(stored.definition.parameters)).toBe(true);
    expect(() => stored.definition.groups?.push("admin")).toThrow(TypeError);
  });

  it("re-registering a name replaces the entry and logs a warning", () => {
    const logger = spyLogger();
    const registry = new ToolRegistry({ logger });
    registry.register(tool("weather"), "plugin-a");
    registry.register(tool("other"), "plugin-a");
    registry.register(tool("weather", { description: "Newer weather" }), "plugin-b");
    expect(registry.size).toBe(2);
    expect(registry.get("weather")).toMatchObject({ contextId: "plugin-b", definition: { description: "Newer weather" } });
    expect(logger.messages).toHaveLength(1);
    expect(logger.messages[0]).toContain('"weather"');
    expect(logger.messages[0]).toContain("plugin-a");
    expect(logger.messages[0]).toContain("plugin-b");
    // The name keeps its place in registry order.
    expect(registry.list().map((t) => t.definition.name)).toEqual(["weather", "other"]);
  });

  it("warns through console when no logger is given", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      const registry = new ToolRegistry();
      registry.register(tool("weather"), "a");
      registry.register(tool("weather"), "b");
      expect(warn).toHaveBeenCalledTimes(1);
    } finally {
      warn.mockRestore();
    }
  });

  it("a stale disposer never removes a newer registration of the same name", () => {
    const registry = quietRegistry();
    const disposeOld = registry.register(tool("weather"), "plugin-a");
    registry.register(tool("weather", { description: "Newer" }), "plugin-b");
    disposeOld();
    expect(registry.get("weather")?.contextId).toBe("plugin-b");
    // Not even when the same context registers the name again.
    const disposeFirst = registry.register(tool("weather"), "plugin-b");
    const disposeSecond = registry.register(tool("weather", { description: "Third" }), "plugin-b");
    disposeFirst();
    expect(registry.get("weather")?.definition.description).toBe("Third");
    disposeSecond();
    expect(registry.get("weather")).toBeUndefined();
  });

  it("a disposer does not remove a later registration after an unregister in between", () => {
    const registry = quietRegistry();
    const dispose = registry.register(tool("weather"), "a");
    expect(registry.unregister("weather")).toBe(true);
    expect(registry.unregister("weather")).toBe(false);
    registry.register(tool("weather"), "a");
    dispose();
    expect(registry.get("weather")).toBeDefined();
  });

  it("dispose(contextId) removes every tool of the context, and only those", () => {
    const registry = quietRegistry();
    registry.register(tool("a1"), "plugin-a");
    registry.register(tool("a2"), "plugin-a");
    registry.register(tool("b1"), "plugin-b");
    // a3 moved to plugin-b by re-registration: it is plugin-b's now.
    registry.register(tool("a3"), "plugin-a");
    registry.register(tool("a3"), "plugin-b");
    expect(registry.dispose("plugin-a")).toBe(2);
    expect(registry.list().map((t) => t.definition.name).toSorted()).toEqual(["a3", "b1"]);
    expect(registry.dispose("plugin-a")).toBe(0);
    expect(registry.dispose("nobody")).toBe(0);
    expect(registry.dispose("plugin-b")).toBe(2);
    expect(registry.size).toBe(0);
  });

  it("registerMany is all or nothing and returns one disposer", () => {
    const registry = quietRegistry();
    registry.register(tool("keep"), "other");
    expect(() => registry.registerMany([tool("x1"), tool("x2"), { ...tool("x3"), risk: "extreme" }], "bulk")).toThrow(
      expect.objectContaining({ field: "tools[2].risk" }),
    );
    expect(() => registry.registerMany([tool("x1"), { ...tool("x1") }], "bulk")).toThrow(
      expect.objectContaining({ field: "tools[1].name" }),
    );
    expect(() => registry.registerMany([tool("x1"), null], "bulk")).toThrow(expect.objectContaining({ field: "tools[1]" }));
    expect(registry.size).toBe(1);
    const version = registry.version;

    const dispose = registry.registerMany([tool("x1"), tool("x2"), tool("x3")], "bulk");
    expect(registry.size).toBe(4);
    expect(registry.version).toBe(version + 1);
    registry.register(tool("x2", { description: "Replaced by someone else" }), "other");
    dispose();
    expect(registry.list().map((t) => t.definition.name)).toEqual(["keep", "x2"]);
  });

  it("registerMany warns once for all the names it replaces", () => {
    const logger = spyLogger();
    const registry = new ToolRegistry({ logger });
    registry.registerMany(Array.from({ length: 10 }, (_, i) => tool(`t${i}`)), "sync");
    registry.registerMany(Array.from({ length: 10 }, (_, i) => tool(`t${i}`)), "sync");
    expect(logger.messages).toHaveLength(1);
    expect(logger.messages[0]).toContain("and 5 more");
  });

  it("version grows on every change and only then", () => {
    const registry = quietRegistry();
    const seen = [registry.version];
    const dispose = registry.register(tool("a"), "c");
    seen.push(registry.version);
    registry.register(tool("a"), "c");
    seen.push(registry.version);
    dispose(); // stale: no change
    seen.push(registry.version);
    registry.register(tool("b"), "c");
    seen.push(registry.version);
    registry.unregister("a");
    seen.push(registry.version);
    registry.unregister("a"); // nothing to remove
    seen.push(registry.version);
    registry.dispose("c");
    seen.push(registry.version);
    registry.setExecutionGuard(() => ({ kind: "allow" })); // not a tool change
    seen.push(registry.version);
    expect(seen).toEqual([0, 1, 2, 2, 3, 4, 4, 5, 5]);
  });
});

describe("the group gate", () => {
  it("isVisible: ungrouped always; grouped only when one of its groups is on; '*' enables all; none → ungrouped only", () => {
    expect(isVisible(undefined, undefined)).toBe(true);
    expect(isVisible([], [])).toBe(true);
    expect(isVisible(["admin"], undefined)).toBe(false);
    expect(isVisible(["admin"], [])).toBe(false);
    expect(isVisible(["admin"], ["travel"])).toBe(false);
    expect(isVisible(["admin", "ops"], ["travel", "ops"])).toBe(true);
    expect(isVisible(["admin"], ["*"])).toBe(true);
  });

  const registry = quietRegistry();
  registry.register(tool("everyone"), "c");
  registry.register(tool("flights", { groups: ["travel"] }), "c");
  registry.register(tool("shutdown", { groups: ["admin", "ops"] }), "c");
  const names = (filter?: { groups?: string[] }) => registry.getDefinitions(filter).map((d) => d.name);
  const summaryNames = (filter?: { groups?: string[] }) => registry.getSummaries(filter).map((d) => d.name);

  it("holds in getDefinitions", () => {
    expect(names()).toEqual(["everyone"]);
    expect(names({ groups: [] })).toEqual(["everyone"]);
    expect(names({ groups: ["travel"] })).toEqual(["everyone", "flights"]);
    expect(names({ groups: ["ops"] })).toEqual(["everyone", "shutdown"]);
    expect(names({ groups: ["*"] })).toEqual(["everyone", "flights", "shutdown"]);
    expect(registry.getDefinitions({ groups: ["travel"] })[1]).toStrictEqual(tool("flights", { groups: ["travel"] }));
  });

  it("holds in getSummaries, which carry name, description and groups only", () => {
    expect(summaryNames()).toEqual(["everyone"]);
    expect(summaryNames({ groups: ["admin"] })).toEqual(["everyone", "shutdown"]);
    expect(registry.getSummaries({ groups: ["*"] })).toStrictEqual([
      { name: "everyone", description: "The everyone tool" },
      { name: "flights", description: "The flights tool", groups: ["travel"] },
      { name: "shutdown", description: "The shutdown tool", groups: ["admin", "ops"] },
    ]);
  });

  it("holds at execution when the caller passes enabledGroups", async () => {
    expect((await runIn(registry, "flights", { enabledGroups: ["travel"] })).isError).toBe(false);
    expect((await runIn(registry, "flights", { enabledGroups: ["*"] })).isError).toBe(false);
    expect((await runIn(registry, "flights", { enabledGroups: [] })).isError).toBe(true);
    expect((await runIn(registry, "flights", { enabledGroups: ["admin"] })).isError).toBe(true);
    expect((await runIn(registry, "everyone", { enabledGroups: [] })).isError).toBe(false);
    // Callers that do not pass enabledGroups (trusted in-process ones) are not gated.
    expect((await runIn(registry, "shutdown", {})).isError).toBe(false);
  });

  it("a gated tool answers byte for byte like an absent one", async () => {
    const gated = await registry.execute("shutdown", {}, { enabledGroups: ["travel"] });
    const absent = await registry.execute("shutdowm", {}, { enabledGroups: ["travel"] });
    const reallyAbsent = quietRegistry();
    reallyAbsent.register(tool("everyone"), "c");
    reallyAbsent.register(tool("flights", { groups: ["travel"] }), "c");
    const fromRegistryWithout = await reallyAbsent.execute("shutdown", {}, { enabledGroups: ["travel"] });
    expect(gated).toStrictEqual(fromRegistryWithout);
    expect(gated.content).toBe(fromRegistryWithout.content);
    expect(gated.isError).toBe(true);
    expect(errorText(gated.content)).toBe(texts().unknownTool("shutdown", []));
    // Another absent name reads the same way.
    expect(absent).toStrictEqual({ isError: true, content: JSON.stringify({ error: texts().unknownTool("shutdowm", []) }) });
  });

  it("also with invalid arguments or a guard: the gate answers first", async () => {
    const guarded = quietRegistry();
    guarded.register(tool("shutdown", { groups: ["admin"] }), "c");
    const guard = vi.fn<ExecutionGuard>(() => ({ kind: "deny", reason: "no" }));
    guarded.setExecutionGuard(guard);
    const gated = await guarded.execute("shutdown", { wrong: 1 }, { enabledGroups: [] });
    const absent = await guarded.execute("nothing", { wrong: 1 }, { enabledGroups: [] });
    expect(gated).toStrictEqual({ isError: true, content: JSON.stringify({ error: texts().unknownTool("shutdown", []) }) });
    expect(absent.content).toBe(JSON.stringify({ error: texts().unknownTool("nothing", []) }));
    expect(guard).not.toHaveBeenCalled();
  });
});

describe("did-you-mean suggestions", () => {
  it("suggestNames finds close spellings and substrings, best first, a few at most", () => {
    const pool = ["get_weather", "get_weather_forecast", "set_alarm", "weather", "list_files", "delete_file"];
    expect(suggestNames("get_wether", pool)).toEqual(["get_weather"]);
    expect(suggestNames("WEATHER", pool)).toEqual(["weather", "get_weather", "get_weather_forecast"]);
    expect(suggestNames("delete_files", pool)).toEqual(["delete_file"]);
    expect(suggestNames("zzz", pool)).toEqual([]);
    expect(suggestNames("", pool)).toEqual([]);
    expect(suggestNames("file", ["a_file", "b_file", "c_file", "d_file", "e_file"])).toHaveLength(3);
  });

  it("suggests visible tools in the unknown-tool answer", async () => {
    const registry = quietRegistry();
    registry.register(tool("get_weather"), "c");
    const result = await registry.execute("get_wether", {});
    expect(result).toStrictEqual({
      isError: true,
      content: JSON.stringify({ error: texts().unknownTool("get_wether", ["get_weather"]) }),
    });
    expect(errorText(result.content)).toContain("get_weather");
  });

  it("never suggests a gated name", async () => {
    const registry = quietRegistry();
    registry.register(tool("delete_user", { groups: ["admin"] }), "c");
    registry.register(tool("delete_note"), "c");
    const result = await registry.execute("delete_uote", {}, { enabledGroups: ["notes"] });
    expect(result.content).not.toContain("delete_user");
    expect(errorText(result.content)).toBe(texts().unknownTool("delete_uote", ["delete_note"]));
    // Without enabledGroups (a trusted caller) every tool is a candidate.
    expect((await registry.execute("delete_uote", {})).content).toContain("delete_user");
  });

  it("property: for random group sets, no gated name ever reaches the answer, and gated equals absent", async () => {
    const groupNames = ["a", "b", "c", "d"];
    const names = ["tool", "tools", "tool_a", "tool_b", "tool.c", "toolx", "t00l", "my_tool", "report", "reports"];
    await fc.assert(fc.asyncProperty(
      fc.array(fc.subarray(groupNames), { minLength: names.length, maxLength: names.length }),
      fc.subarray([...groupNames, "*"]),
      fc.constantFrom(...names, "tol", "tool_", "repor", "nothing"),
      async (toolGroups, enabled, asked) => {
        const registry = quietRegistry();
        names.forEach((name, i) => registry.register(tool(name, { groups: toolGroups[i] ?? [] }), "c"));
        const gatedNames = names.filter((name, i) => !isVisible(toolGroups[i], enabled));
        const result = await registry.execute(asked, {}, { enabledGroups: enabled });
        if (!result.isError) return; // a visible tool ran
        const suggested = /Did you mean: (.*)\? Use/.exec(errorText(result.content))?.[1]?.split(", ") ?? [];
        for (const name of suggested) expect(gatedNames).not.toContain(name);
        expect(result.content).toBe(JSON.stringify({ error: texts().unknownTool(asked, suggested) }));
        // The same registry without the gated tools answers identically.
        const without = quietRegistry();
        names.forEach((name, i) => {
          if (!gatedNames.includes(name)) without.register(tool(name, { groups: toolGroups[i] ?? [] }), "c");
        });
        expect(result).toStrictEqual(await without.execute(asked, {}, { enabledGroups: enabled }));
      },
    ), { numRuns: 200 });
  });
});

describe("execute", () => {
  it("runs the handler with the validated arguments and the context", async () => {
    const registry = quietRegistry();
    const handler = vi.fn<ToolHandler>((args) => `hello ${String(args["q"])}`);
    registry.register(tool("greet"), "c", handler);
    const context: ToolCallContext = { sessionId: "s1" };
    expect(await registry.execute("greet", { q: "world" }, context)).toStrictEqual({ isError: false, content: "hello world" });
    expect(handler).toHaveBeenCalledWith({ q: "world" }, context);
  });

  it("treats absent arguments as {}", async () => {
    const registry = quietRegistry();
    registry.register(tool("ping"), "c", () => "pong");
    expect(await registry.execute("ping", undefined)).toStrictEqual({ isError: false, content: "pong" });
  });

  it("answers the three kinds of validation errors as a clear tool error, never running the handler", async () => {
    const registry = quietRegistry();
    const handler = vi.fn<ToolHandler>(() => "ran");
    registry.register({
      name: "forecast",
      description: "Forecast",
      parameters: {
        type: "object",
        properties: { city: { type: "string" }, days: { type: "integer" } },
        required: ["city"],
        additionalProperties: false,
      },
    }, "c", handler);
    const missing = await registry.execute("forecast", { days: 2 });
    expect(missing).toStrictEqual({
      isError: true,
      content: JSON.stringify({ error: texts().invalidArguments("forecast", ['missing required argument "city"']) }),
    });
    const unknown = await registry.execute("forecast", { city: "Oslo", foo: 1 });
    expect(errorText(unknown.content)).toBe('Invalid arguments for "forecast": unknown argument "foo"');
    const wrongType = await registry.execute("forecast", { city: "Oslo", days: "two" });
    expect(errorText(wrongType.content)).toBe('Invalid arguments for "forecast": argument "days" must be integer');
    const notObject = await registry.execute("forecast", "Oslo");
    expect(errorText(notObject.content)).toBe('Invalid arguments for "forecast": arguments must be a JSON object');
    expect(handler).not.toHaveBeenCalled();
  });

  it("turns handler exceptions and rejections into {error} results", async () => {
    const registry = quietRegistry();
    registry.register(tool("throws"), "c", () => {
      throw new Error("disk on fire");
    });
    registry.register(tool("rejects"), "c", () => Promise.reject(new Error("network down")));
    registry.register(tool("throws_string"), "c", () => {
      throw "plain string";
    });
    registry.register(tool("no_text"), "c", () => malformed(undefined));
    expect(await registry.execute("throws", {})).toStrictEqual({
      isError: true,
      content: JSON.stringify({ error: texts().toolFailed("throws", "disk on fire") }),
    });
    expect(errorText((await registry.execute("rejects", {})).content)).toBe(texts().toolFailed("rejects", "network down"));
    expect(errorText((await registry.execute("throws_string", {})).content)).toContain("plain string");
    expect((await registry.execute("no_text", {})).isError).toBe(true);
  });

  it("never rejects, whatever it is given", async () => {
    const registry = quietRegistry();
    registry.register(tool("t"), "c", () => "ok");
    const odd: unknown[] = [undefined, null, 42, {}, "t\u0000", "x".repeat(10_000)];
    for (const name of odd) {
      const result = await registry.execute(malformed(name), { q: "x" }, { enabledGroups: malformed("admin") });
      expect(result.isError).toBe(true);
      expect(() => JSON.parse(result.content) as unknown).not.toThrow();
    }
    // A malformed enabledGroups enables nothing but ungrouped tools (fail closed).
    registry.register(tool("secret", { groups: ["admin"] }), "c", () => "leak");
    expect((await registry.execute("secret", {}, { enabledGroups: malformed("admin") })).isError).toBe(true);
    // A very long unknown name is echoed shortened.
    const long = await registry.execute("y".repeat(10_000), {});
    expect(long.content.length).toBeLessThan(400);
  });

  it("runs tools with an executor through the runner, and says so when there is none", async () => {
    const runner = vi.fn<ExecutorRunner>(async (t, args) => Promise.resolve(`${t.definition.name}:${String(args["q"])}`));
    const registry = quietRegistry({ runner });
    registry.register(tool("remote", { executor: { type: "http", url: "https://api.example.com" } }), "c");
    expect(await registry.execute("remote", { q: "x" })).toStrictEqual({ isError: false, content: "remote:x" });
    expect(runner).toHaveBeenCalledTimes(1);

    const handled = vi.fn<ToolHandler>(() => "from handler");
    registry.register(tool("both", { executor: { type: "builtin", name: "calc" } }), "c", handled);
    expect((await registry.execute("both", {})).content).toBe("from handler");
    expect(runner).toHaveBeenCalledTimes(1);

    const failingRunner = quietRegistry({ runner: () => Promise.reject(new Error("timeout after 10000 ms")) });
    failingRunner.register(tool("remote", { executor: { type: "http", url: "https://api.example.com" } }), "c");
    expect(errorText((await failingRunner.execute("remote", {})).content)).toBe(texts().toolFailed("remote", "timeout after 10000 ms"));

    const noRunner = quietRegistry();
    noRunner.register(tool("remote", { executor: { type: "http", url: "https://api.example.com" } }), "c");
    const result = await noRunner.execute("remote", {});
    expect(result.isError).toBe(true);
    expect(errorText(result.content)).toContain("remote");
  });

  it("answers that the client runs a tool without executor or handler (not an error)", async () => {
    const registry = quietRegistry();
    registry.register(tool("client_side"), "c");
    expect(await registry.execute("client_side", {})).toStrictEqual({ isError: false, content: texts().clientRuns("client_side") });
  });
});

describe("the execution guard", () => {
  const request: ConfirmationRequest = {
    id: "conf-1", capability: "tool:wipe", mode: "session", expiresAt: 1_900_000_000_000, tool: "wipe", description: "Wipes.", arguments: {},
  };

  it("is called on every execute, after validation, with the tool, arguments and context", async () => {
    const registry = quietRegistry();
    const guard = vi.fn<ExecutionGuard>(() => ({ kind: "allow" }));
    registry.register(tool("a"), "c", () => "A");
    registry.register(tool("b"), "c");
    registry.setExecutionGuard(guard);
    const context: ToolCallContext = { sessionId: "s", principal: { id: "p", level: 1, owner: false, groups: [] } };
    await registry.execute("a", { q: "1" }, context);
    await registry.execute("b", {}, context);
    await registry.execute("a", { q: 5 }, context); // invalid: no guard call
    await registry.execute("missing", {}, context); // unknown: no guard call
    expect(guard).toHaveBeenCalledTimes(2);
    const first = guard.mock.calls[0]?.[0];
    expect(first?.tool.definition.name).toBe("a");
    expect(first?.arguments).toEqual({ q: "1" });
    expect(first?.context).toBe(context);
  });

  it("honours deny: the handler does not run and the reason is the error text", async () => {
    const registry = quietRegistry();
    const handler = vi.fn<ToolHandler>(() => "ran");
    registry.register(tool("wipe"), "c", handler);
    registry.setExecutionGuard(() => ({ kind: "deny", reason: texts().banned }));
    expect(await registry.execute("wipe", {})).toStrictEqual({ isError: true, content: JSON.stringify({ error: texts().banned }) });
    expect(handler).not.toHaveBeenCalled();
  });

  it("honours confirm: the call waits, with the request attached", async () => {
    const registry = quietRegistry();
    const handler = vi.fn<ToolHandler>(() => "ran");
    registry.register(tool("wipe"), "c", handler);
    registry.setExecutionGuard(async () => Promise.resolve({ kind: "confirm", request }));
    expect(await registry.execute("wipe", {})).toStrictEqual({
      isError: false,
      content: texts().needsConfirmation("wipe", "tool:wipe", "session"),
      confirmation: request,
    });
    expect(handler).not.toHaveBeenCalled();
  });

  it("fails closed: a throwing guard or a malformed decision stops the call", async () => {
    const registry = quietRegistry();
    const handler = vi.fn<ToolHandler>(() => "ran");
    registry.register(tool("wipe"), "c", handler);
    registry.setExecutionGuard(() => {
      throw new Error("ledger unavailable");
    });
    expect(await registry.execute("wipe", {})).toStrictEqual({
      isError: true,
      content: JSON.stringify({ error: texts().toolFailed("wipe", "ledger unavailable") }),
    });
    for (const bad of [undefined, {}, { kind: "maybe" }, { kind: "deny" }, { kind: "confirm" }]) {
      registry.setExecutionGuard(() => malformed(bad));
      expect((await registry.execute("wipe", {})).isError).toBe(true);
    }
    expect(handler).not.toHaveBeenCalled();
    registry.setExecutionGuard(undefined);
    expect((await registry.execute("wipe", {})).content).toBe("ran");
  });

  it("uses the guard installed last", async () => {
    const registry = quietRegistry();
    registry.register(tool("t"), "c", () => "ran");
    registry.setExecutionGuard(() => ({ kind: "deny", reason: "first" }));
    registry.setExecutionGuard(() => ({ kind: "deny", reason: "second" }));
    expect(errorText((await registry.execute("t", {})).content)).toBe("second");
  });
});

describe("locale", () => {
  it("answers in Chinese with locale zh", async () => {
    const registry = quietRegistry({ locale: "zh" });
    registry.register(tool("get_weather"), "c");
    registry.register(tool("fail"), "c", () => {
      throw new Error("boom");
    });
    const unknown = await registry.execute("get_wether", {});
    expect(errorText(unknown.content)).toBe("工具未找到：「get_wether」。你是否想用：get_weather？请用 search_tools 查找所需工具。");
    const invalid = await registry.execute("get_weather", { q: 1, x: 2 });
    expect(errorText(invalid.content)).toBe("工具「get_weather」的参数无效：参数「q」必须是 string；未知参数「x」");
    expect(errorText((await registry.execute("fail", {})).content)).toBe("工具「fail」执行失败：boom");
    expect((await registry.execute("get_weather", {})).content).toBe("工具「get_weather」没有服务端执行器：由客户端执行。");
  });
});

describe("registering a definition a registry stored", () => {
  it("keeps the same object in a registry of the same locale, and validates anew for another locale", () => {
    const first = quietRegistry();
    first.register(tool("kept"), "c");
    const stored = first.get("kept")?.definition;
    expect(stored).toBeDefined();
    const second = quietRegistry();
    second.register(stored, "other");
    expect(second.get("kept")?.definition).toBe(stored);
    expect(second.get("kept")?.contextId).toBe("other");
    second.registerMany([stored], "many");
    expect(second.get("kept")?.definition).toBe(stored);
    const chinese = quietRegistry({ locale: "zh" });
    chinese.register(stored, "c");
    expect(chinese.get("kept")?.definition).not.toBe(stored);
    expect(chinese.get("kept")?.definition).toEqual(stored);
    // An equal plain object (not one a registry stored) is validated: a new, frozen copy.
    const copy = structuredClone(stored);
    second.register(copy, "c");
    expect(second.get("kept")?.definition).not.toBe(copy);
    expect(Object.isFrozen(second.get("kept")?.definition)).toBe(true);
  });
});

/** What callers of a few group lists see of a registry, as JSON texts. */
function viewsOf(registry: ToolRegistry): string[][] {
  return [["*"], ["x"], [], ["y"]].map((groups) => registry.getDefinitions({ groups }).map((seen) => JSON.stringify(seen)));
}

/** A table of `source`'s tools (as a snapshot's: registrySnapshot.ts), counting what the registry asks of it. */
function tableOf(source: ToolRegistry): ValidatedTable & { asked: string[] } {
  const entries = source.list();
  const definitions = Object.freeze(entries.map((entry) => entry.definition));
  const asked: string[] = [];
  return {
    definitions,
    asked,
    contextOf: (row) => {
      asked.push(`context ${row}`);
      return entries[row]?.contextId ?? "";
    },
    rowOf: (name) => {
      asked.push(`row ${name}`);
      return definitions.findIndex((definition) => definition.name === name);
    },
  };
}

/** `source`'s tools registered again in a new registry, as the registry of a new version registers stored tools. */
function registeredAgain(source: ToolRegistry): ToolRegistry {
  const registry = quietRegistry();
  registry.registerEach(source.list().map((entry) => ({ tool: entry.definition, contextId: entry.contextId })), () => undefined);
  return registry;
}

function sourceRegistry(): ToolRegistry {
  const source = quietRegistry();
  source.registerMany([tool("alpha"), { ...tool("beta"), groups: ["x"] }, { ...tool("gamma"), groups: ["y", "x"] }], "owner");
  source.register(tool("delta"), "upstream:d");
  return source;
}

/** A few calls: the gate, the arguments, unknown names with suggestions from the visible tools only. */
function someCalls(registry: ToolRegistry): Promise<unknown[]> {
  return Promise.all([
    registry.execute("beta", { q: "1" }, { enabledGroups: ["x"] }),
    registry.execute("beta", { q: "1" }, { enabledGroups: [] }),
    registry.execute("gamma", { q: 3 }, { enabledGroups: ["y"] }),
    registry.execute("alpah", {}),
    registry.execute("bet", {}, { enabledGroups: [] }),
  ]);
}

describe("registerTable", () => {
  it("serves a table's tools as a registry that registered them does, making an entry only for the tool asked for", async () => {
    const source = sourceRegistry();
    const table = tableOf(source);
    const read = quietRegistry();
    read.registerTable(table);
    const validated = registeredAgain(source);
    expect(read.size).toBe(4);
    expect(read.version).toBe(1);
    expect(read.getDefinitions({ groups: ["*"] })).toBe(table.definitions);
    expect(viewsOf(read)).toEqual(viewsOf(validated));
    // Listing views and the whole list asks the table nothing per tool.
    expect(table.asked).toEqual([]);
    expect(read.get("delta")).toEqual({ definition: table.definitions[3], contextId: "upstream:d" });
    expect(read.get("delta")).toBe(read.get("delta"));
    expect(read.get("nope")).toBeUndefined();
    expect(table.asked.filter((asked) => asked.startsWith("context"))).toEqual(["context 3"]);
    expect(await someCalls(read)).toEqual(await someCalls(validated));
    expect(() => read.registerTable(table)).toThrow(/empty registry/);
    expect(() => validated.registerTable(table)).toThrow(/empty registry/);
  });

  it("makes every entry, in order, on the first change, and then changes as any registry does", () => {
    const source = sourceRegistry();
    const changes: ((registry: ToolRegistry) => void)[] = [
      (registry) => registry.register({ ...tool("beta"), description: "Replaced." }, "owner"),
      (registry) => registry.register(tool("epsilon"), "owner"),
      (registry) => void registry.unregister("alpha"),
      (registry) => void registry.dispose("owner"),
      (registry) => void registry.registerMany([tool("zeta")], "other"),
    ];
    for (const change of changes) {
      const read = quietRegistry();
      read.registerTable(tableOf(source));
      const validated = registeredAgain(source);
      const listed = read.getDefinitions({ groups: ["*"] });
      change(read);
      change(validated);
      expect(read.list()).toEqual(validated.list());
      expect(viewsOf(read)).toEqual(viewsOf(validated));
      expect(read.getDefinitions({ groups: ["*"] })).not.toBe(listed);
      expect(read.size).toBe(validated.size);
      expect(read.version).toBe(validated.version);
    }
    // A disposer made after the table was registered removes its own registration only.
    const read = quietRegistry();
    read.registerTable(tableOf(source));
    const dispose = read.register(tool("eta"), "c");
    dispose();
    expect(read.list().map((entry) => entry.definition.name)).toEqual(["alpha", "beta", "gamma", "delta"]);
  });

  it("is taken over by the next version's registry (registerEach) entry by entry, without validating again", () => {
    const source = sourceRegistry();
    const table = tableOf(source);
    const read = quietRegistry();
    read.registerTable(table);
    const next = quietRegistry();
    const stored = next.registerEach(
      table.definitions.map((definition, row) => ({ tool: definition, contextId: row === 1 ? "moved" : source.list()[row]?.contextId ?? "" })),
      () => undefined,
      read,
    );
    expect(stored).toEqual(table.definitions);
    stored.forEach((definition, row) => expect(definition).toBe(table.definitions[row]));
    expect(next.get("delta")).toBe(read.get("delta"));
    expect(next.get("beta")?.contextId).toBe("moved");
    // The table's definitions are known as validated: registering one again elsewhere keeps it.
    const again = quietRegistry();
    again.register(table.definitions[0], "c");
    expect(again.get("alpha")?.definition).toBe(table.definitions[0]);
  });

  it("gives a view's list to whenListed when first made, and not after a change", () => {
    const read = quietRegistry();
    read.registerTable(tableOf(sourceRegistry()));
    const given: (readonly unknown[])[] = [];
    read.whenListed([], (list) => given.push(list));
    read.whenListed(["*"], (list) => given.push(list));
    expect(given).toEqual([read.getDefinitions({ groups: ["*"] })]);
    const ungrouped = read.getDefinitions({ groups: [] });
    expect(given).toEqual([read.getDefinitions({ groups: ["*"] }), ungrouped]);
    expect(given[1]).toBe(ungrouped);
    read.whenListed(["x"], (list) => given.push(list));
    read.register(tool("theta"), "c");
    read.getDefinitions({ groups: ["x"] });
    expect(given).toHaveLength(2);
  });

  it("looks a tool up by name in the list of every tool, and in no other list", () => {
    const table = tableOf(sourceRegistry());
    const read = quietRegistry();
    read.registerTable(table);
    const lookup = catalogNameLookup(read.getDefinitions({ groups: ["*"] }));
    expect(lookup?.("gamma")).toBe(table.definitions[2]);
    expect(lookup?.("omega")).toBeUndefined();
    expect(catalogNameLookup(read.getDefinitions({ groups: [] }))).toBeUndefined();
    expect(catalogNameLookup(sourceRegistry().getDefinitions({ groups: ["*"] }))).toBeUndefined();
  });

  it("keeps the table's list of every tool, and its look-up, past the lists of many other group sets", () => {
    const table = tableOf(sourceRegistry());
    const read = quietRegistry();
    read.registerTable(table);
    const lists = Array.from({ length: 100 }, (_, i) => read.getDefinitions({ groups: [`group${i}`] }));
    expect(lists.every((list) => list.map((seen) => seen.name).join() === "alpha,delta")).toBe(true);
    const every = read.getDefinitions({ groups: ["*"] });
    expect(every).toBe(table.definitions);
    expect(catalogNameLookup(every)?.("beta")).toBe(table.definitions[1]);
    // The other lists are made again once dropped, the same tools in the same order.
    expect(read.getDefinitions({ groups: ["group0"] })).toEqual(lists[0]);
    // Listing asked the table nothing per tool; the look-up asked its row.
    expect(table.asked).toEqual(["row beta"]);
  });
});

describe("registerEach", () => {
  it("registers each valid tool, reports the others by index, and keeps definitions a registry stored", () => {
    const first = quietRegistry();
    first.register(tool("kept"), "c");
    const stored = first.get("kept")?.definition;
    const registry = quietRegistry();
    const failed: number[] = [];
    const result = registry.registerEach(
      [{ tool: stored, contextId: "a" }, { tool: { ...tool("bad\nname") }, contextId: "a" }, { tool: tool("fresh"), contextId: "b" }],
      (index) => failed.push(index),
    );
    expect(failed).toEqual([1]);
    expect(result[0]).toBe(stored);
    expect(result[1]).toBeUndefined();
    expect(result[2]).toBe(registry.get("fresh")?.definition);
    expect(registry.list().map((entry) => [entry.definition.name, entry.contextId])).toEqual([["kept", "a"], ["fresh", "b"]]);
    expect(registry.version).toBe(1);
  });
});
