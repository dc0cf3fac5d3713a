// "No request may stall the isolate": the schemas and arguments outside testers used to freeze the Worker
// (10-60 s each), and more of the same kind, through the core's validateArguments (and validateToolDefinition
// where the attack is in the definition). Each case is timed cold (a fresh schema object: compiled, then validated,
// as a new client catalog is) and warm (compiled schema cached, as a registered tool is), in wall and CPU time.
import { demoCatalog } from "../src/catalog/demo.ts";
import { pathDeeperThan } from "../src/core/jsonSchema/depth.ts";
import { compileSchema } from "../src/core/jsonSchema/compile.ts";
import { validate, VALIDATION_LIMITS } from "../src/core/jsonSchema/validate.ts";
import { validateArguments } from "../src/core/tools/arguments.ts";
import { validateToolDefinition } from "../src/core/tools/definition.ts";
import type { JsonSchema } from "../src/core/types.ts";
import { MAX_BODY_DEPTH } from "../src/http/body.ts";
import { exampleArguments } from "../test/fixtures/exampleArguments.ts";
import { timed } from "./stats.ts";

export interface AdversarialCase {
  name: string;
  what: string;
  /** The first line validateArguments answered (or the definition's outcome). */
  outcome: string;
  /** Compile + validate with a fresh schema object: median of three (and the slowest of them). */
  coldMs: number;
  coldMaxMs: number;
  /** Median of the warm runs (compiled schema cached). */
  warmMs: number;
  /** The same medians in this thread's CPU time. */
  coldCpuMs: number;
  warmCpuMs: number;
  /** Budget units the validation spent (null for definition-only cases). */
  spent: number | null;
}

export interface AdversarialSection {
  budget: number;
  argumentDepth: number;
  bodyDepth: number;
  cases: AdversarialCase[];
  /** The slowest case, cold or warm (medians), in wall time and in thread CPU time. */
  worstValidationMs: number;
  worstValidationCpuMs: number;
  worstCase: string;
  realistic: { tools: number; worstMs: number; worstSpent: number; meanSpent: number };
}

interface Attack {
  name: string;
  what: string;
  schema: JsonSchema;
  args: Record<string, unknown>;
}

function round(value: number, digits = 2): number {
  return Number(value.toFixed(digits));
}

