import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  approvalView, CANONICAL_MAX_DEPTH, canonicalJson, cutString, firstLine, PREVIEW_MAX_DEPTH, PREVIEW_MAX_ITEMS,
  PREVIEW_MAX_KEYS, PREVIEW_MAX_NODES, PREVIEW_MAX_STRING, previewArguments,
} from "../../../src/core/guard/approval.ts";

/** The keys of an object value; none for anything else. */
function keysOf(value: unknown): string[] {
  return typeof value === "object" && value !== null ? Object.keys(value) : [];
}

/** Counts the values (leaves and containers) of a JSON value. */
function nodes(value: unknown): number {
  if (Array.isArray(value)) return 1 + value.reduce((sum: number, item: unknown) => sum + nodes(item), 0);
  if (typeof value === "object" && value !== null) return 1 + Object.values(value).reduce((sum: number, item: unknown) => sum + nodes(item), 0);
  return 1;
}

describe("canonicalJson", () => {
  it("sorts keys at every depth and writes no white space", () => {
    expect(canonicalJson({ to: "landlord", amount: 10, meta: { z: [1, { b: 2, a: 1 }], a: null } }))
      .toBe('{"amount":10,"meta":{"a":null,"z":[1,{"a":1,"b":2}]},"to":"landlord"}');
  });

  it("is the same for the same JSON in any key order, and differs for any other value", () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => {
      const shuffled: unknown = JSON.parse(JSON.stringify(value, (_key, item: unknown) =>
        typeof item === "object" && item !== null && !Array.isArray(item) ? Object.fromEntries(Object.entries(item).toReversed()) : item));
      expect(canonicalJson(shuffled)).toBe(canonicalJson(value));
      // It is JSON, and reads back as the same value.
      expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
    }));
    expect(canonicalJson({ amount: 10 })).not.toBe(canonicalJson({ amount: "10" }));
    expect(canonicalJson({ to: "a\ud800" })).not.toBe(canonicalJson({ to: "a\ud801" }));
    expect(canonicalJson({ a: "x", b: undefined })).toBe(canonicalJson({ a: "x" }));
  });

  it("keeps a __proto__ key as data", () => {
    const parsed: unknown = JSON.parse('{"__proto__":{"admin":true},"a":1}');
    expect(canonicalJson(parsed)).toBe('{"__proto__":{"admin":true},"a":1}');
  });

  it("refuses arguments nested past its depth limit", () => {
    let deep: unknown = 1;
    for (let i = 0; i <= CANONICAL_MAX_DEPTH; i++) deep = [deep];
    expect(() => canonicalJson(deep)).toThrow(/nest deeper than 256 levels/);
    expect(() => canonicalJson({ n: 10n })).toThrow(/bigint/);
  });
});

describe("previewArguments", () => {
  it("shows short arguments unchanged, in their own key order", () => {
    const args = { to: "landlord", amount: 10, note: "rent 房租 🏠", urgent: false, tags: ["a"], extra: null };
    expect(previewArguments(args)).toEqual(args);
    expect(keysOf(previewArguments(args))).toEqual(Object.keys(args));
  });

  it("cuts a long string value with a visible mark saying how much is left out", () => {
    const long = "a".repeat(PREVIEW_MAX_STRING + 123);
    expect(previewArguments({ body: long })).toEqual({ body: `${"a".repeat(PREVIEW_MAX_STRING)}…[+123 chars]` });
    expect(previewArguments({ body: "b".repeat(PREVIEW_MAX_STRING) })).toEqual({ body: "b".repeat(PREVIEW_MAX_STRING) });
    // Never inside a surrogate pair.
    const emoji = `${"a".repeat(PREVIEW_MAX_STRING - 1)}😀tail`;
    expect(cutString(emoji)).toBe(`${"a".repeat(PREVIEW_MAX_STRING - 1)}…[+6 chars]`);
  });

  it("cuts long lists, wide objects, long keys and deep structures, each with a mark", () => {
    const list = Array.from({ length: PREVIEW_MAX_ITEMS + 5 }, (_, i) => i);
    expect(previewArguments({ list })).toEqual({ list: [...list.slice(0, PREVIEW_MAX_ITEMS), "…[+5 items]"] });

    const wide = Object.fromEntries(Array.from({ length: PREVIEW_MAX_KEYS + 2 }, (_, i) => [`k${i}`, i]));
    const shownWide = previewArguments(wide);
    expect(keysOf(shownWide)).toHaveLength(PREVIEW_MAX_KEYS + 1);
    expect(shownWide).toMatchObject({ k0: 0, [`k${PREVIEW_MAX_KEYS - 1}`]: PREVIEW_MAX_KEYS - 1, "…[+2 keys]": null });

    const key = "k".repeat(PREVIEW_MAX_STRING + 10);
    expect(previewArguments({ [key]: 1 })).toEqual({ [`${"k".repeat(PREVIEW_MAX_STRING)}…[+10 chars]`]: 1 });

    let deep: Record<string, unknown> = { leaf: 1, other: 2 };
    for (let i = 0; i < PREVIEW_MAX_DEPTH + 2; i++) deep = { d: deep };
    const text = JSON.stringify(previewArguments(deep));
    expect(text).toContain("…[object of 1 keys]");
    expect(text).not.toContain("leaf");
  });

  it("stays bounded whatever the arguments, and says where it cut", () => {
    const huge = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, Array.from({ length: 100 }, () => "x".repeat(1_000))]));
    const shown = previewArguments(huge);
    expect(nodes(shown)).toBeLessThanOrEqual(PREVIEW_MAX_NODES + 2 * PREVIEW_MAX_DEPTH + PREVIEW_MAX_KEYS + 2);
    const text = JSON.stringify(shown);
    expect(text.length).toBeLessThan(100_000);
    expect(text).toContain("…[+800 chars]");
    expect(text).toMatch(/…\[\+\d+ items\]/);
    expect(text).toMatch(/…\[\+\d+ keys\]/);
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 12 }), (value) => {
      const preview = previewArguments({ value });
      expect(JSON.stringify(preview).length).toBeLessThan(PREVIEW_MAX_NODES * (PREVIEW_MAX_STRING + 40) * 2);
    }));
  });

  it("keeps a __proto__ key as an own key, never as the prototype", () => {
    const parsed: unknown = JSON.parse('{"__proto__":{"admin":true}}');
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object");
    const shown = previewArguments(Object.fromEntries(Object.entries(parsed)));
    expect(Object.getPrototypeOf(shown)).toBe(Object.prototype);
    expect(keysOf(shown)).toEqual(["__proto__"]);
    expect(JSON.stringify(shown)).toBe('{"__proto__":{"admin":true}}');
  });
});

describe("approvalView", () => {
  it("names the tool, its description's first non-empty line (bounded) and the arguments", () => {
    const definition = { name: "transfer", description: "\n  Moves money to a payee.  \r\nDetails the approver does not need.", parameters: { type: "object" } };
    expect(approvalView(definition, { to: "landlord", amount: 10 })).toEqual({
      tool: "transfer",
      description: "Moves money to a payee.",
      arguments: { to: "landlord", amount: 10 },
    });
    expect(firstLine("")).toBe("");
    expect(firstLine("x".repeat(PREVIEW_MAX_STRING + 1))).toBe(`${"x".repeat(PREVIEW_MAX_STRING)}…[+1 chars]`);
  });
});
