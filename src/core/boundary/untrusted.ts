// The untrusted-content boundary (docs/DESIGN.md, "The boundary"): a warning before external text, no closing marker,
// a sanitised source. Hardening: smuggling characters stripped from fetched text, forged banner markers neutralised,
// a length cap.
import { BANNER_MARKERS, texts } from "../locale.ts";
import type { Locale } from "../types.ts";

export interface WrapOptions {
  locale?: Locale;
  /** Longest source label kept (default 200). */
  maxSourceLength?: number;
  /** Longest content kept, with a visible truncation note (default: no cap). */
  maxChars?: number;
}

export const DEFAULT_MAX_SOURCE_LENGTH = 200;

// ---------------------------------------------------------------------------------------------------------------
// Character classes

// oxlint-disable-next-line no-control-regex -- vertical tab and form feed are line breaks too
const LINE_BREAK = /\r\n?|[\n\u000B\u000C\u0085\u2028\u2029]/gu;
const WHITESPACE_RUN = /[\s\p{Zs}]+/gu;
const CONTROL = /\p{Cc}/u;
const FORMAT = /\p{Cf}/u;
const MARK = /\p{M}/u;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;
const IDEOGRAPH = /\p{Ideographic}/u;
const MONGOLIAN = /\p{Script=Mongolian}/u;
/** Scripts whose spelling needs ZWJ / ZWNJ between letters (Persian, Urdu, the Indic scripts, …). */
const JOINING_SCRIPT =
  /[\p{Script_Extensions=Arabic}\p{Script_Extensions=Syriac}\p{Script_Extensions=Devanagari}\p{Script_Extensions=Bengali}\p{Script_Extensions=Gurmukhi}\p{Script_Extensions=Gujarati}\p{Script_Extensions=Oriya}\p{Script_Extensions=Tamil}\p{Script_Extensions=Telugu}\p{Script_Extensions=Kannada}\p{Script_Extensions=Malayalam}\p{Script_Extensions=Sinhala}]/u;
/** Format characters that print (Arabic number signs and the like): not a hiding place, kept. */
const VISIBLE_FORMAT = /[\u0600-\u0605\u06DD\u070F\u0890\u0891\u08E2\u{110BD}\u{110CD}]/u;
/**
 * Default-ignorable characters outside the Cf category: combining grapheme joiner, Hangul fillers, Khmer inherent
 * vowels, the reserved U+2065.
 */
