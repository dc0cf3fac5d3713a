// The hardened boundary over HTTP (docs/DESIGN.md, "The boundary"): every payload of the injection corpus is served by the remote worker and
// fetched through POST /v1/sessions/:sid/execute of fetch_url, as a model's call would be, and must come back with
// exactly one banner, at the start, and none of the characters that smuggle instructions; ordinary text (Chinese,
// emoji, code) comes back exactly as served.
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { DEFAULT_LIMITS } from "../../src/core/config.ts";
import { BANNER_MARKERS, texts } from "../../src/core/locale.ts";
import { countBannerMarkers, sanitizeSource } from "../../src/core/boundary/untrusted.ts";
import { evalInjections, needsEvalData } from "../evalData.ts";
import { textUrl } from "../executors/helpers.ts";
import { api, json, sessionId, token } from "./helpers.ts";

interface ExecuteBody {
  content: string;
  isError: boolean;
}

/** Calls at once: enough to finish in a few seconds, few enough for a shared two-core machine. */
const CONCURRENCY = 12;

const payloads = evalInjections;

const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;
const EMOJI_MODIFIER = /[\u{1F3FB}-\u{1F3FF}]/u;
/** Scripts that spell words with ZWJ / ZWNJ between letters (a sample: Persian and Hindi are what the tests use). */
const JOINING_LETTER = /[\p{Script_Extensions=Arabic}\p{Script_Extensions=Devanagari}]/u;
/** Format characters that print (Arabic number signs and the like): nothing hides in them. */
const PRINTING_FORMAT = /[\u0600-\u0605\u06DD\u070F\u0890\u0891\u08E2\u{110BD}\u{110CD}]/u;
const BLACK_FLAG = 0x1f3f4;
const CANCEL_TAG = 0xe007f;

function isTagLetterOrDigit(cp: number): boolean {
  return (cp >= 0xe0061 && cp <= 0xe007a) || (cp >= 0xe0030 && cp <= 0xe0039);
}

/**
 * The characters of `text` that must never reach the model, as `U+XXXX` names: C0 and C1 controls but tab and newline
 * (CR and the Unicode line separators too: line breaks come back as \n), bidi controls, zero-width and other invisible
 * format characters, the Unicode tag block. Allowed, as untrusted.ts documents: ZWJ inside an emoji sequence, ZWJ and
 * ZWNJ between letters of scripts that spell with them, and the tag letters of an emoji subdivision flag (🏴 + 2–6 tag
 * letters or digits + cancel tag).
 */
function smuggled(text: string): string[] {
  const points = Array.from(text);
  const found: string[] = [];
  for (let index = 0; index < points.length; index++) {
    const ch = points[index] ?? "";
    const cp = ch.codePointAt(0) ?? 0;
    if (cp === BLACK_FLAG) {
      let end = index + 1;
      while (end < points.length && end - index <= 6 && isTagLetterOrDigit(points[end]?.codePointAt(0) ?? 0)) end++;
      const letters = end - index - 1;
      if (letters >= 2 && points[end]?.codePointAt(0) === CANCEL_TAG) index = end; // a subdivision flag, kept whole
      continue;
    }
    if (ch === "\t" || ch === "\n") continue;
    const previous = points[index - 1] ?? "";
    const next = points[index + 1] ?? "";
    if (ch === "\u200D" && (PICTOGRAPHIC.test(previous) || EMOJI_MODIFIER.test(previous) || previous === "\uFE0F") && PICTOGRAPHIC.test(next)) continue;
    if ((ch === "\u200D" || ch === "\u200C") && JOINING_LETTER.test(previous) && JOINING_LETTER.test(next)) continue;
    const forbidden = /\p{Cc}|\u2028|\u2029/u.test(ch) || (/\p{Cf}/u.test(ch) && !PRINTING_FORMAT.test(ch)) || (cp >= 0xe0000 && cp <= 0xe007f);
    if (forbidden) found.push(`U+${cp.toString(16).toUpperCase().padStart(4, "0")}`);
  }
  return found;
}

/** Ordinary text beyond the corpus: it must come back byte for byte (the exceptions above included). */
const ORDINARY: string[] = [
  "今天的天气很好，我们去公园散步吧。数据仅供参考。",
  "Family 👨‍👩‍👧‍👦, rainbow flag 🏳️‍🌈, skin tone 👍🏽, heart ❤️, keycap 1️⃣, Scotland 🏴󠁧󠁢󠁳󠁣󠁴󠁿, Japan 🇯🇵",
  "function add(a, b) {\n\treturn a + b; // 加法\n}\nconst s = `${add(1, 2)}`;\nif (x < 3 && y > 2) { console.log(\"ok\"); }",
  "می‌خواهم کتاب بخوانم — Persian with ZWNJ; हिन्दी क्‍ष with ZWJ",
  "| col | 值 |\n|---|---|\n| [link](https://example.com/a_b?c=d&e=f) | <b>bold</b> |",
];

