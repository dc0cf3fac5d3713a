// The session's store of answers to its own server→client requests: bounded in count, size and time.
import { describe, expect, it } from "vitest";
import { MAX_ANSWER_BYTES, MAX_PENDING_ANSWERS, PendingAnswers } from "../../src/durable/pendingAnswers.ts";

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe("PendingAnswers", () => {
  it("takes an answer only for an expected id, once, whether it comes before or after its waiter", async () => {
    const answers = new PendingAnswers();
    expect(answers.deliver("nobody", "{}")).toBe("unknown_id");
    expect(answers.size).toBe(0);
    expect(answers.expect("early", 10_000)).toBe(true);
    expect(answers.deliver("early", "first")).toBe("held");
    expect(answers.deliver("early", "second")).toBe("unknown_id");
    expect(await answers.wait("early")).toBe("first");
    expect(answers.expect("late", 10_000)).toBe(true);
    const waiting = answers.wait("late");
    expect(answers.deliver("late", "now")).toBe("delivered");
    expect(await waiting).toBe("now");
    expect(answers.deliver("late", "again")).toBe("unknown_id");
    expect(answers.size).toBe(0);
  });

  it("holds at most MAX_PENDING_ANSWERS requests, and no answer over MAX_ANSWER_BYTES (UTF-8)", () => {
    const answers = new PendingAnswers();
    for (let i = 0; i < MAX_PENDING_ANSWERS; i++) expect(answers.expect(`r${i}`, 10_000)).toBe(true);
    expect(answers.expect("one-more", 10_000)).toBe(false);
    expect(answers.expect("r0", 10_000)).toBe(false);
    expect(answers.deliver("r0", "é".repeat(MAX_ANSWER_BYTES / 2 + 1))).toBe("too_large");
    expect(answers.deliver("r0", "x".repeat(MAX_ANSWER_BYTES))).toBe("held");
    answers.clear();
    expect(answers.size).toBe(0);
  });

  it("frees a request and its held answer when it expires; its waiter gets null", async () => {
    const answers = new PendingAnswers();
    expect(answers.expect("held", 20)).toBe(true);
    expect(answers.deliver("held", "kept until expiry")).toBe("held");
    expect(answers.expect("waited", 20)).toBe(true);
    const waiting = answers.wait("waited");
    await sleep(60);
    expect(answers.size).toBe(0);
    expect(await waiting).toBeNull();
    expect(await answers.wait("held")).toBeNull();
    expect(answers.deliver("held", "late")).toBe("unknown_id");
  });

  it("answers null at once for an id never expected, and to every waiter when the session ends", async () => {
    const answers = new PendingAnswers();
    expect(await answers.wait("never")).toBeNull();
    answers.expect("a", 10_000);
    const waiting = answers.wait("a");
    answers.clear();
    expect(await waiting).toBeNull();
  });
});
