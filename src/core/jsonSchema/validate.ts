// Validating a value against a compiled schema within a budget of work, so that no schema and no argument can make
// one call take more than a bounded amount of CPU: every (schema node, value) visit spends one unit, and the other
// work (object keys, regular-expression steps, canonical JSON, long strings) is converted into units at fixed rates.
// Past the budget, validation stops with a "too costly" outcome. Problems are structured; arguments.ts words them.
import { canonicalJson, TooDeep } from "./canonical.ts";
import type { CompiledSchema, SchemaNode, ValueSet } from "./compile.ts";
import { TYPE_BITS } from "./compile.ts";
import type { Pattern } from "./regex.ts";
import { isRecord } from "../records.ts";

export const VALIDATION_LIMITS = Object.freeze({
  /**
   * Work units per validation: 17 ms at most in the adversarial bench, on 2 shared cores. The 527 real MCP tools and
   * the demo catalog spend about 1,100 at most on realistic calls, 18 on average (bench/adversarial.ts, `realistic`).
   */
  budget: 50_000,
  /**
   * Nesting of the arguments the validator follows (the arguments object is level 1): it follows them only where
   * the schema looks, so nesting it never reaches costs nothing (request bodies are capped at 128 levels).
   */
  argumentDepth: 64,
  /**
   * Nested visits at once (argument depth × chained references); compile limits keep real schemas far below, this
   * is the last guard of the stack.
   */
  frames: 2_500,
});

/** The conversion of work into budget units, measured against one visit (see bench/adversarial.ts). */
export const COSTS = Object.freeze({
  visit: 1,
  /** One property of an object, looked up in properties / patternProperties / additionalProperties. */
  key: 1,
  /** One key of Object.keys (slow on objects of thousands of keys). */
  listedKey: 0.5,
  requiredName: 0.25,
  /**
   * RE2 steps (characters × program size) per unit, and each test's own overhead. The first test of a big program
   * builds its DFA states as it goes (~25 ns a step); later ones reuse them and cost far less than charged.
   */
  regexStepsPerUnit: 10,
  regexTest: 10,
  /** Compiling a pattern, per estimated RE2 instruction, once per pattern and call (compiled or cached). */
  regexCompilePerInstruction: 5,
  regexCompileBase: 20,
  /** Canonical JSON (enum, const, uniqueItems), per value and per character written. */
  canonicalValue: 0.5,
  canonicalCharacter: 1 / 128,
  /** Counting code points (minLength, maxLength), hashing a string (enum, uniqueItems), per character. */
  stringCharacter: 1 / 256,
  formatCharacter: 1 / 64,
  /** Decimal arithmetic of multipleOf. */
  multipleOf: 2,
  /** A problem recorded: its path written, later its line worded and deduplicated. */
  problem: 3,
});

export type Problem =
  | { kind: "missing"; path: string; level: number }
  | { kind: "unknown"; path: string; level: number }
  | { kind: "type"; path: string; level: number; expected: readonly string[] }
  | { kind: "allowed"; path: string; level: number; values: readonly unknown[] }
  | { kind: "noMatch"; path: string; level: number }
  | { kind: "invalid"; path: string; level: number; detail: string };

export interface ValidationResult {
  valid: boolean;
  /** In the order found (not deduplicated). */
  problems: Problem[];
  /** `checked`, or why validation stopped early: the budget ran out, the arguments nest too deeply. */
  outcome: "checked" | "tooCostly" | "tooDeep";
  /** Budget units spent. */
  spent: number;
}

export interface ValidateOptions {
  budget?: number;
}

class BudgetExceeded extends Error {}
/** The validator reached an object or array nested deeper than VALIDATION_LIMITS.argumentDepth. */
class ArgumentsTooDeep extends Error {}

/** Property names and item indexes that some keyword evaluated (for unevaluatedProperties / unevaluatedItems). */
interface Evaluated {
  properties: Set<string>;
  items: Set<number>;
  allItems: boolean;
}

function newEvaluated(): Evaluated {
  return { properties: new Set(), items: new Set(), allItems: false };
}

