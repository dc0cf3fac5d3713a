// A safe arithmetic evaluator for the `calculator` builtin: a tokenizer and a recursive-descent parser over numbers,
// + - * / % ^ (also **), parentheses, unary minus and plus, a few functions and constants. No eval, no Function:
// nothing in the input can reach anything but these rules.
//
// Precedence, lowest first: + -  →  * / %  →  unary + -  →  ^ (right-associative, so 2^3^2 = 2^9 and -2^2 = -4).

export const MAX_EXPRESSION_LENGTH = 500;
/** Deepest nesting of parentheses, unary signs and powers; bounds the recursion. */
const MAX_DEPTH = 64;

const CONSTANTS: Readonly<Record<string, number>> = { pi: Math.PI, e: Math.E, tau: 2 * Math.PI };

type MathFunction = { arity: number | "many"; apply(args: number[]): number };

function unary(fn: (x: number) => number): MathFunction {
  return { arity: 1, apply: (args) => fn(args[0] ?? Number.NaN) };
}

const FUNCTIONS: Readonly<Record<string, MathFunction>> = {
  sqrt: unary(Math.sqrt),
  cbrt: unary(Math.cbrt),
  abs: unary(Math.abs),
  round: unary(Math.round),
  floor: unary(Math.floor),
  ceil: unary(Math.ceil),
  trunc: unary(Math.trunc),
  sign: unary(Math.sign),
  exp: unary(Math.exp),
  ln: unary(Math.log),
  log10: unary(Math.log10),
  log2: unary(Math.log2),
  sin: unary(Math.sin),
  cos: unary(Math.cos),
  tan: unary(Math.tan),
  asin: unary(Math.asin),
  acos: unary(Math.acos),
  atan: unary(Math.atan),
  min: { arity: "many", apply: (args) => Math.min(...args) },
  max: { arity: "many", apply: (args) => Math.max(...args) },
  pow: { arity: 2, apply: ([a = Number.NaN, b = Number.NaN]) => a ** b },
};

export class ExpressionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ExpressionError";
  }
}

type Token =
  | { kind: "number"; value: number; at: number }
  | { kind: "name"; value: string; at: number }
  | { kind: "op"; value: string; at: number };

const NUMBER = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const OPERATORS = ["**", "+", "-", "*", "/", "%", "^", "(", ")", ","];

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < source.length) {
    const rest = source.slice(at);
    const space = /^\s+/.exec(rest);
    if (space) {
      at += space[0].length;
      continue;
    }
    const number = NUMBER.exec(rest);
    if (number) {
      tokens.push({ kind: "number", value: Number(number[0]), at });
      at += number[0].length;
      continue;
    }
    const name = NAME.exec(rest);
    if (name) {
      tokens.push({ kind: "name", value: name[0].toLowerCase(), at });
      at += name[0].length;
      continue;
    }
    const operator = OPERATORS.find((op) => rest.startsWith(op));
    if (!operator) throw new ExpressionError(`unexpected character "${rest.charAt(0)}" at position ${at + 1}`);
    tokens.push({ kind: "op", value: operator === "**" ? "^" : operator, at });
    at += operator.length;
  }
  return tokens;
}

class Parser {
  readonly #tokens: Token[];
  #index = 0;
  #depth = 0;

  constructor(tokens: Token[]) {
    this.#tokens = tokens;
  }

  parse(): number {
    if (this.#tokens.length === 0) throw new ExpressionError("the expression is empty");
    const value = this.#additive();
    const extra = this.#tokens[this.#index];
    if (extra) throw new ExpressionError(`unexpected "${String(extra.value)}" at position ${extra.at + 1}`);
    return value;
  }

  #peekOp(...ops: string[]): string | undefined {
    const token = this.#tokens[this.#index];
    return token?.kind === "op" && ops.includes(token.value) ? token.value : undefined;
  }