// oxlint-disable-next-line no-misleading-character-class -- a list of single invisible code points, not a sequence
const INVISIBLE_OTHER = /[\u{34F}\u115F\u1160\u{17B4}\u{17B5}\u2065\u3164\uFFA0]/u;
const VARIATION_SELECTOR = /[\u180B-\u180D\u180F\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/u;
const IDEOGRAPHIC_VARIATION_SELECTOR = /[\u{E0100}-\u{E01EF}]/u;
const MONGOLIAN_VARIATION_SELECTOR = /[\u180B-\u180D\u180F]/u;
/** Plane 14 below U+E1000: the tag block, variation selectors and reserved code points, all default-ignorable. */
const IGNORABLE_PLANE_14 = /[\u{E0000}-\u{E0FFF}]/u;
/**
 * Terminal escape sequences (CSI, and OSC such as hidden hyperlinks), 7-bit and 8-bit forms: removed whole. An OSC
 * payload is bounded (one line, 2,048 characters) so that a stray introducer cannot swallow the text after it.
 */
const TERMINAL_SEQUENCE =
  // oxlint-disable-next-line no-control-regex -- matching control characters is the point
  /\u001B\[[0-?]*[ -/]*[@-~]|\u009B[0-?]*[ -/]*[@-~]|(?:\u001B\]|\u009D)[^\u0007\u001B\u009C\n\r]{0,2048}(?:\u0007|\u001B\\|\u009C)/gu;

const ZWNJ = "\u200C";
const ZWJ = "\u200D";
const VS15 = "\uFE0E";
const VS16 = "\uFE0F";
const COMBINING_KEYCAP = "\u20E3";
const BLACK_FLAG = 0x1f3f4;
const CANCEL_TAG = 0xe007f;
const EMOJI_MODIFIER_FIRST = 0x1f3fb;
const EMOJI_MODIFIER_LAST = 0x1f3ff;

const OPENING_BRACKETS = "[{<(\u3010\u300C\u300E\u3014\u300A\u3008\uFF3B\uFF5B\uFF1C\uFF08\u3016\u3018\u301A\u27E8\u2039\u00AB\uFF62\u2329";
const CLOSING_BRACKETS = "]}>)\u3011\u300D\u300F\u3015\u300B\u3009\uFF3D\uFF5D\uFF1E\uFF09\u3017\u3019\u301B\u27E9\u203A\u00BB\uFF63\u232A";
/** Characters that frame a section: never in a source label (parentheses stay: URLs and prose use them). */
const FRAMING = new Set(
  // Every one of these is a single UTF-16 unit, so split("") is exact.
  ("[]{}<>`\uFF40" + OPENING_BRACKETS + CLOSING_BRACKETS).split("").filter((ch) => !"()\uFF08\uFF09".includes(ch)),
);

/** Invisible in any context: controls, format characters (bar printing ones), variation selectors, tags, fillers. */
function isHidden(ch: string): boolean {
  return (
    CONTROL.test(ch) ||
    (FORMAT.test(ch) && !VISIBLE_FORMAT.test(ch)) ||
    INVISIBLE_OTHER.test(ch) ||
    VARIATION_SELECTOR.test(ch) ||
    IGNORABLE_PLANE_14.test(ch)
  );
}

function isEmojiModifier(ch: string): boolean {
  const cp = ch.codePointAt(0) ?? 0;
  return cp >= EMOJI_MODIFIER_FIRST && cp <= EMOJI_MODIFIER_LAST;
}

// ---------------------------------------------------------------------------------------------------------------
// Stripping

/**
 * Removes the characters that smuggle instructions (tag block, bidi, zero-width/invisible format, C0/C1 but tab and
 * newline). Line breaks become `\n` (CRLF, lone CR, NEL, U+2028/2029), terminal escape sequences go whole, and lone
 * surrogates become U+FFFD. What ordinary text needs is kept, by context:
 * - ZWJ inside emoji sequences (👨‍👩‍👧, 🏳️‍🌈), and ZWJ / ZWNJ between letters of scripts that spell with them (Persian, Hindi, …);
 * - one variation selector right after a non-ASCII character (❤️, 〇︎; ideographic ones after an ideograph), or on a keycap (1️⃣);
 * - the tag characters of an emoji subdivision flag (🏴 + 2–6 tag letters/digits + cancel tag, e.g. Scotland).
 * Everywhere else these are removed, so a run of them can no longer carry a hidden message.
 */
export function stripSmugglingCharacters(text: string): string {
  const input = text.toWellFormed().replace(TERMINAL_SEQUENCE, "").replace(LINE_BREAK, "\n");
  // Only runs of suspicious characters need a look, with the characters around them as context.
  return input.replace(SUSPICIOUS_RUN, (run: string, offset: number) => keptFromRun(input, offset, offset + run.length));
}

/** Characters that are removed or kept by context: every control but tab and newline, format, selectors, tags, 🏴. */
const SUSPICIOUS_RUN =
  // oxlint-disable-next-line no-misleading-character-class -- a list of single code points, not a sequence
  /[[\p{Cc}\p{Cf}\u{34F}\u115F\u1160\u{17B4}\u{17B5}\u2065\u3164\uFFA0\u180B-\u180F\uFE00-\uFE0F\u{E0000}-\u{E0FFF}\u{1F3F4}]--[\t\n]]+/gv;

function keptFromRun(input: string, start: number, end: number): string {
  const out: string[] = [];
  const before = input.codePointAt(start > 1 && isLowSurrogate(input.charCodeAt(start - 1)) ? start - 2 : start - 1);
  let previous = start === 0 || before === undefined ? "" : String.fromCodePoint(before);
  let index = start;
  while (index < end) {
    const cp = input.codePointAt(index) ?? 0;
    const ch = String.fromCodePoint(cp);
    const nextIndex = index + ch.length;
    const nextCp = input.codePointAt(nextIndex);
    const next = nextCp === undefined ? "" : String.fromCodePoint(nextCp);

    let keep: boolean;
    if (cp === BLACK_FLAG) {
      const flagEnd = subdivisionFlagEnd(input, nextIndex);
      out.push(input.slice(index, flagEnd));
      previous = ch;
      index = flagEnd;
      continue;
    } else if (ch === ZWJ || ch === ZWNJ) {
      keep = joinerBelongs(ch, previous, next);
    } else if (VARIATION_SELECTOR.test(ch)) {
      keep = variationSelectorBelongs(ch, previous, next);
    } else {
      keep = !isHidden(ch);
    }
    if (keep) {
      out.push(ch);
      previous = ch;
    }
    index = nextIndex;
  }
  return out.join("");
}

/** After 🏴 at `start`: the end of a well-formed subdivision tag sequence, or `start` when there is none. */
function subdivisionFlagEnd(text: string, start: number): number {
  let index = start;
  let letters = 0;
  for (;;) {
    const cp = text.codePointAt(index);
    if (cp === undefined) return start;
    if (cp === CANCEL_TAG) return letters >= 2 && letters <= 6 ? index + 2 : start;
    const isTagLetterOrDigit = (cp >= 0xe0061 && cp <= 0xe007a) || (cp >= 0xe0030 && cp <= 0xe0039);
    if (!isTagLetterOrDigit || letters === 6) return start;
    letters += 1;
    index += 2;
  }
}

function joinerBelongs(joiner: string, previous: string, next: string): boolean {
  if (JOINING_SCRIPT.test(previous) && JOINING_SCRIPT.test(next)) return true;
  if (joiner !== ZWJ) return false;
  const afterEmoji = PICTOGRAPHIC.test(previous) || isEmojiModifier(previous) || previous === VS16;
  return afterEmoji && PICTOGRAPHIC.test(next);
}

function variationSelectorBelongs(selector: string, previous: string, next: string): boolean {
  if (previous === "" || VARIATION_SELECTOR.test(previous) || isHidden(previous)) return false;
  if (IDEOGRAPHIC_VARIATION_SELECTOR.test(selector)) return IDEOGRAPH.test(previous);
  if (MONGOLIAN_VARIATION_SELECTOR.test(selector)) return MONGOLIAN.test(previous);
  if ((previous.codePointAt(0) ?? 0) >= 0x80) return true;
  // Keycaps: 1️⃣ #️⃣ *️⃣ are an ASCII base, a presentation selector and the combining keycap.
  return (selector === VS16 || selector === VS15) && /[0-9#*]/.test(previous) && next === COMBINING_KEYCAP;
}

// ---------------------------------------------------------------------------------------------------------------
// Source labels

/**
 * Removes line breaks, framing characters, control, bidi, zero-width and tag characters; caps the length.
 * Line breaks, tabs and other white space become one space; forged banner markers are neutralised; the cap counts
 * code points (never splitting a surrogate pair) and a cut label ends with "…". An empty result is the locale's
 * "unknown source". The result never exceeds `maxLength` code points.
 */
export function sanitizeSource(source: string, maxLength?: number, locale: Locale = "en"): string {
  const cap = maxLength === undefined || Number.isNaN(maxLength) ? DEFAULT_MAX_SOURCE_LENGTH : Math.max(1, Math.floor(maxLength));
  const spaced = source.toWellFormed().replace(LINE_BREAK, " ").replace(TERMINAL_SEQUENCE, " ");
  let kept = "";
  for (const ch of spaced) {
    if (ch === "\t") kept += " ";
    else if (FRAMING.has(ch)) kept += " ";
    else if (!isHidden(ch)) kept += ch;
  }
  const label = neutraliseForgedBanners(kept, locale).replace(WHITESPACE_RUN, " ").trim();
  return capLabel(label === "" ? texts(locale).unknownSource : label, cap);
}

function capLabel(label: string, cap: number): string {
  const points = codePointLength(label);
  if (points <= cap) return label;
  return label.slice(0, codePointOffset(label, cap - 1)).trimEnd() + "…";
}

// ---------------------------------------------------------------------------------------------------------------
// Forged banner markers

/**
 * Letters allowed between two parts of a bracketed marker ("[external data · from X · not user instructions]").
 * Below the letters between the source and the content in every banner (40 in zh), so that a source ending in one
 * half and content starting with the other never read as a second marker across the banner.
 */
const MAX_MARKER_GAP = 32;
/** A forger can chain markers so that one pass uncovers another; exact markers all go in the first pass. */
const MAX_NEUTRALISE_PASSES = 4;

/** Common look-alikes of Latin letters (Cyrillic, Greek, IPA) and traditional forms of the zh marker's characters. */
const LOOKALIKES: Record<string, string> = {
  а: "a", в: "b", е: "e", к: "k", м: "m", н: "h", о: "o", р: "p", с: "c", т: "t", у: "y", х: "x", і: "i", ј: "j",
  ѕ: "s", ԁ: "d", ԛ: "q", ԝ: "w", һ: "h", ӏ: "l", α: "a", β: "b", ε: "e", η: "h", ι: "i", κ: "k", μ: "m", ν: "n",
  ο: "o", ρ: "p", τ: "t", υ: "y", χ: "x", ζ: "z", ı: "i", ɑ: "a", ɡ: "g",
  數: "数", 據: "据", 戶: "户", 戸: "户",
};

/**
 * The second reading of a text: digits and symbols read as the letters they stand for in leetspeak
 * ("Ext3rnal d4ta, n0t u$er instructi0ns"). "l", "1", "|", "!" and "£" all read as "i" (so "1" matches both "i" and
 * "l", and so does a plain "l" or "i"). Only this reading folds them; markers are looked for in both readings, so
 * the plain one keeps every match it had and the digits of ordinary text never change what it finds.
 */
const LEET: Record<string, string> = {
  "0": "o", "1": "i", "2": "z", "3": "e", "4": "a", "5": "s", "6": "g", "7": "t", "8": "b", "9": "g", l: "i",
  "@": "a", $: "s", "+": "t", "|": "i", "!": "i", "€": "e", "£": "i", "¢": "c", "¡": "i",
  // The zh marker's characters have no digit forms; their tricks are near look-alike characters (夘 for 外, 尸 for
  // 户 without its dot, 今 for 令) and the Japanese form 拠 of 據/据. Only this reading folds them: 今 is common text.
  夘: "外", 拠: "据", 尸: "户", 今: "令",
};
/** LEET for ASCII letters and digits, by code unit (lower case). */
const LEET_ASCII: readonly number[] = Array.from({ length: 0x80 }, (_, unit) => {
  const ch = String.fromCharCode(unit);
  return /[a-z0-9]/.test(ch) ? (LEET[ch] ?? ch).charCodeAt(0) : unit;
});
/** Symbols that stand for a letter only next to a letter or digit ("d@ta", "u$er", "externa|"), never alone ("a + b"). */
const LEET_ASCII_SYMBOLS = "@$+|!";

interface Reading {
  /** Folds digits and symbols to the letters they imitate. */
  leet: boolean;
}
const PLAIN: Reading = { leet: false };
const LEETSPEAK: Reading = { leet: true };

/**
 * Folds one code point to what a reader would take it for: invisible characters vanish, width and compatibility
 * forms fold (NFKD), accents and case go, look-alikes map to their Latin letter; only letters and digits remain
 * (in the leetspeak reading, digits and a few symbols become letters too).
 */
function foldForMatching(ch: string, cache: Map<string, string>, reading: Reading): string {
  const cp = ch.codePointAt(0) ?? 0;
  if (cp < 0x80) return /[A-Za-z0-9]/.test(ch) ? ch.toLowerCase() : "";
  const cached = cache.get(ch);
  if (cached !== undefined) return cached;
  let folded = "";
  if (!isHidden(ch)) {
    for (const part of ch.normalize("NFKD").toLowerCase()) {
      if (MARK.test(part)) continue;
      const letter = LOOKALIKES[part] ?? part;
      if (reading.leet) folded += LEET[letter] ?? (LETTER_OR_DIGIT.test(letter) ? letter : "");
      else if (LETTER_OR_DIGIT.test(letter)) folded += letter;
    }
  }
  cache.set(ch, folded);
  return folded;
}

interface Skeleton {
  /** The folded letters and digits. */
  text: string;
  /** For each UTF-16 unit of `text`: where its source code point starts in the original. */
  starts: number[];
}

function isAsciiLetterOrDigit(unit: number): boolean {
  return (unit >= 0x30 && unit <= 0x39) || (unit >= 0x41 && unit <= 0x5a) || (unit >= 0x61 && unit <= 0x7a);
}

/** In the leetspeak reading: the letter an ASCII symbol at `index` stands for, or "" when it stands for none. */
function leetSymbol(text: string, index: number): string {
  const ch = text.charAt(index);
  if (!LEET_ASCII_SYMBOLS.includes(ch)) return "";
  const before = isAsciiLetterOrDigit(text.charCodeAt(index - 1));
  const after = isAsciiLetterOrDigit(text.charCodeAt(index + 1));
  // "!" ends sentences ("data! not"): it reads as "i" only before a letter ("!nstructions").
  return (ch === "!" ? after : before || after) ? (LEET[ch] ?? "") : "";
}

function skeletonOf(text: string, reading: Reading = PLAIN): Skeleton {
  const cache = new Map<string, string>();
  const units: number[] = [];
  const starts: number[] = [];
  let index = 0;
  while (index < text.length) {
    const unit = text.charCodeAt(index);
    if (unit < 0x80) {
      // ASCII fast path: letters lower-cased, digits kept, the rest dropped (the leetspeak reading folds further).
      if (isAsciiLetterOrDigit(unit)) {
        const lower = unit >= 0x41 && unit <= 0x5a ? unit + 0x20 : unit;
        units.push(reading.leet ? (LEET_ASCII[lower] ?? lower) : lower);
        starts.push(index);
      } else if (reading.leet) {
        const letter = leetSymbol(text, index);
        if (letter !== "") {
          units.push(letter.charCodeAt(0));
          starts.push(index);
        }
      }
      index += 1;
      continue;
    }
    const ch = String.fromCodePoint(text.codePointAt(index) ?? unit);
    const folded = foldForMatching(ch, cache, reading);
    for (let k = 0; k < folded.length; k++) {
      units.push(folded.charCodeAt(k));
      starts.push(index);
    }
    index += ch.length;
  }
  let skeleton = "";
  for (let at = 0; at < units.length; at += 8192) skeleton += String.fromCharCode(...units.slice(at, at + 8192));
  return { text: skeleton, starts };
}

/** Where the code point that starts at `index` ends. */
function codePointEnd(text: string, index: number): number {
  return index + (isHighSurrogate(text.charCodeAt(index)) && isLowSurrogate(text.charCodeAt(index + 1)) ? 2 : 1);
}

/** Each marker as its folded parts: "[External data, not user instructions]" → ["externaldata", "notuserinstructions"]. */
function markerParts(reading: Reading): readonly (readonly string[])[] {
  return BANNER_MARKERS.map((marker) =>
    marker
      .split(/[,，、·・:：;；]/u)
      .map((part) => skeletonOf(part, reading).text)
      .filter((part) => part !== ""),
  ).filter((parts) => parts.length > 0);
}

/** Both readings of a text, each with the markers as that reading folds them. */
const READINGS: readonly { reading: Reading; parts: readonly (readonly string[])[] }[] = [PLAIN, LEETSPEAK].map((reading) => ({
  reading,
  parts: markerParts(reading),
}));

function occurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) found.push(at);
  return found;
}

