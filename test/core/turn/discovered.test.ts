import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DiscoveredSet } from "../../../src/core/turn/discovered.ts";

describe("DiscoveredSet", () => {
  it("starts empty, or with the stored order (most recent first)", () => {
    expect(new DiscoveredSet(20).toArray()).toEqual([]);
    expect(new DiscoveredSet(20).size).toBe(0);
    const set = new DiscoveredSet(20, ["c", "b", "a"]);
    expect(set.toArray()).toEqual(["c", "b", "a"]);
    expect(set.size).toBe(3);
  });

  it("keeps the first (most recent) place of a name the stored order repeats", () => {
    expect(new DiscoveredSet(0, ["a", "b", "a", "c", "b"]).toArray()).toEqual(["a", "b", "c"]);
  });

  it("keeps the most recent `max` of a stored order that is too long (the bound was lowered)", () => {
    expect(new DiscoveredSet(2, ["c", "b", "a"]).toArray()).toEqual(["c", "b"]);
  });

  it("takes any iterable as the stored order", () => {
    expect(new DiscoveredSet(5, new Set(["x", "y"])).toArray()).toEqual(["x", "y"]);
  });

  it("puts touched names in front, the last one given most recent", () => {
    const set = new DiscoveredSet(20, ["old"]);
    set.touch(["a", "b", "c"]);
    expect(set.toArray()).toEqual(["c", "b", "a", "old"]);
  });

  it("moves a name that is used again to the front, without repeating it", () => {
    const set = new DiscoveredSet(20, ["c", "b", "a"]);
    set.touch(["a"]);
    expect(set.toArray()).toEqual(["a", "c", "b"]);
    set.touch(["b", "b"]);
    expect(set.toArray()).toEqual(["b", "a", "c"]);
    expect(set.size).toBe(3);
  });

  it("drops the least recent names beyond `max`", () => {
    const set = new DiscoveredSet(3, ["c", "b", "a"]);
    set.touch(["d"]);
    expect(set.toArray()).toEqual(["d", "c", "b"]);
    expect(set.has("a")).toBe(false);
    set.touch(["b", "e"]);
    expect(set.toArray()).toEqual(["e", "b", "d"]);
  });

  it("keeps the last `max` of one touch that is longer than `max`", () => {
    const set = new DiscoveredSet(2, ["a"]);
    set.touch(["p", "q", "r", "s"]);
    expect(set.toArray()).toEqual(["s", "r"]);
  });

  it("does not bound a set with max 0 (unlimited)", () => {
    const names = Array.from({ length: 5_000 }, (_, index) => `tool_${index}`);
    const set = new DiscoveredSet(0);
    set.touch(names);
    expect(set.size).toBe(5_000);
    expect(set.toArray()[0]).toBe("tool_4999");
    expect(set.toArray().at(-1)).toBe("tool_0");
  });

  it("answers has, deletes one name and clears all", () => {
    const set = new DiscoveredSet(10, ["a", "b", "c"]);
    expect(set.has("b")).toBe(true);
    expect(set.has("z")).toBe(false);
    expect(set.delete("b")).toBe(true);
    expect(set.delete("b")).toBe(false);
    expect(set.toArray()).toEqual(["a", "c"]);
    set.clear();
    expect(set.size).toBe(0);
    expect(set.toArray()).toEqual([]);
    set.touch(["n"]);
    expect(set.toArray()).toEqual(["n"]);
  });

  it("makes room after a delete: a full set with one deleted takes a new name without dropping another", () => {
    const set = new DiscoveredSet(2, ["a", "b"]);
    set.delete("a");
    set.touch(["c"]);
    expect(set.toArray()).toEqual(["c", "b"]);
  });

  it("hands out a copy: changing toArray's answer does not change the set", () => {
    const set = new DiscoveredSet(5, ["a", "b"]);
    const array = set.toArray();
    array.push("c");
    array.reverse();
    expect(set.toArray()).toEqual(["a", "b"]);
  });

  it("does not keep a reference to the stored order it was given", () => {
    const stored = ["a", "b"];
    const set = new DiscoveredSet(5, stored);
    stored.push("c");
    expect(set.toArray()).toEqual(["a", "b"]);
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])("refuses max %s", (max) => {
    expect(() => new DiscoveredSet(max)).toThrow(RangeError);
  });
});

// Model-based: a plain array, most recent first. Every command applies itself to both and compares them, throwing
// (which fast-check reports with the shrunk command sequence) on the first difference.
interface Model {
  names: string[];
  max: number;
}

function modelTouch(model: Model, names: readonly string[]): void {
  for (const name of names) {
    model.names = [name, ...model.names.filter((other) => other !== name)];
    if (model.max > 0) model.names = model.names.slice(0, model.max);
  }
}