function mergeInto(target: Evaluated | null, source: Evaluated | null): void {
  if (target === null || source === null || target === source) return;
  for (const name of source.properties) target.properties.add(name);
  for (const index of source.items) target.items.add(index);
  if (source.allItems) target.allItems = true;
}

/** `a.b`, `a[0]`: the argument paths of the problem lines. */
function appendSegment(path: string, segment: string | number): string {
  if (typeof segment === "number") return `${path}[${segment}]`;
  return path === "" ? segment : `${path}.${segment}`;
}

/** The JSON types `value` has (a whole number is both number and integer); 0 for what JSON cannot hold. */
function typeBits(value: unknown): number {
  switch (typeof value) {
    case "string": return TYPE_BITS.string;
    case "number":
      if (!Number.isFinite(value)) return 0;
      return TYPE_BITS.number | (Number.isInteger(value) ? TYPE_BITS.integer : 0);
    case "boolean": return TYPE_BITS.boolean;
    case "object": return value === null ? TYPE_BITS.null : Array.isArray(value) ? TYPE_BITS.array : TYPE_BITS.object;
    default: return 0;
  }
}

/** Code points, a surrogate pair counting once (JSON Schema's string length). */
function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/** `value` as coefficient × 10^exponent, exactly as its shortest decimal form says. */
function decimal(value: number): [bigint, number] {
  const [coefficient = "0", exponent = "0"] = Math.abs(value).toString().split("e");
  const point = coefficient.indexOf(".");
  const fraction = point < 0 ? 0 : coefficient.length - point - 1;
  return [BigInt(coefficient.replace(".", "")), Number(exponent) - fraction];
}

/** multipleOf in decimal arithmetic: 0.3 is a multiple of 0.1, as a person reading the schema means it. */
function isMultipleOf(value: number, divisor: number): boolean {
  const [valueCoefficient, valueExponent] = decimal(value);
  const [divisorCoefficient, divisorExponent] = decimal(divisor);
  const difference = valueExponent - divisorExponent;
  if (difference >= 0) return (valueCoefficient * 10n ** BigInt(difference)) % divisorCoefficient === 0n;
  return valueCoefficient % (divisorCoefficient * 10n ** BigInt(-difference)) === 0n;
}

function describeValue(value: number): string {
  return String(value);
}

class Validator {
  readonly #annotations: boolean;
  readonly #budget: number;
  #spent = 0;
  readonly #path: (string | number)[] = [];
  /** #pathText's cache: the text of the path up to each level (may run past the path; trimmed on use). */
  readonly #pathTexts: string[] = [];
  #canonical: WeakMap<object, string> | undefined;
  readonly #chargedPatterns = new Set<Pattern>();

  constructor(annotations: boolean, budget: number) {
    this.#annotations = annotations;
    this.#budget = budget;
  }

  get spent(): number {
    return this.#spent;
  }

  #spend(units: number): void {
    this.#spent += units;
    if (this.#spent > this.#budget) throw new BudgetExceeded();
  }

  /** The path's text, built once per level and kept while the level is (problems at deep paths stay cheap). */
  #pathText(extra?: string | number): string {
    const texts = this.#pathTexts;
    for (let i = texts.length; i < this.#path.length; i++) texts.push(appendSegment(texts[i - 1] ?? "", this.#path[i] ?? ""));
    const text = texts[this.#path.length - 1] ?? "";
    return extra === undefined ? text : appendSegment(text, extra);
  }

  /** Records a problem (charged: wording and deduplicating it costs more than a visit). */
  #report(out: Problem[] | null, problem: Problem): void {
    if (out === null) return;
    this.#spend(COSTS.problem);
    out.push(problem);
  }

  #invalid(detail: string): Problem {
    return { kind: "invalid", path: this.#pathText(), level: this.#path.length, detail };
  }