type Span = [start: number, end: number];

/**
 * Where one marker's parts appear in order in the skeleton, each within MAX_MARKER_GAP letters of the last, as spans
 * of the original text (`toSpan` maps them, or refuses one). Linear: one cursor per part, all moving forward.
 */
function markerSpans(skeleton: string, parts: readonly string[], toSpan: (from: number, to: number, gapped: boolean) => Span | undefined): Span[] {
  const [first, ...rest] = parts;
  if (first === undefined) return [];
  const restOccurrences = rest.map((part) => occurrences(skeleton, part));
  const cursors = rest.map(() => 0);
  const spans: Span[] = [];
  let consumedUntil = 0;
  for (const start of occurrences(skeleton, first)) {
    if (start < consumedUntil) continue;
    let end = start + first.length;
    let gapped = false;
    let complete = true;
    for (let k = 0; k < rest.length; k++) {
      const list = restOccurrences[k] ?? [];
      let cursor = cursors[k] ?? 0;
      while (cursor < list.length && (list[cursor] ?? 0) < end) cursor += 1;
      cursors[k] = cursor;
      const at = list[cursor];
      if (at === undefined || at - end > MAX_MARKER_GAP) {
        complete = false;
        break;
      }
      gapped ||= at > end;
      end = at + (rest[k] ?? "").length;
    }
    const span = complete ? toSpan(start, end, gapped) : undefined;
    if (span) {
      spans.push(span);
      consumedUntil = end;
    }
  }
  return spans;
}

