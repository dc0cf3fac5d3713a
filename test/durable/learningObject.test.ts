// The learning object keeps the folded state as rows, not as one storage value: a state far past a value's limit
// (128 KiB) is kept, read back whole and in order, handed to isolates and forgotten per tool. Each test uses an object
// of its own.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DEFAULT_LEARNING, type LearningConfig } from "../../src/core/config.ts";
import { MAX_TERMS_PER_EVENT, PASSED_OVER_SHARE, type EvidenceEvent, type LearnedState } from "../../src/core/learning/evidence.ts";
import { LearningObject, MAX_BATCH_EVENTS, MAX_PENDING_EVENTS } from "../../src/durable/learningObject.ts";

const OPTIONS: LearningConfig = { ...DEFAULT_LEARNING, enabled: true };
const learning = (name: string): DurableObjectStub<LearningObject> => env.LEARNING.getByName(`test-learning-${name}`);

/** Three principals each teach every tool `terms` distinct terms, in events of at most MAX_TERMS_PER_EVENT terms. */
function events(tools: number, terms: number): EvidenceEvent[] {
  const out: EvidenceEvent[] = [];
  for (let t = 0; t < tools; t++) {
    const words = Array.from({ length: terms }, (_, i) => `learnedword${t}x${i}`);
    for (const principal of ["p1", "p2", "p3"]) {
      for (let at = 0; at < words.length; at += MAX_TERMS_PER_EVENT) {
        out.push({ tool: `tool_${t}`, terms: words.slice(at, at + MAX_TERMS_PER_EVENT), principal, at: Date.now() });
      }
    }
  }
  return out;
}

/** A call of `tool` by `principal` from the search `search` (none: a search of its own). */
function call(tool: string, principal: string, search?: string): EvidenceEvent {
  return { tool, terms: ["ledger"], principal, at: Date.now(), ...(search === undefined ? {} : { search }) };
}

/** The weight of a tool's first learned term in `state`. */
function weight(state: LearnedState, tool: string): number | undefined {
  return state.tools[tool]?.[0]?.weight;
}

