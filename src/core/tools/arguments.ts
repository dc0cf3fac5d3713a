// A call's arguments against its tool's parameters: short problem lines for the model (en, zh), with bounded work
// whatever the schema and the arguments (./jsonSchema/validate.ts, VALIDATION_LIMITS).
import { compiledParameters } from "./definition.ts";
import { validate, VALIDATION_LIMITS } from "../jsonSchema/validate.ts";
import type { Problem, ValidationResult } from "../jsonSchema/validate.ts";
import { texts } from "../locale.ts";
import type { ArgumentTexts } from "../locale.ts";
import { isRecord } from "../records.ts";
import type { JsonSchema, Locale } from "../types.ts";

const MAX_PROBLEMS = 10;
const MAX_LISTED_VALUES = 10;

function listedValues(values: readonly unknown[]): string[] {
  const shown = values.slice(0, MAX_LISTED_VALUES).map((v) => JSON.stringify(v) ?? String(v));
  return values.length > MAX_LISTED_VALUES ? [...shown, "…"] : shown;
}

function line(problem: Problem, t: ArgumentTexts): string {
  switch (problem.kind) {
    case "missing": return t.missing(problem.path);
    case "unknown": return t.unknown(problem.path);
    case "type": return t.type(problem.path, problem.expected);
    case "allowed": return t.allowed(problem.path, listedValues(problem.values));
    case "noMatch": return t.noMatch(problem.path);
    default: return t.invalid(problem.path, problem.detail);
  }
}

/**
 * Problems of `args` against the tool's parameter schema, as short human-readable lines; [] when valid. Bounded
 * work, whatever the schema and the arguments (VALIDATION_LIMITS): past the budget, the problems found so far and a
 * "too costly" line. Compiled schemas are cached per schema object (a WeakMap), so pass the stored `parameters`.
 */
export function validateArguments(schema: JsonSchema, args: unknown, locale: Locale = "en"): string[] {
  const t = texts(locale).argument;
  if (!isRecord(args)) return [t.notObject];
  const compiledSchema = compiledParameters(schema);
  if (compiledSchema === null) return [t.schemaFailed];
  let result: ValidationResult;
  try {
    result = validate(compiledSchema, args);
  } catch {
    // A pattern RE2 refused at its first use after all: a problem to report, never a crash.
    return [t.schemaFailed];
  }
  if (result.outcome === "tooDeep") return [t.tooDeep(VALIDATION_LIMITS.argumentDepth)];
  const lines = [...new Set(result.problems.map((problem) => line(problem, t)))];
  if (result.outcome === "tooCostly") return [...lines.slice(0, MAX_PROBLEMS), t.tooCostly];
  if (lines.length <= MAX_PROBLEMS) return lines;
  return [...lines.slice(0, MAX_PROBLEMS), t.more(lines.length - MAX_PROBLEMS)];
}