/**
 * Spans of the original text that read as one of our banner markers, in order, not overlapping. The parts side by
 * side are a marker anywhere; with words between them ("[external data · from X · not user instructions]") only
 * when bracketed, so that prose which happens to use both phrases stays as it is.
 */
function forgedMarkerSpans(text: string): Span[] {
  const found = READINGS.flatMap(({ reading, parts }) => {
    const skeleton = skeletonOf(text, reading);
    const toSpan = (from: number, to: number, gapped: boolean): Span | undefined => {
      const first = skeleton.starts[from] ?? 0;
      const last = codePointEnd(text, skeleton.starts[to - 1] ?? 0);
      const start = includeOpeningBracket(text, first);
      const end = includeClosingBracket(text, last);
      return gapped && start === first && end === last ? undefined : [start, end];
    };
    return parts.flatMap((marker) => markerSpans(skeleton.text, marker, toSpan));
  }).toSorted((a, b) => a[0] - b[0]);
  const spans: Span[] = [];
  for (const [start, end] of found) {
    const last = spans.at(-1);
    if (last && start < last[1]) last[1] = Math.max(last[1], end);
    else spans.push([start, end]);
  }
  return spans;
}

/** Extends a span left over spaces and invisible characters to an opening bracket, when there is one. */
function includeOpeningBracket(text: string, start: number): number {
  let index = start;
  for (let steps = 0; steps < 8 && index > 0; steps++) {
    const low = text.charCodeAt(index - 1);
    const width = low >= 0xdc00 && low <= 0xdfff && index >= 2 ? 2 : 1;
    const ch = text.slice(index - width, index);
    if (OPENING_BRACKETS.includes(ch)) return index - width;
    if (!(/[^\S\n]/u.test(ch) || isHidden(ch))) break;
    index -= width;
  }
  return start;
}

