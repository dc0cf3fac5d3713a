// The kept connection of an upstream object (durable/upstreamClient.ts): shared by calls that follow each other,
// dropped on failure, on a new key and after the idle time; a forgotten session retried once on a fresh connection.
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect, it } from "vitest";
import { ConnectionKeeper } from "../../src/durable/upstreamClient.ts";
import type { UpstreamConnection } from "../../src/durable/upstreamClient.ts";

interface Opened {
  connection: UpstreamConnection;
  closed: boolean;
}

/** Numbers of the connections the factories made (1, 2, … in the order opened). */
const numbers = new WeakMap<UpstreamConnection, number>();

function factory(): { opened: Opened[]; open: () => Promise<UpstreamConnection> } {
  const opened: Opened[] = [];
  return {
    opened,
    open: () => {
      const entry: Opened = {
        closed: false,
        connection: {
          // Never connected: the keeper hands it to `run`, which here only reads its number.
          client: new Client({ name: "keeper-test", version: "0" }),
          transport: "streamable-http",
          signal: new AbortController().signal,
          close: async () => {
            entry.closed = true;
          },
        },
      };
      opened.push(entry);
      numbers.set(entry.connection, opened.length);
      return Promise.resolve(entry.connection);
    },
  };
}

const numberOf = async (connection: UpstreamConnection): Promise<number> => numbers.get(connection) ?? 0;

describe("ConnectionKeeper", () => {
  it("shares one connection between calls with the same key, and opens another for a new key", async () => {
    const keeper = new ConnectionKeeper(60_000);
    const { opened, open } = factory();
    expect(await keeper.use("a", open, numberOf)).toBe(1);
    expect(await keeper.use("a", open, numberOf)).toBe(1);
    expect(await Promise.all([keeper.use("a", open, numberOf), keeper.use("a", open, numberOf)])).toEqual([1, 1]);
    expect(await keeper.use("b", open, numberOf)).toBe(2);
    await Promise.resolve();
    expect(opened.map((fake) => fake.closed)).toEqual([true, false]);
    keeper.drop();
  });

  it("drops the connection after a failure and opens a fresh one for the next call", async () => {
    const keeper = new ConnectionKeeper(60_000);
    const { opened, open } = factory();
    await keeper.use("a", open, numberOf);
    await expect(keeper.use("a", open, () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await keeper.use("a", open, numberOf)).toBe(2);
    expect(opened[0]?.closed).toBe(true);
    keeper.drop();
  });

  it("sends a call once more on a fresh connection when the kept one's session is gone (404), never twice", async () => {
    const keeper = new ConnectionKeeper(60_000);
    const { opened, open } = factory();
    await keeper.use("a", open, numberOf);
    let runs = 0;
    const gone = async (connection: UpstreamConnection): Promise<number> => {
      runs += 1;
      if (numbers.get(connection) === 1) throw new StreamableHTTPError(404, "session not found");
      return numberOf(connection);
    };
    expect(await keeper.use("a", open, gone)).toBe(2);
    expect(runs).toBe(2);
    // On a fresh connection a 404 is the answer: no retry.
    runs = 0;
    keeper.drop();
    await expect(keeper.use("b", open, () => { runs += 1; return Promise.reject(new StreamableHTTPError(404, "no")); })).rejects.toThrow("no");
    expect(runs).toBe(1);
    expect(opened).toHaveLength(3);
  });

  it("closes the connection after the idle time without a call", async () => {
    const keeper = new ConnectionKeeper(20);
    const { opened, open } = factory();
    await keeper.use("a", open, numberOf);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(opened[0]?.closed).toBe(true);
    expect(await keeper.use("a", open, numberOf)).toBe(2);
    keeper.drop();
  });
});
