// `pattern` and `patternProperties` run on RE2 (re2js): matching takes time linear in the input, whatever the
// pattern, where JavaScript's backtracking RegExp takes exponential time on `^(a+)+$`. JSON Schema patterns are
// ECMAScript (u flag) syntax: a pattern must be valid there, and is then translated into RE2 syntax with the same
// meaning (`\s`, `\S` and `.` spelled out as ECMAScript defines them, `\u` escapes, property names). What RE2 cannot
// do (backreferences, lookaround) is refused when the schema is defined.
import { RE2JS } from "re2js";

/** Why a pattern is refused (a sentence fragment, e.g. "uses a backreference, …"). */
export class PatternError extends Error {}

/**
 * The most RE2 instructions one pattern may compile to: compiling takes up to ~5 µs an instruction, matching grows
 * with it. (A schema's patterns together have their own cap, in compile.ts.)
 */
export const MAX_PATTERN_SIZE = 1_000;
/** RE2's own limit on a repetition count, nested counts multiplied. */
const MAX_REPEAT = 1_000;

/** ECMAScript's `\s` (WhiteSpace and LineTerminator), as RE2 class items. */
const WHITESPACE = "\\t\\n\\x{B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}";
/** Its complement (`\S`), as class items, so that it also works inside a class. */
const NOT_WHITESPACE =
  "\\x{0}-\\x{8}\\x{E}-\\x{1F}\\x{21}-\\x{9F}\\x{A1}-\\x{167F}\\x{1681}-\\x{1FFF}\\x{200B}-\\x{2027}\\x{202A}-\\x{202E}" +
  "\\x{2030}-\\x{205E}\\x{2060}-\\x{2FFF}\\x{3001}-\\x{FEFE}\\x{FF00}-\\x{10FFFF}";
/** ECMAScript's `.` without the s flag: anything but a line terminator. */
const DOT = "[^\\n\\r\\x{2028}\\x{2029}]";

/** ECMAScript General_Category long names RE2 only knows by their short names. */
const CATEGORY_NAMES: Readonly<Record<string, string>> = {
  Letter: "L", Cased_Letter: "LC", Uppercase_Letter: "Lu", Lowercase_Letter: "Ll", Titlecase_Letter: "Lt",
  Modifier_Letter: "Lm", Other_Letter: "Lo", Mark: "M", Combining_Mark: "M", Nonspacing_Mark: "Mn",
  Spacing_Mark: "Mc", Enclosing_Mark: "Me", Number: "N", Decimal_Number: "Nd", digit: "Nd", Letter_Number: "Nl",
  Other_Number: "No", Punctuation: "P", punct: "P", Connector_Punctuation: "Pc", Dash_Punctuation: "Pd",
  Open_Punctuation: "Ps", Close_Punctuation: "Pe", Initial_Punctuation: "Pi", Final_Punctuation: "Pf",
  Other_Punctuation: "Po", Symbol: "S", Math_Symbol: "Sm", Currency_Symbol: "Sc", Modifier_Symbol: "Sk",
  Other_Symbol: "So", Separator: "Z", Space_Separator: "Zs", Line_Separator: "Zl", Paragraph_Separator: "Zp",
  Other: "C", Control: "Cc", cntrl: "Cc", Format: "Cf", Surrogate: "Cs", Private_Use: "Co", Unassigned: "Cn",
};

/** Property names RE2 knows, found by compiling `\p{name}` once: ECMAScript accepts a finite set of names. */
const knownProperties = new Map<string, boolean>();

function re2KnowsProperty(name: string): boolean {
  let known = knownProperties.get(name);
  if (known === undefined) {
    try {
      RE2JS.compile(`\\p{${name}}`);
      known = true;
    } catch {
      known = false;
    }
    knownProperties.set(name, known);
  }
  return known;
}

/** `\p{…}`'s content in ECMAScript → the RE2 name (`Script=Greek` → `Greek`, `Letter` → `L`). */
function propertyName(content: string): string {
  const equals = content.indexOf("=");
  if (equals >= 0) {
    const key = content.slice(0, equals);
    const value = content.slice(equals + 1);
    // Script_Extensions is wider than Script; RE2 has no such tables, so it is not translated (and refused).
    if (key === "Script" || key === "sc") return value;
    if (key === "General_Category" || key === "gc") return CATEGORY_NAMES[value] ?? value;
    return content;
  }
  return CATEGORY_NAMES[content] ?? content;
}

function hex(code: number): string {
  return `\\x{${code.toString(16).toUpperCase()}}`;
}

function isHexDigit(char: string | undefined): boolean {
  return char !== undefined && /^[0-9A-Fa-f]$/.test(char);
}

/** One group level of the size estimate: finished alternatives, the current one, and the last atom's size. */
interface Frame {
  alternatives: number;
  branches: number;
  sequence: number;
  last: number;
  /** The largest product of counted repetitions inside the last atom. */
  lastRepeat: number;
  repeat: number;
}

function newFrame(): Frame {
  return { alternatives: 0, branches: 1, sequence: 0, last: 0, lastRepeat: 1, repeat: 1 };
}