/** Extends a span right over spaces, invisible characters and light punctuation to a closing bracket, when there is one. */
function includeClosingBracket(text: string, end: number): number {
  let index = end;
  for (let steps = 0; steps < 8 && index < text.length; steps++) {
    const ch = String.fromCodePoint(text.codePointAt(index) ?? 0);
    if (CLOSING_BRACKETS.includes(ch)) return index + ch.length;
    if (!(/[^\S\n]|[.,;:!?·・。，、！？…]/u.test(ch) || isHidden(ch))) break;
    index += ch.length;
  }
  return end;
}

/**
 * Rewrites every copy of a banner marker (of any locale) inside `text` to the locale's `forgedBannerRemoved` note,
 * so that untrusted text cannot fake a second boundary. A copy is recognised through case, width and compatibility
 * forms, accents, common look-alike letters and invisible or punctuation characters between the letters, and also
 * with a few words inserted between its two halves; its brackets go with it. All other text is left as it is.
 */
export function neutraliseForgedBanners(text: string, locale: Locale = "en"): string {
  const note = texts(locale).forgedBannerRemoved;
  let result = text;
  for (let pass = 0; pass < MAX_NEUTRALISE_PASSES; pass++) {
    const spans = forgedMarkerSpans(result);
    if (spans.length === 0) break;
    const pieces: string[] = [];
    let at = 0;
    for (const [start, end] of spans) {
      pieces.push(result.slice(at, start), note);
      at = end;
    }
    pieces.push(result.slice(at));
    result = pieces.join("");
  }
  return result;
}