function median(values: readonly number[]): number {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function object(properties: Record<string, unknown>, extra: Record<string, unknown> = {}): JsonSchema {
  return { type: "object", properties, ...extra };
}

function nestedArrays(levels: number): unknown {
  let value: unknown = "leaf";
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

/** 5,000 rows of 25 short keys (about 800 KB of JSON, like the testers' 964 KB). */
function rows(): Record<string, unknown>[] {
  return Array.from({ length: 5_000 }, (_, i) =>
    Object.fromEntries(Array.from({ length: 25 }, (_key, k) => [String.fromCharCode(97 + k), k === 0 ? i : `v${k}`])));
}

/** A form of the recursive node that walks the children and then needs `required`. */
function branch(required: string): Record<string, unknown> {
  return { properties: { kids: { type: "array", items: { $ref: "#/$defs/node" } } }, required: [required] };
}

function attacks(): Attack[] {
  const fanOutDefs: Record<string, unknown> = { l20: { type: "string" } };
  for (let level = 0; level < 20; level++) fanOutDefs[`l${level}`] = { allOf: [{ $ref: `#/$defs/l${level + 1}` }, { $ref: `#/$defs/l${level + 1}` }] };
  let anyOfNest: Record<string, unknown> = { type: "integer" };
  for (let level = 0; level < 30; level++) anyOfNest = { anyOf: [anyOfNest, { allOf: [anyOfNest] }] };
  const bigEnum = Array.from({ length: 6_000 }, (_, i) => `v${i}`);
  const objectEnum = Array.from({ length: 1_500 }, (_, i) => ({ id: i }));
  const manyProperties = Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`p${i}`, { type: "string" }]));
  const manyKeys = Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${i}`, i]));
  // Each level offers two forms that both walk the children before failing: 2^depth visits of a chain.
  const tree = { $defs: { node: { anyOf: [branch("x"), branch("y")] } }, ...object({ root: { $ref: "#/$defs/node" } }) };
  let deepTree: unknown = { kids: [] };
  for (let i = 0; i < 30; i++) deepTree = { kids: [deepTree] };
  const records = rows();
  const row = object({ a: { type: "string" }, b: { type: "integer" }, c: { type: "boolean" }, d: { type: "number" }, e: { enum: ["x", "y"] } }, { required: ["a", "b"] });
  const directions = demoCatalog().find((tool) => tool.name === "get_directions")?.parameters ?? object({});
  return [
    { name: "patternReDoS29", what: "pattern ^(a+)+$ against 29 a's and a ! (11 s in the old validator)", schema: object({ s: { type: "string", pattern: "^(a+)+$" } }), args: { s: `${"a".repeat(29)}!` } },
    { name: "patternReDoS100k", what: "the same pattern against 100,000 a's and a !", schema: object({ s: { type: "string", pattern: "^(a+)+$" } }), args: { s: `${"a".repeat(100_000)}!` } },
    { name: "refFanOut", what: "$defs where each of 20 levels is allOf [$ref next, $ref next] (5.7 s)", schema: object({ x: { $ref: "#/$defs/l0" } }, { $defs: fanOutDefs }), args: { x: "a" } },
    { name: "uniqueItems5000x25", what: "uniqueItems over 5,000 distinct objects of 25 keys (60 s)", schema: object({ rows: { type: "array", uniqueItems: true } }), args: { rows: records } },
    { name: "getDirectionsAvoid", what: "the demo's get_directions.avoid (enum items, uniqueItems) with those 5,000 objects (13.5 s)", schema: directions, args: { origin: "a", destination: "b", avoid: records } },
    { name: "uniqueItems64kInts", what: "uniqueItems over 64,000 integers", schema: object({ ids: { type: "array", items: { type: "integer" }, uniqueItems: true } }), args: { ids: Array.from({ length: 64_000 }, (_, i) => i) } },
    { name: "deepAnyOf", what: "anyOf nested 30 levels, two branches each, no branch fits", schema: object({ x: anyOfNest }), args: { x: "not an integer" } },
    { name: "hugeEnum", what: "enum of 6,000 strings, a 500 KB string that is not one", schema: object({ x: { enum: bigEnum } }), args: { x: "z".repeat(500_000) } },
    { name: "objectEnumBigValue", what: "enum of 1,500 objects against a 20,000-item array", schema: object({ x: { enum: objectEnum } }), args: { x: Array.from({ length: 20_000 }, (_, i) => ({ id: i, name: "row" })) } },
    { name: "patternPropertiesKeys", what: "patternProperties ^(a+)+$ over 2,000 keys of 30 a's and a suffix", schema: object({}, { patternProperties: { "^(a+)+$": { type: "string" } } }), args: Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`${"a".repeat(30)}!${i}`, 1])) },
    { name: "longStringPattern", what: "a 900 KB string against ^[a-z0-9]+$", schema: object({ s: { type: "string", pattern: "^[a-z0-9]+$" } }), args: { s: "x".repeat(900_000) } },
    { name: "bigProgramPattern", what: "(a|aa){1,140}$ (an RE2 program of ~980 steps, near the cap) against 400 a's and a b", schema: object({ s: { type: "string", pattern: "(a|aa){1,140}$" } }), args: { s: `${"a".repeat(400)}b` } },
    { name: "bigProgramLongText", what: "the same pattern against 5,000 a's and a b (refused before RE2 runs)", schema: object({ s: { type: "string", pattern: "(a|aa){1,140}$" } }), args: { s: `${"a".repeat(5_000)}b` } },
    { name: "manyPropertiesAdditionalFalse", what: "2,000 properties with additionalProperties false against 60,000 keys", schema: object(manyProperties, { additionalProperties: false }), args: manyKeys },
    { name: "recursiveRefDeepData", what: "a recursive $ref whose two anyOf forms both walk the children, over a chain 31 levels deep (2^31 visits)", schema: tree, args: { root: deepTree } },
    { name: "longStringMaxLength", what: "a 1,000,000-character string with maxLength 10 and a format", schema: object({ s: { type: "string", maxLength: 10, format: "email" } }), args: { s: "😀".repeat(500_000) } },
    { name: "wideArrayOfObjects", what: "20,000 objects of 5 typed properties each", schema: object({ xs: { type: "array", items: row } }), args: { xs: Array.from({ length: 20_000 }, (_, i) => ({ a: "s", b: i, c: true, d: 1.5, e: "x" })) } },
  ];
}

function firstLine(lines: readonly string[]): string {
  const line = lines[0] ?? "valid";
  return lines.length > 1 ? `${line.slice(0, 120)} (+${lines.length - 1} more)` : line.slice(0, 140);
}


const COLD_RUNS = 3;

function runAttack(attack: Attack, warmRuns: number): AdversarialCase {
  // Cold: private copies, so the per-schema cache misses: compile and validate, as the first call of a new catalog
  // (median of three, one noisy sample on a shared machine says little).
  const cold: [string[], number, number][] = [];
  let fresh = structuredClone(attack.schema);
  for (let i = 0; i < COLD_RUNS; i++) {
    fresh = structuredClone(attack.schema);
    const copy = fresh;
    cold.push(timed(() => validateArguments(copy, attack.args)));
  }
  const warm: [string[], number, number][] = [];
  for (let i = 0; i < warmRuns; i++) warm.push(timed(() => validateArguments(fresh, attack.args)));
  let spent: number | null = null;
  try {
    spent = round(validate(compileSchema(fresh, "", { schemaDepth: 32, valueDepth: 64, chainLength: 64 }), attack.args).spent, 0);
  } catch {
    spent = null;
  }
  return {
    name: attack.name,
    what: attack.what,
    outcome: firstLine(cold[0]?.[0] ?? []),
    coldMs: round(median(cold.map(([, wall]) => wall))),
    coldMaxMs: round(Math.max(...cold.map(([, wall]) => wall))),
    warmMs: round(median(warm.map(([, wall]) => wall))),
    coldCpuMs: round(median(cold.map(([, , cpu]) => cpu))),
    warmCpuMs: round(median(warm.map(([, , cpu]) => cpu))),
    spent,
  };
}

/** Definition-time cases: a definition's check and the body depth check, each timed. */
/** What a definition check answered: its own words, or the error's. */
function outcomeOf(run: () => string): string {
  try {
    return run();
  } catch (error) {
    return error instanceof Error ? error.message.slice(0, 140) : String(error);
  }
}

function definitionCases(): AdversarialCase[] {
  const deepDefault = { type: "object", properties: { x: { type: "array", default: nestedArrays(2_500) } } };
  const body = { description: "Deep default.", parameters: deepDefault };
  const manyPatterns = object(Object.fromEntries(Array.from({ length: 1_200 }, (_, i) => [`p${i}`, { type: "string", pattern: `^[a-z]{${(i % 900) + 1}}$` }])));
  const cases: [string, string, () => string][] = [
    ["deepDefaultBodyDepth", "the body depth check on a parameters.default nested 2,500 levels (HTTP 500 before)", () =>
      pathDeeperThan(body, MAX_BODY_DEPTH) === undefined ? "within the cap" : `refused: deeper than ${MAX_BODY_DEPTH} levels`],
    ["deepDefaultDefinition", "validateToolDefinition of the same definition (the core alone)", () => {
      validateToolDefinition({ name: "deep_default", ...body });
      return "accepted by the core (defaults are annotations); the HTTP body cap refuses it first";
    }],
    ["definitionManyPatterns", "validateToolDefinition of 1,200 string properties with distinct patterns (~60 KB)", () => {
      validateToolDefinition({ name: "many_patterns", description: "Many patterns.", parameters: manyPatterns });
      return "accepted (patterns checked, compiled at first use)";
    }],
  ];
  return cases.map(([name, what, run]) => {
    const runs = Array.from({ length: COLD_RUNS }, () => timed(() => outcomeOf(run)));
    const wall = median(runs.map(([, ms]) => ms));
    const cpu = median(runs.map(([, , ms]) => ms));
    return {
      name, what, outcome: runs[0]?.[0] ?? "", coldMs: round(wall), coldMaxMs: round(Math.max(...runs.map(([, ms]) => ms))),
      warmMs: round(wall), coldCpuMs: round(cpu), warmCpuMs: round(cpu), spent: null,
    };
  });
}

/** The 527 real tools and the demo catalog with realistic arguments: the budget's headroom. */
function realistic(tools: readonly { inputSchema: unknown }[]): AdversarialSection["realistic"] {
  const schemas = [...tools.map((tool) => tool.inputSchema), ...demoCatalog().map((tool) => tool.parameters)];
  let worstMs = 0;
  let worstSpent = 0;
  let total = 0;
  for (const schema of schemas) {
    if (typeof schema !== "object" || schema === null || Array.isArray(schema)) continue;
    const args = exampleArguments(schema);
    const fresh: JsonSchema = { ...schema };
    worstMs = Math.max(worstMs, timed(() => validateArguments(fresh, args))[1]);
    const spent = validate(compileSchema(fresh, "", { schemaDepth: 32, valueDepth: 64, chainLength: 64 }), args).spent;
    worstSpent = Math.max(worstSpent, spent);
    total += spent;
  }
  return { tools: schemas.length, worstMs: round(worstMs, 3), worstSpent: round(worstSpent, 0), meanSpent: round(total / schemas.length, 1) };
}

export function adversarialSection(tools: readonly { inputSchema: unknown }[], quick: boolean, log: (message: string) => void): AdversarialSection {
  const warmRuns = quick ? 3 : 7;
  // Warm the JIT on realistic work first, so that cold figures are a schema's first call in a warm isolate, not the
  // engine's first call ever (RE2 included: a few small patterns of other shapes).
  for (let i = 0; i < 3; i++) realistic(tools);
  for (let i = 0; i < 50; i++) {
    const warmUp = { type: "object", properties: { s: { type: "string", pattern: `^[a-z]{${(i % 20) + 1}}(x|yy)+$` } } };
    validateArguments(warmUp, { s: `abc${"xyy".repeat(i)}` });
  }
  const cases: AdversarialCase[] = [];
  for (const attack of attacks()) {
    log(`adversarial: ${attack.name}`);
    cases.push(runAttack(attack, warmRuns));
  }
  cases.push(...definitionCases());
  let worst = cases[0];
  for (const entry of cases) if (worst === undefined || Math.max(entry.coldMs, entry.warmMs) > Math.max(worst.coldMs, worst.warmMs)) worst = entry;
  return {
    budget: VALIDATION_LIMITS.budget,
    argumentDepth: VALIDATION_LIMITS.argumentDepth,
    bodyDepth: MAX_BODY_DEPTH,
    cases,
    worstValidationMs: worst ? Math.max(worst.coldMs, worst.warmMs) : 0,
    worstValidationCpuMs: Math.max(0, ...cases.map((entry) => Math.max(entry.coldCpuMs, entry.warmCpuMs))),
    worstCase: worst?.name ?? "",
    realistic: realistic(tools),
  };
}
