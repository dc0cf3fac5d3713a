// The hardened boundary against the whole injection corpus: every payload is served by the remote worker and fetched
// through the fetch_url executor, as a model's call would be.
import { describe, expect, it } from "vitest";
import { texts } from "../../src/core/locale.ts";
import { countBannerMarkers, sanitizeSource } from "../../src/core/boundary/untrusted.ts";
import { evalInjections, everyTestNeedsEvalData } from "../evalData.ts";
import { configWith, fetchUrlTool, run, textUrl } from "./helpers.ts";

/**
 * Characters that must never come back: C0/C1 controls but tab and newline (CR, NEL and U+2028/2029 included: line
 * breaks come back as \n), bidi controls, zero-width and invisible format characters, the BOM, the Unicode tag block.
 * (The boundary keeps ZWJ inside emoji and tag characters inside an emoji subdivision flag; the corpus has neither,
 * so they are forbidden here too.)
 */
// oxlint-disable-next-line no-control-regex -- matching control characters is the point
const SMUGGLING = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u00AD\u061C\u180E\u200B-\u200F\u2028-\u202E\u2060-\u2064\u2066-\u206F\uFEFF\u{E0000}-\u{E007F}]/u;

const payloads = evalInjections;

async function inBatches<T, R>(items: readonly T[], size: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += size) {
    results.push(...(await Promise.all(items.slice(start, start + size).map((item, k) => work(item, start + k)))));
  }
  return results;
}

describe("injection corpus through fetch_url", () => {
  everyTestNeedsEvalData();

  it("has the corpus, smuggling characters included", () => {
    expect(payloads.length).toBeGreaterThanOrEqual(300);
    expect(payloads.some((p) => SMUGGLING.test(p.text))).toBe(true);
    expect(payloads.some((p) => countBannerMarkers(p.text) > 0)).toBe(true);
  });

  it("every payload comes back with exactly one banner, at the start, and no smuggling character", async () => {
    const config = configWith();
    const failures: string[] = [];
    let unchanged = 0;
    let clean = 0;
    await inBatches(payloads, 16, async (payload, index) => {
      const url = textUrl(payload.text);
      const result = await run(fetchUrlTool, { url }, config);
      const banner = texts("en").untrustedBanner(sanitizeSource(`fetch_url ${url}`));
      const problems: string[] = [];
      if (!result.startsWith(banner)) problems.push("banner not at the start");
      if (countBannerMarkers(result) !== 1) problems.push(`${countBannerMarkers(result)} banners`);
      const smuggled = SMUGGLING.exec(result);
      if (smuggled) problems.push(`U+${(smuggled[0].codePointAt(0) ?? 0).toString(16).toUpperCase()} kept`);
      // Ordinary text (nothing to strip, no banner copy to neutralise) comes back exactly as fetched.
      if (!SMUGGLING.test(payload.text) && countBannerMarkers(payload.text) === 0) {
        clean++;
        if (result === banner + payload.text) unchanged++;
        else problems.push("ordinary text changed");
      }
      if (problems.length) failures.push(`#${index} (${payload.source}): ${problems.join(", ")}`);
    });
    expect(failures).toEqual([]);
    expect(clean).toBeGreaterThan(200);
    expect(unchanged).toBe(clean);
  }, 60_000);
});
