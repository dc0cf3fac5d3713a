import { describe, expect, it } from "vitest";
import { DEMO_CONTEXT, demoCatalog } from "../../src/catalog/demo.ts";
import { confirmMode, minimumLevel } from "../../src/core/guard/authority.ts";
import { isRecord } from "../../src/core/records.ts";
import { ToolRegistry } from "../../src/core/tools/toolRegistry.ts";
import { validateArguments } from "../../src/core/tools/arguments.ts";
import { validateToolDefinition } from "../../src/core/tools/definition.ts";
import type { JsonSchema, ToolDefinition } from "../../src/core/types.ts";

const catalog = demoCatalog();
const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

function demoTool(name: string): ToolDefinition {
  const found = catalog.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`demo tool ${name} is missing`);
  return found;
}

function propertiesOf(schema: JsonSchema): Record<string, unknown> {
  const properties = schema["properties"];
  return isRecord(properties) ? properties : {};
}

describe("the demo catalog", () => {
  it("has at least 60 tools over at least 8 groups, and a few ungrouped ones", () => {
    expect(catalog.length).toBeGreaterThanOrEqual(60);
    const groups = new Set(catalog.flatMap((entry) => entry.groups ?? []));
    expect(groups.size).toBeGreaterThanOrEqual(8);
    for (const group of ["web", "files", "calendar", "mail", "code", "data", "maps", "finance"]) expect(groups).toContain(group);
    for (const group of groups) expect(catalog.filter((entry) => entry.groups?.includes(group)).length).toBeGreaterThanOrEqual(3);
    const ungrouped = catalog.filter((entry) => entry.groups === undefined);
    expect(ungrouped.length).toBeGreaterThanOrEqual(3);
    expect(catalog.some((entry) => (entry.groups?.length ?? 0) > 1)).toBe(true);
  });

  it("names every tool uniquely, within the registry's name pattern", () => {
    const names = catalog.map((entry) => entry.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(NAME);
    expect(names).not.toContain("search_tools");
  });

  it("describes every tool specifically: distinct, sentence-length descriptions", () => {
    const descriptions = catalog.map((entry) => entry.description);
    expect(new Set(descriptions).size).toBe(descriptions.length);
    for (const description of descriptions) {
      expect(description.length).toBeGreaterThanOrEqual(20);
      expect(description.trim()).toBe(description);
    }
  });

  it("gives every tool a real object schema: typed, described properties; required fields that exist; mostly closed", () => {
    const problems: string[] = [];
    let closed = 0;
    for (const entry of catalog) {
      const schema = entry.parameters;
      if (schema["type"] !== "object" || !isRecord(schema["properties"])) problems.push(`${entry.name}: not an object schema with properties`);
      const properties = propertiesOf(schema);
      for (const [key, property] of Object.entries(properties)) {
        if (!isRecord(property) || typeof property["description"] !== "string" || property["type"] === undefined) {
          problems.push(`${entry.name}.${key}: no type or no description`);
        }
      }
      const required = schema["required"];
      for (const key of Array.isArray(required) ? required : []) {
        if (typeof key !== "string" || !Object.hasOwn(properties, key)) problems.push(`${entry.name}: requires unknown ${String(key)}`);
      }
      if (schema["additionalProperties"] === false) closed += 1;
    }
    expect(problems).toEqual([]);
    expect(closed / catalog.length).toBeGreaterThan(0.9);
    expect(catalog.filter((entry) => Array.isArray(entry.parameters["required"])).length).toBeGreaterThan(catalog.length * 0.7);
  });

  it("has restricted, sensitive and dangerous tools, and both confirmation modes", () => {
    const restricted = catalog.filter((entry) => entry.visibility === "restricted");
    const dangerous = catalog.filter((entry) => entry.risk === "dangerous");
    expect(restricted.length).toBeGreaterThanOrEqual(3);
    expect(dangerous.length).toBeGreaterThanOrEqual(3);
    expect(catalog.filter((entry) => entry.risk === "sensitive").length).toBeGreaterThanOrEqual(3);
    expect(catalog.filter((entry) => entry.confirm === "session").length).toBeGreaterThanOrEqual(1);
    expect(catalog.filter((entry) => entry.confirm === "always").length).toBeGreaterThanOrEqual(3);
    expect(demoTool("send_email")).toMatchObject({ risk: "sensitive", confirm: "always", groups: ["mail"] });
    expect(demoTool("delete_file")).toMatchObject({ risk: "dangerous", confirm: "always", groups: ["files"] });
    expect(demoTool("send_payment")).toMatchObject({ visibility: "restricted", risk: "dangerous", confirm: "always" });
    expect(demoTool("write_file")).toMatchObject({ risk: "sensitive", confirm: "session" });
    // Most tools are everyday ones.
    expect(catalog.filter((entry) => entry.risk === undefined && entry.visibility === undefined).length).toBeGreaterThan(catalog.length / 2);
  });

  it("has the four builtin tools with their executors; every other tool is run by the client", () => {
    expect(demoTool("echo")).toMatchObject({ executor: { type: "builtin", name: "echo" } });
    expect(demoTool("echo").groups).toBeUndefined();

    expect(demoTool("current_time")).toMatchObject({ executor: { type: "builtin", name: "clock" } });
    expect(propertiesOf(demoTool("current_time").parameters)["timezone"]).toMatchObject({ type: "string" });
    expect(demoTool("current_time").parameters["required"]).toBeUndefined();

    expect(demoTool("calculate")).toMatchObject({ executor: { type: "builtin", name: "calculator" } });
    expect(demoTool("calculate").parameters).toMatchObject({ required: ["expression"], properties: { expression: { type: "string" } } });

    expect(demoTool("fetch_url")).toMatchObject({ groups: ["web"], executor: { type: "builtin", name: "fetch_url" } });
    expect(demoTool("fetch_url").parameters).toMatchObject({ required: ["url"], properties: { url: { type: "string", format: "uri" } } });
    expect(demoTool("fetch_url").description).toMatch(/untrusted external data/u);

    const withExecutor = catalog.filter((entry) => entry.executor !== undefined).map((entry) => entry.name);
    expect(withExecutor.toSorted()).toEqual(["calculate", "current_time", "echo", "fetch_url"]);
  });

  it("passes the registry's definition validation unchanged, tool by tool", () => {
    const changed = catalog.filter((entry) => JSON.stringify(validateToolDefinition(structuredClone(entry))) !== JSON.stringify(entry));
    expect(changed.map((entry) => entry.name)).toEqual([]);
  });

  it("spreads over every authority level and confirmation mode, so that the guard has something to show", () => {
    const config = { authorityOverrides: {}, confirmOverrides: {}, deniedCapabilities: [] };
    const levels = new Set(catalog.map((entry) => minimumLevel(entry, config)));
    expect([...levels].toSorted((a, b) => a - b)).toEqual([0, 1, 2]);
    const modes = new Set(catalog.map((entry) => confirmMode(entry, config)));
    expect([...modes].toSorted()).toEqual(["always", "off", "session"]);
    expect(minimumLevel(demoTool("echo"), config)).toBe(0);
    expect(confirmMode(demoTool("delete_email"), config)).toBe("session");
  });

  it("registers whole into a registry, where the group gate shows", () => {
    const registry = new ToolRegistry({ logger: { warn: () => {} } });
    registry.registerMany(demoCatalog(), DEMO_CONTEXT);
    expect(registry.size).toBe(catalog.length);
    const ungrouped = registry.getDefinitions({ groups: [] }).map((entry) => entry.name);
    expect(ungrouped.toSorted()).toEqual(catalog.filter((entry) => !entry.groups).map((entry) => entry.name).toSorted());
    const mail = registry.getDefinitions({ groups: ["mail"] }).map((entry) => entry.name);
    expect(mail).toContain("send_email");
    expect(mail).not.toContain("delete_file");
    expect(registry.getDefinitions({ groups: ["*"] })).toHaveLength(catalog.length);
    expect(registry.dispose(DEMO_CONTEXT)).toBe(catalog.length);
  });

  it("has schemas that accept realistic calls and refuse wrong ones", () => {
    const valid: [string, Record<string, unknown>][] = [
      ["send_email", { to: ["anna@example.com"], subject: "Q3 report", body: "Attached.", attachments: ["reports/q3.pdf"] }],
      ["create_event", { title: "Standup", start: "2026-03-02T09:00:00+01:00", end: "2026-03-02T09:15:00+01:00", attendees: ["bo@example.com"] }],
      ["get_directions", { origin: "Alexanderplatz, Berlin", destination: "52.5,13.4", mode: "transit", avoid: ["tolls"] }],
      ["create_invoice", { customer_email: "billing@acme.example", currency: "EUR", items: [{ description: "Consulting", quantity: 3, unit_price: 950 }] }],
      ["run_sql_query", { database: "analytics", sql: "SELECT * FROM orders WHERE id = $1", parameters: [42] }],
      ["current_time", {}],
      ["echo", { message: "hi", anything: [1, 2] }],
    ];
    const refused = valid.flatMap(([name, args]) => validateArguments(demoTool(name).parameters, args).map((problem) => `${name}: ${problem}`));
    expect(refused).toEqual([]);

    const invalid: [string, Record<string, unknown>][] = [
      ["send_email", { subject: "no recipients", body: "x" }],
      ["send_email", { to: ["anna@example.com"], subject: "x", body: "y", priority: "high" }],
      ["calculate", {}],
      ["get_directions", { origin: "a", destination: "b", mode: "teleport" }],
      ["convert_currency", { amount: 10, from: "usd", to: "EUR" }],
      ["get_weather_forecast", { location: "Paris", days: 30 }],
      ["create_invoice", { customer_email: "billing@acme.example", currency: "EUR", items: [] }],
    ];
    const accepted = invalid.filter(([name, args]) => validateArguments(demoTool(name).parameters, args).length === 0);
    expect(accepted).toEqual([]);
  });

  it("hands out a fresh, unshared copy on every call", () => {
    const first = demoCatalog();
    const clock = first.find((entry) => entry.name === "current_time");
    const timezone = clock ? propertiesOf(clock.parameters)["timezone"] : undefined;
    if (isRecord(timezone)) timezone["maxLength"] = 1;
    first.find((entry) => entry.name === "fetch_url")?.groups?.push("changed");
    expect(timezone).toMatchObject({ maxLength: 1 });
    expect(propertiesOf(first.find((entry) => entry.name === "create_event")?.parameters ?? {})["timezone"]).toMatchObject({ maxLength: 64 });
    expect(demoCatalog()).toEqual(catalog);
    expect(DEMO_CONTEXT).toBe("builtin:demo");
  });
});