  #canonicalOf(value: object): string {
    this.#canonical ??= new WeakMap();
    let text = this.#canonical.get(value);
    if (text === undefined) {
      // Within the argument depth cap: deeper containers end validation (TooDeep), as the validator's own steps do.
      text = canonicalJson(value, VALIDATION_LIMITS.argumentDepth - this.#path.length, (values, characters) => {
        this.#spend(values * COSTS.canonicalValue + characters * COSTS.canonicalCharacter);
      });
      this.#canonical.set(value, text);
    }
    return text;
  }

  #inSet(set: ValueSet, value: unknown): boolean {
    if (typeof value === "string") {
      this.#spend(value.length * COSTS.stringCharacter);
      return set.strings.has(value);
    }
    if (typeof value === "number") return set.numbers.has(value);
    if (typeof value === "boolean") return set.booleans.has(value);
    if (value === null) return set.hasNull;
    if (typeof value === "object") return set.structured.size > 0 && set.structured.has(this.#canonicalOf(value));
    return false;
  }

  #test(pattern: Pattern, text: string): boolean {
    if (!this.#chargedPatterns.has(pattern)) {
      // Charged on every call, compiled or cached: what a call costs must not depend on what ran before it.
      this.#chargedPatterns.add(pattern);
      this.#spend(COSTS.regexCompileBase + pattern.estimatedSize * COSTS.regexCompilePerInstruction);
    }
    this.#spend(COSTS.regexTest + pattern.steps(text.length) / COSTS.regexStepsPerUnit);
    return pattern.test(text);
  }

  /**
   * Whether `value` fits `node`. Problems go to `out`; with `out` null only the answer matters, and the first
   * failure ends the visit. `evaluated` collects annotations for an enclosing unevaluated* keyword, or is null.
   */
  check(node: SchemaNode, value: unknown, frames: number, out: Problem[] | null, evaluated: Evaluated | null): boolean {
    this.#spend(COSTS.visit);
    if (frames > VALIDATION_LIMITS.frames) throw new BudgetExceeded();
    if (node.allows !== undefined) {
      if (!node.allows) this.#report(out, this.#invalid("is not allowed"));
      return node.allows;
    }
    const bits = typeBits(value);
    if (bits === 0) {
      this.#report(out, this.#invalid("is not a JSON value"));
      return false;
    }
    const next = frames + 1;
    // Annotations for this node's own unevaluated* keywords are its own; they flow up to `evaluated` at the end.
    const ownsAnnotations = this.#annotations && (node.unevaluatedProperties !== undefined || node.unevaluatedItems !== undefined);
    const collected = ownsAnnotations ? newEvaluated() : this.#annotations ? evaluated : null;
    let ok = true;

    if (node.refs) {
      for (const target of node.refs) {
        if (!this.check(target, value, next, out, collected)) {
          ok = false;
          if (out === null) return false;
        }
      }
    }
    if (node.types !== undefined && (bits & node.types) === 0) {
      ok = false;
      if (out === null) return false;
      this.#report(out, { kind: "type", path: this.#pathText(), level: this.#path.length, expected: node.typeNames ?? [] });
    }
    for (const set of [node.constValue, node.enumValues]) {
      if (set === undefined || this.#inSet(set, value)) continue;
      ok = false;
      if (out === null) return false;
      this.#report(out, { kind: "allowed", path: this.#pathText(), level: this.#path.length, values: set.values });
    }
    if (node.not && this.check(node.not, value, next, null, null)) {
      ok = false;
      if (out === null) return false;
      this.#report(out, this.#invalid('must not fit the schema under "not"'));
    }
    if (node.anyOf && !this.#anyOf(node.anyOf, value, next, out, collected)) {
      ok = false;
      if (out === null) return false;
    }
    if (node.allOf) {
      for (const branch of node.allOf) {
        const branchEvaluated = collected ? newEvaluated() : null;
        if (this.check(branch, value, next, out, branchEvaluated)) mergeInto(collected, branchEvaluated);
        else {
          ok = false;
          if (out === null) return false;
        }
      }
    }
    if (node.oneOf && !this.#oneOf(node.oneOf, value, next, out, collected)) {
      ok = false;
      if (out === null) return false;
    }
    if (node.ifSchema) {
      const conditionEvaluated = collected ? newEvaluated() : null;
      const holds = this.check(node.ifSchema, value, next, null, conditionEvaluated);
      if (holds) mergeInto(collected, conditionEvaluated);
      const branch = holds ? node.thenSchema : node.elseSchema;
      if (branch && !this.check(branch, value, next, out, collected)) {
        ok = false;
        if (out === null) return false;
      }
    }
    if (isRecord(value)) ok = this.#object(node, value, next, out, collected) && ok;
    else if (Array.isArray(value)) ok = this.#array(node, value, next, out, collected) && ok;
    else if (typeof value === "number") ok = this.#number(node, value, out) && ok;
    else if (typeof value === "string") ok = this.#string(node, value, out) && ok;
    if (!ok && out === null) return false;

    if (ownsAnnotations && collected) {
      if (node.unevaluatedProperties && isRecord(value)) {
        ok = this.#unevaluatedProperties(node.unevaluatedProperties, value, next, out, collected) && ok;
      }
      if (node.unevaluatedItems && Array.isArray(value)) {
        ok = this.#unevaluatedItems(node.unevaluatedItems, value, next, out, collected) && ok;
      }
      mergeInto(evaluated, collected);
    }
    return ok;
  }

  /** One line for a failed choice: a type problem when every branch only disagrees on the type, else "no match". */
  #choiceProblem(branchProblems: readonly Problem[][]): Problem {
    const level = this.#path.length;
    const expected: string[] = [];
    const typeOnly = branchProblems.length > 0 && branchProblems.every((problems) =>
      problems.length > 0 && problems.every((problem) => problem.kind === "type" && problem.level === level));
    if (typeOnly) {
      for (const problems of branchProblems) {
        for (const problem of problems) if (problem.kind === "type") expected.push(...problem.expected);
      }
      return { kind: "type", path: this.#pathText(), level, expected: [...new Set(expected)] };
    }
    return { kind: "noMatch", path: this.#pathText(), level };
  }

  #anyOf(branches: readonly SchemaNode[], value: unknown, frames: number, out: Problem[] | null, collected: Evaluated | null): boolean {
    const failures: Problem[][] = [];
    let matched = false;
    for (const branch of branches) {
      const problems: Problem[] | null = out === null ? null : [];
      const branchEvaluated = collected ? newEvaluated() : null;
      if (this.check(branch, value, frames, problems, branchEvaluated)) {
        matched = true;
        mergeInto(collected, branchEvaluated);
        // Later branches only matter for their annotations.
        if (collected === null) return true;
      } else if (problems) failures.push(problems);
    }
    if (!matched) this.#report(out, this.#choiceProblem(failures));
    return matched;
  }

  #oneOf(branches: readonly SchemaNode[], value: unknown, frames: number, out: Problem[] | null, collected: Evaluated | null): boolean {
    const failures: Problem[][] = [];
    let matches = 0;
    let matchedEvaluated: Evaluated | null = null;
    for (const branch of branches) {
      const problems: Problem[] | null = out === null ? null : [];
      const branchEvaluated = collected ? newEvaluated() : null;
      if (this.check(branch, value, frames, problems, branchEvaluated)) {
        matches++;
        matchedEvaluated = branchEvaluated;
        // A second match decides it.
        if (matches > 1) break;
      } else if (problems) failures.push(problems);
    }
    if (matches === 1) {
      mergeInto(collected, matchedEvaluated);
      return true;
    }
    this.#report(out, matches === 0 ? this.#choiceProblem(failures) : { kind: "noMatch", path: this.#pathText(), level: this.#path.length });
    return false;
  }

  /** Pushes a path segment; cached texts past the current level belonged to another path. */
  #push(key: string | number): void {
    if (this.#pathTexts.length > this.#path.length) this.#pathTexts.length = this.#path.length;
    this.#path.push(key);
  }

  /** Steps into a property or item (the caller pops): an object or array past the depth cap ends validation. */
  #enter(key: string | number, value: unknown): void {
    this.#push(key);
    if (this.#path.length >= VALIDATION_LIMITS.argumentDepth && typeof value === "object" && value !== null) throw new ArgumentsTooDeep();
  }

  #child(node: SchemaNode, value: unknown, key: string | number, frames: number, out: Problem[] | null): boolean {
    this.#enter(key, value);
    const ok = this.check(node, value, frames, out, null);
    this.#path.pop();
    return ok;
  }

  #object(node: SchemaNode, value: Record<string, unknown>, frames: number, out: Problem[] | null, collected: Evaluated | null): boolean {
    let ok = true;
    if (node.required) {
      this.#spend(node.required.length * COSTS.requiredName);
      for (const name of node.required) {
        if (Object.hasOwn(value, name)) continue;
        ok = false;
        if (out === null) return false;
        this.#report(out, { kind: "missing", path: this.#pathText(name), level: this.#path.length });
      }
    }
    const usesKeys = node.minProperties !== undefined || node.maxProperties !== undefined || node.propertyNames !== undefined ||
      node.properties !== undefined || node.patternProperties !== undefined || node.additionalProperties !== undefined ||
      node.unevaluatedProperties !== undefined;
    const keys = usesKeys ? Object.keys(value) : [];
    // Listing keys is not free (a big object's keys are sorted by insertion): charged once listed.
    this.#spend(keys.length * COSTS.listedKey);
    if (node.minProperties !== undefined && keys.length < node.minProperties) {
      ok = false;
      if (out === null) return false;
      this.#report(out, this.#invalid(`has fewer than ${node.minProperties} properties`));
    }
    if (node.maxProperties !== undefined && keys.length > node.maxProperties) {
      ok = false;
      if (out === null) return false;
      this.#report(out, this.#invalid(`has more than ${node.maxProperties} properties`));
    }
    if (node.propertyNames) {
      for (const key of keys) {
        this.#push(key);
        const fits = this.check(node.propertyNames, key, frames, null, null);
        if (!fits) this.#report(out, this.#invalid("is not an allowed name"));
        this.#path.pop();
        if (!fits) {
          ok = false;
          if (out === null) return false;
        }
      }
    }
    if (node.dependentRequired) {
      for (const [name, needed] of node.dependentRequired) {
        if (!Object.hasOwn(value, name)) continue;
        this.#spend(needed.length * COSTS.requiredName);
        for (const other of needed) {
          if (Object.hasOwn(value, other)) continue;
          ok = false;
          if (out === null) return false;
          this.#report(out, this.#invalid(`"${other}" is required when "${name}" is given`));
        }
      }
    }
    if (node.dependentSchemas) {
      for (const [name, schema] of node.dependentSchemas) {
        if (Object.hasOwn(value, name) && !this.check(schema, value, frames, out, collected)) {
          ok = false;
          if (out === null) return false;
        }
      }
    }
    const { properties, patternProperties, additionalProperties } = node;
    if (properties || patternProperties || additionalProperties) {
      for (const key of keys) {
        this.#spend(COSTS.key);
        let matched = false;
        let fits = true;
        const declared = properties?.get(key);
        if (declared) {
          matched = true;
          fits = this.#child(declared, value[key], key, frames, out);
        }
        if (patternProperties && (fits || out !== null)) {
          for (const [pattern, schema] of patternProperties) {
            if (!this.#test(pattern, key)) continue;
            matched = true;
            if (!this.#child(schema, value[key], key, frames, out)) {
              fits = false;
              if (out === null) break;
            }
          }
        }
        if (!matched && additionalProperties) {
          if (additionalProperties.allows === false) {
            this.#spend(COSTS.visit);
            this.#report(out, { kind: "unknown", path: this.#pathText(key), level: this.#path.length + 1 });
            fits = false;
          } else fits = this.#child(additionalProperties, value[key], key, frames, out);
        }
        if (!fits) {
          ok = false;
          if (out === null) return false;
        } else if (matched || additionalProperties) collected?.properties.add(key);
      }
    }
    return ok;
  }

  #unevaluatedProperties(schema: SchemaNode, value: Record<string, unknown>, frames: number, out: Problem[] | null, collected: Evaluated): boolean {
    let ok = true;
    const keys = Object.keys(value);
    this.#spend(keys.length * COSTS.listedKey);
    for (const key of keys) {
      this.#spend(COSTS.key);
      if (collected.properties.has(key)) continue;
      let fits: boolean;
      if (schema.allows === false) {
        this.#report(out, { kind: "unknown", path: this.#pathText(key), level: this.#path.length + 1 });
        fits = false;
      } else fits = this.#child(schema, value[key], key, frames, out);
      if (fits) collected.properties.add(key);
      else {
        ok = false;
        if (out === null) return false;
      }
    }
    return ok;
  }

  #array(node: SchemaNode, value: readonly unknown[], frames: number, out: Problem[] | null, collected: Evaluated | null): boolean {
    let ok = true;
    const fail = (detail: string): void => {
      ok = false;
      this.#report(out, this.#invalid(detail));
    };
    if (node.maxItems !== undefined && value.length > node.maxItems) fail(`has more than ${node.maxItems} items`);
    if (node.minItems !== undefined && value.length < node.minItems) fail(`has fewer than ${node.minItems} items`);
    if (!ok && out === null) return false;
    const tuple = node.tupleItems ?? [];
    const tupleLength = Math.min(tuple.length, value.length);
    for (let i = 0; i < tupleLength; i++) {
      const schema = tuple[i];
      if (schema === undefined) continue;
      collected?.items.add(i);
      if (!this.#child(schema, value[i], i, frames, out)) {
        ok = false;
        if (out === null) return false;
      }
    }
    if (node.restItems) {
      if (value.length > tupleLength && collected) collected.allItems = true;
      for (let i = tupleLength; i < value.length; i++) {
        if (!this.#child(node.restItems, value[i], i, frames, out)) {
          ok = false;
          if (out === null) return false;
        }
      }
    }
    if (node.contains && !this.#contains(node, value, frames, out, collected)) {
      ok = false;
      if (out === null) return false;
    }
    if (node.uniqueItems === true) {
      const duplicate = this.#duplicate(value);
      if (duplicate) fail(`has the same item twice (at ${duplicate[0]} and ${duplicate[1]})`);
    }
    return ok;
  }

  #contains(node: SchemaNode, value: readonly unknown[], frames: number, out: Problem[] | null, collected: Evaluated | null): boolean {
    const schema = node.contains;
    if (schema === undefined) return true;
    const { minContains, maxContains } = node;
    const needed = minContains ?? 1;
    let found = 0;
    for (let i = 0; i < value.length; i++) {
      this.#enter(i, value[i]);
      const fits = this.check(schema, value[i], frames, null, null);
      this.#path.pop();
      if (fits) {
        found++;
        collected?.items.add(i);
        // Enough found, and no maximum to watch: the rest cannot change the answer (nor annotations, when off).
        if (found >= needed && maxContains === undefined && collected === null) break;
      }
    }
    if (found < needed) {
      this.#report(out, this.#invalid(`must hold at least ${needed} item(s) that fit the "contains" schema (found ${found})`));
      return false;
    }
    if (maxContains !== undefined && found > maxContains) {
      this.#report(out, this.#invalid(`may hold at most ${maxContains} item(s) that fit the "contains" schema (found ${found})`));
      return false;
    }
    return true;
  }

  #unevaluatedItems(schema: SchemaNode, value: readonly unknown[], frames: number, out: Problem[] | null, collected: Evaluated): boolean {
    if (collected.allItems) return true;
    let ok = true;
    for (let i = 0; i < value.length; i++) {
      if (collected.items.has(i)) continue;
      if (!this.#child(schema, value[i], i, frames, out)) {
        ok = false;
        if (out === null) return false;
      } else collected.items.add(i);
    }
    return ok;
  }

  /** The first pair of equal items, by canonical JSON in a Map: linear, where comparing every pair is quadratic. */
  #duplicate(value: readonly unknown[]): [number, number] | undefined {
    const seen = new Map<string, number>();
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      let key: string;
      if (typeof item === "string") {
        this.#spend(COSTS.canonicalValue + item.length * COSTS.stringCharacter);
        key = `s${item}`;
      } else if (typeof item === "object" && item !== null) key = `j${this.#canonicalOf(item)}`;
      else {
        this.#spend(COSTS.canonicalValue);
        // Numbers by value (-0 is 0), booleans, null.
        key = `p${JSON.stringify(item) ?? "?"}`;
      }
      const first = seen.get(key);
      if (first !== undefined) return [first, i];
      seen.set(key, i);
    }
    return undefined;
  }

  #number(node: SchemaNode, value: number, out: Problem[] | null): boolean {
    let ok = true;
    const fail = (detail: string): void => {
      ok = false;
      this.#report(out, this.#invalid(detail));
    };
    if (node.minimum !== undefined && value < node.minimum) fail(`${describeValue(value)} is less than ${node.minimum}`);
    if (node.maximum !== undefined && value > node.maximum) fail(`${describeValue(value)} is greater than ${node.maximum}`);
    if (node.exclusiveMinimum !== undefined && value <= node.exclusiveMinimum) {
      fail(`${describeValue(value)} is less than or equal to ${node.exclusiveMinimum}`);
    }
    if (node.exclusiveMaximum !== undefined && value >= node.exclusiveMaximum) {
      fail(`${describeValue(value)} is greater than or equal to ${node.exclusiveMaximum}`);
    }
    if (node.multipleOf !== undefined) {
      this.#spend(COSTS.multipleOf);
      if (!isMultipleOf(value, node.multipleOf)) fail(`${describeValue(value)} is not a multiple of ${node.multipleOf}`);
    }
    return ok;
  }

  #string(node: SchemaNode, value: string, out: Problem[] | null): boolean {
    let ok = true;
    const fail = (detail: string): void => {
      ok = false;
      this.#report(out, this.#invalid(detail));
    };
    const { minLength, maxLength } = node;
    if (minLength !== undefined || maxLength !== undefined) {
      // UTF-16 length bounds the code points from above, half of it from below: count only when that is not enough.
      let length: number | undefined;
      const count = (): number => {
        if (length === undefined) {
          this.#spend(value.length * COSTS.stringCharacter);
          length = codePoints(value);
        }
        return length;
      };
      if (minLength !== undefined && value.length < minLength * 2 && (value.length < minLength || count() < minLength)) {
        fail(`is shorter than ${minLength} characters`);
      }
      if (maxLength !== undefined && value.length > maxLength && (value.length > maxLength * 2 || count() > maxLength)) {
        fail(`is longer than ${maxLength} characters`);
      }
    }
    if (node.pattern && !this.#test(node.pattern, value)) fail(`does not match the pattern ${JSON.stringify(node.pattern.source.slice(0, 100))}`);
    if (node.format) {
      this.#spend(value.length * COSTS.formatCharacter);
      if (!node.format.check(value)) fail(`is not a valid ${node.format.name}`);
    }
    return ok;
  }
}

/**
 * Validates `value` against a compiled schema. Never throws for a value (a non-JSON value is a problem); throws
 * PatternError only when a pattern that passed its check is refused by RE2 at its first use.
 */
export function validate(schema: CompiledSchema, value: unknown, options: ValidateOptions = {}): ValidationResult {
  const validator = new Validator(schema.usesUnevaluated, options.budget ?? VALIDATION_LIMITS.budget);
  const problems: Problem[] = [];
  try {
    const valid = validator.check(schema.root, value, 0, problems, schema.usesUnevaluated ? newEvaluated() : null);
    return { valid, problems, outcome: "checked", spent: validator.spent };
  } catch (error) {
    if (error instanceof ArgumentsTooDeep || error instanceof TooDeep) {
      return { valid: false, problems, outcome: "tooDeep", spent: validator.spent };
    }
    // A stack overflow cannot happen within the limits above; should it anyway, it is the same answer.
    if (error instanceof BudgetExceeded || error instanceof RangeError) {
      return { valid: false, problems, outcome: "tooCostly", spent: validator.spent };
    }
    throw error;
  }
}