describe("LearningObject's folded state", () => {
  it("keeps a state larger than 128 KiB as rows and reads it back whole, in the fold's order", async () => {
    const stub = learning("large");
    const batch = events(100, OPTIONS.maxTermsPerTool);
    expect(await stub.record(batch, OPTIONS)).toBe(batch.length);
    const applied: LearnedState = await stub.apply(OPTIONS);
    expect(Object.keys(applied.tools)).toHaveLength(100);
    expect(applied.tools.tool_7).toHaveLength(OPTIONS.maxTermsPerTool);
    expect(Object.keys(applied.profiles ?? {})).toHaveLength(100);
    expect(JSON.stringify(applied).length).toBeGreaterThan(128 * 1024);

    const read = await stub.stateSince(0);
    if (!("tools" in read)) throw new Error("expected the whole state");
    expect(read.version).toBe(applied.version);
    expect(read.appliedAt).toBe(applied.appliedAt);
    expect(read.tools).toEqual(applied.tools);
    expect(read.profiles).toEqual(applied.profiles);
    // Each tool's terms in the fold's order (heaviest first, then by term), not the rows' order.
    expect(read.tools.tool_7?.map(({ term }) => term)).toEqual(applied.tools.tool_7?.map(({ term }) => term));
    // The holder of this version gets only the version.
    expect(await stub.stateSince(applied.version)).toEqual({ version: applied.version });

    // No storage value holds the state: the largest is small.
    const largest = await runInDurableObject(stub, (_instance, state) => {
      let bytes = 0;
      for (const [, value] of state.storage.kv.list()) bytes = Math.max(bytes, JSON.stringify(value).length);
      return bytes;
    });
    expect(largest).toBeLessThan(1024);
  });

  it("keeps tools named like an object's own members (__proto__, constructor, toString) as tools, folded and read back", async () => {
    const stub = learning("object-names");
    const names = ["__proto__", "constructor", "toString", "hasOwnProperty"];
    const batch: EvidenceEvent[] = names.flatMap((tool) => ["p1", "p2", "p3"].map((principal) => ({ tool, terms: ["ledger", "payroll"], principal, at: Date.now() })));
    expect(await stub.record(batch, OPTIONS)).toBe(batch.length);
    const applied: LearnedState = await stub.apply(OPTIONS);
    expect(Object.keys(applied.tools).toSorted()).toEqual(names.toSorted());
    expect(Object.keys(applied.profiles ?? {}).toSorted()).toEqual(names.toSorted());
    const read = await stub.stateSince(0);
    if (!("tools" in read)) throw new Error("expected the whole state");
    expect(Object.keys(read.tools).toSorted()).toEqual(names.toSorted());
    for (const name of names) {
      expect(Object.hasOwn(read.tools, name)).toBe(true);
      expect(read.tools[name]?.map(({ term }) => term).toSorted()).toEqual(["ledger", "payroll"]);
    }
    expect(Object.getPrototypeOf(read.tools)).toBe(Object.prototype);
  });

  it("forgets one tool's rows, and all of them, with a new version each time", async () => {
    const stub = learning("forget");
    await stub.record(events(3, 4), OPTIONS);
    const applied = await stub.apply(OPTIONS);
    expect(Object.keys(applied.tools).toSorted()).toEqual(["tool_0", "tool_1", "tool_2"]);

    const one = await stub.forget("tool_1", OPTIONS);
    expect(one.removed).toBe(12);
    expect(one.applied.version).toBe(applied.version + 1);
    const read = await stub.stateSince(applied.version);
    if (!("tools" in read)) throw new Error("expected the whole state");
    expect(Object.keys(read.tools).toSorted()).toEqual(["tool_0", "tool_2"]);
    expect(Object.keys(read.profiles ?? {}).toSorted()).toEqual(["tool_0", "tool_2"]);

    const all = await stub.forget(undefined, OPTIONS);
    const empty = await stub.stateSince(one.applied.version);
    if (!("tools" in empty)) throw new Error("expected the whole state");
    expect(empty).toEqual({ version: all.applied.version, appliedAt: all.applied.appliedAt, tools: {}, profiles: {} });
  });

  it("splits a search's calls among its tools when folded; a late call of a folded search shares with the earlier ones", async () => {
    const stub = learning("split");
    // Per principal: one search whose calls are tool_a and tool_b, and tool_c called from a search of its own.
    const batch = ["p1", "p2", "p3"].flatMap((principal) => [call("tool_a", principal, `s-${principal}`), call("tool_b", principal, `s-${principal}`), call("tool_c", principal)]);
    expect(await stub.record(batch, OPTIONS)).toBe(batch.length);
    expect((await stub.report()).evidence).toMatchObject({ rows: 0, pending: 9 });
    const first = await stub.apply(OPTIONS);
    expect([weight(first, "tool_a"), weight(first, "tool_b"), weight(first, "tool_c")]).toEqual([1.5, 1.5, 3]);
    // After the fold, each principal calls a third tool from the same search: a third of a call, the earlier two keep theirs.
    await stub.record(["p1", "p2", "p3"].map((principal) => call("tool_d", principal, `s-${principal}`)), OPTIONS);
    const second = await stub.apply(OPTIONS);
    expect(weight(second, "tool_d")).toBe(1);
    expect([weight(second, "tool_a"), weight(second, "tool_b")]).toEqual([1.5, 1.5]);
    expect((await stub.report()).evidence).toMatchObject({ rows: 12, pending: 0 });
  });

  it("keeps the tools shown above a called one and not called as evidence against them, forgotten with their tool", async () => {
    const stub = learning("passed-over");
    // Per principal, one search showed tool_x, tool_y, then tool_z; tool_y and tool_z were called: tool_x was passed over.
    const batch = ["p1", "p2", "p3"].flatMap((principal) => [
      { ...call("tool_z", principal, `s-${principal}`), above: ["tool_x", "tool_y"] },
      { ...call("tool_y", principal, `s-${principal}`), above: ["tool_x"] },
    ]);
    expect(await stub.record(batch, OPTIONS)).toBe(batch.length);
    const applied = await stub.apply(OPTIONS);
    expect(Object.keys(applied.tools).toSorted()).toEqual(["tool_y", "tool_z"]);
    // Each principal passed tool_x over twice from one search whose call two tools split (half a call each), each time
    // PASSED_OVER_SHARE of that share.
    expect(applied.passedOver).toEqual({ tool_x: [{ term: "ledger", weight: 3 * 2 * 0.5 * PASSED_OVER_SHARE, principals: 3 }] });
    expect((await stub.report()).evidence).toMatchObject({ rows: 9, tools: 3, principals: 3 });
    const read = await stub.stateSince(0);
    expect("tools" in read ? read.passedOver : undefined).toEqual(applied.passedOver);

    const forgotten = await stub.forget("tool_x", OPTIONS);
    expect(forgotten.removed).toBe(3);
    expect(forgotten.applied.passedOver).toBeUndefined();
    expect(Object.keys(forgotten.applied.tools).toSorted()).toEqual(["tool_y", "tool_z"]);
  });

  it("folds at once when the pending calls reach MAX_PENDING_EVENTS", async () => {
    const stub = learning("pending-cap");
    const batch = Array.from({ length: MAX_PENDING_EVENTS - 1 }, (_, i) => call("tool_a", `p${i % 3}`, `s-${i}`));
    for (let at = 0; at < batch.length; at += MAX_BATCH_EVENTS) await stub.record(batch.slice(at, at + MAX_BATCH_EVENTS), OPTIONS);
    expect((await stub.report()).evidence).toMatchObject({ rows: 0, pending: MAX_PENDING_EVENTS - 1 });
    await stub.record([call("tool_a", "p0", "s-last")], OPTIONS);
    const report = await stub.report();
    expect(report.evidence).toMatchObject({ rows: 3, pending: 0, principals: 3 });
    expect(weight(report.applied, "tool_a")).toBe(3);
  });

  it("turns a state kept as one value (before the rows) into rows when the object starts", async () => {
    const stub = learning("legacy");
    const legacy: LearnedState = {
      version: 4,
      appliedAt: 1_000,
      tools: { tool_a: [{ term: "payrol", weight: 3, principals: 3 }] },
      profiles: { tool_a: { principals: 3, terms: [{ term: "payrol", weight: 1 }] } },
    };
    const read = await runInDurableObject(stub, (_instance, state) => {
      state.storage.kv.put("applied", legacy);
      const restarted = new LearningObject(state, env);
      return { stored: state.storage.kv.get("applied"), since: restarted.stateSince(0) };
    });
    expect(read.stored).toBeUndefined();
    expect(read.since).toEqual(legacy);
    // The next fold follows the old version.
    expect((await stub.apply(OPTIONS)).version).toBe(5);
  });
});
