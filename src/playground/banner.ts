// Finds the untrusted-content banner that the gateway puts first in a tool result holding fetched text (docs/DESIGN.md, "The boundary").
import { BANNER_MARKERS } from "../core/locale.ts";

export interface BannerSplit {
  /** The warning line, when the result starts with one. */
  banner?: string;
  /** Everything else, as the gateway returned it. */
  body: string;
}

/** Only a banner at the very start counts: that is the boundary's invariant; a copy further down is content. */
export function splitUntrustedBanner(content: string): BannerSplit {
  if (!BANNER_MARKERS.some((marker) => content.startsWith(marker))) return { body: content };
  const end = content.indexOf("\n");
  if (end === -1) return { banner: content, body: "" };
  return { banner: content.slice(0, end), body: content.slice(end + 1) };
}
