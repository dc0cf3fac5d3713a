import { assert, property, string } from "fast-check";
import { describe, expect, it } from "vitest";
import { fitToolName, isPortableToolName, PORTABLE_TOOL_NAME, prefixedToolName } from "../../../src/core/tools/toolNames.ts";

describe("fitToolName", () => {
  it("keeps a name that every provider accepts", () => {
    expect(fitToolName("get_weather")).toBe("get_weather");
    expect(fitToolName("a-b_C9")).toBe("a-b_C9");
    expect(fitToolName("x".repeat(64))).toBe("x".repeat(64));
  });

  it("fits dotted, slashed, long and non-Latin names with a readable head and a hash", () => {
    const dotted = fitToolName("github.create_issue");
    expect(dotted).toMatch(/^github_create_issue_[0-9a-z]{10}$/);
    expect(fitToolName("fs/read file")).toMatch(/^fs_read_file_[0-9a-z]{10}$/);
    const long = fitToolName("y".repeat(65));
    expect(long).toHaveLength(64);
    expect(long.startsWith("y".repeat(53))).toBe(true);
    expect(fitToolName("天气")).toMatch(/^tool_[0-9a-z]{10}$/);
    expect(fitToolName("")).toMatch(/^tool_[0-9a-z]{10}$/);
  });

  it("is deterministic and tells apart names whose heads are the same", () => {
    expect(fitToolName("a.b")).toBe(fitToolName("a.b"));
    expect(fitToolName("a.b")).not.toBe(fitToolName("a/b"));
    expect(fitToolName(`${"z".repeat(70)}1`)).not.toBe(fitToolName(`${"z".repeat(70)}2`));
  });

  it("prefixes an upstream's tools with two underscores", () => {
    expect(prefixedToolName("everything", "echo")).toBe("everything__echo");
    expect(prefixedToolName("srv", "tools.list")).toMatch(/^srv__tools_list_[0-9a-z]{10}$/);
  });

  it("always gives a portable name, and different names never meet", () => {
    assert(
      property(string({ maxLength: 200 }), string({ maxLength: 200 }), (first, second) => {
        const fitted = fitToolName(first);
        expect(PORTABLE_TOOL_NAME.test(fitted)).toBe(true);
        expect(isPortableToolName(fitted)).toBe(true);
        expect(fitToolName(fitted)).toBe(fitted);
        const bothKept = isPortableToolName(first) && isPortableToolName(second);
        expect(first === second || bothKept || fitToolName(first) !== fitToolName(second)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