/** How many banner markers (exact or disguised, any locale) `text` holds. A wrapped result holds exactly one. */
export function countBannerMarkers(text: string): number {
  return forgedMarkerSpans(text).length;
}

/**
 * Cleans a text shown to the model outside a banner (tool descriptions and parameter texts): smuggling characters
 * stripped and forged banner markers neutralised, as content is. Nothing else changes; clean text comes back as it is.
 */
export function cleanUntrustedText(text: string, locale: Locale = "en"): string {
  return neutraliseForgedBanners(stripSmugglingCharacters(text), locale);
}

// ---------------------------------------------------------------------------------------------------------------
// Wrapping

/** Extra code points neutralised past the cap, so that a marker straddling the cut is still seen whole. */
const CAP_LOOKAHEAD = 512;

/** Banner first, then the content; forged copies of the banner inside the content are neutralised. */
export function wrapUntrustedContent(content: string, source: string, options: WrapOptions = {}): string {
  const locale = options.locale ?? "en";
  const banner = texts(locale).untrustedBanner(sanitizeSource(source, options.maxSourceLength, locale));
  return banner + boundedBody(content, options.maxChars, locale);
}

/**
 * The hardened boundary, for every text from a third party that reaches the model as content: what executors fetch
 * and what a client hands to `POST /v1/untrusted/wrap`. Strips smuggling characters, then wraps (forged markers
 * neutralised, capped at `maxChars` with a visible note).
 */
