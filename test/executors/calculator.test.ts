import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluateExpression, ExpressionError, MAX_EXPRESSION_LENGTH } from "../../src/executors/calculator.ts";
import { jsonObject, run } from "./helpers.ts";

describe("calculator", () => {
  it.each([
    ["1 + 2 * 3", 7],
    ["(1 + 2) * 3", 9],
    ["10 / 4", 2.5],
    ["10 % 4", 2],
    ["2 ^ 10", 1024],
    ["2 ** 3 ** 2", 512],
    ["-2 ^ 2", -4],
    ["2 ^ -1", 0.5],
    ["--3", 3],
    ["-(2 + 3) * +4", -20],
    [".5 + 1.25", 1.75],
    ["1e3 + 2E-1", 1000.2],
    ["0.1 + 0.2", 0.3],
    ["sqrt(16) + abs(-3) + round(2.5)", 10],
    ["min(4, 2, 8) + max(1, 9)", 11],
    ["floor(-1.5) + ceil(1.2) + trunc(-1.7)", -1],
    ["pow(2, 8)", 256],
    ["PI", Math.PI],
    ["2 * pi - tau", 0],
    ["ln(e)", 1],
    ["log10(1000) + log2(8)", 6],
    ["cos(0) + sin(0)", 1],
    ["  7\t*\n6  ", 42],
  ])("%s = %s", (expression, expected) => {
    expect(evaluateExpression(expression)).toBeCloseTo(expected, 12);
  });

  it.each([
    ["", /empty/],
    ["1 +", /ends too early/],
    ["(1 + 2", /expected "\)"/],
    ["1 + 2)", /unexpected "\)"/],
    ["2 3", /unexpected "3"/],
    ["1 / 0", /division by zero/],
    ["5 % (2 - 2)", /division by zero/],
    ["sqrt(-1)", /not a number/],
    ["10 ^ 400", /too large/],
    ["1e999", /too large/],
    ["foo(2)", /unknown name "foo"/],
    ["constructor", /unknown name/],
    ["constructor(1)", /unknown name/],
    ["__proto__", /unknown name/],
    ["toString", /unknown name/],
    ["process.exit()", /unknown name "process"|unexpected character/],
    ["alert`1`", /unknown name|unexpected character/],
    ["sqrt(1, 2)", /sqrt\(\) takes 1 argument, got 2/],
    ["max()", /at least 1 argument/],
    ["pi()", /unknown name|unexpected "\("/],
    ["2 $ 3", /unexpected character "\$"/],
    [`${"(".repeat(100)}1${")".repeat(100)}`, /nests deeper/],
    ["-".repeat(200) + "1", /nests deeper/],
    ["1+".repeat(MAX_EXPRESSION_LENGTH) + "1", /longer than/],
  ])("%s is refused (%s)", (expression, message) => {
    expect(() => evaluateExpression(expression)).toThrow(message);
  });

  it("agrees with JavaScript arithmetic on integers", () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e6, max: 1e6 }), fc.constantFrom("+", "-", "*"), fc.integer({ min: -1e6, max: 1e6 }), (a, op, b) => {
        const expected = op === "+" ? a + b : op === "-" ? a - b : a * b;
        expect(evaluateExpression(`${a} ${op} (${b})`)).toBe(expected === 0 ? 0 : expected);
      }),
    );
  });

  it("on any input either returns a finite number or throws an ExpressionError", () => {
    const alphabet = fc.constantFrom(..."0123456789.+-*/%^() ,eEpiqrtsabxmn".split(""), "sqrt", "max", "**");
    const seen = { numbers: 0, errors: 0 };
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.array(alphabet, { maxLength: 40 }).map((parts) => parts.join(""))), (input) => {
        try {
          seen.numbers++;
          return Number.isFinite(evaluateExpression(input));
        } catch (error) {
          seen.numbers--;
          seen.errors++;
          return error instanceof ExpressionError;
        }
      }),
      { numRuns: 500 },
    );
    // Both outcomes were exercised.
    expect(seen.numbers).toBeGreaterThan(0);
    expect(seen.errors).toBeGreaterThan(0);
  });

  it("runs as the calculator builtin and reports errors as thrown messages", async () => {
    const tool = { type: "builtin" as const, name: "calculator" };
    expect(jsonObject(await run(tool, { expression: "6 * 7" }))).toEqual({ expression: "6 * 7", result: 42 });
    await expect(run(tool, { expression: "6 *" })).rejects.toThrow(/ends too early/);
    await expect(run(tool, { expression: 42 })).rejects.toThrow(/"expression" must be a string/);
  });
});