function addAtom(frame: Frame, size: number, repeat = 1): void {
  frame.sequence += size;
  frame.last = size;
  frame.lastRepeat = repeat;
  frame.repeat = Math.max(frame.repeat, repeat);
}

function closeFrame(frame: Frame): number {
  return frame.alternatives + frame.sequence + (frame.branches - 1);
}

/** What `checkPattern` found: the RE2 source and an estimate of its compiled size (instructions). */
export interface PatternInfo {
  readonly source: string;
  readonly re2Source: string;
  readonly size: number;
}

/**
 * Checks an ECMAScript pattern and translates it to RE2 syntax, in one linear pass. Throws PatternError.
 * Nothing here runs the pattern: `new RegExp` only parses it.
 */
export function checkPattern(source: string): PatternInfo {
  try {
    // Parses (never runs) the pattern: the syntax check of ECMAScript itself.
    RegExp(source, "u");
  } catch {
    throw new PatternError("is not a valid regular expression (ECMAScript syntax, u flag)");
  }
  let out = "";
  let inClass = false;
  const frames: Frame[] = [newFrame()];
  let frame = frames[0] ?? newFrame();
  let i = 0;
  const n = source.length;
  while (i < n) {
    const char = source[i] ?? "";
    if (char === "\\") {
      const next = source[i + 1] ?? "";
      i += 2;
      let atom: string;
      if (next === "d" || next === "D" || next === "w" || next === "W") atom = `\\${next}`;
      else if (next === "s") atom = inClass ? WHITESPACE : `[${WHITESPACE}]`;
      else if (next === "S") atom = inClass ? NOT_WHITESPACE : `[${NOT_WHITESPACE}]`;
      else if (next === "b") atom = inClass ? hex(8) : "\\b";
      else if (next === "B") atom = "\\B";
      else if (next === "f" || next === "n" || next === "r" || next === "t" || next === "v") atom = `\\${next}`;
      else if (next === "0") atom = hex(0);
      else if (next === "x") {
        atom = hex(Number.parseInt(source.slice(i, i + 2), 16));
        i += 2;
      } else if (next === "c") {
        atom = hex((source.codePointAt(i) ?? 0) % 32);
        i += 1;
      } else if (next === "u") {
        let code: number;
        if (source[i] === "{") {
          const end = source.indexOf("}", i);
          code = Number.parseInt(source.slice(i + 1, end), 16);
          i = end + 1;
        } else {
          code = Number.parseInt(source.slice(i, i + 4), 16);
          i += 4;
          // A surrogate pair written as two escapes is one code point.
          if (code >= 0xd800 && code <= 0xdbff && source[i] === "\\" && source[i + 1] === "u" && isHexDigit(source[i + 2])) {
            const low = Number.parseInt(source.slice(i + 2, i + 6), 16);
            if (low >= 0xdc00 && low <= 0xdfff) {
              code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
              i += 6;
            }
          }
        }
        if (code >= 0xd800 && code <= 0xdfff) throw new PatternError("escapes a lone surrogate, which the RE2 engine does not match");
        atom = hex(code);
      } else if (next === "p" || next === "P") {
        const end = source.indexOf("}", i);
        const written = source.slice(i + 1, end);
        const name = propertyName(written);
        i = end + 1;
        if (name === "ASCII") {
          // RE2 has no ASCII table; it is one range.
          const range = next === "p" ? "\\x{0}-\\x{7F}" : "\\x{80}-\\x{10FFFF}";
          atom = inClass ? range : `[${range}]`;
        } else if (!/^[A-Za-z_]+$/.test(name) || !re2KnowsProperty(name)) {
          throw new PatternError(`uses the Unicode property \\${next}{${written}}, which the RE2 engine does not know`);
        } else atom = `\\${next}{${name}}`;
      } else if (next >= "1" && next <= "9") {
        throw new PatternError("uses a backreference, which the linear-time RE2 engine does not support");
      } else if (next === "k") {
        throw new PatternError("uses a named backreference, which the linear-time RE2 engine does not support");
      } else {
        // An identity escape of a syntax character, "/" or "-": RE2 reads it the same way.
        atom = `\\${next}`;
      }
      out += atom;
      if (!inClass) addAtom(frame, 1);
      continue;
    }
    if (inClass) {
      if (char === "]") inClass = false;
      out += char === "[" ? "\\[" : char;
      i += 1;
      continue;
    }
    if (char === "[") {
      // ECMAScript's empty classes: [] matches nothing, [^] anything.
      if (source.startsWith("[]", i)) {
        out += "[^\\x{0}-\\x{10FFFF}]";
        i += 2;
      } else if (source.startsWith("[^]", i)) {
        out += "[\\x{0}-\\x{10FFFF}]";
        i += 3;
      } else {
        inClass = true;
        const negated = source[i + 1] === "^";
        out += negated ? "[^" : "[";
        i += negated ? 2 : 1;
      }
      addAtom(frame, 1);
      continue;
    }
    if (char === "(") {
      if (source.startsWith("(?=", i) || source.startsWith("(?!", i) || source.startsWith("(?<=", i) || source.startsWith("(?<!", i)) {
        throw new PatternError("uses a lookahead or lookbehind, which the linear-time RE2 engine does not support");
      }
      if (source.startsWith("(?<", i)) {
        // A named group: RE2 names are narrower, and nothing reads the captures, so it becomes a plain group.
        i = source.indexOf(">", i) + 1;
      } else if (source.startsWith("(?:", i)) i += 3;
      else i += 1;
      out += "(?:";
      frame = newFrame();
      frames.push(frame);
      continue;
    }
    if (char === ")") {
      const closed = frames.pop() ?? newFrame();
      frame = frames[frames.length - 1] ?? newFrame();
      addAtom(frame, closeFrame(closed) + 2, closed.repeat);
      out += ")";
      i += 1;
      continue;
    }
    if (char === "|") {
      frame.alternatives += frame.sequence;
      frame.branches += 1;
      frame.sequence = 0;
      frame.last = 0;
      out += "|";
      i += 1;
      continue;
    }
    if (char === "*" || char === "+" || char === "?") {
      frame.sequence += 1;
      out += char;
      i += 1;
      if (source[i] === "?") {
        out += "?";
        i += 1;
      }
      continue;
    }
    if (char === "{") {
      const end = source.indexOf("}", i);
      const body = source.slice(i + 1, end);
      const [minText = "", maxText] = body.split(",");
      const min = Number(minText);
      const max = maxText === undefined ? min : maxText === "" ? min : Number(maxText);
      const repeat = frame.lastRepeat * Math.max(min, max, 1);
      if (min > MAX_REPEAT || max > MAX_REPEAT || repeat > MAX_REPEAT) {
        throw new PatternError(`repeats more than ${MAX_REPEAT} times (nested counts multiplied), the RE2 engine's limit`);
      }
      // x{n,m} compiles to max(n, m) copies of x (plus one instruction per optional copy).
      frame.sequence += frame.last * (Math.max(min, max, 1) - 1) + Math.max(0, max - min) + 1;
      frame.repeat = Math.max(frame.repeat, repeat);
      out += source.slice(i, end + 1);
      i = end + 1;
      if (source[i] === "?") {
        out += "?";
        i += 1;
      }
      continue;
    }
    if (char === ".") {
      out += DOT;
      addAtom(frame, 1);
      i += 1;
      continue;
    }
    // A literal (a surrogate pair is copied whole: RE2 reads code points), or ^ and $.
    const code = source.codePointAt(i) ?? 0;
    const width = code > 0xffff ? 2 : 1;
    out += source.slice(i, i + width);
    addAtom(frame, 1);
    i += width;
  }
  const size = closeFrame(frames[0] ?? frame) + 2;
  if (size > MAX_PATTERN_SIZE) {
    throw new PatternError(`is too complex for the RE2 engine (about ${size} steps; at most ${MAX_PATTERN_SIZE})`);
  }
  return { source, re2Source: out, size };
}