function bannerFor(url: string): string {
  return texts("en").untrustedBanner(sanitizeSource(`fetch_url ${url}`));
}

async function inBatches<T>(items: readonly T[], size: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      const item = items[index];
      if (item !== undefined) await work(item, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the injection corpus through POST /v1/sessions/:sid/execute of fetch_url", () => {
  let caller = "";
  beforeAll(async () => {
    // fetch_url needs level 1 and the web group; a fresh principal, so that its rate-limit counter starts at zero.
    caller = await token({ sub: `corpus-${crypto.randomUUID()}`, level: 1, groups: ["web"] });
  });

  async function fetchThrough(text: string, sid: string): Promise<{ url: string; body: ExecuteBody }> {
    const url = textUrl(text);
    const response = await api(`/v1/sessions/${sid}/execute`, { token: caller, body: { name: "fetch_url", arguments: { url } } });
    expect(response.status).toBe(200);
    return { url, body: await json<ExecuteBody>(response) };
  }

  it("the checker finds what it must and lets ordinary text pass", (context) => {
    needsEvalData(context);
    expect(smuggled("a\u200Bb\u202Ec\u0007d\r\u{E0041}\u00AD\uFEFF\u2066")).toEqual(
      ["U+200B", "U+202E", "U+0007", "U+000D", "U+E0041", "U+00AD", "U+FEFF", "U+2066"],
    );
    expect(smuggled("\u{1F3F4}\u{E0041}\u{E0042}")).toEqual(["U+E0041", "U+E0042"]); // no cancel tag: not a flag
    expect(smuggled("a\u200Db")).toEqual(["U+200D"]);
    for (const text of ORDINARY) expect(smuggled(text)).toEqual([]);
    expect(payloads.length).toBeGreaterThanOrEqual(300);
    // One fresh principal runs them all: under its rate limit (the suite's config keeps the default).
    expect(payloads.length + ORDINARY.length).toBeLessThan(DEFAULT_LIMITS.rateLimitPerMinute);
    expect(payloads.filter((p) => smuggled(p.text).length > 0).length).toBeGreaterThan(5);
    expect(payloads.filter((p) => countBannerMarkers(p.text) > 0).length).toBeGreaterThan(0);
  });

  it("every payload comes back with exactly one banner, at the start, and no smuggling character", async (context) => {
    needsEvalData(context);
    const sid = sessionId("corpus");
    const failures: string[] = [];
    let clean = 0;
    // The Worker logs one audit line per execute: collect them (instead of 335 lines of output) and count them.
    const audited: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: unknown) => {
      if (typeof line === "string" && line.includes(`"session":"${sid}"`)) audited.push(line);
    });
    await inBatches(payloads, CONCURRENCY, async (payload, index) => {
      const { url, body } = await fetchThrough(payload.text, sid);
      const problems: string[] = [];
      if (body.isError) problems.push(`tool error ${body.content.slice(0, 200)}`);
      if (!body.content.startsWith(bannerFor(url))) problems.push("banner not at the start");
      if (!BANNER_MARKERS.some((marker) => body.content.startsWith(marker))) problems.push("content does not start with a marker");
      const markers = countBannerMarkers(body.content);
      if (markers !== 1) problems.push(`${markers} banner markers`);
      const kept = smuggled(body.content);
      if (kept.length > 0) problems.push(`kept ${[...new Set(kept)].join(" ")}`);
      // Ordinary text (nothing to strip, no banner copy to neutralise) comes back exactly as served.
      if (payload.text.isWellFormed() && smuggled(payload.text).length === 0 && countBannerMarkers(payload.text) === 0) {
        clean++;
        if (body.content !== bannerFor(url) + payload.text) problems.push("ordinary text changed");
      }
      if (problems.length > 0) failures.push(`#${index} (${payload.source}): ${problems.join(", ")}`);
    });
    expect(failures).toEqual([]);
    expect(clean).toBeGreaterThan(200);
    expect(audited).toHaveLength(payloads.length);
    expect(audited.every((line) => line.includes('"tool":"fetch_url","decision":"allow"'))).toBe(true);
  }, 60_000);

  it("ordinary Chinese, emoji and code come back unchanged", async () => {
    const sid = sessionId("corpus");
    for (const text of ORDINARY) {
      const { url, body } = await fetchThrough(text, sid);
      expect(body.isError).toBe(false);
      expect(body.content).toBe(bannerFor(url) + text);
      expect(countBannerMarkers(body.content)).toBe(1);
    }
  });
});