  #expect(op: string): void {
    const token = this.#tokens[this.#index];
    if (token?.kind !== "op" || token.value !== op) {
      throw new ExpressionError(token ? `expected "${op}" at position ${token.at + 1}` : `expected "${op}" at the end`);
    }
    this.#index++;
  }

  #enter(): void {
    if (++this.#depth > MAX_DEPTH) throw new ExpressionError(`the expression nests deeper than ${MAX_DEPTH} levels`);
  }

  #additive(): number {
    let value = this.#multiplicative();
    for (let op = this.#peekOp("+", "-"); op; op = this.#peekOp("+", "-")) {
      this.#index++;
      const right = this.#multiplicative();
      value = op === "+" ? value + right : value - right;
    }
    return value;
  }

  #multiplicative(): number {
    let value = this.#unary();
    for (let op = this.#peekOp("*", "/", "%"); op; op = this.#peekOp("*", "/", "%")) {
      this.#index++;
      const right = this.#unary();
      if ((op === "/" || op === "%") && right === 0) throw new ExpressionError("division by zero");
      value = op === "*" ? value * right : op === "/" ? value / right : value % right;
    }
    return value;
  }

  #unary(): number {
    const op = this.#peekOp("+", "-");
    if (!op) return this.#power();
    this.#index++;
    this.#enter();
    const value = this.#unary();
    this.#depth--;
    return op === "-" ? -value : value;
  }

  #power(): number {
    const base = this.#primary();
    if (!this.#peekOp("^")) return base;
    this.#index++;
    this.#enter();
    const exponent = this.#unary(); // right-associative; allows 2^-1
    this.#depth--;
    return base ** exponent;
  }

  #primary(): number {
    const token = this.#tokens[this.#index];
    if (!token) throw new ExpressionError("the expression ends too early");
    this.#index++;
    if (token.kind === "number") return token.value;
    if (token.kind === "op") {
      if (token.value !== "(") throw new ExpressionError(`unexpected "${token.value}" at position ${token.at + 1}`);
      this.#enter();
      const value = this.#additive();
      this.#expect(")");
      this.#depth--;
      return value;
    }
    // Own keys only: "constructor" or "__proto__" must not reach Object.prototype.
    const fn = Object.hasOwn(FUNCTIONS, token.value) ? FUNCTIONS[token.value] : undefined;
    if (fn) return this.#call(token.value, fn);
    const constant = Object.hasOwn(CONSTANTS, token.value) ? CONSTANTS[token.value] : undefined;
    if (constant !== undefined) return constant;
    throw new ExpressionError(
      `unknown name "${token.value}" (functions: ${Object.keys(FUNCTIONS).join(", ")}; constants: ${Object.keys(CONSTANTS).join(", ")})`,
    );
  }

  #call(name: string, fn: MathFunction): number {
    this.#expect("(");
    this.#enter();
    const args: number[] = [];
    if (!this.#peekOp(")")) {
      args.push(this.#additive());
      while (this.#peekOp(",")) {
        this.#index++;
        args.push(this.#additive());
      }
    }
    this.#expect(")");
    this.#depth--;
    const ok = fn.arity === "many" ? args.length >= 1 : args.length === fn.arity;
    if (!ok) {
      const wanted = fn.arity === "many" ? "at least 1 argument" : `${fn.arity} argument${fn.arity === 1 ? "" : "s"}`;
      throw new ExpressionError(`${name}() takes ${wanted}, got ${args.length}`);
    }
    return fn.apply(args);
  }
}

/**
 * Evaluates an arithmetic expression. The result is rounded to 15 significant digits, so that binary floating-point
 * noise (0.1 + 0.2) does not reach the model. Throws ExpressionError for bad input and non-finite results.
 */
export function evaluateExpression(expression: string): number {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    throw new ExpressionError(`the expression is longer than ${MAX_EXPRESSION_LENGTH} characters`);
  }
  const value = new Parser(tokenize(expression)).parse();
  if (Number.isNaN(value)) throw new ExpressionError("the result is not a number");
  if (!Number.isFinite(value)) throw new ExpressionError("the result is too large");
  const rounded = Number(value.toPrecision(15));
  return Object.is(rounded, -0) ? 0 : rounded;
}