/** Compiled RE2 programs by RE2 source, shared by every schema of the isolate; the oldest go first past the cap. */
const compiledPrograms = new Map<string, RE2JS>();
const MAX_CACHED_PROGRAMS = 512;

function compileProgram(re2Source: string): RE2JS {
  let program = compiledPrograms.get(re2Source);
  if (program === undefined) {
    try {
      program = RE2JS.compile(re2Source);
    } catch (error) {
      throw new PatternError(`cannot be compiled by the RE2 engine (${error instanceof Error ? error.message : String(error)})`);
    }
    if (compiledPrograms.size >= MAX_CACHED_PROGRAMS) {
      const oldest = compiledPrograms.keys().next();
      if (oldest.done !== true) compiledPrograms.delete(oldest.value);
    }
    compiledPrograms.set(re2Source, program);
  }
  return program;
}

/**
 * A checked pattern; its RE2 program is compiled on first use (checking a definition stays cheap, and a schema
 * that is never called never compiles) and kept with the schema.
 */
export class Pattern {
  readonly source: string;
  readonly re2Source: string;
  /** The estimated program size, known before compiling. */
  readonly estimatedSize: number;
  #program: RE2JS | undefined;
  #programSize = 0;

  constructor(source: string) {
    const info = checkPattern(source);
    this.source = source;
    this.re2Source = info.re2Source;
    this.estimatedSize = info.size;
  }

  get compiled(): boolean {
    return this.#program !== undefined;
  }

  /** Compiles now if needed. Throws PatternError when RE2 refuses the translation after all. */
  compile(): void {
    if (this.#program !== undefined) return;
    this.#program = compileProgram(this.re2Source);
    this.#programSize = this.#program.programSize();
  }

  /** Steps a test of `length` code units may take: RE2 advances every state of its program by each character. */
  steps(length: number): number {
    this.compile();
    return length * Math.max(this.#programSize, MIN_STEPS_PER_CHARACTER);
  }

  /** Whether the pattern matches anywhere in `text` (ECMAScript's RegExp#test, without the `g` flag). */
  test(text: string): boolean {
    this.compile();
    return this.#program?.test(text) ?? false;
  }
}

/** Even a tiny program costs about this many steps per character (the DFA's own work per character). */
const MIN_STEPS_PER_CHARACTER = 8;
