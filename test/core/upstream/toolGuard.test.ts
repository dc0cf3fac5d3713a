// An upstream tool's guard (src/core/upstream/toolGuard.ts): restricted unless the owner says public; annotations
// raise the guard, never lower it.
import { describe, expect, it } from "vitest";
import { annotationRisk, upstreamToolGuard } from "../../../src/core/upstream/toolGuard.ts";

describe("upstreamToolGuard", () => {
  it("restricts every tool by default, read-only ones included", () => {
    expect(upstreamToolGuard({ readOnlyHint: true }, {})).toEqual({ visibility: "restricted", risk: "safe" });
    expect(upstreamToolGuard(undefined, {})).toEqual({ visibility: "restricted", risk: "sensitive" });
    expect(upstreamToolGuard({ destructiveHint: true }, {})).toEqual({ visibility: "restricted", risk: "dangerous", confirm: "session" });
  });

  it("takes public from the upstream or the tool, the tool's setting first", () => {
    expect(upstreamToolGuard({ readOnlyHint: true }, { visibility: "public" }).visibility).toBe("public");
    expect(upstreamToolGuard({ readOnlyHint: true }, {}, { visibility: "public" }).visibility).toBe("public");
    expect(upstreamToolGuard({ readOnlyHint: true }, { visibility: "public" }, { visibility: "restricted" }).visibility).toBe("restricted");
  });

  it("lets a destructive hint raise the owner's risk, and no hint lower it", () => {
    expect(upstreamToolGuard({ readOnlyHint: true, destructiveHint: true }, { risk: "safe" })).toMatchObject({ risk: "dangerous", confirm: "session" });
    expect(upstreamToolGuard({ readOnlyHint: true }, { risk: "sensitive" }).risk).toBe("sensitive");
    expect(upstreamToolGuard(undefined, { risk: "safe" }).risk).toBe("safe");
    expect(upstreamToolGuard({ destructiveHint: true }, { confirm: "always" }).confirm).toBe("always");
  });

  it("reads both hints as destructive", () => {
    expect(annotationRisk({ readOnlyHint: true, destructiveHint: true })).toBe("dangerous");
    expect(annotationRisk({ readOnlyHint: true, destructiveHint: false })).toBe("safe");
  });
});
