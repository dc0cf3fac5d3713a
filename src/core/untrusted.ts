// The untrusted-content boundary (SPEC §3): a warning before external text, no closing marker, a sanitised source.
import type { Locale } from "./types.ts";

export interface WrapOptions {
  locale?: Locale;
  /** Longest source label kept (default 200). */
  maxSourceLength?: number;
  /** Longest content kept, with a visible truncation note (default: no cap). */
  maxChars?: number;
}

/** Removes line breaks, framing characters, control, bidi, zero-width and tag characters; caps the length. */
export function sanitizeSource(_source: string, _maxLength?: number): string {
  throw new Error("not implemented");
}

/** Removes the characters that smuggle instructions (tag block, bidi, zero-width/invisible format, C0/C1 but tab and newline). */
export function stripSmugglingCharacters(_text: string): string {
  throw new Error("not implemented");
}

/** Banner first, then the content; forged copies of the banner inside the content are neutralised. */
export function wrapUntrustedContent(_content: string, _source: string, _options?: WrapOptions): string {
  throw new Error("not implemented");
}

/** For executors returning fetched text: strip smuggling characters, cap, then wrap. */
export function wrapFetchedContent(_content: string, _source: string, _options?: WrapOptions): string {
  throw new Error("not implemented");
}
