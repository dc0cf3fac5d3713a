// Characters that change how text looks without showing themselves: bidi controls (U+202E turns
// "Q3 report\u202Egpj.exe" into "Q3 reportexe.jpg" on screen), zero-width spaces and joiners, other format
// characters (Unicode category Cf, tag characters included), control characters, variation selectors and the
// invisible fillers. What a person approves must look like what runs: an approver is shown each of them as a visible
// marker naming its code point, and the arguments that hold one are flagged.
import { childField } from "../jsonSchema/field.ts";

/** One hidden character: a format or control character (not tab, line feed or carriage return), a separator of
 * lines or paragraphs, a variation selector or an invisible filler. */
// oxlint-disable-next-line no-misleading-character-class -- a list of single code points, not a sequence
const HIDDEN = /(?![\t\n\r])[\p{Cf}\p{Cc}\u2028\u2029\u115F\u1160\u3164\uFFA0\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/u;
const HIDDEN_ALL = new RegExp(HIDDEN.source, "gu");

/** Most argument paths flagged in one confirmation (past it, one more entry says how many were left out). */
export const MAX_FLAGGED_PATHS = 20;

export function hasHiddenCharacters(text: string): boolean {
  return HIDDEN.test(text);
}

/** The marker an approver sees in place of a hidden character: `⟦U+202E⟧`. */
export function hiddenMarker(character: string): string {
  const code = character.codePointAt(0) ?? 0;
  return `⟦U+${code.toString(16).toUpperCase().padStart(4, "0")}⟧`;
}

/** `text` with every hidden character replaced by its marker; the same string when it holds none. */
export function revealHidden(text: string): string {
  return hasHiddenCharacters(text) ? text.replace(HIDDEN_ALL, hiddenMarker) : text;
}

/**
 * The paths (`filename`, `to[1]`, `meta.title`) of the arguments whose value or key holds a hidden character, in
 * the arguments' order; at most MAX_FLAGGED_PATHS, then `…[+N more]`. A walk with a stack of its own: the arguments
 * passed the body's depth limit, and nothing here recurses.
 */
export function pathsWithHiddenCharacters(args: Record<string, unknown>): string[] {
  const found: string[] = [];
  let more = 0;
  const stack: { value: unknown; path: string }[] = [{ value: args, path: "" }];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const { value, path } = entry;
    if (typeof value === "string") {
      if (!hasHiddenCharacters(value)) continue;
      if (found.length < MAX_FLAGGED_PATHS) found.push(revealHidden(path));
      else more++;
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    const children: { value: unknown; path: string }[] = [];
    if (Array.isArray(value)) {
      const items: unknown[] = value;
      items.forEach((item, index) => children.push({ value: item, path: childField(path, index) }));
    } else {
      for (const [key, item] of Object.entries(value)) {
        const keyPath = childField(path, key);
        if (hasHiddenCharacters(key)) {
          if (found.length < MAX_FLAGGED_PATHS) found.push(revealHidden(keyPath));
          else more++;
        }
        children.push({ value: item, path: keyPath });
      }
    }
    // Reversed onto the stack, so that paths come out in the arguments' own order.
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i];
      if (child !== undefined) stack.push(child);
    }
  }
  if (more > 0) found.push(`…[+${more} more]`);
  return [...new Set(found)];
}