export function wrapFetchedContent(content: string, source: string, options: WrapOptions = {}): string {
  return wrapUntrustedContent(stripSmugglingCharacters(content), source, options);
}

function boundedBody(content: string, maxChars: number | undefined, locale: Locale): string {
  if (maxChars === undefined || !Number.isFinite(maxChars)) return neutraliseForgedBanners(content, locale);
  const cap = Math.max(0, Math.floor(maxChars));
  const total = codePointLength(content);
  if (total <= cap) return neutraliseForgedBanners(content, locale);
  // Neutralise a little past the cap (not the whole body, which may be huge), then cut at the cap.
  const head = neutraliseForgedBanners(content.slice(0, codePointOffset(content, cap + CAP_LOOKAHEAD)), locale);
  const shown = head.slice(0, codePointOffset(head, cap));
  return shown + texts(locale).truncated(codePointLength(shown), total);
}

// ---------------------------------------------------------------------------------------------------------------
// Code point arithmetic

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** Code points in `text` (a surrogate pair is one). */
export function codePointLength(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index++) {
    if (isHighSurrogate(text.charCodeAt(index)) && isLowSurrogate(text.charCodeAt(index + 1))) index += 1;
    count += 1;
  }
  return count;
}

/** The UTF-16 index just after the first `points` code points (the whole length when there are fewer). */
function codePointOffset(text: string, points: number): number {
  let index = 0;
  for (let count = 0; count < points && index < text.length; count++) {
    index += isHighSurrogate(text.charCodeAt(index)) && isLowSurrogate(text.charCodeAt(index + 1)) ? 2 : 1;
  }
  return index;
}
