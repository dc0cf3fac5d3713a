// The registry object's snapshot to a reader that holds an earlier version: only the tools written since come with
// their text; everything else is named, with the revision that wrote it. Each test uses an object of its own.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ToolDefinition } from "../../src/core/types.ts";
import { RegistryObject } from "../../src/durable/registryObject.ts";
import type { RegistryPage } from "../../src/durable/registryObject.ts";

const tool = (name: string, description = `Tool ${name}.`): ToolDefinition => ({
  name,
  description,
  parameters: { type: "object", properties: { q: { type: "string" } } },
});

const registry = (name: string): DurableObjectStub<RegistryObject> => env.REGISTRY.getByName(`test-registry-${name}`);

/** The page as name → [revision, whether its text came]. */
function shape(page: RegistryPage): Record<string, [number, boolean]> {
  return Object.fromEntries(page.tools.map((stored) => [stored.name, [stored.revision, stored.definition !== undefined]]));
}

describe("RegistryObject snapshot with a known version", () => {
  it("sends the texts of tools written after the reader's version only", async () => {
    const stub = registry("delta");
    const first = await stub.put([{ context: "runtime", definition: tool("alpha") }, { context: "runtime", definition: tool("beta") }], 100, false);
    if (!first.ok) throw new Error("put failed");
    const second = await stub.put([{ context: "runtime", definition: tool("gamma") }], 100, false);
    if (!second.ok) throw new Error("put failed");
    const v1 = { epoch: first.epoch, version: first.version };

    expect(shape(await stub.snapshot(0))).toEqual({ alpha: [1, true], beta: [1, true], gamma: [2, true] });
    const delta = await stub.snapshot(0, v1);
    expect(delta.version).toBe(2);
    expect(shape(delta)).toEqual({ alpha: [1, false], beta: [1, false], gamma: [2, true] });
    expect(delta.tools.find((stored) => stored.name === "gamma")?.definition).toBe(JSON.stringify(tool("gamma")));

    // A replaced tool is written anew: its text is sent to a reader of version 2.
    await stub.put([{ context: "runtime", definition: tool("alpha", "Alpha, second text.") }], 100, false);
    expect(shape(await stub.snapshot(0, { epoch: first.epoch, version: 2 }))).toEqual({ alpha: [3, true], beta: [1, false], gamma: [2, false] });

    // Another epoch (storage recreated) or a version the object never had: every text.
    expect(shape(await stub.snapshot(0, { epoch: "another", version: 3 }))).toEqual({ alpha: [3, true], beta: [1, true], gamma: [2, true] });
    expect(shape(await stub.snapshot(0, { epoch: first.epoch, version: 99 }))).toEqual({ alpha: [3, true], beta: [1, true], gamma: [2, true] });
  });

  it("keeps the revision of the tools an upstream refresh leaves unchanged", async () => {
    const stub = registry("refresh");
    const before = await stub.replaceContext("upstream:a", [tool("a__one"), tool("a__two")], 100, false);
    if (!before.ok) throw new Error("replace failed");
    const after = await stub.replaceContext("upstream:a", [tool("a__one"), tool("a__two", "Two, changed."), tool("a__three")], 100, false);
    if (!after.ok) throw new Error("replace failed");
    expect(after.version).toBe(before.version + 1);
    expect(shape(await stub.snapshot(0, { epoch: before.epoch, version: before.version }))).toEqual({
      a__one: [before.version, false],
      a__two: [after.version, true],
      a__three: [after.version, true],
    });
  });

  it("gives the tools of storage from before revisions were kept revision 0, unchanged whatever a reader holds", async () => {
    const stub = registry("legacy");
    const put = await stub.put([{ context: "runtime", definition: tool("old") }], 100, false);
    if (!put.ok) throw new Error("put failed");
    const page = await runInDurableObject(stub, (_instance, state) => {
      // The table as an older release made it, then the object constructed anew on that storage.
      state.storage.sql.exec("ALTER TABLE tools DROP COLUMN revision");
      return new RegistryObject(state, env).snapshot(0, { epoch: put.epoch, version: put.version });
    });
    expect(shape(page)).toEqual({ old: [0, false] });
  });
});