function verify(model: Model, set: DiscoveredSet, after: string): void {
  const actual = set.toArray();
  const same = actual.length === model.names.length && actual.every((name, index) => name === model.names[index]);
  const bounded = model.max === 0 || set.size <= model.max;
  if (!same || set.size !== actual.length || !bounded) {
    throw new Error(`after ${after}: set ${JSON.stringify(actual)} (size ${set.size}), model ${JSON.stringify(model.names)}`);
  }
}

class TouchCommand implements fc.Command<Model, DiscoveredSet> {
  readonly names: string[];
  constructor(names: string[]) {
    this.names = names;
  }
  check(): boolean {
    return true;
  }
  run(model: Model, set: DiscoveredSet): void {
    modelTouch(model, this.names);
    set.touch(this.names);
    verify(model, set, this.toString());
  }
  toString(): string {
    return `touch(${JSON.stringify(this.names)})`;
  }
}

class DeleteCommand implements fc.Command<Model, DiscoveredSet> {
  readonly name: string;
  constructor(name: string) {
    this.name = name;
  }
  check(): boolean {
    return true;
  }
  run(model: Model, set: DiscoveredSet): void {
    const present = model.names.includes(this.name);
    model.names = model.names.filter((other) => other !== this.name);
    if (set.delete(this.name) !== present) throw new Error(`${this.toString()} should answer ${String(present)}`);
    verify(model, set, this.toString());
  }
  toString(): string {
    return `delete(${this.name})`;
  }
}

class HasCommand implements fc.Command<Model, DiscoveredSet> {
  readonly name: string;
  constructor(name: string) {
    this.name = name;
  }
  check(): boolean {
    return true;
  }
  run(model: Model, set: DiscoveredSet): void {
    const expected = model.names.includes(this.name);
    if (set.has(this.name) !== expected) throw new Error(`${this.toString()} should answer ${String(expected)}`);
  }
  toString(): string {
    return `has(${this.name})`;
  }
}

class ClearCommand implements fc.Command<Model, DiscoveredSet> {
  check(): boolean {
    return true;
  }
  run(model: Model, set: DiscoveredSet): void {
    model.names = [];
    set.clear();
    verify(model, set, this.toString());
  }
  toString(): string {
    return "clear()";
  }
}

// A small alphabet, so that names repeat and the bound is reached often.
const nameArbitrary = fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h", "search_tools", "web_fetch");
const maxArbitrary = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 6 }));

describe("DiscoveredSet against a model", () => {
  it("behaves like a most-recent-first array under any sequence of commands", () => {
    const commands = [
      fc.array(nameArbitrary, { maxLength: 8 }).map((names) => new TouchCommand(names)),
      nameArbitrary.map((name) => new DeleteCommand(name)),
      nameArbitrary.map((name) => new HasCommand(name)),
      fc.constant(new ClearCommand()),
    ];
    fc.assert(
      fc.property(maxArbitrary, fc.array(nameArbitrary, { maxLength: 10 }), fc.commands(commands, { maxCommands: 40 }), (max, initial, run) => {
        const model: Model = { names: [], max };
        // The stored order is most recent first: touching it oldest first builds the same model.
        modelTouch(model, initial.toReversed());
        const set = new DiscoveredSet(max, initial);
        verify(model, set, `new DiscoveredSet(${max}, ${JSON.stringify(initial)})`);
        fc.modelRun(() => ({ model, real: set }), run);
        expect(set.toArray()).toEqual(model.names);
      }),
      { numRuns: 300 },
    );
  });

  it("keeps exactly the most recent `max` distinct names, most recent first", () => {
    fc.assert(
      fc.property(maxArbitrary, fc.array(nameArbitrary, { maxLength: 60 }), (max, touches) => {
        const set = new DiscoveredSet(max);
        set.touch(touches);
        // Distinct names by their last use, latest first.
        const latestFirst = [...new Set(touches.toReversed())];
        expect(set.toArray()).toEqual(max === 0 ? latestFirst : latestFirst.slice(0, max));
      }),
    );
  });

  it("gives the same set whether names are touched one by one or all at once", () => {
    fc.assert(
      fc.property(maxArbitrary, fc.array(nameArbitrary, { maxLength: 30 }), (max, touches) => {
        const atOnce = new DiscoveredSet(max);
        atOnce.touch(touches);
        const oneByOne = new DiscoveredSet(max);
        for (const name of touches) oneByOne.touch([name]);
        expect(oneByOne.toArray()).toEqual(atOnce.toArray());
      }),
    );
  });

  it("round-trips through its stored order (what the session object saves and loads)", () => {
    fc.assert(
      fc.property(maxArbitrary, fc.array(nameArbitrary, { maxLength: 30 }), (max, touches) => {
        const set = new DiscoveredSet(max);
        set.touch(touches);
        const reloaded = new DiscoveredSet(max, set.toArray());
        expect(reloaded.toArray()).toEqual(set.toArray());
      }),
    );
  });
});
