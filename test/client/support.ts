// Shared parts of the client tests: a client wired to the real Worker, and the scripted model's moves.
import { exports } from "cloudflare:workers";
import { createToolgate } from "@toolgate/client";
import type { FetchLike, Toolgate, ToolgateOptions } from "@toolgate/client";
import { BASE, token } from "../http/helpers.ts";

/** The Worker's own fetch, as the client's transport. */
export const workerFetch: FetchLike = (input, init) => exports.default.fetch(input, init);

/** A level-2 principal with the mail and files groups, and a client for it. */
export async function clientFor(sub: string, options: Partial<ToolgateOptions> = {}): Promise<Toolgate> {
  const jwt = await token({ sub, level: 2, groups: ["mail", "files", "web"] });
  return createToolgate({ url: `${BASE}/`, token: jwt, fetch: workerFetch, ...options });
}

/** The tool names of a prepared turn, whatever its shape. */
export function toolNames(tools: readonly Record<string, unknown>[]): string[] {
  return tools.map((tool) => {
    const fn = tool["function"];
    if (typeof fn === "object" && fn !== null && "name" in fn) return String(fn.name);
    return String(tool["name"]);
  });
}

/** What the scripted model does at each turn: search, run the found tool, then a tool that asks for confirmation. */
export interface Move {
  name: string;
  arguments: Record<string, unknown>;
}
export const SCRIPT: readonly Move[] = [
  { name: "search_tools", arguments: { query: "calculate" } },
  { name: "calculate", arguments: { expression: "17 * 3 + sqrt(81)" } },
  { name: "send_email", arguments: { to: ["bob@example.com"], subject: "The result", body: "It is 60." } },
];
export const FINAL_TEXT = "17 * 3 + sqrt(81) is 60; I emailed Bob.";
