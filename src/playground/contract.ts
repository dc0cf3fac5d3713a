// The answers of the gateway's HTTP API (docs/http-api.md) as the page reads them, checked at the edge of the page so that a
// changed answer shows a clear message instead of a blank panel.
import { isRecord } from "../core/records.ts";

export interface PrepareStats {
  total: number;
  sent: number;
  tokensAll: number;
  tokensSent: number;
  /** Tokens of each answered tool (absent from an older gateway). */
  tokensPerTool?: number[];
  /** With autoDiscover on: the tools sent because the user's message matched them. */
  autoDiscovered?: string[];
}

export interface PrepareAnswer {
  tools: unknown[];
  applied: boolean;
  discovered: string[];
  stats: PrepareStats;
}

export interface FoundTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface Pagination {
  total: number;
  offset: number;
  returned: number;
  nextOffset?: number;
}

export interface SearchAnswer {
  found: string;
  tools: FoundTool[];
  pagination?: Pagination;
  related?: string[];
  hint: string;
}

/**
 * A call the guard holds, with what the approver must see: the tool, its description's first line and the call's
 * arguments (long values cut by the gateway, with a visible mark). `always`: the approval runs exactly these
 * arguments, once; `session`: this tool, with any arguments, for this session until the grant expires.
 */
export interface Confirmation {
  id: string;
  capability: string;
  mode: "session" | "always";
  expiresAt: number;
  tool: string;
  description: string;
  arguments: unknown;
  /** The arguments holding hidden characters (bidi, zero-width), which `arguments` shows as `⟦U+202E⟧` markers. */
  hiddenCharacters?: string[];
}

export interface ExecuteAnswer {
  content: string;
  isError: boolean;
  confirmation?: Confirmation;
}

export class UnexpectedAnswer extends Error {
  constructor(what: string) {
    super(`The gateway's answer is not what this page expects (${what}).`);
    this.name = "UnexpectedAnswer";
  }
}

function record(value: unknown, what: string): Record<string, unknown> {
  if (!isRecord(value)) throw new UnexpectedAnswer(`${what} is not an object`);
  return value;
}

function num(value: unknown, what: string): number {
  if (typeof value !== "number" || !Number.isFinite(value)) throw new UnexpectedAnswer(`${what} is not a number`);
  return value;
}

function str(value: unknown, what: string): string {
  if (typeof value !== "string") throw new UnexpectedAnswer(`${what} is not a string`);
  return value;
}

function present(value: unknown, what: string): unknown {
  if (value === undefined) throw new UnexpectedAnswer(`${what} is missing`);
  return value;
}

function strings(value: unknown, what: string): string[] {
  if (!Array.isArray(value)) throw new UnexpectedAnswer(`${what} is not a list`);
  return value.map((item, index) => str(item, `${what}[${index}]`));
}

export function readPrepare(data: unknown): PrepareAnswer {
  const answer = record(data, "prepare");
  if (!Array.isArray(answer["tools"])) throw new UnexpectedAnswer("prepare.tools is not a list");
  const stats = record(answer["stats"], "prepare.stats");
  return {
    tools: answer["tools"],
    applied: answer["applied"] === true,
    discovered: strings(answer["discovered"], "prepare.discovered"),
    stats: {
      total: num(stats["total"], "stats.total"),
      sent: num(stats["sent"], "stats.sent"),
      tokensAll: num(stats["tokensAll"], "stats.tokensAll"),
      tokensSent: num(stats["tokensSent"], "stats.tokensSent"),
      ...(Array.isArray(stats["tokensPerTool"])
        ? { tokensPerTool: stats["tokensPerTool"].map((item, index) => num(item, `stats.tokensPerTool[${index}]`)) }
        : {}),
      ...(stats["autoDiscovered"] === undefined ? {} : { autoDiscovered: strings(stats["autoDiscovered"], "stats.autoDiscovered") }),
    },
  };
}

export function readSearch(data: unknown): SearchAnswer {
  const answer = record(data, "search");
  if (!Array.isArray(answer["tools"])) throw new UnexpectedAnswer("search.tools is not a list");
  const tools = answer["tools"].map((item, index): FoundTool => {
    const tool = record(item, `search.tools[${index}]`);
    return {
      name: str(tool["name"], `search.tools[${index}].name`),
      description: typeof tool["description"] === "string" ? tool["description"] : "",
      parameters: isRecord(tool["parameters"]) ? tool["parameters"] : {},
    };
  });
  const result: SearchAnswer = { found: str(answer["found"], "search.found"), tools, hint: str(answer["hint"], "search.hint") };
  if (answer["pagination"] !== undefined) {
    const page = record(answer["pagination"], "search.pagination");
    result.pagination = {
      total: num(page["total"], "pagination.total"),
      offset: num(page["offset"], "pagination.offset"),
      returned: num(page["returned"], "pagination.returned"),
    };
    if (page["nextOffset"] !== undefined) result.pagination.nextOffset = num(page["nextOffset"], "pagination.nextOffset");
  }
  if (answer["related"] !== undefined) result.related = strings(answer["related"], "search.related");
  return result;
}

export function readExecute(data: unknown): ExecuteAnswer {
  const answer = record(data, "execute");
  const result: ExecuteAnswer = {
    content: str(answer["content"], "execute.content"),
    isError: answer["isError"] === true,
  };
  if (answer["confirmation"] !== undefined && answer["confirmation"] !== null) {
    const request = record(answer["confirmation"], "execute.confirmation");
    const mode = request["mode"];
    if (mode !== "session" && mode !== "always") throw new UnexpectedAnswer("confirmation.mode is neither session nor always");
    result.confirmation = {
      id: str(request["id"], "confirmation.id"),
      capability: str(request["capability"], "confirmation.capability"),
      mode,
      expiresAt: num(request["expiresAt"], "confirmation.expiresAt"),
      tool: str(request["tool"], "confirmation.tool"),
      description: str(request["description"], "confirmation.description"),
      // Without the arguments the approver would approve blind: a missing field is an unreadable answer.
      arguments: present(request["arguments"], "confirmation.arguments"),
      ...(request["hiddenCharacters"] === undefined ? {} : { hiddenCharacters: strings(request["hiddenCharacters"], "confirmation.hiddenCharacters") }),
    };
  }
  return result;
}

export function readToolList(data: unknown): unknown[] {
  const answer = record(data, "tools");
  if (!Array.isArray(answer["tools"])) throw new UnexpectedAnswer("tools is not a list");
  return answer["tools"];
}

/** `GET /v1/health`: only the version is shown; anything else is tolerated. */
export function readVersion(data: unknown): string | undefined {
  return isRecord(data) && typeof data["version"] === "string" ? data["version"] : undefined;
}
